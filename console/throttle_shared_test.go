package console

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"frameindex/admin"
	"frameindex/bolt"
)

// sharedStub is a shared state that keeps a sign-in throttle (as pgstate
// does): the file's state, and a throttle that records its calls and
// answers wait or err.
type sharedStub struct {
	*bolt.Store
	mu    sync.Mutex
	calls []string
	wait  time.Duration
	err   error
}

func (s *sharedStub) record(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
}

func (s *sharedStub) taken() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.calls
	s.calls = nil
	return out
}

func (s *sharedStub) BeginSignIn(acct, addr string, _ time.Time) (time.Duration, error) {
	s.record("begin " + acct + " " + addr)
	return s.wait, s.err
}

func (s *sharedStub) SucceedSignIn(acct, _ string) error { s.record("succeed " + acct); return nil }
func (s *sharedStub) CancelSignIn(acct, _ string) error  { s.record("cancel " + acct); return nil }
func (s *sharedStub) PruneSignIns(time.Time) error       { s.record("prune"); return nil }

// TestServer_SharedThrottle: with a shared state that keeps a throttle,
// the sign-in and password pages count there and not in memory: one
// begin per attempt before the password is checked, succeed after a
// right one, cancel when no password was found wrong; a wait it answers
// is a 429 with Retry-After, and its failure a 500 with no password
// checked.
func TestServer_SharedThrottle(t *testing.T) {
	f := newFixture(t, false, Config{})
	stub := &sharedStub{Store: f.store}
	con := New(Config{Ops: &admin.Ops{Store: f.store, State: stub, Now: f.clock.Now}, Now: f.clock.Now, FlushEvery: time.Hour})
	t.Cleanup(func() { con.Close() })
	if _, ok := con.throttle.(sharedThrottle); !ok {
		t.Fatalf("throttle %T, want the shared state's", con.throttle)
	}
	g := *f
	g.srv = httptest.NewServer(con)
	t.Cleanup(g.srv.Close)
	want := func(what string, calls ...string) {
		t.Helper()
		if got := stub.taken(); !slices.Equal(got, calls) {
			t.Errorf("%s: throttle calls %q, want %q", what, got, calls)
		}
	}
	c := g.client()
	if res, _ := c.signIn("OLU@example.ng", "a wrong password"); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong password: %d", res.StatusCode)
	}
	want("wrong password", "begin olu 127.0.0.1")
	if res, _ := c.signIn("olu", passwords["olu"]); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("right password: %d", res.StatusCode)
	}
	want("right password", "begin olu 127.0.0.1", "succeed olu")
	res, body := c.change("/console/password", "/console/password", url.Values{"current": {passwords["olu"]}, "new": {"short"}, "confirm": {"short"}})
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a short new password: %d\n%.300s", res.StatusCode, body)
	}
	want("a refused new password", "begin olu 127.0.0.1", "cancel olu")

	stub.wait = 45 * time.Second
	res, _ = g.client().signIn("ada", passwords["ada"])
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "45" {
		t.Fatalf("a wait: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	want("a wait", "begin ada 127.0.0.1")
	stub.wait, stub.err = 0, errors.New("database unreachable")
	if res, _ := g.client().signIn("ada", passwords["ada"]); res.StatusCode != http.StatusInternalServerError {
		t.Fatalf("the throttle failing: %d", res.StatusCode)
	}
	want("the throttle failing", "begin ada 127.0.0.1")
}
