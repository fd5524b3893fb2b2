package console

import (
	"sync"
	"time"
)

// Throttling of failed sign-ins (and wrong current passwords): each account
// name and each client address may fail a few times freely; beyond that
// every further failure makes it wait twice as long as the last, from
// throttleBase up to throttleMax, without even checking the password.
// Failures are forgotten after throttleForget without one, and an
// account's count is cleared by a success. An unknown account name is
// throttled like a known one, so the wait says nothing about who exists.
const (
	acctFree       = 5
	addrFree       = 20
	throttleBase   = 30 * time.Second
	throttleMax    = 15 * time.Minute
	throttleForget = time.Hour
	// throttleEntries bounds memory: beyond it, new names share one
	// entry, which a flood of distinct names therefore throttles as one.
	throttleEntries = 100_000
	overflowKey     = "\x00overflow"
)

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
}

func newThrottle() *throttle { return &throttle{entries: make(map[string]*failures)} }

func acctKey(acct string) string { return "a:" + acct }
func addrKey(addr string) string { return "i:" + addr }

// wait returns how long the account and address must still wait before a
// sign-in is checked; 0 when they may try now.
func (t *throttle) wait(acct, addr string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	var w time.Duration
	for _, k := range []string{acctKey(acct), addrKey(addr)} {
		if e := t.entries[k]; e != nil && e.until.After(now) {
			w = max(w, e.until.Sub(now))
		}
	}
	return w
}

// fail records a failure of the account from the address.
func (t *throttle) fail(acct, addr string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failKey(acctKey(acct), acctFree, now)
	t.failKey(addrKey(addr), addrFree, now)
}

func (t *throttle) failKey(k string, free int, now time.Time) {
	e := t.entries[k]
	if e != nil && now.Sub(e.last) >= throttleForget {
		e.n = 0
	}
	if e == nil {
		if len(t.entries) >= throttleEntries {
			k = overflowKey
			e = t.entries[k]
		}
		if e == nil {
			e = &failures{}
			t.entries[k] = e
		}
	}
	e.n++
	e.last = now
	if e.n >= free {
		d := throttleBase
		for i := free; i < e.n && d < throttleMax; i++ {
			d *= 2
		}
		e.until = now.Add(min(d, throttleMax))
	}
}

// succeed clears the account's failures.
func (t *throttle) succeed(acct string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, acctKey(acct))
}

// prune forgets entries with no failure for throttleForget that no longer
// wait.
func (t *throttle) prune(now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, e := range t.entries {
		if now.Sub(e.last) >= throttleForget && !e.until.After(now) {
			delete(t.entries, k)
		}
	}
}
