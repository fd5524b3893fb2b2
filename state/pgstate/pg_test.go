package pgstate_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frameindex/state"
	"frameindex/state/pgstate"
	"frameindex/state/pgstate/pgtest"
	"frameindex/state/statetest"
)

var t0 = statetest.T0

func TestMigrate(t *testing.T) {
	c := pgtest.Shared(t)
	ctx := context.Background()
	url := c.NewDatabase(t)
	_, err := pgstate.Open(ctx, url, pgstate.Options{})
	if !errors.Is(err, pgstate.ErrSchema) || !strings.Contains(err.Error(), "frameindex state migrate") {
		t.Fatalf("Open of an empty database: %v", err)
	}
	// Several processes migrating at once apply each migration once.
	var wg sync.WaitGroup
	var applied atomic.Int64
	for range 4 {
		wg.Go(func() {
			vs, err := pgstate.Migrate(ctx, url)
			if err != nil {
				t.Error(err)
			}
			applied.Add(int64(len(vs)))
		})
	}
	wg.Wait()
	if got := applied.Load(); got != int64(pgstate.SchemaVersion()) {
		t.Fatalf("applied %d migrations in all, want %d", got, pgstate.SchemaVersion())
	}
	if vs, err := pgstate.Migrate(ctx, url); err != nil || len(vs) != 0 {
		t.Fatalf("Migrate of a current database: %v %v", vs, err)
	}
	s, err := pgstate.Open(ctx, url, pgstate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES (99, 'future')"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = pgstate.Open(ctx, url, pgstate.Options{})
	if !errors.Is(err, pgstate.ErrSchema) || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer schema: %v", err)
	}
	if _, err := pgstate.Migrate(ctx, url); !errors.Is(err, pgstate.ErrSchema) {
		t.Fatalf("Migrate of a newer schema: %v", err)
	}
}

func TestRecoverPendingBound(t *testing.T) {
	c := pgtest.Shared(t)
	s, _, _ := openPG(t, c)
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	r, err := s.ReserveAnswer("acme", "k", "r", 1, t0)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.RecoverPending(t0.Add(pgstate.DefaultRecoverAfter / 2)); err != nil || n != 0 {
		t.Fatalf("RecoverPending of a young reservation: %d %v", n, err)
	}
	if err := s.CommitAnswer(r); err != nil {
		t.Fatalf("a young reservation could not be committed: %v", err)
	}
	if _, err := s.ReserveAnswer("acme", "k", "r2", 1, t0); err != nil {
		t.Fatal(err)
	}
	if n, err := s.RecoverPending(t0.Add(pgstate.DefaultRecoverAfter + time.Second)); err != nil || n != 1 {
		t.Fatalf("RecoverPending past the bound: %d %v", n, err)
	}
}

// TestRecoverPendingNodes: several nodes recovering at once refund each
// reservation once.
func TestRecoverPendingNodes(t *testing.T) {
	c := pgtest.Shared(t)
	s, cat, url := openPG(t, c)
	for i := range 3 {
		org := fmt.Sprint("org", i)
		if _, err := s.AddOrg(state.Org{ID: org}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetPlan(org, state.PlanTrial); err != nil {
			t.Fatal(err)
		}
	}
	const n = 30
	for i := range n {
		if _, err := s.ReserveAnswer(fmt.Sprint("org", i%3), "k", fmt.Sprint("r", i), 1, t0); err != nil {
			t.Fatal(err)
		}
	}
	var total atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		node, err := pgstate.Open(context.Background(), url, pgstate.Options{Catalogue: cat})
		if err != nil {
			t.Fatal(err)
		}
		defer node.Close()
		wg.Go(func() {
			k, err := node.RecoverPending(t0.Add(time.Hour))
			if err != nil {
				t.Error(err)
			}
			total.Add(int64(k))
		})
	}
	wg.Wait()
	if total.Load() != n {
		t.Fatalf("refunded %d in all, want %d", total.Load(), n)
	}
	for i := range 3 {
		u, err := s.Usage(fmt.Sprint("org", i), t0)
		if err != nil {
			t.Fatal(err)
		}
		if u.AnswersThisMonth != 0 || u.AnswersToday != 0 {
			t.Fatalf("usage after recovery: %+v", u)
		}
	}
}

