package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// A usage counter: how many (worded answers, or charged requests) and the
// credits they took. Stored as counterSize bytes, both numbers big-endian
// and never negative.
type counter struct {
	Count, Credits int64
}

const counterSize = 16

func (c counter) append(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.Count))
	return binary.BigEndian.AppendUint64(dst, uint64(c.Credits))
}

func decodeCounter(v []byte) (counter, error) {
	if len(v) != counterSize {
		return counter{}, fmt.Errorf("counter of %d bytes, want %d", len(v), counterSize)
	}
	c := counter{int64(binary.BigEndian.Uint64(v)), int64(binary.BigEndian.Uint64(v[8:]))}
	if c.Count < 0 || c.Credits < 0 {
		return counter{}, errors.New("negative counter")
	}
	return c, nil
}

// addInt64 returns a+b, or false when the sum leaves int64.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (b >= 0) == (s >= a)
}

// addCounter adds count and credits, either of which may be negative (a
// refund takes back what a reservation added), to the usage counter name of
// organisation orgID inside tx, and returns the counter's new value. A
// counter that does not exist starts at zero. Errors: ErrNotFound for an
// unknown organisation; ErrInvalid for a bad name or a result below zero
// or past math.MaxInt64, leaving the counter as it was; ErrCorrupt.
//
// The caller is the write transaction that also checks the allowance or
// balance and writes the ledger, so that the counter moves with them.
func (s *Store) addCounter(tx *bbolt.Tx, orgID, name string, count, credits int64) (counter, error) {
	if len(name) == 0 || len(name) > bbolt.MaxKeySize {
		return counter{}, state.Errorf(state.ErrInvalid, "invalid usage counter name of %d bytes", len(name))
	}
	p := s.pendingFor(tx)
	if _, pend := p.org(orgID); !pend && lookup(tx, bucketOrgs, orgID) == nil {
		return counter{}, state.Errorf(state.ErrNotFound, "organisation %q not found", orgID)
	}
	c, err := s.readCounter(tx, orgID, name)
	if err != nil {
		return counter{}, err
	}
	n, ok1 := addInt64(c.Count, count)
	cr, ok2 := addInt64(c.Credits, credits)
	switch {
	case !ok1 || !ok2:
		return counter{}, state.Errorf(state.ErrInvalid, "usage counter %q of organisation %q would overflow", name, orgID)
	case n < 0 || cr < 0:
		return counter{}, state.Errorf(state.ErrInvalid, "usage counter %q of organisation %q would go below zero (%d, %d credits; adding %d, %d credits)", name, orgID, c.Count, c.Credits, count, credits)
	}
	c = counter{n, cr}
	if p != nil {
		if p.counters == nil {
			p.counters = make(map[counterKey]counter)
		}
		p.counters[counterKey{orgID, name}] = c
		return c, nil
	}
	b, err := s.writeBucket(tx, bucketUsage, []byte(orgID))
	if err != nil {
		return counter{}, err
	}
	return c, b.Put([]byte(name), c.append(make([]byte, 0, counterSize)))
}

// usageBucket returns the usage bucket of organisation orgID in tx, or nil
// when it has none.
func usageBucket(tx *bbolt.Tx, orgID string) *bbolt.Bucket {
	all := tx.Bucket(bucketUsage)
	if all == nil {
		return nil
	}
	return all.Bucket([]byte(orgID))
}

// counterIn reads the usage counter name of organisation orgID from its
// usage bucket b (nil when it has none); a counter that does not exist is
// zero. Errors: ErrCorrupt.
func (s *Store) counterIn(b *bbolt.Bucket, orgID string, name string) (counter, error) {
	var v []byte
	if b != nil {
		v = b.Get([]byte(name))
	}
	if v == nil {
		return counter{}, nil
	}
	c, err := decodeCounter(v)
	if err != nil {
		return counter{}, s.corruptCounter(orgID, name, err)
	}
	return c, nil
}

func (s *Store) corruptCounter(orgID, name string, err error) error {
	return state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: usage counter %q of organisation %q: %v", s.path, name, orgID, err)
}

// Usage returns the organisation's usage in the calendar month and day (UTC)
// holding now (zero means the current time): worded answers against its
// plan's allowance and the daily ceiling, its credit balance, and this
// month's per-query charges sorted by dataset id. Counters never written
// read as zero. Everything is read in one transaction. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) Usage(orgID string, now time.Time) (state.Usage, error) {
	s.settled()
	if now.IsZero() {
		now = s.clock()
	}
	var u state.Usage
	err := s.view(func(tx *bbolt.Tx) error {
		o, err := s.getOrg(tx, orgID)
		if err != nil {
			return err
		}
		u = state.UsageOf(o, now)
		b := usageBucket(tx, orgID)
		if b == nil {
			return nil
		}
		for _, name := range []string{state.AnswersCounter(u.Month), state.AnswersCounter(u.Day)} {
			c, err := s.counterIn(b, orgID, name)
			if err != nil {
				return err
			}
			u.Count(name, c.Count, c.Credits)
		}
		prefix := []byte(state.ChargesPrefix(u.Month))
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if v == nil || !state.ValidID(string(k[len(prefix):])) {
				return s.corruptCounter(orgID, string(k), errors.New("not a dataset charge counter"))
			}
			ch, err := decodeCounter(v)
			if err != nil {
				return s.corruptCounter(orgID, string(k), err)
			}
			// bbolt iterates in byte order, which for ids of ASCII
			// letters, digits, '_' and '-' is dataset id order.
			u.Count(string(k), ch.Count, ch.Credits)
		}
		return nil
	})
	if err != nil {
		return state.Usage{}, err
	}
	return u, nil
}
