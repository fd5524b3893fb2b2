package state

import (
	"math"
	"slices"
	"strings"
	"time"
)

// The metering and charging rules, written once for both stores: pure
// functions that, given what a store read inside its transaction, decide
// what it writes (ledger entries, usage counters, the balance) in the same
// transaction. A store numbers the ledger entries (Seq) itself.

// CounterChange is a change a rule asks for to one usage counter: Count
// and Credits are added (negative when a refund takes back).
type CounterChange struct {
	Name           string
	Count, Credits int64
}

// CheckNotOwner refuses a licence of dataset d to its owner: an owner
// reads its own datasets without a licence. Errors: ErrInvalid.
func CheckNotOwner(orgID string, d Dataset) error {
	if d.Owner == orgID {
		return Errorf(ErrInvalid, "organisation %s owns dataset %s: an owner reads its own datasets without a licence", orgID, d.ID)
	}
	return nil
}

// ChangeCredits is AddCredits's rule for a change of n credits that
// CheckCreditChange accepted (kind is what it returned): o with its new
// balance and the ledger entry recording the change at at. Errors:
// ErrInvalid for a removal larger than the balance ("organisation acme has
// 5 credits; cannot remove 10") or a balance that would pass
// math.MaxInt64.
func ChangeCredits(o Org, n int64, kind, note string, at time.Time) (Org, LedgerEntry, error) {
	switch {
	case n < 0 && abs(n) > uint64(o.Credits):
		return Org{}, LedgerEntry{}, Errorf(ErrInvalid, "organisation %s has %s; cannot remove %d", o.ID, CreditsText(o.Credits), abs(n))
	case n > 0 && o.Credits > math.MaxInt64-n:
		return Org{}, LedgerEntry{}, Errorf(ErrInvalid, "organisation %s has %s; adding %d would pass the largest balance, %d", o.ID, CreditsText(o.Credits), n, int64(math.MaxInt64))
	}
	o.Credits += n
	return o, LedgerEntry{Time: at, Kind: kind, Credits: n, Balance: o.Credits, Note: note}, nil
}

// Charges is what Charge does for one request (DecideCharge).
type Charges struct {
	Org      Org           // the organisation with its balance after the charges
	Charged  []string      // datasets charged, in id order
	LeftOut  []string      // datasets the balance did not cover, in id order
	Entries  []LedgerEntry // one LedgerCharge per dataset with a price, in order
	Counters []CounterChange
}

// DecideCharge is Charge's rule. Going through sorted (CheckCharge's
// order: ascending dataset id), it debits each dataset's price while o's
// balance covers it, with a ledger entry of kind LedgerCharge (Credits
// minus the price; keyID, the dataset and requestID named) and one request
// and the price on the usage counter ChargesCounter(MonthOf(at), dataset).
// A dataset the balance does not cover goes to LeftOut; a cheaper one
// after it may still be charged. A free dataset is always charged: counted
// in usage, with no ledger entry. The balance never goes below zero.
func DecideCharge(o Org, keyID, requestID string, sorted []DatasetPrice, at time.Time) Charges {
	c := Charges{Org: o}
	month := MonthOf(at)
	for _, d := range sorted {
		if d.Price > c.Org.Credits {
			c.LeftOut = append(c.LeftOut, d.ID)
			continue
		}
		if d.Price > 0 {
			c.Org.Credits -= d.Price
			c.Entries = append(c.Entries, LedgerEntry{
				Time: at, Kind: LedgerCharge, Credits: -d.Price, Balance: c.Org.Credits,
				KeyID: keyID, Dataset: d.ID, RequestID: requestID, Note: chargeNote(d.Frames),
			})
		}
		c.Counters = append(c.Counters, CounterChange{Name: ChargesCounter(month, d.ID), Count: 1, Credits: d.Price})
		c.Charged = append(c.Charged, d.ID)
	}
	return c
}

// chargeNote is the note of a per-query charge's ledger entry: the frames
// whose values were read, when counted.
func chargeNote(frames int) string {
	switch {
	case frames <= 0:
		return ""
	case frames == 1:
		return "1 frame read"
	}
	return GroupDigits(int64(frames)) + " frames read"
}

