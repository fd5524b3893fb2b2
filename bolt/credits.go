package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// ledgerKey is the key of ledger entry seq in its organisation's bucket.
func ledgerKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// decodeLedgerEntry decodes a stored ledger entry, checking what every
// writer guarantees: the sequence number of its key, a time, a kind, a
// change that is not zero and a balance that is not negative.
func decodeLedgerEntry(key, v []byte) (state.LedgerEntry, error) {
	if len(key) != 8 {
		return state.LedgerEntry{}, fmt.Errorf("key of %d bytes, want 8", len(key))
	}
	var e state.LedgerEntry
	if err := decodeStrict(v, &e); err != nil {
		return state.LedgerEntry{}, err
	}
	switch seq := binary.BigEndian.Uint64(key); {
	case e.Seq != seq:
		return state.LedgerEntry{}, fmt.Errorf("record holds sequence number %d", e.Seq)
	case e.Time.IsZero():
		return state.LedgerEntry{}, errors.New("no time")
	case e.Kind == "":
		return state.LedgerEntry{}, errors.New("no kind")
	case e.Credits == 0:
		return state.LedgerEntry{}, errors.New("a change of 0 credits")
	case e.Balance < 0:
		return state.LedgerEntry{}, fmt.Errorf("negative balance %d", e.Balance)
	}
	return e, nil
}

// AddCredits changes the organisation's balance by n (a grant when n > 0,
// an adjustment when n < 0) and appends the ledger entry that records it,
// both in one transaction: a crash leaves either both or neither. now is
// the entry's time (zero means the current time); note says why and is
// required (at most 200 characters, no control characters).
//
// Concurrent calls are applied one after another (bbolt runs one writer at
// a time), each against the balance the previous one left: removals can
// never overspend.
//
// Errors: ErrInvalid for n == 0, a bad note, a removal larger than the
// balance ("organisation acme has 5 credits; cannot remove 10") or a
// balance that would pass math.MaxInt64; ErrNotFound; ErrCorrupt. Nothing
// is written on error.
func (s *Store) AddCredits(orgID string, n int64, note string, now time.Time) (state.Org, state.LedgerEntry, error) {
	kind, err := state.CheckCreditChange(n, note)
	if err != nil {
		return state.Org{}, state.LedgerEntry{}, err
	}
	if now.IsZero() {
		now = s.clock()
	}
	var o state.Org
	var e state.LedgerEntry
	err = s.update(func(tx *bbolt.Tx) error {
		var err error
		if o, err = s.getOrg(tx, orgID); err != nil {
			return err
		}
		if o, e, err = state.ChangeCredits(o, n, kind, note, now.Round(0).UTC()); err != nil {
			return err
		}
		if e.Seq, err = s.appendLedger(tx, o.ID, e); err != nil {
			return err
		}
		return s.putOrg(tx, o)
	})
	if err != nil {
		return state.Org{}, state.LedgerEntry{}, err
	}
	return o, e, nil
}

// appendLedger writes e as the next entry of the organisation's ledger
// inside tx, numbering it from the bucket's sequence, and returns its
// number. e.Seq is ignored. The caller has checked that the organisation
// exists and updates its balance to e.Balance in the same tx.
func (s *Store) appendLedger(tx *bbolt.Tx, orgID string, e state.LedgerEntry) (uint64, error) {
	b, err := s.writeBucket(tx, bucketLedger, []byte(orgID))
	if err != nil {
		return 0, err
	}
	// Entries are appended in key order, so the pages they fill are
	// never written to again: filled whole instead of half (bbolt's
	// default, for keys arriving in any order), the ledger holds half the
	// pages and a group's commit splits and writes fewer.
	b.FillPercent = 1
	if e.Seq, err = b.NextSequence(); err != nil {
		return 0, err
	}
	v, err := encodeLedgerEntry(e)
	if err != nil {
		return 0, err
	}
	return e.Seq, b.Put(ledgerKey(e.Seq), v)
}

// Ledger returns the organisation's newest limit ledger entries (all of them
// when limit <= 0) in the order they were written, oldest first. An
// organisation that never had credits has none. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) Ledger(orgID string, limit int) ([]state.LedgerEntry, error) {
	_, entries, err := s.OrgLedger(orgID, limit)
	return entries, err
}

// OrgLedger returns the organisation and its newest limit ledger entries
// (all when limit <= 0), oldest first, read in one transaction: the balance
// is the one the last entry shows, even while credits change. Errors:
// ErrNotFound; ErrCorrupt.
//
// Every entry is read and held in memory when limit <= 0; per-query charges
// add an entry per charged request, so a busy organisation's whole ledger
// can be large.
func (s *Store) OrgLedger(orgID string, limit int) (state.Org, []state.LedgerEntry, error) {
	s.settled()
	var o state.Org
	var entries []state.LedgerEntry
	err := s.view(func(tx *bbolt.Tx) error {
		var err error
		if o, err = s.getOrg(tx, orgID); err != nil {
			return err
		}
		entries, err = s.readLedger(tx, orgID, limit)
		return err
	})
	if err != nil {
		return state.Org{}, nil, err
	}
	return o, entries, nil
}

// readLedger reads the newest limit entries (all when limit <= 0) of an
// organisation's ledger inside tx, oldest first.
func (s *Store) readLedger(tx *bbolt.Tx, orgID string, limit int) ([]state.LedgerEntry, error) {
	var b *bbolt.Bucket
	if all := tx.Bucket(bucketLedger); all != nil {
		b = all.Bucket([]byte(orgID))
	}
	if b == nil {
		return nil, nil
	}
	var entries []state.LedgerEntry
	c := b.Cursor()
	for k, v := c.Last(); k != nil && (limit <= 0 || len(entries) < limit); k, v = c.Prev() {
		if v == nil {
			return nil, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: ledger of organisation %q holds a bucket", s.path, orgID)
		}
		e, err := decodeLedgerEntry(k, v)
		if err != nil {
			return nil, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: ledger of organisation %q, entry %x: %v", s.path, orgID, k, err)
		}
		entries = append(entries, e)
	}
	slices.Reverse(entries)
	return entries, nil
}
