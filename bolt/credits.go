package bolt

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	bbolt "go.etcd.io/bbolt"
)

// Kinds of ledger entry written by this build. Later entries for per-query
// dataset charges and worded answers use kinds of their own and fill in the
// optional fields of LedgerEntry.
const (
	LedgerGrant  = "grant"  // credits added by an administrator
	LedgerAdjust = "adjust" // credits removed by an administrator
)

// maxNoteLen bounds a ledger note, in characters (Unicode code points).
const maxNoteLen = 200

// LedgerEntry is one change to an organisation's credit balance. Entries
// are append-only: never changed or removed once written.
type LedgerEntry struct {
	Seq     uint64    `json:"seq"`     // 1, 2, 3... per organisation, in the order written
	Time    time.Time `json:"time"`    // when, UTC
	Kind    string    `json:"kind"`    // LedgerGrant, LedgerAdjust, ...
	Credits int64     `json:"credits"` // the signed change; never zero
	Balance int64     `json:"balance"` // the balance after the change; never below zero

	Note      string `json:"note,omitempty"`      // why, as the administrator wrote it
	KeyID     string `json:"keyId,omitempty"`     // public id of the key whose request was charged
	Dataset   string `json:"dataset,omitempty"`   // dataset a per-query charge was for
	RequestID string `json:"requestId,omitempty"` // request that was charged
}

// ledgerKey is the key of ledger entry seq in its organisation's bucket.
func ledgerKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// decodeLedgerEntry decodes a stored ledger entry, checking what every
// writer guarantees: the sequence number of its key, a time, a kind, a
// change that is not zero and a balance that is not negative.
func decodeLedgerEntry(key, v []byte) (LedgerEntry, error) {
	if len(key) != 8 {
		return LedgerEntry{}, fmt.Errorf("key of %d bytes, want 8", len(key))
	}
	var e LedgerEntry
	if err := decodeStrict(v, &e); err != nil {
		return LedgerEntry{}, err
	}
	switch seq := binary.BigEndian.Uint64(key); {
	case e.Seq != seq:
		return LedgerEntry{}, fmt.Errorf("record holds sequence number %d", e.Seq)
	case e.Time.IsZero():
		return LedgerEntry{}, errors.New("no time")
	case e.Kind == "":
		return LedgerEntry{}, errors.New("no kind")
	case e.Credits == 0:
		return LedgerEntry{}, errors.New("a change of 0 credits")
	case e.Balance < 0:
		return LedgerEntry{}, fmt.Errorf("negative balance %d", e.Balance)
	}
	return e, nil
}

// checkNote checks an administrator's note: required, at most maxNoteLen
// characters of UTF-8 without control characters (notes are listed one a
// line).
func checkNote(note string) error {
	switch {
	case strings.TrimSpace(note) == "":
		return errorf(ErrInvalid, nil, "a note is required: say why the credits change")
	case !utf8.ValidString(note):
		return errorf(ErrInvalid, nil, "invalid note: not UTF-8 text")
	case utf8.RuneCountInString(note) > maxNoteLen:
		return errorf(ErrInvalid, nil, "invalid note: %d characters, at most %d", utf8.RuneCountInString(note), maxNoteLen)
	}
	for _, r := range note {
		if unicode.IsControl(r) {
			return errorf(ErrInvalid, nil, "invalid note: control character %U", r)
		}
	}
	return nil
}

// creditsText formats n credits, "1 credit" or "5 credits".
func creditsText(n uint64) string {
	if n == 1 {
		return "1 credit"
	}
	return strconv.FormatUint(n, 10) + " credits"
}

