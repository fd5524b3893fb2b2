package console

import (
	"context"
	"frameindex/state"
	"log/slog"
	"sync"
	"time"
)

// Throttling of sign-ins (and of current passwords on the password page)
// follows state's rule (state.SignInAccountFree, ...): a few free
// failures per account and per client address, then waits that double.
// An unknown account name is throttled like a known one, so the wait says
// nothing about who exists. An attempt is counted before its password is
// checked, in the same step as the check of the wait (begin), and a right
// password takes the count back (succeed): at most SignInAccountFree
// passwords of one account, and SignInAddressFree from one address, are
// checked before the wait starts.
//
// Without a shared state the counts are this node's (throttle, in
// memory); with one that keeps them (pgstate), every node counts in it
// (sharedThrottle), so a guesser gets one allowance whichever node it
// reaches.
const (
	acctFree       = state.SignInAccountFree
	addrFree       = state.SignInAddressFree
	throttleBase   = state.SignInWaitBase
	throttleForget = state.SignInForget
	// throttleEntries bounds memory. A full table first forgets entries
	// whose failures are forgotten, then the least recent entry that is
	// not waiting; when every entry is waiting, a new account or address
	// is treated as throttled (throttleBase) rather than let through.
	throttleEntries = 100_000
)

// signInThrottle is what the sign-in and password pages ask; see
// throttle's methods for what each does (admit is begin).
type signInThrottle interface {
	admit(acct, addr string, now time.Time) (time.Duration, error)
	succeed(acct, addr string)
	cancel(acct, addr string)
	prune(now time.Time)
}

// sharedThrottle counts in a shared state, one statement per call. A
// failure to take a count back is logged: the person may then wait once
// without cause, which is the safe side.
type sharedThrottle struct {
	st  state.SignInThrottle
	log *slog.Logger
}

func (t sharedThrottle) admit(acct, addr string, now time.Time) (time.Duration, error) {
	return t.st.BeginSignIn(acct, addr, now)
}

func (t sharedThrottle) succeed(acct, addr string) {
	if err := t.st.SucceedSignIn(acct, addr); err != nil {
		t.log.Error("console: clearing sign-in failures failed", "err", err)
	}
}

func (t sharedThrottle) cancel(acct, addr string) {
	if err := t.st.CancelSignIn(acct, addr); err != nil {
		t.log.Error("console: taking back a sign-in attempt failed", "err", err)
	}
}

func (t sharedThrottle) prune(now time.Time) {
	if err := t.st.PruneSignIns(now); err != nil {
		t.log.Error("console: pruning sign-in failures failed", "err", err)
	}
}

type failures struct {
	n     int
	last  time.Time
	until time.Time
}

// throttle counts failures per account and per address. Safe for
// concurrent use.
type throttle struct {
	mu      sync.Mutex
	entries map[string]*failures
	max     int // throttleEntries; smaller in tests
}

func newThrottle() *throttle {
	return &throttle{entries: make(map[string]*failures), max: throttleEntries}
}

var (
	acctKey = state.ThrottleAccountKey
	addrKey = state.ThrottleAddrKey
)

// begin admits an attempt of the account from the address: it returns how
// long they must still wait (the attempt is then refused and not
// counted), or 0 after counting the attempt as a failure of both; a right
// password then calls succeed.
func (t *throttle) begin(acct, addr string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := [2]string{acctKey(acct), addrKey(addr)}
	var w time.Duration
	for _, k := range keys {
		e, ok := t.entry(k, now)
		if !ok {
			w = max(w, throttleBase)
		} else if e != nil && e.until.After(now) {
			w = max(w, e.until.Sub(now))
		}
	}
	if w > 0 {
		return w
	}
	t.failKey(keys[0], acctFree, now)
	t.failKey(keys[1], addrFree, now)
	return 0
}

// admit is begin for signInThrottle: counting in memory cannot fail.
func (t *throttle) admit(acct, addr string, now time.Time) (time.Duration, error) {
	return t.begin(acct, addr, now), nil
}

// entry returns k's entry (nil when it has none yet); ok is false when
// the table is full of entries that are waiting, so k has no room.
func (t *throttle) entry(k string, now time.Time) (*failures, bool) {
	if e := t.entries[k]; e != nil {
		return e, true
	}
	if len(t.entries) < t.max {
		return nil, true
	}
	t.pruneLocked(now)
	if len(t.entries) < t.max {
		return nil, true
	}
	var oldest string
	var at time.Time
	for ok, e := range t.entries {
		if !e.until.After(now) && (oldest == "" || e.last.Before(at)) {
			oldest, at = ok, e.last
		}
	}
	if oldest == "" {
		return nil, false
	}
	delete(t.entries, oldest)
	return nil, true
}

func (t *throttle) failKey(k string, free int, now time.Time) {
	e := t.entries[k]
	if e != nil && now.Sub(e.last) >= throttleForget {
		e.n = 0
	}
	if e == nil {
		e = &failures{}
		t.entries[k] = e
	}
	e.n++
	e.last = now
	if d := state.SignInWait(e.n, free); d > 0 {
		e.until = now.Add(d)
	}
}

// succeed follows a right password: the account's failures are cleared
// and the address's count loses the attempt begin counted.
func (t *throttle) succeed(acct, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, acctKey(acct))
	t.uncount(addrKey(addr), addrFree)
}

// cancel takes back the attempt begin counted when no password was found
// wrong (the request failed for another reason).
func (t *throttle) cancel(acct, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.uncount(acctKey(acct), acctFree)
	t.uncount(addrKey(addr), addrFree)
}

// uncount removes one failure from k, and the wait it started.
func (t *throttle) uncount(k string, free int) {
	e := t.entries[k]
	if e == nil {
		return
	}
	e.n--
	if e.n < free {
		e.until = time.Time{}
	}
	if e.n <= 0 {
		delete(t.entries, k)
	}
}

// prune forgets entries with no failure for throttleForget that no longer
// wait.
func (t *throttle) prune(now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pruneLocked(now)
}

func (t *throttle) pruneLocked(now time.Time) {
	for k, e := range t.entries {
		if now.Sub(e.last) >= throttleForget && !e.until.After(now) {
			delete(t.entries, k)
		}
	}
}

// hashGate bounds the password hashes (Argon2id, 64 MiB each) computed at
// once: a burst of sign-ins queues for a slot, and past a queue of
// hashQueue waiting it is refused at once (429), so memory stays bounded
// whatever the burst.
type hashGate struct {
	slots chan struct{}
	queue chan struct{}
}

const (
	hashSlots = 2  // one per core of the machines we aim at
	hashQueue = 16 // attempts waiting for a slot; more get 429
	hashWait  = 10 * time.Second
)

func newHashGate(slots, queue int) *hashGate {
	return &hashGate{slots: make(chan struct{}, slots), queue: make(chan struct{}, queue)}
}

// enter waits for a slot; false when the queue is full or the wait (or
// the request) ends first. The caller calls leave after a true enter.
func (g *hashGate) enter(ctx context.Context) bool {
	select {
	case g.queue <- struct{}{}:
	default:
		return false
	}
	defer func() { <-g.queue }()
	t := time.NewTimer(hashWait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return false
}

func (g *hashGate) leave() { <-g.slots }
