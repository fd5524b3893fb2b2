package pgstate_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frameindex/state"
	"frameindex/state/pgstate"
	"frameindex/state/pgstate/pgtest"
	"frameindex/state/statetest"
)

// TestSignInThrottleNodes: 30 wrong attempts on one account, at once,
// from many addresses, through two stores (two nodes' pools) on one
// database, are admitted exactly 5 times; the rest wait.
func TestSignInThrottleNodes(t *testing.T) {
	c := pgtest.Shared(t)
	a, _, url := openPG(t, c)
	b, err := pgstate.Open(context.Background(), url, pgstate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	now := statetest.T0
	var admitted atomic.Int32
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			node := []*pgstate.Store{a, b}[i%2]
			wait, err := node.BeginSignIn("olu", "10.0.0."+string(rune('0'+i%10)), now)
			if err != nil {
				t.Error(err)
				return
			}
			if wait == 0 {
				admitted.Add(1)
			} else if wait != state.SignInWaitBase {
				t.Errorf("wait %v, want %v", wait, state.SignInWaitBase)
			}
		}()
	}
	wg.Wait()
	if n := admitted.Load(); n != state.SignInAccountFree {
		t.Fatalf("%d attempts admitted on one account over two nodes, want %d", n, state.SignInAccountFree)
	}
	// Waits double with each further failure once the first wait is over.
	later := now.Add(state.SignInWaitBase)
	if w, err := b.BeginSignIn("olu", "10.1.1.1", later); err != nil || w != 0 {
		t.Fatalf("after the wait: %v %v", w, err)
	}
	if w, err := a.BeginSignIn("olu", "10.1.1.1", later); err != nil || w != 2*state.SignInWaitBase {
		t.Fatalf("the next wait: %v %v, want %v", w, err, 2*state.SignInWaitBase)
	}
	// A success clears the account; other accounts were never touched.
	must(t, a.SucceedSignIn("olu", "10.1.1.1"))
	if w, err := b.BeginSignIn("olu", "10.1.1.1", later); err != nil || w != 0 {
		t.Fatalf("after a success: %v %v", w, err)
	}
	// Failures are forgotten an hour after the last.
	forgotten := later.Add(state.SignInForget)
	for i := range state.SignInAccountFree {
		if w, err := a.BeginSignIn("ada", "10.2.2.2", forgotten.Add(time.Duration(i))); err != nil || w != 0 {
			t.Fatalf("ada's attempt %d: %v %v", i, w, err)
		}
	}
	if w, _ := a.BeginSignIn("ada", "10.2.2.3", forgotten); w == 0 {
		t.Fatal("ada's sixth failure was admitted")
	}
	if w, _ := a.BeginSignIn("ada", "10.2.2.3", forgotten.Add(state.SignInForget+state.SignInWaitMax)); w != 0 {
		t.Fatalf("ada an hour after the wait: %v", w)
	}
}

// TestSignInThrottleAddress: an address (an IPv6 /64) gets 20 failures
// over any accounts; cancel takes an attempt back.
func TestSignInThrottleAddress(t *testing.T) {
	s, _, _ := openPG(t, pgtest.Shared(t))
	now := statetest.T0
	for i := range state.SignInAddressFree {
		if w, err := s.BeginSignIn("u"+string(rune('a'+i)), "2001:db8:1:2::"+string(rune('a'+i%6)), now); err != nil || w != 0 {
			t.Fatalf("attempt %d: %v %v", i, w, err)
		}
	}
	if w, err := s.BeginSignIn("another", "2001:db8:1:2:ffff::1", now); err != nil || w != state.SignInWaitBase {
		t.Fatalf("the /64's 21st: %v %v", w, err)
	}
	if w, err := s.BeginSignIn("another", "2001:db8:1:3::1", now); err != nil || w != 0 {
		t.Fatalf("the next /64: %v %v", w, err)
	}
	must(t, s.CancelSignIn("ua", "2001:db8:1:2::a"))
	if w, err := s.BeginSignIn("another", "2001:db8:1:2::1", now); err != nil || w != 0 {
		t.Fatalf("after a cancel: %v %v", w, err)
	}
	must(t, s.PruneSignIns(now.Add(state.SignInForget+state.SignInWaitMax)))
	var n int
	if err := s.Pool().QueryRow(context.Background(), "SELECT count(*) FROM signin_failures").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows after pruning, %v", n, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