// abs returns |n| as a uint64, which holds it even for math.MinInt64.
func abs(n int64) uint64 {
	if n < 0 {
		return uint64(-(n + 1)) + 1
	}
	return uint64(n)
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
func (s *Store) AddCredits(orgID string, n int64, note string, now time.Time) (Org, LedgerEntry, error) {
	if n == 0 {
		return Org{}, LedgerEntry{}, errorf(ErrInvalid, nil, "invalid credit change: 0 credits; give a positive number to grant or a negative one to remove")
	}
	if err := checkNote(note); err != nil {
		return Org{}, LedgerEntry{}, err
	}
	if now.IsZero() {
		now = s.clock()
	}
	e := LedgerEntry{Time: now.Round(0).UTC(), Kind: LedgerGrant, Credits: n, Note: note}
	if n < 0 {
		e.Kind = LedgerAdjust
	}
	var o Org
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if o, err = s.getOrg(tx, orgID); err != nil {
			return err
		}
		switch {
		case n < 0 && abs(n) > uint64(o.Credits):
			return errorf(ErrInvalid, nil, "organisation %s has %s; cannot remove %d", o.ID, creditsText(uint64(o.Credits)), abs(n))
		case n > 0 && o.Credits > math.MaxInt64-n:
			return errorf(ErrInvalid, nil, "organisation %s has %s; adding %d would pass the largest balance, %d", o.ID, creditsText(uint64(o.Credits)), n, int64(math.MaxInt64))
		}
		o.Credits += n
		e.Balance = o.Credits
		if e.Seq, err = appendLedger(tx, o.ID, e); err != nil {
			return err
		}
		return putOrg(tx, o)
	})
	if err != nil {
		return Org{}, LedgerEntry{}, err
	}
	return o, e, nil
}

// appendLedger writes e as the next entry of the organisation's ledger
// inside tx, numbering it from the bucket's sequence, and returns its
// number. e.Seq is ignored. The caller has checked that the organisation
// exists and updates its balance to e.Balance in the same tx.
func appendLedger(tx *bbolt.Tx, orgID string, e LedgerEntry) (uint64, error) {
	all, err := tx.CreateBucketIfNotExists(bucketLedger)
	if err != nil {
		return 0, err
	}
	b, err := all.CreateBucketIfNotExists([]byte(orgID))
	if err != nil {
		return 0, err
	}
	if e.Seq, err = b.NextSequence(); err != nil {
		return 0, err
	}
	v, err := json.Marshal(e)
	if err != nil {
		return 0, err
	}
	return e.Seq, b.Put(ledgerKey(e.Seq), v)
}

// Ledger returns the organisation's newest limit ledger entries (all of them
// when limit <= 0) in the order they were written, oldest first. An
// organisation that never had credits has none. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) Ledger(orgID string, limit int) ([]LedgerEntry, error) {
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
func (s *Store) OrgLedger(orgID string, limit int) (Org, []LedgerEntry, error) {
	var o Org
	var entries []LedgerEntry
	err := s.view(func(tx *bbolt.Tx) error {
		var err error
		if o, err = s.getOrg(tx, orgID); err != nil {
			return err
		}
		entries, err = s.readLedger(tx, orgID, limit)
		return err
	})
	if err != nil {
		return Org{}, nil, err
	}
	return o, entries, nil
}

// readLedger reads the newest limit entries (all when limit <= 0) of an
// organisation's ledger inside tx, oldest first.
func (s *Store) readLedger(tx *bbolt.Tx, orgID string, limit int) ([]LedgerEntry, error) {
	var b *bbolt.Bucket
	if all := tx.Bucket(bucketLedger); all != nil {
		b = all.Bucket([]byte(orgID))
	}
	if b == nil {
		return nil, nil
	}
	var entries []LedgerEntry
	c := b.Cursor()
	for k, v := c.Last(); k != nil && (limit <= 0 || len(entries) < limit); k, v = c.Prev() {
		if v == nil {
			return nil, errorf(ErrCorrupt, nil, "data file %q is corrupt: ledger of organisation %q holds a bucket", s.path, orgID)
		}
		e, err := decodeLedgerEntry(k, v)
		if err != nil {
			return nil, errorf(ErrCorrupt, err, "data file %q is corrupt: ledger of organisation %q, entry %x: %v", s.path, orgID, k, err)
		}
		entries = append(entries, e)
	}
	slices.Reverse(entries)
	return entries, nil
}
