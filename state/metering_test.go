package state

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

var at = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestChangeCredits(t *testing.T) {
	tests := []struct {
		name    string
		balance int64
		n       int64
		want    int64 // the balance after; -1 when refused
		text    string
	}{
		{name: "grant", balance: 5, n: 10, want: 15},
		{name: "remove some", balance: 5, n: -3, want: 2},
		{name: "remove all", balance: 5, n: -5, want: 0},
		{name: "remove more than the balance", balance: 5, n: -10, want: -1, text: "organisation acme has 5 credits; cannot remove 10"},
		{name: "remove the most negative", balance: 5, n: math.MinInt64, want: -1, text: "cannot remove 9223372036854775808"},
		{name: "pass the largest balance", balance: math.MaxInt64 - 1, n: 2, want: -1, text: "would pass the largest balance"},
		{name: "reach the largest balance", balance: math.MaxInt64 - 1, n: 1, want: math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, e, err := ChangeCredits(Org{ID: "acme", Credits: tt.balance}, tt.n, LedgerGrant, "why", at)
			if tt.want < 0 {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.text) {
					t.Fatalf("error = %v, want ErrInvalid with %q", err, tt.text)
				}
				return
			}
			want := LedgerEntry{Time: at, Kind: LedgerGrant, Credits: tt.n, Balance: tt.want, Note: "why"}
			if err != nil || o.Credits != tt.want || e != want {
				t.Errorf("= %d, %+v, %v; want %d, %+v", o.Credits, e, err, tt.want, want)
			}
		})
	}
}

func TestDecideCharge(t *testing.T) {
	ds := []DatasetPrice{{ID: "a", Price: 2}, {ID: "b", Price: 5}, {ID: "c", Price: 1}, {ID: "free", Price: 0}}
	c := DecideCharge(Org{ID: "acme", Credits: 3}, "key_1", "req-1", ds, at)
	if c.Org.Credits != 0 || !reflect.DeepEqual(c.Charged, []string{"a", "c", "free"}) || !reflect.DeepEqual(c.LeftOut, []string{"b"}) {
		t.Errorf("balance %d, charged %v, left out %v", c.Org.Credits, c.Charged, c.LeftOut)
	}
	wantEntries := []LedgerEntry{
		{Time: at, Kind: LedgerCharge, Credits: -2, Balance: 1, KeyID: "key_1", Dataset: "a", RequestID: "req-1"},
		{Time: at, Kind: LedgerCharge, Credits: -1, Balance: 0, KeyID: "key_1", Dataset: "c", RequestID: "req-1"},
	}
	wantCounters := []CounterChange{
		{Name: "charges:2026-11:a", Count: 1, Credits: 2},
		{Name: "charges:2026-11:c", Count: 1, Credits: 1},
		{Name: "charges:2026-11:free", Count: 1},
	}
	if !reflect.DeepEqual(c.Entries, wantEntries) || !reflect.DeepEqual(c.Counters, wantCounters) {
		t.Errorf("entries %+v\ncounters %+v", c.Entries, c.Counters)
	}
	if c := DecideCharge(Org{ID: "acme"}, "k", "r", ds[:2], at); c.Charged != nil || len(c.LeftOut) != 2 || c.Entries != nil || c.Counters != nil {
		t.Errorf("without credits: %+v", c)
	}
}

