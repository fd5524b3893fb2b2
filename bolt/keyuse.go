package bolt

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// bucketKeyUse holds when each key was last used; see bucketUsers for the layout.
var bucketKeyUse = []byte("keyuse")

// KeyUses remembers, in memory, when each key was last used, to the
// second, so that serving a request writes nothing to the file; FlushKeyUses
// writes what changed in one transaction, periodically and at shutdown. A
// crash loses at most the uses since the last flush. Safe for concurrent
// use; Seen allocates only the first time a key is seen.
type KeyUses struct {
	mu   sync.RWMutex
	keys map[string]*keyUse
}

type keyUse struct {
	last    atomic.Int64 // unix seconds of the last use
	flushed atomic.Int64 // the value last written to the file
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

// FlushKeyUses writes the uses u recorded since its last flush, in one
// transaction, keeping for each key the latest time the file or memory
// knows, and returns how many keys it wrote. Errors: those of the file;
// nothing is marked flushed then, so the next flush tries again.
func (s *Store) FlushKeyUses(u *KeyUses) (int, error) {
	type pending struct {
		e   *keyUse
		sec int64
	}
	todo := map[string]pending{}
	u.mu.RLock()
	for id, e := range u.keys {
		if sec := e.last.Load(); sec > e.flushed.Load() {
			todo[id] = pending{e, sec}
		}
	}
	u.mu.RUnlock()
	if len(todo) == 0 {
		return 0, nil
	}
	err := s.update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketKeyUse)
		if err != nil {
			return err
		}
		for id, p := range todo {
			if v := b.Get([]byte(id)); len(v) == 8 && int64(binary.BigEndian.Uint64(v)) >= p.sec {
				continue
			}
			if err := b.Put([]byte(id), binary.BigEndian.AppendUint64(nil, uint64(p.sec))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, p := range todo {
		for {
			old := p.e.flushed.Load()
			if old >= p.sec || p.e.flushed.CompareAndSwap(old, p.sec) {
				break
			}
		}
	}
	return len(todo), nil
}

// KeysLastUsed returns when each of the given keys was last used according
// to the file (keys never used, or not flushed yet, are absent). Errors:
// ErrCorrupt.
func (s *Store) KeysLastUsed(ids []string) (map[string]time.Time, error) {
	out := make(map[string]time.Time, len(ids))
	err := s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketKeyUse)
		if b == nil {
			return nil
		}
		for _, id := range ids {
			v := b.Get([]byte(id))
			if v == nil {
				continue
			}
			if len(v) != 8 {
				return errorf(ErrCorrupt, nil, "data file %q is corrupt: last use of key %q has %d bytes, want 8", s.path, id, len(v))
			}
			out[id] = time.Unix(int64(binary.BigEndian.Uint64(v)), 0).UTC()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
