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
)

// Build a data file, mint a key and check a presented secret, as `serve`
// does on each request.
func Example() {
	dir, err := os.MkdirTemp("", "frameindex-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := bolt.Open(filepath.Join(dir, "frames.db"), bolt.Options{Create: true})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	info, err := s.PutLattice([]grid.Run{{Row: 9400, Col0: 21900, Col1: 21909}}, "example")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("grid:", info.Kind, info.Frames, "frames")

	if _, err := s.AddOrg(bolt.Org{ID: "acme", Name: "Acme Surveys"}); err != nil {
		log.Fatal(err)
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	key, secret, err := s.MintKey(bolt.MintRequest{OrgID: "acme", Preset: "analyst", TTL: 30 * 24 * time.Hour, Now: now})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("secret:", secret[:len(bolt.SecretPrefix)]+"…", len(secret), "characters")

	ring, err := s.Keyring()
	if err != nil {
		log.Fatal(err)
	}
	found, err := ring.Lookup(secret, now.Add(time.Hour))
	fmt.Println("lookup:", found.ID == key.ID, err, found.Has(bolt.CapAskQuery), found.Has(bolt.CapFeatureRead))
	_, err = ring.Lookup(secret, now.AddDate(0, 2, 0))
	fmt.Println("two months on:", errors.Is(err, bolt.ErrExpiredKey))
	// Output:
	// grid: lattice 10 frames
	// secret: svc_sk_… 50 characters
	// lookup: true <nil> true false
	// two months on: true
}
