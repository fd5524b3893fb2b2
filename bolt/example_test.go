package bolt_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/state"
)

// exampleStore creates a data file in a new temporary directory; done
// closes it and removes the directory.
func exampleStore() (s *bolt.Store, done func()) {
	dir, err := os.MkdirTemp("", "frameindex-example")
	if err != nil {
		log.Fatal(err)
	}
	s, err = bolt.Open(filepath.Join(dir, "frames.db"), bolt.Options{Create: true})
	if err != nil {
		os.RemoveAll(dir)
		log.Fatal(err)
	}
	return s, func() {
		s.Close()
		os.RemoveAll(dir)
	}
}

// Build a data file, mint a key and check a presented secret, as `serve`
// does on each request.
func Example() {
	s, done := exampleStore()
	defer done()

	info, err := s.PutLattice([]grid.Run{{Row: 9400, Col0: 21900, Col1: 21909}}, "example")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("grid:", info.Kind, info.Frames, "frames")

	if _, err := s.AddOrg(state.Org{ID: "acme", Name: "Acme Surveys"}); err != nil {
		log.Fatal(err)
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	key, secret, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "analyst", TTL: 30 * 24 * time.Hour, Now: now})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("secret:", secret[:len(state.SecretPrefix)]+"…", len(secret), "characters")

	ring, err := s.Keyring()
	if err != nil {
		log.Fatal(err)
	}
	found, err := ring.Lookup(secret, now.Add(time.Hour))
	fmt.Println("lookup:", found.ID == key.ID, err, found.Has(state.CapAskQuery), found.Has(state.CapFeatureRead))
	_, err = ring.Lookup(secret, now.AddDate(0, 2, 0))
	fmt.Println("two months on:", errors.Is(err, state.ErrExpiredKey))
	// Output:
	// grid: lattice 10 frames
	// secret: svc_sk_… 50 characters
	// lookup: true <nil> true false
	// two months on: true
}

// Grant credits, take some back, and read the ledger and this month's usage.
func ExampleStore_AddCredits() {
	s, done := exampleStore()
	defer done()
	if _, err := s.AddOrg(state.Org{ID: "acme", Plan: "pro"}); err != nil {
		log.Fatal(err)
	}

	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	if _, _, err := s.AddCredits("acme", 500, "invoice 2026-117", now); err != nil {
		log.Fatal(err)
	}
	org, entry, err := s.AddCredits("acme", -20, "duplicate grant", now.Add(time.Hour))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("balance:", org.Credits, "after", entry.Kind, entry.Credits)
	_, _, err = s.AddCredits("acme", -1000, "too much", now)
	fmt.Println(err)

	ledger, err := s.Ledger("acme", 0)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range ledger {
		fmt.Printf("%d %s %+d -> %d %q\n", e.Seq, e.Kind, e.Credits, e.Balance, e.Note)
	}
	u, err := s.Usage("acme", now)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d of %d answers, %d today (ceiling %d), %d credits\n",
		u.Month, u.AnswersThisMonth, u.Allowance, u.AnswersToday, u.DailyCeiling, u.Credits)
	// Output:
	// balance: 480 after adjust -20
	// organisation acme has 480 credits; cannot remove 1000
	// 1 grant +500 -> 500 "invoice 2026-117"
	// 2 adjust -20 -> 480 "duplicate grant"
	// 2026-11: 0 of 2000 answers, 0 today (ceiling 1000), 480 credits
}
