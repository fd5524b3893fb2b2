package pgstate_test

import (
	"errors"
	"fmt"
	"math"
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

// One organisation's charges that its balance covers are applied in one
// statement, with the entries, balances, numbers and counters the rule
// gives; a group its balance does not cover, another organisation's
// charges mixed in or an unknown organisation write nothing that way.
func TestChargeOneStatement(t *testing.T) {
	s, _, _ := openPG(t, pgtest.Shared(t))
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddOrg(state.Org{ID: "beta"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddCredits("acme", 10, "test", time.Time{}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	p := func(id string, price int64) state.DatasetPrice {
		return state.DatasetPrice{ID: id, Price: price, Frames: 50}
	}
	applied, out, err := s.ChargeOneStatement([]pgstate.ChargeArgs{
		{"acme", "r0", []state.DatasetPrice{p("a", 4)}},
		{"acme", "r1", []state.DatasetPrice{p("c", 1), p("b", 2), p("free", 0)}},
		{"acme", "r2", []state.DatasetPrice{p("a", 2)}},
	}, at)
	if err != nil || !applied {
		t.Fatalf("a covered group: applied %v, %v", applied, err)
	}
	if got := fmt.Sprint(out); got != "[{[a] [] <nil>} {[b c free] [] <nil>} {[a] [] <nil>}]" {
		t.Errorf("outcomes %s", got)
	}
	o, entries, err := s.OrgLedger("acme", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, e := range entries {
		if e.Seq != uint64(i+1) {
			t.Errorf("entry %d numbered %d", i+1, e.Seq)
		}
		if e.Kind == state.LedgerCharge {
			if !e.Time.Equal(at) || e.KeyID != "key_abc" || e.Note != "50 frames read" {
				t.Errorf("entry %+v", e)
			}
			got = append(got, fmt.Sprintf("%s/%s:%d:%d", e.RequestID, e.Dataset, e.Credits, e.Balance))
		}
	}
	if want := []string{"r0/a:-4:6", "r1/b:-2:4", "r1/c:-1:3", "r2/a:-2:1"}; o.Credits != 1 || !reflect.DeepEqual(got, want) {
		t.Errorf("balance %d, charges %v, want 1, %v", o.Credits, got, want)
	}
	u, err := s.Usage("acme", at)
	if err != nil {
		t.Fatal(err)
	}
	if want := []state.DatasetCharge{{Dataset: "a", Requests: 2, Credits: 6}, {Dataset: "b", Requests: 1, Credits: 2}, {Dataset: "c", Requests: 1, Credits: 1}, {Dataset: "free", Requests: 1}}; !reflect.DeepEqual(u.Charges, want) {
		t.Errorf("usage %+v, want %+v", u.Charges, want)
	}

	for name, group := range map[string][]pgstate.ChargeArgs{
		"not covered":    {{"acme", "r3", []state.DatasetPrice{p("a", 1)}}, {"acme", "r4", []state.DatasetPrice{p("a", 1)}}},
		"two orgs":       {{"acme", "r5", []state.DatasetPrice{p("a", 1)}}, {"beta", "r6", []state.DatasetPrice{p("free", 0)}}},
		"unknown org":    {{"ghost", "r7", []state.DatasetPrice{p("free", 0)}}},
		"past the limit": {{"acme", "r8", []state.DatasetPrice{p("a", math.MaxInt64), p("b", 1)}}},
	} {
		if applied, _, err := s.ChargeOneStatement(group, at); applied || err != nil {
			t.Errorf("%s: applied %v, %v", name, applied, err)
		}
	}
	if o, after, err := s.OrgLedger("acme", 0); err != nil || len(after) != len(entries) || o.Credits != 1 {
		t.Errorf("groups not applied wrote something: %d entries, balance %d, %v", len(after), o.Credits, err)
	}
	// The committer then takes the general way: the rule, in order.
	if out := s.ChargeGroup([]pgstate.ChargeArgs{{"acme", "r3", []state.DatasetPrice{p("a", 1)}}, {"acme", "r4", []state.DatasetPrice{p("a", 1)}}}, at); fmt.Sprint(out) != "[{[a] [] <nil>} {[] [a] <nil>}]" {
		t.Errorf("not covered, as the committer applies it: %v", out)
	}
}

// Reservations, refunds and charges waiting together are one transaction,
// each decided against the counters and balance the ones before it left:
// a refund gives back the allowance a later reservation then uses, a
// reservation paid in credits leaves less for a charge, and a refusal
// answers that one alone.
func TestMeterGroup(t *testing.T) {
	s, _, _ := openPG(t, pgtest.Shared(t))
	if _, err := s.AddOrg(state.Org{ID: "acme", Plan: state.PlanTrial}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddCredits("acme", 10, "test", time.Time{}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	var last state.Reservation
	for i := range state.PlanAllowance[state.PlanTrial] - 1 {
		r, err := s.ReserveAnswer("acme", "key_abc", fmt.Sprint("pre-", i), 3, at)
		if err != nil || r.Source != state.SourceAllowance {
			t.Fatalf("reservation %d: %+v %v", i, r, err)
		}
		last = r
	}
	p := func(id string, price int64) []state.DatasetPrice { return []state.DatasetPrice{{ID: id, Price: price}} }
	out := s.MeterGroup([]pgstate.MeterArgs{
		{Kind: "reserve", OrgID: "acme", RequestID: "x", Cost: 3},      // the allowance's last
		{Kind: "reserve", OrgID: "acme", RequestID: "y", Cost: 3},      // credits: 10 -> 7
		{Kind: "refund", OrgID: "acme", Rsv: last},                     // an allowance answer back
		{Kind: "reserve", OrgID: "acme", RequestID: "z", Cost: 3},      // still over it: credits 7 -> 4
		{Kind: "refund", OrgID: "acme", Rsv: last},                     // refunded already
		{Kind: "charge", OrgID: "acme", RequestID: "c", DS: p("a", 5)}, // left out
		{Kind: "charge", OrgID: "acme", RequestID: "d", DS: p("a", 4)}, // 4 -> 0
		{Kind: "reserve", OrgID: "acme", RequestID: "w", Cost: 3},      // nothing left
		{Kind: "refund", OrgID: "acme", Rsv: state.Reservation{OrgID: "acme"}},
		{Kind: "reserve", OrgID: "ghost", RequestID: "g", Cost: 3},
	}, at)
	want := []string{"allowance", "credits", "ok", "credits", "not_found", "[] [a]", "[a] []", "no_allowance", "invalid", "not_found"}
	ids := map[uint64]bool{}
	for i, o := range out {
		got := "ok"
		switch {
		case o.Err != nil:
			got = "error"
			for name, kind := range map[string]error{"not_found": state.ErrNotFound, "no_allowance": state.ErrNoAllowance, "invalid": state.ErrInvalid} {
				if errors.Is(o.Err, kind) {
					got = name
				}
			}
		case o.Rsv.Source != "":
			got = o.Rsv.Source
			if o.Rsv.ID == 0 || ids[o.Rsv.ID] || o.Rsv.ID <= last.ID {
				t.Errorf("request %d: reservation id %d", i, o.Rsv.ID)
			}
			ids[o.Rsv.ID] = true
		case o.Charged != nil || o.LeftOut != nil:
			got = fmt.Sprint(o.Charged, " ", o.LeftOut)
		}
		if got != want[i] {
			t.Errorf("request %d: %s (%v), want %s", i, got, o.Err, want[i])
		}
	}
	o, entries, err := s.OrgLedger("acme", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, e := range entries {
		if e.Seq != uint64(i+1) {
			t.Errorf("entry %d numbered %d", i+1, e.Seq)
		}
		got = append(got, fmt.Sprintf("%s/%s:%d:%d", e.Kind, e.RequestID, e.Credits, e.Balance))
	}
	if want := []string{"grant/:10:10", "answer/y:-3:7", "answer/z:-3:4", "charge/d:-4:0"}; o.Credits != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("balance %d, ledger %v, want 0, %v", o.Credits, got, want)
	}
	u, err := s.Usage("acme", at)
	if err != nil {
		t.Fatal(err)
	}
	// 99 before, x, y and z, less the refunded one.
	if u.AnswersThisMonth != 101 || u.AnswersToday != 101 {
		t.Errorf("answers this month %d, today %d, want 101", u.AnswersThisMonth, u.AnswersToday)
	}
	if err := s.CommitAnswer(out[0].Rsv); err != nil {
		t.Errorf("a reservation of the group cannot be committed: %v", err)
	}
	if err := s.RefundAnswer(out[1].Rsv, at); err != nil {
		t.Errorf("a reservation of the group cannot be refunded: %v", err)
	}
}