// TestDatabaseDown: with PostgreSQL stopped, writes fail with an error
// naming the database and nothing is half-written; started again, the
// same store works.
func TestDatabaseDown(t *testing.T) {
	c := pgtest.Start(t) // stopped and started: a cluster of its own
	s, _, _ := openPG(t, c)
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddCredits("acme", 5, "grant", t0); err != nil {
		t.Fatal(err)
	}
	c.Stop()
	_, _, err := s.Charge("acme", "k", "r", []state.DatasetPrice{{ID: "pop", Price: 1}}, t0)
	if err == nil || errors.Is(err, state.ErrNotFound) || errors.Is(err, state.ErrInvalid) || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("Charge with the database stopped: %v", err)
	}
	t.Log(err)
	if _, err := s.Keyring(); err == nil {
		t.Fatal("Keyring with the database stopped: no error")
	}
	c.Start()
	// The first call after the restart succeeds: the pool's dead
	// connections are dropped and the statement sent again.
	charged, _, err := s.Charge("acme", "k", "r", []state.DatasetPrice{{ID: "pop", Price: 1}}, t0)
	if err != nil || len(charged) != 1 {
		t.Fatalf("Charge after restart: %v %v", charged, err)
	}
	_, entries, err := s.OrgLedger("acme", 0)
	if err != nil || len(entries) != 2 || entries[1].Balance != 4 {
		t.Fatalf("ledger: %+v %v", entries, err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	url := "postgres://frameindex:s3cret-pw@127.0.0.1:1/state?sslmode=disable&connect_timeout=2"
	_, err := pgstate.Open(context.Background(), url, pgstate.Options{})
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") || !strings.Contains(err.Error(), "127.0.0.1:1/state") {
		t.Fatalf("Open of an unreachable database: %v", err)
	}
	t.Log(err)
	_, err = pgstate.Migrate(context.Background(), url)
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") {
		t.Fatalf("Migrate of an unreachable database: %v", err)
	}
}

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://u:pw@h:5432/db?sslmode=require", "postgres://u:xxxxx@h:5432/db?sslmode=require"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"postgres://h/db?password=pw&sslmode=disable", "postgres://h/db?password=xxxxx&sslmode=disable"},
		{"host=h password=pw", "(unparsable URL)"},
		{"", "(unparsable URL)"},
	} {
		t.Run(c.in, func(t *testing.T) {
			if got := pgstate.Redact(c.in); got != c.want {
				t.Fatalf("Redact(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestWatchKeys: a key revoked through one node reaches a watcher on
// another within the poll bound (by notification, much sooner).
func TestWatchKeys(t *testing.T) {
	c := pgtest.Shared(t)
	a, cat, url := openPG(t, c)
	b, err := pgstate.Open(context.Background(), url, pgstate.Options{Catalogue: cat})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.AddOrg(state.Org{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	k, secret, err := a.MintKey(state.MintRequest{OrgID: "acme", Preset: "full"})
	if err != nil {
		t.Fatal(err)
	}
	kr, v, err := b.KeyringVersion()
	if err != nil {
		t.Fatal(err)
	}
	var ring atomic.Pointer[state.Keyring]
	ring.Store(kr)
	changed := make(chan struct{}, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go b.WatchKeys(ctx, time.Second, v, func(int64) {
		if kr, err := b.Keyring(); err == nil {
			ring.Store(kr)
		}
		changed <- struct{}{}
	})
	time.Sleep(200 * time.Millisecond) // let it LISTEN
	if _, err := a.RevokeKey(k.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no key change seen in 5 s")
	}
	if _, err := ring.Load().Lookup(secret, time.Now()); !errors.Is(err, state.ErrRevokedKey) {
		t.Fatalf("Lookup after revocation elsewhere: %v", err)
	}
}

func TestNoCatalogue(t *testing.T) {
	c := pgtest.Shared(t)
	_, _, url := openPG(t, c)
	s, err := pgstate.Open(context.Background(), url, pgstate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Readable(state.Key{OrgID: "acme"}); err == nil || !strings.Contains(err.Error(), "--data") {
		t.Fatalf("Readable without a catalogue: %v", err)
	}
	if _, err := s.Offers(); err == nil {
		t.Fatal("Offers without a catalogue: no error")
	}
}