func TestDecideAnswer(t *testing.T) {
	trial := Org{ID: "acme", Plan: PlanTrial, Credits: 5}
	tests := []struct {
		name             string
		o                Org
		cost             int64
		today, thisMonth int64
		source           string // "" when refused
		balance          int64
		text             string
	}{
		{name: "from the allowance", o: trial, cost: 1, thisMonth: 99, source: SourceAllowance, balance: 5},
		{name: "allowance spent, paid in credits", o: trial, cost: 2, thisMonth: 100, source: SourceCredits, balance: 3},
		{name: "exactly the balance", o: trial, cost: 5, thisMonth: 100, source: SourceCredits, balance: 0},
		{name: "allowance and credits spent", o: trial, cost: 6, thisMonth: 100, text: "the monthly allowance of 100 worded answers and credits are spent (UTC month 2026-11; 5 credits left, a worded answer costs 6 credits)"},
		{name: "daily ceiling first", o: Org{ID: "acme", Plan: PlanScale, Credits: 100}, cost: 1, today: DailyCeiling, text: "has reached the daily ceiling of 1,000 worded answers (UTC day 2026-11-22)"},
		{name: "scale allowance", o: Org{ID: "acme", Plan: PlanScale}, cost: 1, today: 999, thisMonth: 19999, source: SourceAllowance},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := DecideAnswer(tt.o, "key_1", "req-1", tt.cost, at, tt.today, tt.thisMonth)
			if tt.source == "" {
				if !errors.Is(err, ErrNoAllowance) || !strings.Contains(err.Error(), tt.text) {
					t.Fatalf("error = %v, want ErrNoAllowance with %q", err, tt.text)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var credits int64
			if tt.source == SourceCredits {
				credits = tt.cost
			}
			want := Reservation{OrgID: "acme", KeyID: "key_1", RequestID: "req-1", Source: tt.source, Credits: credits, Month: "2026-11", Day: "2026-11-22", Time: at}
			if a.Reservation != want || a.Org.Credits != tt.balance {
				t.Errorf("reservation %+v, balance %d; want %+v, %d", a.Reservation, a.Org.Credits, want, tt.balance)
			}
			wantCounters := []CounterChange{{Name: "answers:2026-11", Count: 1, Credits: credits}, {Name: "answers:2026-11-22", Count: 1, Credits: credits}}
			if !reflect.DeepEqual(a.Counters, wantCounters) {
				t.Errorf("counters %+v", a.Counters)
			}
			switch {
			case tt.source == SourceAllowance && a.Entry != nil:
				t.Errorf("an answer from the allowance has a ledger entry %+v", a.Entry)
			case tt.source == SourceCredits && (a.Entry == nil || *a.Entry != LedgerEntry{Time: at, Kind: LedgerAnswer, Credits: -tt.cost, Balance: tt.balance, Note: NoteAnswer, KeyID: "key_1", RequestID: "req-1"}):
				t.Errorf("ledger entry %+v", a.Entry)
			}
		})
	}
}

