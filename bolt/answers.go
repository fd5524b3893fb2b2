package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// Kinds of the ledger entries of worded answers paid in credits: an answer
// (Credits minus its cost) and the refund of one whose wording was
// discarded or never delivered (Credits plus the cost). Both name the key
// and the request.
const (
	LedgerAnswer = "answer"
	LedgerRefund = "refund"
)

// Sources a worded answer is paid from (Reservation.Source).
const (
	SourceAllowance = "allowance" // the plan's monthly allowance
	SourceCredits   = "credits"   // the organisation's credits
)

// ErrNoAllowance is returned by ReserveAnswer when the organisation may not
// have another worded answer: today's daily ceiling is reached, or this
// month's allowance and its credits are spent. The answer is then given
// without wording.
var ErrNoAllowance = errors.New("no worded answers left")

// Buckets of worded-answer reservations; see the package comment.
var (
	bucketPending  = []byte("pending")
	bucketRefunded = []byte("refunded")
)

// ledger notes of worded answers
const (
	noteAnswer = "worded answer"
	noteRefund = "worded answer refunded"
)

// Reservation is one worded answer reserved by ReserveAnswer: counted in
// the organisation's usage and, when paid in credits, debited, but not yet
// committed (delivered) or refunded. Pass it back unchanged to
// CommitAnswer or RefundAnswer.
type Reservation struct {
	ID        uint64    `json:"id"` // 1, 2, 3... across the file, never reused
	OrgID     string    `json:"org"`
	KeyID     string    `json:"keyId,omitempty"`
	RequestID string    `json:"requestId,omitempty"`
	Source    string    `json:"source"`            // SourceAllowance or SourceCredits
	Credits   int64     `json:"credits,omitempty"` // credits debited: 0 from the allowance
	Month     string    `json:"month"`             // UTC month it counts in, "2026-11"
	Day       string    `json:"day"`               // UTC day it counts in, "2026-11-22"
	Time      time.Time `json:"time"`              // when it was reserved, UTC
}

// reservationKey is the key of reservation id in the pending and refunded
// buckets.
func reservationKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// decodeReservation decodes a pending record, checking what ReserveAnswer
// guarantees.
func decodeReservation(key, v []byte) (Reservation, error) {
	if len(key) != 8 {
		return Reservation{}, fmt.Errorf("key of %d bytes, want 8", len(key))
	}
	if v == nil {
		return Reservation{}, errors.New("a bucket, not a record")
	}
	var r Reservation
	if err := decodeStrict(v, &r); err != nil {
		return Reservation{}, err
	}
	day, dayErr := time.Parse(dayLayout, r.Day)
	switch {
	case r.ID != binary.BigEndian.Uint64(key):
		return Reservation{}, fmt.Errorf("record holds id %d", r.ID)
	case !idPattern.MatchString(r.OrgID):
		return Reservation{}, fmt.Errorf("invalid organisation id %q", r.OrgID)
	case r.Source == SourceAllowance && r.Credits != 0,
		r.Source == SourceCredits && r.Credits <= 0,
		r.Source != SourceAllowance && r.Source != SourceCredits:
		return Reservation{}, fmt.Errorf("source %q with %d credits", r.Source, r.Credits)
	case dayErr != nil || monthOf(day) != r.Month:
		return Reservation{}, fmt.Errorf("month %q and day %q", r.Month, r.Day)
	case r.Time.IsZero():
		return Reservation{}, errors.New("no time")
	}
	return r, nil
}

// readCounter reads a usage counter of an organisation inside tx; one that
// does not exist is zero.
func (s *Store) readCounter(tx *bbolt.Tx, orgID string, name []byte) (counter, error) {
	return s.counterIn(usageBucket(tx, orgID), orgID, name)
}

