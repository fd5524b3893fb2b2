package bolt

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"frameindex/state"
)

func TestStore_Charge(t *testing.T) {
	tests := []struct {
		name        string
		balance     int64
		ds          []state.DatasetPrice
		wantCharged []string
		wantLeftOut []string
		wantBalance int64
		wantLedger  []state.LedgerEntry // the charge entries, without Seq and Time
		wantUsage   []state.DatasetCharge
	}{
		{name: "all covered, sorted by id", balance: 10,
			ds:          []state.DatasetPrice{{ID: "roads", Price: 3}, {ID: "health", Price: 2}},
			wantCharged: []string{"health", "roads"}, wantBalance: 5,
			wantLedger: []state.LedgerEntry{
				{Kind: state.LedgerCharge, Credits: -2, Balance: 8, KeyID: "key_abc", Dataset: "health", RequestID: "req-1"},
				{Kind: state.LedgerCharge, Credits: -3, Balance: 5, KeyID: "key_abc", Dataset: "roads", RequestID: "req-1"},
			},
			wantUsage: []state.DatasetCharge{{Dataset: "health", Requests: 1, Credits: 2}, {Dataset: "roads", Requests: 1, Credits: 3}}},
		{name: "a cheaper one after an uncovered one", balance: 3,
			ds:          []state.DatasetPrice{{ID: "a", Price: 2}, {ID: "b", Price: 5}, {ID: "c", Price: 1}},
			wantCharged: []string{"a", "c"}, wantLeftOut: []string{"b"}, wantBalance: 0,
			wantLedger: []state.LedgerEntry{
				{Kind: state.LedgerCharge, Credits: -2, Balance: 1, KeyID: "key_abc", Dataset: "a", RequestID: "req-1"},
				{Kind: state.LedgerCharge, Credits: -1, Balance: 0, KeyID: "key_abc", Dataset: "c", RequestID: "req-1"},
			},
			wantUsage: []state.DatasetCharge{{Dataset: "a", Requests: 1, Credits: 2}, {Dataset: "c", Requests: 1, Credits: 1}}},
		{name: "no credits", balance: 0,
			ds:          []state.DatasetPrice{{ID: "a", Price: 1}, {ID: "b", Price: 1}},
			wantLeftOut: []string{"a", "b"}},
		{name: "free dataset without credits", balance: 0,
			ds:          []state.DatasetPrice{{ID: "free", Price: 0}, {ID: "paid", Price: 1}},
			wantCharged: []string{"free"}, wantLeftOut: []string{"paid"},
			wantUsage: []state.DatasetCharge{{Dataset: "free", Requests: 1, Credits: 0}}},
		{name: "exactly the balance", balance: 4,
			ds:          []state.DatasetPrice{{ID: "a", Price: 4}},
			wantCharged: []string{"a"},
			wantLedger:  []state.LedgerEntry{{Kind: state.LedgerCharge, Credits: -4, Balance: 0, KeyID: "key_abc", Dataset: "a", RequestID: "req-1"}},
			wantUsage:   []state.DatasetCharge{{Dataset: "a", Requests: 1, Credits: 4}}},
		{name: "nothing to charge", balance: 4, wantBalance: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "pro", tt.balance)
			charged, leftOut, err := s.Charge("acme", "key_abc", "req-1", tt.ds, testNow)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(charged, tt.wantCharged) || !reflect.DeepEqual(leftOut, tt.wantLeftOut) {
				t.Errorf("Charge = %q, %q; want %q, %q", charged, leftOut, tt.wantCharged, tt.wantLeftOut)
			}
			o, entries := mustOrgLedger(t, s, "acme")
			if o.Credits != tt.wantBalance {
				t.Errorf("balance %d, want %d", o.Credits, tt.wantBalance)
			}
			var got []state.LedgerEntry
			for _, e := range entries {
				if e.Kind == state.LedgerGrant {
					continue
				}
				if !e.Time.Equal(testNow.Round(0)) {
					t.Errorf("entry %d time %v, want %v", e.Seq, e.Time, testNow)
				}
				e.Seq = 0
				got = append(got, e)
			}
			for i := range tt.wantLedger {
				tt.wantLedger[i].Time = testNow.Round(0).UTC()
			}
			if !reflect.DeepEqual(got, tt.wantLedger) {
				t.Errorf("charge entries =\n%+v\nwant\n%+v", got, tt.wantLedger)
			}
			u, err := s.Usage("acme", testNow)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(u.Charges, tt.wantUsage) {
				t.Errorf("usage charges = %+v, want %+v", u.Charges, tt.wantUsage)
			}
		})
	}
}

