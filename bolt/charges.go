package bolt

import (
	"slices"
	"strings"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// LedgerCharge is the kind of the ledger entry of a per-query dataset
// charge: Credits is minus the dataset's price, and KeyID, Dataset and
// RequestID say what was charged.
const LedgerCharge = "charge"

// checkRef checks a key id or request id that a charge records: at most
// maxRequestIDLen bytes of printable text.
func checkRef(what, ref string) error {
	return checkText(what, ref, maxRequestIDLen, false)
}

// Charge debits per-query datasets for one request, in one transaction.
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
func (s *Store) Charge(orgID, keyID, requestID string, ds []DatasetPrice, now time.Time) (charged, leftOut []string, err error) {
	if len(ds) == 0 {
		return nil, nil, nil
	}
	if err := checkRef("key id", keyID); err != nil {
		return nil, nil, err
	}
	if err := checkRef("request id", requestID); err != nil {
		return nil, nil, err
	}
	sorted := slices.Clone(ds)
	slices.SortFunc(sorted, func(a, b DatasetPrice) int { return strings.Compare(a.ID, b.ID) })
	for i, d := range sorted {
		switch {
		case !idPattern.MatchString(d.ID):
			return nil, nil, errorf(ErrInvalid, nil, "invalid dataset id %q: must match %s", d.ID, idRule)
		case i > 0 && sorted[i-1].ID == d.ID:
			return nil, nil, errorf(ErrInvalid, nil, "dataset %s is charged twice in one request", d.ID)
		case d.Price < 0:
			return nil, nil, errorf(ErrInvalid, nil, "invalid price %d for dataset %s: must be 0 or more credits", d.Price, d.ID)
		}
	}
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	month := monthOf(now)

	err = s.commit(func(tx *bbolt.Tx) (func() error, error) {
		o, err := s.getOrg(tx, orgID)
		if err != nil {
			return nil, err
		}
		var entries []LedgerEntry
		var counted []DatasetPrice
		for _, d := range sorted {
			if d.Price > o.Credits {
				leftOut = append(leftOut, d.ID)
				continue
			}
			if d.Price > 0 {
				o.Credits -= d.Price
				entries = append(entries, LedgerEntry{
					Time: now, Kind: LedgerCharge, Credits: -d.Price, Balance: o.Credits,
					KeyID: keyID, Dataset: d.ID, RequestID: requestID,
				})
			}
			counted = append(counted, d)
			charged = append(charged, d.ID)
		}
		return func() error {
			for _, e := range entries {
				if _, err := appendLedger(tx, o.ID, e); err != nil {
					return err
				}
			}
			for _, d := range counted {
				if _, err := s.addCounter(tx, o.ID, chargesCounter(month, d.ID), 1, d.Price); err != nil {
					return err
				}
			}
			if len(entries) == 0 {
				return nil
			}
			return putOrg(tx, o)
		}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return charged, leftOut, nil
}
