package bolt

import (
	"io"
	"slices"
	"strings"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// The rules of the shared state (package state), exported so that another
// implementation of it (PostgreSQL, package state/pgstate) checks its input
// exactly as this one does and words its errors alike. They are pure
// functions, safe for concurrent use.

// Errorf returns an error of one of this package's kinds (ErrInvalid,
// ErrNotFound, ...) with its own one-line message; errors.Is finds kind.
func Errorf(kind error, format string, args ...any) error {
	return errorf(kind, nil, format, args...)
}

// CheckNewOrg applies AddOrg's checks and defaults to o and returns it as
// AddOrg would store it; now is the creation time when o.Created is zero.
// Errors: ErrInvalid naming the rule broken.
func CheckNewOrg(o Org, now time.Time) (Org, error) {
	if !idPattern.MatchString(o.ID) {
		return Org{}, errorf(ErrInvalid, nil, "invalid organisation id %q: must match %s (lowercase letters, digits, '_' and '-', up to 64)", o.ID, idRule)
	}
	if o.Name == "" {
		o.Name = o.ID
	}
	if err := checkName("organisation", o.Name); err != nil {
		return Org{}, err
	}
	if o.Plan == "" {
		o.Plan = PlanTrial
	}
	if err := checkPlan(o.Plan); err != nil {
		return Org{}, err
	}
	if o.Credits != 0 {
		return Org{}, errorf(ErrInvalid, nil, "invalid organisation %q: a new organisation starts with 0 credits (asked for %d); grant credits with a ledger entry", o.ID, o.Credits)
	}
	if o.Created.IsZero() {
		o.Created = now
	}
	o.Created = o.Created.Round(0).UTC()
	return o, nil
}

// CheckPlan is SetPlan's check of a plan name. Errors: ErrInvalid listing
// the plans.
func CheckPlan(plan string) error { return checkPlan(plan) }

// CheckCreditChange is AddCredits's check of its arguments and returns the
// kind of the ledger entry (LedgerGrant or LedgerAdjust). Errors:
// ErrInvalid for n == 0 or a bad note.
func CheckCreditChange(n int64, note string) (kind string, err error) {
	if n == 0 {
		return "", errorf(ErrInvalid, nil, "invalid credit change: 0 credits; give a positive number to grant or a negative one to remove")
	}
	if err := checkNote(note); err != nil {
		return "", err
	}
	if n < 0 {
		return LedgerAdjust, nil
	}
	return LedgerGrant, nil
}

// CreditsText formats n credits: "1 credit", "5 credits".
func CreditsText(n int64) string { return creditsText(abs(n)) }

// GroupDigits formats n with commas between groups of three digits.
func GroupDigits(n int64) string { return groupDigits(n) }

// PrepareKey applies MintKey's checks to req and makes the key: a new
// public id and secret drawn from random (crypto/rand when nil), the
// secret's digest, the capabilities of its preset, its datasets sorted
// without duplicates, Created (req.Now, or now when zero) and Expires. It
// does not check that the organisation exists. Errors: ErrInvalid as
// MintKey; errors of the random source.
func PrepareKey(req MintRequest, now time.Time, random io.Reader) (Key, string, error) {
	caps, ttl, datasets, err := checkMint(req)
	if err != nil {
		return Key{}, "", err
	}
	if !req.Now.IsZero() {
		now = req.Now
	}
	now = now.Round(0).UTC()
	s := &Store{dataFile: &dataFile{rand: random}}
	id, err := s.newKeyID()
	if err != nil {
		return Key{}, "", err
	}
	secret, err := s.newSecret()
	if err != nil {
		return Key{}, "", err
	}
	k := Key{
		ID: id, OrgID: req.OrgID, Name: req.Name, Preset: req.Preset,
		Caps: slices.Clone(caps), Datasets: datasets, Digest: Digest(secret),
		Created: now, Expires: now.Add(ttl),
	}
	return k, secret, nil
}

// NewKeyring returns a Keyring of keys, for an implementation that loads
// them from elsewhere than a data file. A later key with the digest of an
// earlier one replaces it.
func NewKeyring(keys []Key) *Keyring {
	kr := &Keyring{keys: make(map[[32]byte]Key, len(keys))}
	for _, k := range keys {
		k.Caps = slices.Clip(k.Caps)
		k.Datasets = slices.Clip(k.Datasets)
		kr.keys[k.Digest] = k
	}
	return kr
}

// CheckLicenceMode is GrantLicence's check of a mode. Errors: ErrInvalid.
func CheckLicenceMode(mode string) error { return checkMode(mode) }

// CheckPrice is SetPrice's check of a price. Errors: ErrInvalid.
func CheckPrice(dataset string, credits int64) error { return checkPrice(dataset, credits) }

// CheckOffer is SetOffer's check of an offer that is not private: mode,
// price and licence text. Errors: ErrInvalid.
func CheckOffer(o Offer) error {
	if err := checkOfferMode(o.Mode); err != nil {
		return err
	}
	if err := checkPrice(o.Dataset, o.Price); err != nil {
		return err
	}
	return checkText("licence text of dataset "+o.Dataset, o.LicenceText, maxLicenceTextLen, true)
}

// CheckRef is the check of a key id or request id that a charge or a
// reservation records. Errors: ErrInvalid.
func CheckRef(what, ref string) error { return checkRef(what, ref) }

// CheckCharge applies Charge's checks to its arguments and returns ds
// sorted by dataset id. Errors: ErrInvalid as Charge.
func CheckCharge(keyID, requestID string, ds []DatasetPrice) ([]DatasetPrice, error) {
	if err := checkRef("key id", keyID); err != nil {
		return nil, err
	}
	if err := checkRef("request id", requestID); err != nil {
		return nil, err
	}
	sorted := slices.Clone(ds)
	slices.SortFunc(sorted, func(a, b DatasetPrice) int { return strings.Compare(a.ID, b.ID) })
	for i, d := range sorted {
		switch {
		case !idPattern.MatchString(d.ID):
			return nil, errorf(ErrInvalid, nil, "invalid dataset id %q: must match %s", d.ID, idRule)
		case i > 0 && sorted[i-1].ID == d.ID:
			return nil, errorf(ErrInvalid, nil, "dataset %s is charged twice in one request", d.ID)
		case d.Price < 0:
			return nil, errorf(ErrInvalid, nil, "invalid price %d for dataset %s: must be 0 or more credits", d.Price, d.ID)
		}
	}
	return sorted, nil
}

// CleanAudit applies AppendAudit's cleaning and checks to e: the time (now
// when zero) in UTC, text fields without control characters and cut to
// 500 bytes. Errors: ErrInvalid when Actor, Action or Outcome is empty.
func CleanAudit(e AuditEntry, now time.Time) (AuditEntry, error) {
	if e.Time.IsZero() {
		e.Time = now
	}
	e.Time = e.Time.Round(0).UTC()
	for _, f := range []*string{&e.Actor, &e.Org, &e.Action, &e.Target, &e.Detail, &e.Addr, &e.Outcome, &e.Reason} {
		*f = auditText(*f)
	}
	if e.Actor == "" || e.Action == "" || e.Outcome == "" {
		return AuditEntry{}, errorf(ErrInvalid, nil, "audit entry needs an actor, an action and an outcome")
	}
	return e, nil
}

// Ledger notes of worded answers and their refunds.
const (
	NoteAnswer = noteAnswer
	NoteRefund = noteRefund
)

// MonthOf and DayOf name the UTC month ("2026-11") and day ("2026-11-22")
// of t, as usage counters and reservations do.
func MonthOf(t time.Time) string { return monthOf(t) }

// DayOf: see MonthOf.
func DayOf(t time.Time) string { return dayOf(t) }

// AnswersCounter names the worded-answer usage counter of a month or day.
func AnswersCounter(period string) string { return string(answersCounter(period)) }

// ChargesCounter names the usage counter of a dataset's per-query charges
// in a month; ChargesPrefix is the start of a month's charge counters.
func ChargesCounter(month, dataset string) string { return string(chargesCounter(month, dataset)) }

// ChargesPrefix: see ChargesCounter.
func ChargesPrefix(month string) string { return string(chargesPrefix(month)) }

// UsageCounter is one usage counter of an organisation as stored: a count
// and the credits it took (see the package comment for the names).
type UsageCounter struct {
	Name    string
	Count   int64
	Credits int64
}

// UsageCounters returns every usage counter of the organisation, of every
// period, in name order: for copying the file elsewhere (`frameindex state
// import`). Errors: ErrNotFound; ErrCorrupt.
func (s *Store) UsageCounters(orgID string) ([]UsageCounter, error) {
	var out []UsageCounter
	err := s.view(func(tx *bbolt.Tx) error {
		if _, err := s.getOrg(tx, orgID); err != nil {
			return err
		}
		b := usageBucket(tx, orgID)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			c, err := decodeCounter(v)
			if err != nil {
				return s.corruptCounter(orgID, k, err)
			}
			out = append(out, UsageCounter{Name: string(k), Count: c.Count, Credits: c.Credits})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PendingAnswers returns the worded-answer reservations neither committed
// nor refunded, by id, and the highest reservation id made so far: for
// copying the file elsewhere. Errors: ErrCorrupt.
func (s *Store) PendingAnswers() (pending []Reservation, lastID uint64, err error) {
	err = s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketPending)
		if b == nil {
			return nil
		}
		lastID = b.Sequence()
		return b.ForEach(func(k, v []byte) error {
			r, err := decodeReservation(k, v)
			if err != nil {
				return errorf(ErrCorrupt, err, "data file %q is corrupt: pending worded answer %x: %v", s.path, k, err)
			}
			pending = append(pending, r)
			return nil
		})
	})
	if err != nil {
		return nil, 0, err
	}
	return pending, lastID, nil
}

// Unflushed returns, for each key used since its last flush, the unix
// second of its last use, for an implementation of FlushKeyUses that
// writes elsewhere than a data file; pass the same map to MarkFlushed once
// written.
func (u *KeyUses) Unflushed() map[string]int64 {
	out := map[string]int64{}
	u.mu.RLock()
	defer u.mu.RUnlock()
	for id, e := range u.keys {
		if sec := e.last.Load(); sec > e.flushed.Load() {
			out[id] = sec
		}
	}
	return out
}

// MarkFlushed records that the uses Unflushed returned were written.
func (u *KeyUses) MarkFlushed(written map[string]int64) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	for id, sec := range written {
		e := u.keys[id]
		if e == nil {
			continue
		}
		for {
			old := e.flushed.Load()
			if old >= sec || e.flushed.CompareAndSwap(old, sec) {
				break
			}
		}
	}
}