// CheckReserve applies ReserveAnswer's checks to its arguments and returns
// the credit cost of an answer paid in credits: creditCost, or 1 when it
// is not above zero. Errors: ErrInvalid for an over-long key or request id.
func CheckReserve(keyID, requestID string, creditCost int64) (int64, error) {
	if err := CheckRef("key id", keyID); err != nil {
		return 0, err
	}
	if err := CheckRef("request id", requestID); err != nil {
		return 0, err
	}
	return max(creditCost, 1), nil
}

// Answer is what ReserveAnswer does for one worded answer (DecideAnswer).
type Answer struct {
	Reservation Reservation  // without its ID, which the store gives
	Org         Org          // the organisation with its balance after a debit
	Entry       *LedgerEntry // the LedgerAnswer debit when paid in credits
	Counters    []CounterChange
}

// DecideAnswer is ReserveAnswer's rule for organisation o at at (UTC),
// given the worded answers o has had in the UTC day (today) and month
// (thisMonth) of at, as counted by AnswersCounter(DayOf(at)) and
// AnswersCounter(MonthOf(at)), and the cost CheckReserve returned. In
// order: at DailyCeiling answers today it fails; below the plan's monthly
// allowance (PlanAllowance) the answer comes from the allowance; when the
// balance covers cost it is paid in credits, with a ledger entry of kind
// LedgerAnswer; otherwise it fails. Either way the answer counts one, and
// the credits it took, on the counters of its month and day. Errors:
// ErrNoAllowance saying which limit was reached.
func DecideAnswer(o Org, keyID, requestID string, cost int64, at time.Time, today, thisMonth int64) (Answer, error) {
	r := Reservation{OrgID: o.ID, KeyID: keyID, RequestID: requestID, Month: MonthOf(at), Day: DayOf(at), Time: at}
	if today >= DailyCeiling {
		return Answer{}, Errorf(ErrNoAllowance, "organisation %s has reached the daily ceiling of %s worded answers (UTC day %s)", o.ID, GroupDigits(DailyCeiling), r.Day)
	}
	allowance := int64(PlanAllowance[o.Plan])
	a := Answer{Org: o}
	switch {
	case thisMonth < allowance:
		r.Source = SourceAllowance
	case o.Credits >= cost:
		r.Source, r.Credits = SourceCredits, cost
		a.Org.Credits -= cost
		a.Entry = &LedgerEntry{
			Time: at, Kind: LedgerAnswer, Credits: -cost, Balance: a.Org.Credits,
			Note: NoteAnswer, KeyID: keyID, RequestID: requestID,
		}
	default:
		return Answer{}, Errorf(ErrNoAllowance, "organisation %s: the monthly allowance of %s worded answers and credits are spent (UTC month %s; %s left, a worded answer costs %s)",
			o.ID, GroupDigits(allowance), r.Month, CreditsText(o.Credits), CreditsText(cost))
	}
	a.Reservation = r
	a.Counters = []CounterChange{
		{Name: AnswersCounter(r.Month), Count: 1, Credits: r.Credits},
		{Name: AnswersCounter(r.Day), Count: 1, Credits: r.Credits},
	}
	return a, nil
}

// Refund is what settling a reservation by refund does (DecideRefund).
type Refund struct {
	Org      Org          // the organisation with its balance after the refund
	Entry    *LedgerEntry // the LedgerRefund credit when r was paid in credits
	Counters []CounterChange
}

// DecideRefund is RefundAnswer's rule for the pending reservation r, as
// stored, of organisation o, refunded at at: take back exactly what
// ReserveAnswer added to the counters of r's month and day and, for an
// answer paid in credits, give the credits back with a ledger entry of
// kind LedgerRefund. The counter changes are returned even with an error.
// Errors: ErrInvalid when the balance would pass math.MaxInt64.
func DecideRefund(o Org, r Reservation, at time.Time) (Refund, error) {
	f := Refund{Org: o, Counters: []CounterChange{
		{Name: AnswersCounter(r.Month), Count: -1, Credits: -r.Credits},
		{Name: AnswersCounter(r.Day), Count: -1, Credits: -r.Credits},
	}}
	if r.Source != SourceCredits {
		return f, nil
	}
	if o.Credits > math.MaxInt64-r.Credits {
		return f, Errorf(ErrInvalid, "organisation %s has %s; refunding %d would pass the largest balance", o.ID, CreditsText(o.Credits), r.Credits)
	}
	f.Org.Credits += r.Credits
	f.Entry = &LedgerEntry{
		Time: at, Kind: LedgerRefund, Credits: r.Credits, Balance: f.Org.Credits,
		Note: NoteRefund, KeyID: r.KeyID, RequestID: r.RequestID,
	}
	return f, nil
}

