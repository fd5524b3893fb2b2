package state

import (
	"sync"
	"sync/atomic"
	"time"
)

// KeyUses remembers, in memory, when each key was last used, to the
// second, so that serving a request writes nothing to a store;
// FlushKeyUses writes what changed in one transaction, periodically and at
// shutdown. A crash loses at most the uses since the last flush. Safe for
// concurrent use; Seen allocates only the first time a key is seen.
type KeyUses struct {
	mu   sync.RWMutex
	keys map[string]*keyUse
}

type keyUse struct {
	last    atomic.Int64 // unix seconds of the last use
	flushed atomic.Int64 // the value last written to a store
}

// NewKeyUses returns an empty KeyUses.
func NewKeyUses() *KeyUses { return &KeyUses{keys: make(map[string]*keyUse)} }

// Seen records that key id was used at t.
func (u *KeyUses) Seen(id string, t time.Time) {
	sec := t.Unix()
	u.mu.RLock()
	e := u.keys[id]
	u.mu.RUnlock()
	if e == nil {
		u.mu.Lock()
		if e = u.keys[id]; e == nil {
			e = &keyUse{}
			u.keys[id] = e
		}
		u.mu.Unlock()
	}
	for {
		old := e.last.Load()
		if old >= sec || e.last.CompareAndSwap(old, sec) {
			return
		}
	}
}

// Last returns when key id was last used according to memory, if it was
// since the process started.
func (u *KeyUses) Last(id string) (time.Time, bool) {
	u.mu.RLock()
	e := u.keys[id]
	u.mu.RUnlock()
	if e == nil {
		return time.Time{}, false
	}
	return time.Unix(e.last.Load(), 0).UTC(), true
}

// Unflushed returns, for each key used since its last flush, the unix
// second of its last use; a store's FlushKeyUses writes them and passes
// the same map to MarkFlushed.
func (u *KeyUses) Unflushed() map[string]int64 {
	out := map[string]int64{}
	u.mu.RLock()
	defer u.mu.RUnlock()
	for id, e := range u.keys {
		if sec := e.last.Load(); sec > e.flushed.Load() {
			out[id] = sec
		}
	}
	return out
}

// MarkFlushed records that the uses Unflushed returned were written.
func (u *KeyUses) MarkFlushed(written map[string]int64) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	for id, sec := range written {
		e := u.keys[id]
		if e == nil {
			continue
		}
		for {
			old := e.flushed.Load()
			if old >= sec || e.flushed.CompareAndSwap(old, sec) {
				break
			}
		}
	}
}

// TrackedKeys looks secrets up in the keyring Keys returns and records
// every key found active in Uses. It satisfies the request-time KeyLookup
// of the API handlers. Safe for concurrent use.
type TrackedKeys struct {
	Keys func() *Keyring
	Uses *KeyUses
}

// Lookup is Keyring.Lookup, recording the use of a key it finds active.
func (t *TrackedKeys) Lookup(secret string, now time.Time) (Key, error) {
	k, err := t.Keys().Lookup(secret, now)
	if err == nil {
		t.Uses.Seen(k.ID, now)
	}
	return k, err
}