func TestCheckReserve(t *testing.T) {
	for _, tt := range []struct{ in, want int64 }{{0, 1}, {-3, 1}, {1, 1}, {7, 7}} {
		if got, err := CheckReserve("k", "r", tt.in); err != nil || got != tt.want {
			t.Errorf("CheckReserve(%d) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	if _, err := CheckReserve("k", strings.Repeat("r", 201), 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("over-long request id: %v, want ErrInvalid", err)
	}
}

func TestDecideRefund(t *testing.T) {
	r := Reservation{ID: 7, OrgID: "acme", KeyID: "k", RequestID: "r", Source: SourceCredits, Credits: 2, Month: "2026-11", Day: "2026-11-22"}
	f, err := DecideRefund(Org{ID: "acme", Credits: 3}, r, at)
	wantCounters := []CounterChange{{Name: "answers:2026-11", Count: -1, Credits: -2}, {Name: "answers:2026-11-22", Count: -1, Credits: -2}}
	if err != nil || f.Org.Credits != 5 || !reflect.DeepEqual(f.Counters, wantCounters) ||
		f.Entry == nil || *f.Entry != (LedgerEntry{Time: at, Kind: LedgerRefund, Credits: 2, Balance: 5, Note: NoteRefund, KeyID: "k", RequestID: "r"}) {
		t.Errorf("credits: %+v, %v", f, err)
	}
	r.Source, r.Credits = SourceAllowance, 0
	if f, err := DecideRefund(Org{ID: "acme", Credits: 3}, r, at); err != nil || f.Entry != nil || f.Org.Credits != 3 || f.Counters[0].Count != -1 {
		t.Errorf("allowance: %+v, %v", f, err)
	}
	r.Source, r.Credits = SourceCredits, 2
	f, err = DecideRefund(Org{ID: "acme", Credits: math.MaxInt64 - 1}, r, at)
	if !errors.Is(err, ErrInvalid) || len(f.Counters) != 2 {
		t.Errorf("overflow: %+v, %v; want ErrInvalid with the counter changes", f, err)
	}
}

func TestDecideLicence(t *testing.T) {
	org := Org{ID: "acme", Credits: 5}
	l, o, e, err := DecideLicence(org, "roads", Offer{Dataset: "roads", Mode: OfferPerQuery, Price: 9}, nil, at)
	if err != nil || l != (Licence{OrgID: "acme", Dataset: "roads", Mode: OfferPerQuery, Granted: at, Price: 9, Priced: true}) || o != org || e != nil {
		t.Errorf("per query: %+v, %+v, %+v, %v", l, o, e, err)
	}
	l, o, e, err = DecideLicence(org, "roads", Offer{Dataset: "roads", Mode: OfferSubscription, Price: 5}, &Terms{OfferSubscription, 5}, at)
	if err != nil || l.Mode != LicenceSubscription || o.Credits != 0 ||
		e == nil || *e != (LedgerEntry{Time: at, Kind: LedgerLicence, Credits: -5, Balance: 0, Dataset: "roads", Note: "subscription to dataset roads"}) {
		t.Errorf("subscription: %+v, %+v, %+v, %v", l, o, e, err)
	}
	// The terms race: the buyer saw 1 credit per query; the offer is now a
	// 900-credit subscription.
	_, o, e, err = DecideLicence(Org{ID: "acme", Credits: 1000}, "roads", Offer{Dataset: "roads", Mode: OfferSubscription, Price: 900}, &Terms{OfferPerQuery, 1}, at)
	if !errors.Is(err, ErrTermsChanged) || e != nil || o.Credits != 0 ||
		!strings.Contains(err.Error(), "you saw 1 credit per query (per started 100 frames read), it is now offered as a subscription for 900 credits") {
		t.Errorf("terms changed: %+v, %v", e, err)
	}
	_, _, _, err = DecideLicence(org, "roads", Offer{Dataset: "roads", Mode: OfferSubscription, Price: 6}, nil, at)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "organisation acme has 5 credits; the subscription to dataset roads costs 6 credits") {
		t.Errorf("too dear: %v", err)
	}
	if err := CheckNotOwner("acme", Dataset{ID: "roads", Owner: "acme"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("owner: %v, want ErrInvalid", err)
	}
}

func TestReadableBy(t *testing.T) {
	ds := []Dataset{{ID: "a", Owner: "acme"}, {ID: "b", Owner: "other"}, {ID: "c", Owner: "other"}, {ID: "d", Owner: "other"}}
	ds[2].Price = 7
	modes := map[string]Licence{"a": {Mode: LicencePerQuery}, "b": {Mode: LicencePerQuery, Price: 3, Priced: true}, "c": {Mode: LicenceSubscription, Price: 9, Priced: true}}
	got := ReadableBy(Key{OrgID: "acme"}, ds, modes)
	b := ds[1]
	b.Price = 3 // the licence's price, not the dataset's
	want := []Access{{Dataset: ds[0]}, {Dataset: b, PerQuery: true}, {Dataset: ds[2]}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadableBy = %+v, want %+v", got, want)
	}
	if got := ReadableBy(Key{OrgID: "acme", Datasets: []string{"c", "d"}}, ds, modes); !reflect.DeepEqual(got, want[2:]) {
		t.Errorf("narrowed: %+v", got)
	}
}

func TestUsage_Count(t *testing.T) {
	u := UsageOf(Org{ID: "acme", Plan: PlanPro, Credits: 4}, at)
	for _, c := range []UsageCounter{
		{Name: "answers:2026-11", Count: 12}, {Name: "answers:2026-11-22", Count: 3},
		{Name: "answers:2026-10", Count: 50}, {Name: "charges:2026-10:a", Count: 9},
		{Name: "charges:2026-11:roads", Count: 2, Credits: 6},
	} {
		u.Count(c.Name, c.Count, c.Credits)
	}
	want := Usage{OrgID: "acme", Plan: PlanPro, Month: "2026-11", Day: "2026-11-22", Allowance: 2000, AnswersThisMonth: 12,
		DailyCeiling: 1000, AnswersToday: 3, Credits: 4, Charges: []DatasetCharge{{Dataset: "roads", Requests: 2, Credits: 6}}}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("usage %+v\nwant %+v", u, want)
	}
}
