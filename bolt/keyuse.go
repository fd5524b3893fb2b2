package bolt

import (
	"encoding/binary"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// bucketKeyUse holds when each key was last used; see bucketUsers for the layout.
var bucketKeyUse = []byte("keyuse")

// FlushKeyUses writes the uses u recorded since its last flush, in one
// transaction, keeping for each key the latest time the file or memory
// knows, and returns how many keys it wrote. Errors: those of the file;
// nothing is marked flushed then, so the next flush tries again.
func (s *Store) FlushKeyUses(u *state.KeyUses) (int, error) {
	todo := u.Unflushed()
	if len(todo) == 0 {
		return 0, nil
	}
	err := s.update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketKeyUse)
		if err != nil {
			return err
		}
		for id, sec := range todo {
			if v := b.Get([]byte(id)); len(v) == 8 && int64(binary.BigEndian.Uint64(v)) >= sec {
				continue
			}
			if err := b.Put([]byte(id), binary.BigEndian.AppendUint64(nil, uint64(sec))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	u.MarkFlushed(todo)
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
				return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: last use of key %q has %d bytes, want 8", s.path, id, len(v))
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
