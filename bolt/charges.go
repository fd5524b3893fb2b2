package bolt

import (
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// Charge debits per-query datasets for one request, in one transaction,
// which it shares with the ledger writes of other requests waiting at the
// same moment (group commit, committer.go); it returns once that
// transaction is on disk.
//
// Going through ds in ascending dataset id, it debits each dataset's price
// while the organisation's balance covers it: the balance goes down, a
// ledger entry of kind LedgerCharge (Credits minus the price; KeyID,
// Dataset and RequestID set) is appended and the organisation's usage
// counter "charges:<month>:<dataset>" (the UTC month of now) counts one
// request and the price. A dataset the balance does not cover is not
// charged and goes to leftOut; a cheaper one after it may still be
// charged. A free dataset (price 0) is always charged: it is counted in
// usage but writes no ledger entry, as the balance does not change. Both
// lists are in ascending id order and every dataset of ds is in exactly
// one of them. The balance never goes below zero: concurrent calls run
// one after another, each against the balance the previous one left.
//
// Charge trusts the caller to have found the datasets readable per query
// (Readable); it does not look them up. now is the entries' time (zero
// means the current time).
//
// Errors: ErrInvalid for a bad or repeated dataset id, a negative price or
// an over-long key or request id; ErrNotFound for an unknown organisation;
// ErrCorrupt. Nothing is written on error.
func (s *Store) Charge(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) (charged, leftOut []string, err error) {
	charged, leftOut, durable, err := s.StartCharge(orgID, keyID, requestID, ds, now)
	if err != nil {
		return nil, nil, err
	}
	if err := durable(); err != nil {
		return nil, nil, err
	}
	return charged, leftOut, nil
}

// StartCharge is Charge returning as soon as the charge is decided, while
// its transaction commits (state.ChargeStarter): the caller may build its
// response meanwhile, and sends it once durable returns nil. When durable
// returns an error, nothing was charged and charged and leftOut are void.
func (s *Store) StartCharge(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) (charged, leftOut []string, durable func() error, err error) {
	if len(ds) == 0 {
		return nil, nil, noWrite, nil
	}
	sorted, err := state.CheckCharge(keyID, requestID, ds)
	if err != nil {
		return nil, nil, nil, err
	}
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	var c state.Charges
	durable, err = s.commitEarly(func(tx *bbolt.Tx) (func() error, error) {
		o, err := s.getOrg(tx, orgID)
		if err != nil {
			return nil, err
		}
		c = state.DecideCharge(o, keyID, requestID, sorted, now)
		return func() error {
			if err := s.settle(tx, c.Org, c.Entries, c.Counters); err != nil {
				return err
			}
			if len(c.Entries) == 0 {
				return nil
			}
			return s.putOrg(tx, c.Org)
		}, nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return c.Charged, c.LeftOut, durable, nil
}

// noWrite is the durable of a call that wrote nothing.
func noWrite() error { return nil }

// settle writes what a metering rule of package state decided for
// organisation o inside tx: its ledger entries, numbered in order, and its
// usage counter changes. The caller writes o's balance.
func (s *Store) settle(tx *bbolt.Tx, o state.Org, entries []state.LedgerEntry, counters []state.CounterChange) error {
	for _, e := range entries {
		if _, err := s.appendLedger(tx, o.ID, e); err != nil {
			return err
		}
	}
	for _, c := range counters {
		if _, err := s.addCounter(tx, o.ID, c.Name, c.Count, c.Credits); err != nil {
			return err
		}
	}
	return nil
}
