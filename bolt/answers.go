package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// Buckets of worded-answer reservations; see the package comment.
var (
	bucketPending  = []byte("pending")
	bucketRefunded = []byte("refunded")
)

// reservationKey is the key of reservation id in the pending and refunded
// buckets.
func reservationKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// decodeReservation decodes a pending record, checking what ReserveAnswer
// guarantees.
func decodeReservation(key, v []byte) (state.Reservation, error) {
	if len(key) != 8 {
		return state.Reservation{}, fmt.Errorf("key of %d bytes, want 8", len(key))
	}
	if v == nil {
		return state.Reservation{}, errors.New("a bucket, not a record")
	}
	var r state.Reservation
	if err := decodeStrict(v, &r); err != nil {
		return state.Reservation{}, err
	}
	day, dayErr := time.Parse(state.DayLayout, r.Day)
	switch {
	case r.ID != binary.BigEndian.Uint64(key):
		return state.Reservation{}, fmt.Errorf("record holds id %d", r.ID)
	case !state.ValidID(r.OrgID):
		return state.Reservation{}, fmt.Errorf("invalid organisation id %q", r.OrgID)
	case r.Source == state.SourceAllowance && r.Credits != 0,
		r.Source == state.SourceCredits && r.Credits <= 0,
		r.Source != state.SourceAllowance && r.Source != state.SourceCredits:
		return state.Reservation{}, fmt.Errorf("source %q with %d credits", r.Source, r.Credits)
	case dayErr != nil || state.MonthOf(day) != r.Month:
		return state.Reservation{}, fmt.Errorf("month %q and day %q", r.Month, r.Day)
	case r.Time.IsZero():
		return state.Reservation{}, errors.New("no time")
	}
	return r, nil
}

// readCounter reads a usage counter of an organisation inside tx; one that
// does not exist is zero.
func (s *Store) readCounter(tx *bbolt.Tx, orgID, name string) (counter, error) {
	if p := s.pendingFor(tx); p != nil {
		if c, ok := p.counters[counterKey{orgID, name}]; ok {
			return c, nil
		}
	}
	return s.counterIn(usageBucket(tx, orgID), orgID, name)
}

// ReserveAnswer reserves one worded answer for a request of key keyID, in
// one transaction (shared with other requests' ledger writes and durable
// when it returns; committer.go), before the model is called. In order:
//
//   - when the organisation has had DailyCeiling worded answers in the UTC
//     day of now, it fails with ErrNoAllowance;
//   - when it has had fewer than its plan's allowance (PlanAllowance) in
//     the UTC month of now, the answer comes from the allowance;
//   - when its balance covers creditCost (1 when creditCost <= 0), the
//     answer is paid in credits: the balance goes down and a ledger entry
//     of kind LedgerAnswer (minus the cost, naming the key and the request)
//     is appended;
//   - otherwise it fails with ErrNoAllowance.
//
// A reserved answer counts at once in the usage counters of its month and
// day (one answer and the credits it took), and a pending record holds the
// reservation until CommitAnswer (the wording was delivered) or
// RefundAnswer (it was not) settles it; RecoverPending refunds those a
// crash left. Every answer of the month counts against the allowance,
// whether it came from the allowance or from credits. Concurrent calls
// run one after another, each against the counters and balance the last
// one left: the ceiling, the allowance and the balance are never passed.
//
// now is the reservation's time and decides its month and day (zero means
// the current time).
//
// Errors: ErrNoAllowance, saying which limit was reached; ErrInvalid for
// an over-long key or request id; ErrNotFound for an unknown organisation;
// ErrCorrupt. Nothing is written on error.
func (s *Store) ReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (state.Reservation, error) {
	r, durable, err := s.StartReserveAnswer(orgID, keyID, requestID, creditCost, now)
	if err != nil {
		return state.Reservation{}, err
	}
	if err := durable(); err != nil {
		return state.Reservation{}, err
	}
	return r, nil
}

