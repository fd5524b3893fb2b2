package pgstate_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"frameindex/state"
	"frameindex/state/pgstate"
	"frameindex/state/pgstate/pgtest"
)

// A group mixing affordable and unaffordable charges of two organisations
// and an unknown one: each is decided against the balance the ones before
// it left, in order; the refusal answers that one alone.
func TestChargeGroup(t *testing.T) {
	s, _, _ := openPG(t, pgtest.Shared(t))
	for id, credits := range map[string]int64{"acme": 10, "beta": 3} {
		if _, err := s.AddOrg(state.Org{ID: id}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.AddCredits(id, credits, "test", time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	p := func(id string, price int64) []state.DatasetPrice { return []state.DatasetPrice{{ID: id, Price: price}} }
	out := s.ChargeGroup([]pgstate.ChargeArgs{
		{"acme", "r0", p("a", 4)},  // 10 -> 6
		{"acme", "r1", p("a", 7)},  // left out
		{"beta", "r2", p("a", 2)},  // 3 -> 1
		{"ghost", "r3", p("a", 1)}, // refused alone
		{"acme", "r4", p("a", 3)},  // 6 -> 3
		{"acme", "r5", p("a", 5)},  // left out
		{"beta", "r6", p("a", 2)},  // left out
		{"acme", "r7", []state.DatasetPrice{{ID: "b", Price: 2}, {ID: "c", Price: 1}, {ID: "d", Price: 1}}}, // 3 -> 1 -> 0, d left out
		{"beta", "r8", p("free", 0)}, // free: always charged
	}, time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC))
	want := []string{"[a] []", "[] [a]", "[a] []", "not found", "[a] []", "[] [a]", "[] [a]", "[b c] [d]", "[free] []"}
	for i, o := range out {
		got := fmt.Sprint(o.Charged, " ", o.LeftOut)
		if o.Err != nil {
			got = "not found"
			if !errors.Is(o.Err, state.ErrNotFound) {
				t.Errorf("charge %d: %v, want not found", i, o.Err)
			}
		}
		if got != want[i] {
			t.Errorf("charge %d: %s, want %s", i, got, want[i])
		}
	}
	ledger := func(org string) (int64, []string) {
		o, entries, err := s.OrgLedger(org, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, e := range entries {
			if e.Seq != uint64(i+1) {
				t.Errorf("%s entry %d numbered %d", org, i+1, e.Seq)
			}
			if e.Kind == state.LedgerCharge {
				got = append(got, fmt.Sprintf("%s/%s:%d:%d", e.RequestID, e.Dataset, e.Credits, e.Balance))
			}
		}
		return o.Credits, got
	}
	if bal, got := ledger("acme"); bal != 0 || !reflect.DeepEqual(got, []string{"r0/a:-4:6", "r4/a:-3:3", "r7/b:-2:1", "r7/c:-1:0"}) {
		t.Errorf("acme: balance %d, charges %v", bal, got)
	}
	if bal, got := ledger("beta"); bal != 1 || !reflect.DeepEqual(got, []string{"r2/a:-2:1"}) {
		t.Errorf("beta: balance %d, charges %v", bal, got)
	}
	u, err := s.Usage("acme", time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if want := []state.DatasetCharge{{Dataset: "a", Requests: 2, Credits: 7}, {Dataset: "b", Requests: 1, Credits: 2}, {Dataset: "c", Requests: 1, Credits: 1}}; !reflect.DeepEqual(u.Charges, want) {
		t.Errorf("acme usage %+v, want %+v", u.Charges, want)
	}
}