// groupDigits formats n with a comma between groups of three digits:
// 20,000.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ReserveAnswer reserves one worded answer for a request of key keyID, in
// one transaction, before the model is called. In order:
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
func (s *Store) ReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (Reservation, error) {
	if err := checkRef("key id", keyID); err != nil {
		return Reservation{}, err
	}
	if err := checkRef("request id", requestID); err != nil {
		return Reservation{}, err
	}
	if creditCost <= 0 {
		creditCost = 1
	}
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	var r Reservation
	err := s.commit(func(tx *bbolt.Tx) (func() error, error) {
		r = Reservation{OrgID: orgID, KeyID: keyID, RequestID: requestID, Month: monthOf(now), Day: dayOf(now), Time: now}
		o, err := s.getOrg(tx, orgID)
		if err != nil {
			return nil, err
		}
		day, err := s.readCounter(tx, o.ID, answersCounter(r.Day))
		if err != nil {
			return nil, err
		}
		if day.Count >= DailyCeiling {
			return nil, errorf(ErrNoAllowance, nil, "organisation %s has reached the daily ceiling of %s worded answers (UTC day %s)", o.ID, groupDigits(DailyCeiling), r.Day)
		}
		month, err := s.readCounter(tx, o.ID, answersCounter(r.Month))
		if err != nil {
			return nil, err
		}
		allowance := int64(PlanAllowance[o.Plan])
		switch {
		case month.Count < allowance:
			r.Source = SourceAllowance
		case o.Credits >= creditCost:
			r.Source, r.Credits = SourceCredits, creditCost
		default:
			return nil, errorf(ErrNoAllowance, nil, "organisation %s: the monthly allowance of %s worded answers and credits are spent (UTC month %s; %s left, a worded answer costs %s)",
				o.ID, groupDigits(allowance), r.Month, creditsText(uint64(o.Credits)), creditsText(uint64(creditCost)))
		}
		return func() error {
			pending, err := tx.CreateBucketIfNotExists(bucketPending)
			if err != nil {
				return err
			}
			if r.ID, err = pending.NextSequence(); err != nil {
				return err
			}
			if r.Source == SourceCredits {
				o.Credits -= r.Credits
				e := LedgerEntry{
					Time: now, Kind: LedgerAnswer, Credits: -r.Credits, Balance: o.Credits,
					Note: noteAnswer, KeyID: keyID, RequestID: requestID,
				}
				if _, err := appendLedger(tx, o.ID, e); err != nil {
					return err
				}
				if err := putOrg(tx, o); err != nil {
					return err
				}
			}
			for _, period := range []string{r.Month, r.Day} {
				if _, err := s.addCounter(tx, o.ID, answersCounter(period), 1, r.Credits); err != nil {
					return err
				}
			}
			return putJSON(pending, reservationKey(r.ID), r)
		}, nil
	})
	if err != nil {
		return Reservation{}, err
	}
	return r, nil
}

// pendingReservation looks reservation r up in tx: the stored record and
// pending == true when r is pending; pending == false and no error when it
// was committed; ErrNotFound when it was refunded or never made (or made
// for another organisation); ErrInvalid without an id.
func (s *Store) pendingReservation(tx *bbolt.Tx, r Reservation) (stored Reservation, pending bool, err error) {
	if r.ID == 0 {
		return Reservation{}, false, errorf(ErrInvalid, nil, "invalid reservation: no id")
	}
	key := reservationKey(r.ID)
	b := tx.Bucket(bucketPending)
	if b != nil {
		if v := b.Get(key); v != nil {
			stored, err := decodeReservation(key, v)
			if err != nil {
				return Reservation{}, false, errorf(ErrCorrupt, err, "data file %q is corrupt: pending worded answer %d: %v", s.path, r.ID, err)
			}
			if stored.OrgID != r.OrgID {
				return Reservation{}, false, errorf(ErrNotFound, nil, "worded answer reservation %d of organisation %q not found", r.ID, r.OrgID)
			}
			return stored, true, nil
		}
	}
	if rb := tx.Bucket(bucketRefunded); rb != nil && rb.Get(key) != nil {
		return Reservation{}, false, errorf(ErrNotFound, nil, "worded answer reservation %d was refunded", r.ID)
	}
	if b == nil || r.ID > b.Sequence() {
		return Reservation{}, false, errorf(ErrNotFound, nil, "worded answer reservation %d not found", r.ID)
	}
	// Made, and neither pending nor refunded: committed.
	return Reservation{}, false, nil
}