// StartReserveAnswer is ReserveAnswer returning as soon as the reservation
// is decided, while its transaction commits (state.ReserveStarter): the
// caller may call the model meanwhile, and shows its wording, commits or
// refunds the reservation only once durable returns nil. When durable
// returns an error, nothing was reserved.
func (s *Store) StartReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (state.Reservation, func() error, error) {
	cost, err := state.CheckReserve(keyID, requestID, creditCost)
	if err != nil {
		return state.Reservation{}, nil, err
	}
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	var r state.Reservation
	durable, err := s.commitEarly(func(tx *bbolt.Tx) (func() error, error) {
		o, err := s.getOrg(tx, orgID)
		if err != nil {
			return nil, err
		}
		day, err := s.readCounter(tx, o.ID, state.AnswersCounter(state.DayOf(now)))
		if err != nil {
			return nil, err
		}
		var month counter
		if day.Count < state.DailyCeiling {
			if month, err = s.readCounter(tx, o.ID, state.AnswersCounter(state.MonthOf(now))); err != nil {
				return nil, err
			}
		}
		a, err := state.DecideAnswer(o, keyID, requestID, cost, now, day.Count, month.Count)
		if err != nil {
			return nil, err
		}
		return func() error {
			r = a.Reservation
			pending, err := s.writeBucket(tx, bucketPending)
			if err != nil {
				return err
			}
			if r.ID, err = pending.NextSequence(); err != nil {
				return err
			}
			if a.Entry != nil {
				if _, err := s.appendLedger(tx, o.ID, *a.Entry); err != nil {
					return err
				}
				if err := s.putOrg(tx, a.Org); err != nil {
					return err
				}
			}
			if err := s.settle(tx, o, nil, a.Counters); err != nil {
				return err
			}
			return putJSON(pending, reservationKey(r.ID), r)
		}, nil
	})
	if err != nil {
		return state.Reservation{}, nil, err
	}
	return r, durable, nil
}

// pendingReservation looks reservation r up in tx: the stored record and
// pending == true when r is pending; pending == false and no error when it
// was committed; ErrNotFound when it was refunded or never made (or made
// for another organisation); ErrInvalid without an id.
func (s *Store) pendingReservation(tx *bbolt.Tx, r state.Reservation) (stored state.Reservation, pending bool, err error) {
	if r.ID == 0 {
		return state.Reservation{}, false, state.Errorf(state.ErrInvalid, "invalid reservation: no id")
	}
	key := reservationKey(r.ID)
	b := tx.Bucket(bucketPending)
	if b != nil {
		if v := b.Get(key); v != nil {
			stored, err := decodeReservation(key, v)
			if err != nil {
				return state.Reservation{}, false, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: pending worded answer %d: %v", s.path, r.ID, err)
			}
			if stored.OrgID != r.OrgID {
				return state.Reservation{}, false, state.Errorf(state.ErrNotFound, "worded answer reservation %d of organisation %q not found", r.ID, r.OrgID)
			}
			return stored, true, nil
		}
	}
	if rb := tx.Bucket(bucketRefunded); rb != nil && rb.Get(key) != nil {
		return state.Reservation{}, false, state.Errorf(state.ErrNotFound, "worded answer reservation %d was refunded", r.ID)
	}
	if b == nil || r.ID > b.Sequence() {
		return state.Reservation{}, false, state.Errorf(state.ErrNotFound, "worded answer reservation %d not found", r.ID)
	}
	// Made, and neither pending nor refunded: committed.
	return state.Reservation{}, false, nil
}

// CommitAnswer settles a reservation whose wording was delivered: the
// answer stays spent. Committing it again does nothing. Errors:
// ErrNotFound for a reservation that was refunded, or never made (by this
// file, or for another organisation); ErrInvalid for one without an id;
// ErrCorrupt.
func (s *Store) CommitAnswer(r state.Reservation) error {
	return s.commit(func(tx *bbolt.Tx) (func() error, error) {
		_, pending, err := s.pendingReservation(tx, r)
		switch {
		case err != nil:
			return nil, err
		case !pending:
			return func() error { return nil }, nil
		}
		return func() error {
			pending, err := s.writeBucket(tx, bucketPending)
			if err != nil {
				return err
			}
			return pending.Delete(reservationKey(r.ID))
		}, nil
	})
}

