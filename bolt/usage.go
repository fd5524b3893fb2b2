package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// Usage is what an organisation has used in the current calendar month and
// day (UTC), against its plan, with its credit balance.
type Usage struct {
	OrgID            string          `json:"org"`
	Plan             string          `json:"plan"`
	Month            string          `json:"month"`             // "2026-11", UTC
	Day              string          `json:"day"`               // "2026-11-22", UTC
	Allowance        int             `json:"allowance"`         // worded answers the plan includes this month
	AnswersThisMonth int             `json:"answersThisMonth"`  // worded answers given this month, allowance and credits alike
	DailyCeiling     int             `json:"dailyCeiling"`      // DailyCeiling
	AnswersToday     int             `json:"answersToday"`      // worded answers given today
	Credits          int64           `json:"credits"`           // the balance now
	Charges          []DatasetCharge `json:"charges,omitempty"` // per-query charges this month, by dataset id
}

// DatasetCharge is what one per-query dataset cost an organisation in a
// month: the requests it was charged on and the credits they took.
type DatasetCharge struct {
	Dataset  string `json:"dataset"`
	Requests int    `json:"requests"`
	Credits  int64  `json:"credits"`
}

// A usage counter: how many (worded answers, or charged requests) and the
// credits they took. Stored as counterSize bytes, both numbers big-endian
// and never negative.
type counter struct {
	Count, Credits int64
}

const counterSize = 16

// Names of usage counters: "answers:" and a UTC month or day, or "charges:",
// a UTC month, ':' and a dataset id. Dataset ids hold no ':', so a name
// reads back one way only.
const (
	counterAnswers = "answers:"
	counterCharges = "charges:"
	monthLayout    = "2006-01"
	dayLayout      = "2006-01-02"
)

func monthOf(t time.Time) string { return t.UTC().Format(monthLayout) }
func dayOf(t time.Time) string   { return t.UTC().Format(dayLayout) }

// answersCounter names the worded-answer counter of a month or day period.
func answersCounter(period string) []byte { return []byte(counterAnswers + period) }

// chargesPrefix is the start of the names of a month's charge counters.
func chargesPrefix(month string) []byte { return []byte(counterCharges + month + ":") }

// chargesCounter names the counter of a dataset's charges in a month.
func chargesCounter(month, dataset string) []byte {
	return append(chargesPrefix(month), dataset...)
}

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
func (s *Store) addCounter(tx *bbolt.Tx, orgID string, name []byte, count, credits int64) (counter, error) {
	if len(name) == 0 || len(name) > bbolt.MaxKeySize {
		return counter{}, errorf(ErrInvalid, nil, "invalid usage counter name of %d bytes", len(name))
	}
	if lookup(tx, bucketOrgs, orgID) == nil {
		return counter{}, errorf(ErrNotFound, nil, "organisation %q not found", orgID)
	}
	all, err := tx.CreateBucketIfNotExists(bucketUsage)
	if err != nil {
		return counter{}, err
	}
	b, err := all.CreateBucketIfNotExists([]byte(orgID))
	if err != nil {
		return counter{}, err
	}
	c, err := s.counterIn(b, orgID, name)
	if err != nil {
		return counter{}, err
	}
	n, ok1 := addInt64(c.Count, count)
	cr, ok2 := addInt64(c.Credits, credits)
	switch {
	case !ok1 || !ok2:
		return counter{}, errorf(ErrInvalid, nil, "usage counter %q of organisation %q would overflow", name, orgID)
	case n < 0 || cr < 0:
		return counter{}, errorf(ErrInvalid, nil, "usage counter %q of organisation %q would go below zero (%d, %d credits; adding %d, %d credits)", name, orgID, c.Count, c.Credits, count, credits)
	}
	c = counter{n, cr}
	return c, b.Put(name, c.append(make([]byte, 0, counterSize)))
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
func (s *Store) counterIn(b *bbolt.Bucket, orgID string, name []byte) (counter, error) {
	var v []byte
	if b != nil {
		v = b.Get(name)
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

func (s *Store) corruptCounter(orgID string, name []byte, err error) error {
	return errorf(ErrCorrupt, err, "data file %q is corrupt: usage counter %q of organisation %q: %v", s.path, name, orgID, err)
}

// Usage returns the organisation's usage in the calendar month and day (UTC)
// holding now (zero means the current time): worded answers against its
// plan's allowance and the daily ceiling, its credit balance, and this
// month's per-query charges sorted by dataset id. Counters never written
// read as zero. Everything is read in one transaction. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) Usage(orgID string, now time.Time) (Usage, error) {
	if now.IsZero() {
		now = s.clock()
	}
	u := Usage{OrgID: orgID, Month: monthOf(now), Day: dayOf(now), DailyCeiling: DailyCeiling}
	err := s.view(func(tx *bbolt.Tx) error {
		o, err := s.getOrg(tx, orgID)
		if err != nil {
			return err
		}
		u.Plan, u.Allowance, u.Credits = o.Plan, PlanAllowance[o.Plan], o.Credits
		b := usageBucket(tx, orgID)
		if b == nil {
			return nil
		}
		month, err := s.counterIn(b, orgID, answersCounter(u.Month))
		if err != nil {
			return err
		}
		day, err := s.counterIn(b, orgID, answersCounter(u.Day))
		if err != nil {
			return err
		}
		u.AnswersThisMonth, u.AnswersToday = clampInt(month.Count), clampInt(day.Count)

		prefix := chargesPrefix(u.Month)
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			dataset := string(k[len(prefix):])
			if v == nil || !idPattern.MatchString(dataset) {
				return s.corruptCounter(orgID, k, errors.New("not a dataset charge counter"))
			}
			ch, err := decodeCounter(v)
			if err != nil {
				return s.corruptCounter(orgID, k, err)
			}
			// bbolt iterates in byte order, which for ids of ASCII
			// letters, digits, '_' and '-' is dataset id order.
			u.Charges = append(u.Charges, DatasetCharge{Dataset: dataset, Requests: clampInt(ch.Count), Credits: ch.Credits})
		}
		return nil
	})
	if err != nil {
		return Usage{}, err
	}
	return u, nil
}

// clampInt converts a non-negative counter to int, saturating where int is
// 32 bits.
func clampInt(n int64) int {
	if n > math.MaxInt {
		return math.MaxInt
	}
	return int(n)
}