// CommitAnswer settles a reservation whose wording was delivered: the
// answer stays spent. Committing it again does nothing. Errors:
// ErrNotFound for a reservation that was refunded, or never made (by this
// file, or for another organisation); ErrInvalid for one without an id;
// ErrCorrupt.
func (s *Store) CommitAnswer(r Reservation) error {
	return s.commit(func(tx *bbolt.Tx) (func() error, error) {
		_, pending, err := s.pendingReservation(tx, r)
		switch {
		case err != nil:
			return nil, err
		case !pending:
			return func() error { return nil }, nil
		}
		return func() error { return tx.Bucket(bucketPending).Delete(reservationKey(r.ID)) }, nil
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
func (s *Store) RefundAnswer(r Reservation, now time.Time) error {
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
			return nil, errorf(ErrNotFound, nil, "worded answer reservation %d was committed; it cannot be refunded", r.ID)
		}
		return s.checkRefund(tx, stored, now)
	})
}

// refund reverses the pending reservation r, as stored, inside tx.
func (s *Store) refund(tx *bbolt.Tx, r Reservation, now time.Time) error {
	write, err := s.checkRefund(tx, r, now)
	if err != nil {
		return err
	}
	return write()
}

// checkRefund checks that the pending reservation r, as stored, can be
// reversed inside tx and returns the write that reverses it. Refusals:
// ErrNotFound for its organisation; ErrCorrupt for a usage counter that
// holds less than r added; ErrInvalid for a balance that would overflow.
func (s *Store) checkRefund(tx *bbolt.Tx, r Reservation, now time.Time) (func() error, error) {
	o, err := s.getOrg(tx, r.OrgID)
	if err != nil {
		return nil, err
	}
	for _, period := range []string{r.Month, r.Day} {
		c, err := s.readCounter(tx, o.ID, answersCounter(period))
		if err != nil {
			return nil, err
		}
		if c.Count < 1 || c.Credits < r.Credits {
			return nil, errorf(ErrCorrupt, nil, "data file %q is corrupt: refunding worded answer %d: usage counter %q of organisation %q holds %d, %d credits", s.path, r.ID, answersCounter(period), o.ID, c.Count, c.Credits)
		}
	}
	if r.Source == SourceCredits {
		balance, ok := addInt64(o.Credits, r.Credits)
		if !ok {
			return nil, errorf(ErrInvalid, nil, "organisation %s has %s; refunding %d would pass the largest balance", o.ID, creditsText(uint64(o.Credits)), r.Credits)
		}
		o.Credits = balance
	}
	return func() error {
		for _, period := range []string{r.Month, r.Day} {
			if _, err := s.addCounter(tx, o.ID, answersCounter(period), -1, -r.Credits); err != nil {
				return err
			}
		}
		if r.Source == SourceCredits {
			e := LedgerEntry{
				Time: now, Kind: LedgerRefund, Credits: r.Credits, Balance: o.Credits,
				Note: noteRefund, KeyID: r.KeyID, RequestID: r.RequestID,
			}
			if _, err := appendLedger(tx, o.ID, e); err != nil {
				return err
			}
			if err := putOrg(tx, o); err != nil {
				return err
			}
		}
		key := reservationKey(r.ID)
		refunded, err := tx.CreateBucketIfNotExists(bucketRefunded)
		if err != nil {
			return err
		}
		if err := refunded.Put(key, []byte(now.Format(time.RFC3339Nano))); err != nil {
			return err
		}
		return tx.Bucket(bucketPending).Delete(key)
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
		var all []Reservation
		err := b.ForEach(func(k, v []byte) error {
			r, err := decodeReservation(k, v)
			if err != nil {
				return errorf(ErrCorrupt, err, "data file %q is corrupt: pending worded answer %x: %v", s.path, k, err)
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