// RefundAnswer settles a reservation whose wording was discarded or never
// delivered, in one transaction: it takes back exactly what ReserveAnswer
// added to the usage counters of the reservation's month and day, and for
// an answer paid in credits gives the credits back with a ledger entry of
// kind LedgerRefund naming the key and the request. The reservation is
// taken as stored, not as passed (only its id and organisation are used).
// now is the ledger entry's time (zero means the current time).
//
// A reservation is refunded at most once: Errors: ErrNotFound for one
// already refunded or committed, or never made; ErrInvalid for one without
// an id; ErrCorrupt.
func (s *Store) RefundAnswer(r state.Reservation, now time.Time) error {
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	return s.commit(func(tx *bbolt.Tx) (func() error, error) {
		stored, pending, err := s.pendingReservation(tx, r)
		switch {
		case err != nil:
			return nil, err
		case !pending:
			return nil, state.Errorf(state.ErrNotFound, "worded answer reservation %d was committed; it cannot be refunded", r.ID)
		}
		return s.checkRefund(tx, stored, now)
	})
}

// refund reverses the pending reservation r, as stored, inside tx.
func (s *Store) refund(tx *bbolt.Tx, r state.Reservation, now time.Time) error {
	write, err := s.checkRefund(tx, r, now)
	if err != nil {
		return err
	}
	return write()
}

// checkRefund checks, inside tx, that the pending reservation r, as
// stored, can be reversed, writing nothing, and returns the write that
// reverses it. Refusals: ErrNotFound for its organisation; ErrCorrupt for
// a usage counter holding less than r added; ErrInvalid for a balance
// that would pass math.MaxInt64.
func (s *Store) checkRefund(tx *bbolt.Tx, r state.Reservation, now time.Time) (func() error, error) {
	o, err := s.getOrg(tx, r.OrgID)
	if err != nil {
		return nil, err
	}
	f, decided := state.DecideRefund(o, r, now)
	for _, c := range f.Counters {
		have, err := s.readCounter(tx, o.ID, c.Name)
		if err != nil {
			return nil, err
		}
		if have.Count+c.Count < 0 || have.Credits+c.Credits < 0 {
			return nil, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: refunding worded answer %d: usage counter %q of organisation %q holds %d, %d credits", s.path, r.ID, c.Name, o.ID, have.Count, have.Credits)
		}
	}
	if decided != nil {
		return nil, decided
	}
	return func() error {
		if err := s.settle(tx, o, nil, f.Counters); err != nil {
			return err
		}
		if f.Entry != nil {
			if _, err := s.appendLedger(tx, o.ID, *f.Entry); err != nil {
				return err
			}
			if err := s.putOrg(tx, f.Org); err != nil {
				return err
			}
		}
		key := reservationKey(r.ID)
		refunded, err := s.writeBucket(tx, bucketRefunded)
		if err != nil {
			return err
		}
		if err := refunded.Put(key, []byte(now.Format(time.RFC3339Nano))); err != nil {
			return err
		}
		pending, err := s.writeBucket(tx, bucketPending)
		if err != nil {
			return err
		}
		return pending.Delete(key)
	}, nil
}

// RecoverPending refunds, in one transaction, every reservation that is
// neither committed nor refunded, as RefundAnswer would, and returns how
// many it refunded. Call it when the server starts, before it serves: an
// answer reserved before a crash was never delivered. now is the refunds'
// time (zero means the current time). Errors: ErrCorrupt, naming the
// reservation; nothing is refunded on error.
func (s *Store) RecoverPending(now time.Time) (int, error) {
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	n := 0
	err := s.update(func(tx *bbolt.Tx) error {
		n = 0
		b := tx.Bucket(bucketPending)
		if b == nil {
			return nil
		}
		// Read them all first: deleting under a cursor skips records.
		var all []state.Reservation
		err := b.ForEach(func(k, v []byte) error {
			r, err := decodeReservation(k, v)
			if err != nil {
				return state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: pending worded answer %x: %v", s.path, k, err)
			}
			all = append(all, r)
			return nil
		})
		if err != nil {
			return err
		}
		for _, r := range all {
			if err := s.refund(tx, r, now); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