func TestStore_ChargeInvalid(t *testing.T) {
	long := string(make([]byte, 201))
	tests := []struct {
		name    string
		org     string
		key     string
		ds      []state.DatasetPrice
		wantErr error
		text    string
	}{
		{name: "unknown organisation", org: "nope", ds: []state.DatasetPrice{{ID: "a", Price: 1}}, wantErr: state.ErrNotFound, text: `organisation "nope" not found`},
		{name: "bad dataset id", org: "acme", ds: []state.DatasetPrice{{ID: "A", Price: 1}}, wantErr: state.ErrInvalid, text: `invalid dataset id "A"`},
		{name: "twice", org: "acme", ds: []state.DatasetPrice{{ID: "a", Price: 1}, {ID: "b", Price: 1}, {ID: "a", Price: 2}}, wantErr: state.ErrInvalid, text: "dataset a is charged twice in one request"},
		{name: "negative price", org: "acme", ds: []state.DatasetPrice{{ID: "a", Price: -1}}, wantErr: state.ErrInvalid, text: "invalid price -1 for dataset a"},
		{name: "long key id", org: "acme", key: long, ds: []state.DatasetPrice{{ID: "a", Price: 1}}, wantErr: state.ErrInvalid, text: "invalid key id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "pro", 5)
			if tt.key == "" {
				tt.key = "key_abc"
			}
			charged, leftOut, err := s.Charge(tt.org, tt.key, "req", tt.ds, testNow)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Charge error = %v, want %v", err, tt.wantErr)
			}
			assertErrText(t, err, tt.text)
			if charged != nil || leftOut != nil {
				t.Errorf("Charge returned %q, %q with an error", charged, leftOut)
			}
			if o, entries := mustOrgLedger(t, s, "acme"); o.Credits != 5 || len(entries) != 1 {
				t.Errorf("after a refused charge: balance %d, %d entries; want 5, 1", o.Credits, len(entries))
			}
		})
	}
}

func TestStore_ChargeConcurrent(t *testing.T) {
	// 50 requests at once against a balance that covers 10.
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 10)
	const n = 50
	var (
		wg               sync.WaitGroup
		mu               sync.Mutex
		charged, leftOut int
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, l, err := s.Charge("acme", "key_abc", fmt.Sprintf("req-%d", i), []state.DatasetPrice{{ID: "health", Price: 1}}, testNow)
			if err != nil {
				t.Error(err)
				return
			}
			if len(c)+len(l) != 1 {
				t.Errorf("request %d: charged %q, left out %q", i, c, l)
			}
			mu.Lock()
			charged += len(c)
			leftOut += len(l)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if charged != 10 || leftOut != 40 {
		t.Errorf("charged %d, left out %d; want 10, 40", charged, leftOut)
	}
	o, entries := mustOrgLedger(t, s, "acme")
	if o.Credits != 0 {
		t.Errorf("balance %d, want 0", o.Credits)
	}
	requests := map[string]bool{}
	var charges int
	for _, e := range entries {
		if e.Kind != state.LedgerCharge {
			continue
		}
		charges++
		if e.Credits != -1 || e.Dataset != "health" || e.KeyID != "key_abc" || requests[e.RequestID] {
			t.Errorf("bad charge entry %+v", e)
		}
		requests[e.RequestID] = true
		if want := int64(10 - charges); e.Balance != want {
			t.Errorf("entry %d balance %d, want %d", e.Seq, e.Balance, want)
		}
	}
	if charges != 10 {
		t.Errorf("%d charge entries, want 10", charges)
	}
	u, err := s.Usage("acme", testNow)
	if err != nil {
		t.Fatal(err)
	}
	if want := []state.DatasetCharge{{Dataset: "health", Requests: 10, Credits: 10}}; !reflect.DeepEqual(u.Charges, want) {
		t.Errorf("usage charges = %+v, want %+v", u.Charges, want)
	}
}

func BenchmarkStore_Charge(b *testing.B) {
	s := MustOpenStore(b)
	mustAddOrg(b, s, "acme", "pro", 1<<40)
	ds := []state.DatasetPrice{{ID: "health", Price: 1}, {ID: "roads", Price: 2}}
	b.ReportAllocs()
	for b.Loop() {
		if c, _, err := s.Charge("acme", "key_abc", "req", ds, testNow); err != nil || len(c) != 2 {
			b.Fatal(err)
		}
	}
}