// DecideLicence is LicenseOffer's rule once the store has found dataset
// offered as o (a per-query offer with the dataset's current price), not
// owned nor already licensed by org: the licence, in the offer's mode with
// its price recorded, granted at at, and, for a subscription with a price,
// org after the debit of that price and the ledger entry (kind
// LedgerLicence) recording it. seen, when not nil, are the terms the buyer
// saw. Errors: ErrTermsChanged when they are not o's (nothing is
// licensed or charged); ErrInvalid when org has fewer credits than the
// price.
func DecideLicence(org Org, dataset string, o Offer, seen *Terms, at time.Time) (Licence, Org, *LedgerEntry, error) {
	if seen != nil && *seen != o.Terms() {
		return Licence{}, Org{}, nil, Errorf(ErrTermsChanged, "the terms of dataset %s changed: you saw %s, it is now offered as %s; nothing was licensed or charged",
			dataset, seen, o.Terms())
	}
	l := Licence{OrgID: org.ID, Dataset: dataset, Mode: o.Mode, Granted: at, Price: o.Price, Priced: true}
	if o.Mode != OfferSubscription || o.Price <= 0 {
		return l, org, nil, nil
	}
	if org.Credits < o.Price {
		return Licence{}, Org{}, nil, Errorf(ErrInvalid, "organisation %s has %s; the subscription to dataset %s costs %s",
			org.ID, CreditsText(max(org.Credits, 0)), dataset, CreditsText(o.Price))
	}
	org.Credits -= o.Price
	e := &LedgerEntry{Time: at, Kind: LedgerLicence, Credits: -o.Price, Balance: org.Credits,
		Dataset: dataset, Note: "subscription to dataset " + dataset}
	return l, org, e, nil
}

// ReadableBy is Readable's rule: of datasets (in id order), those key k's
// organisation owns, never charged, and those it holds a licence for
// (licences maps a dataset id to k's organisation's licence; PerQuery for
// a per-query licence, with the licence's recorded price as the dataset's
// Price), narrowed to k.Datasets when that is not empty. The key's own
// state (expiry, revocation) is not checked here.
func ReadableBy(k Key, datasets []Dataset, licences map[string]Licence) []Access {
	var out []Access
	for _, d := range datasets {
		if len(k.Datasets) > 0 && !slices.Contains(k.Datasets, d.ID) {
			continue
		}
		l, licensed := licences[d.ID]
		switch {
		case d.Owner == k.OrgID:
			out = append(out, Access{Dataset: d})
		case licensed:
			perQuery := l.Mode == LicencePerQuery
			if perQuery && l.Priced {
				d.Price = l.Price // the terms agreed, not the current price
			}
			out = append(out, Access{Dataset: d, PerQuery: perQuery})
		}
	}
	return out
}

// UsageOf starts Usage's answer for organisation o in the UTC month and
// day of now: its plan, allowance and balance, with no answers or charges
// counted yet (Count adds them).
func UsageOf(o Org, now time.Time) Usage {
	return Usage{
		OrgID: o.ID, Plan: o.Plan, Month: MonthOf(now), Day: DayOf(now),
		Allowance: PlanAllowance[o.Plan], DailyCeiling: DailyCeiling, Credits: o.Credits,
	}
}

// Count adds the usage counter name, as stored, to u when it is one of
// u's month or day: the worded answers of the month or the day, or a
// dataset's per-query charges in the month (appended to Charges: feed
// them in dataset id order). Other counters are left out.
func (u *Usage) Count(name string, count, credits int64) {
	switch prefix := ChargesPrefix(u.Month); {
	case name == AnswersCounter(u.Month):
		u.AnswersThisMonth = clampInt(count)
	case name == AnswersCounter(u.Day):
		u.AnswersToday = clampInt(count)
	case strings.HasPrefix(name, prefix):
		u.Charges = append(u.Charges, DatasetCharge{Dataset: name[len(prefix):], Requests: clampInt(count), Credits: credits})
	}
}

// clampInt converts a non-negative counter to int, saturating where int is
// 32 bits.
func clampInt(n int64) int {
	if n > math.MaxInt {
		return math.MaxInt
	}
	return int(n)
}
