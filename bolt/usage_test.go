package bolt

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// mustAddCounter adds to a usage counter in its own write transaction.
func mustAddCounter(tb testing.TB, s *Store, org, name string, count, credits int64) counter {
	tb.Helper()
	var c counter
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		c, err = s.addCounter(tx, org, name, count, credits)
		return err
	})
	if err != nil {
		tb.Fatalf("addCounter(%q, %q, %d, %d): %v", org, name, count, credits, err)
	}
	return c
}

func TestStore_AddCounter(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 0)
	mustAddOrg(t, s, "other", "trial", 0)
	name := state.AnswersCounter("2026-11")
	// Each step runs on what the steps before it left.
	steps := []struct {
		name           string
		org            string
		counter        string
		count, credits int64
		want           counter // the counter after the step (unchanged when refused)
		wantErr        error
		text           string
	}{
		{name: "first answer", org: "acme", counter: name, count: 1, want: counter{1, 0}},
		{name: "answer paid in credits", org: "acme", counter: name, count: 1, credits: 1, want: counter{2, 1}},
		{name: "reservation of three", org: "acme", counter: name, count: 3, credits: 3, want: counter{5, 4}},
		{name: "refund of the reservation", org: "acme", counter: name, count: -3, credits: -3, want: counter{2, 1}},
		{name: "below zero", org: "acme", counter: name, count: -3, want: counter{2, 1}, wantErr: state.ErrInvalid, text: "would go below zero"},
		{name: "credits below zero", org: "acme", counter: name, credits: -2, want: counter{2, 1}, wantErr: state.ErrInvalid, text: "would go below zero"},
		{name: "overflow", org: "acme", counter: name, count: math.MaxInt64, want: counter{2, 1}, wantErr: state.ErrInvalid, text: "would overflow"},
		{name: "empty name", org: "acme", counter: "", count: 1, want: counter{2, 1}, wantErr: state.ErrInvalid, text: "invalid usage counter name"},
		{name: "name too long", org: "acme", counter: string(make([]byte, bbolt.MaxKeySize+1)), count: 1, want: counter{2, 1}, wantErr: state.ErrInvalid, text: "invalid usage counter name"},
		{name: "unknown organisation", org: "nope", counter: name, count: 1, want: counter{2, 1}, wantErr: state.ErrNotFound, text: `organisation "nope" not found`},
		{name: "empty organisation", org: "", counter: name, count: 1, want: counter{2, 1}, wantErr: state.ErrNotFound, text: `organisation "" not found`},
		{name: "another organisation's counter of the same name", org: "other", counter: name, count: 7, want: counter{2, 1}},
		{name: "a charge", org: "acme", counter: state.ChargesCounter("2026-11", "roads"), count: 1, credits: 5, want: counter{2, 1}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			var got counter
			err := s.update(func(tx *bbolt.Tx) error {
				var err error
				got, err = s.addCounter(tx, st.org, st.counter, st.count, st.credits)
				return err
			})
			if st.wantErr != nil {
				if !errors.Is(err, st.wantErr) {
					t.Fatalf("addCounter error = %v, want %v", err, st.wantErr)
				}
				assertErrText(t, err, st.text)
			} else if err != nil {
				t.Fatal(err)
			} else if st.org == "acme" && string(st.counter) == string(name) && got != st.want {
				t.Errorf("addCounter = %+v, want %+v", got, st.want)
			}
			u, err := s.Usage("acme", time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			if u.AnswersThisMonth != int(st.want.Count) {
				t.Errorf("Usage answers this month = %d, want %d", u.AnswersThisMonth, st.want.Count)
			}
		})
	}
	if u, _ := s.Usage("other", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); u.AnswersThisMonth != 7 {
		t.Errorf("other organisation's answers = %d, want 7", u.AnswersThisMonth)
	}
}

func TestStore_UsageNoCounters(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "scale", 42)
	mustAddOrg(t, s, "busy", "trial", 0)
	// Another organisation's counters do not leak into acme's usage.
	mustAddCounter(t, s, "busy", state.AnswersCounter("2025-03"), 9, 0)
	mustAddCounter(t, s, "busy", state.ChargesCounter("2025-03", "roads"), 9, 9)

	got, err := s.Usage("acme", time.Time{}) // zero: the store's clock
	if err != nil {
		t.Fatal(err)
	}
	want := state.Usage{OrgID: "acme", Plan: "scale", Month: "2025-03", Day: "2025-03-14", Allowance: 20000,
		DailyCeiling: 1000, Credits: 42}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Usage = %+v, want %+v", got, want)
	}
	for _, id := range []string{"nope", ""} {
		_, err := s.Usage(id, testNow)
		if !errors.Is(err, state.ErrNotFound) {
			t.Errorf("Usage(%q) error = %v, want ErrNotFound", id, err)
		}
	}
}

// TestStore_UsagePeriods records answers and charges at the last second of
// periods and the first of the next, and reads usage at each side: the
// month and day are the calendar ones in UTC, whatever zone now is in.
func TestStore_UsagePeriods(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	lagos := time.FixedZone("WAT", 3600)
	at := func(text string) time.Time {
		when, err := time.Parse(time.RFC3339, text)
		if err != nil {
			t.Fatal(err)
		}
		return when
	}
	// answer records one worded answer at t, as the write side will: the
	// month and the day counters together.
	answer := func(when time.Time, n int64) {
		mustAddCounter(t, s, "acme", state.AnswersCounter(state.MonthOf(when)), n, 0)
		mustAddCounter(t, s, "acme", state.AnswersCounter(state.DayOf(when)), n, 0)
	}
	answer(at("2026-11-30T23:59:59Z"), 3)
	answer(at("2026-12-01T00:00:00Z"), 5)
	answer(at("2026-12-31T23:59:59Z"), 7)
	answer(at("2027-01-01T00:00:00Z"), 11)
	mustAddCounter(t, s, "acme", state.ChargesCounter(state.MonthOf(at("2026-12-31T23:59:59Z")), "roads"), 2, 10)
	mustAddCounter(t, s, "acme", state.ChargesCounter(state.MonthOf(at("2027-01-01T00:00:00Z")), "roads"), 1, 5)

	dec := []state.DatasetCharge{{Dataset: "roads", Requests: 2, Credits: 10}}
	tests := []struct {
		name                string
		now                 time.Time
		month, day          string
		answersMonth, today int
		charges             []state.DatasetCharge
	}{
		{name: "last second of November", now: at("2026-11-30T23:59:59Z"), month: "2026-11", day: "2026-11-30", answersMonth: 3, today: 3},
		{name: "first second of December", now: at("2026-12-01T00:00:00Z"), month: "2026-12", day: "2026-12-01", answersMonth: 12, today: 5,
			charges: dec},
		{name: "midday on 1 December", now: at("2026-12-01T12:00:00Z"), month: "2026-12", day: "2026-12-01", answersMonth: 12, today: 5,
			charges: dec},
		{name: "a day with none", now: at("2026-12-15T08:00:00Z"), month: "2026-12", day: "2026-12-15", answersMonth: 12, today: 0,
			charges: dec},
		{name: "last second of the year", now: at("2026-12-31T23:59:59Z"), month: "2026-12", day: "2026-12-31", answersMonth: 12, today: 7,
			charges: dec},
		{name: "first second of the next year", now: at("2027-01-01T00:00:00Z"), month: "2027-01", day: "2027-01-01", answersMonth: 11, today: 11,
			charges: []state.DatasetCharge{{Dataset: "roads", Requests: 1, Credits: 5}}},
		{name: "00:30 on 1 January in Lagos is still December in UTC", now: time.Date(2027, 1, 1, 0, 30, 0, 0, lagos), month: "2026-12", day: "2026-12-31", answersMonth: 12, today: 7,
			charges: dec},
		{name: "a month with none", now: at("2027-02-01T00:00:00Z"), month: "2027-02", day: "2027-02-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := s.Usage("acme", tt.now)
			if err != nil {
				t.Fatal(err)
			}
			want := state.Usage{OrgID: "acme", Plan: "pro", Month: tt.month, Day: tt.day, Allowance: 2000,
				AnswersThisMonth: tt.answersMonth, DailyCeiling: 1000, AnswersToday: tt.today, Charges: tt.charges}
			if !reflect.DeepEqual(u, want) {
				t.Errorf("Usage(%v) = %+v, want %+v", tt.now, u, want)
			}
		})
	}
}

func TestStore_UsageCharges(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 0)
	const month = "2026-11"
	for _, c := range []struct {
		month, dataset string
		requests, cr   int64
	}{
		{month, "zeta", 1, 2},
		{month, "alpha", 3, 3},
		{month, "m_1", 1, 1},
		{month, "m-1", 2, 4},
		{month, "alpha-2", 5, 50},
		{month, "alpha", 1, 1}, // a second charge on the same dataset
		{"2026-10", "alpha", 100, 100},
		{"2026-12", "beta", 100, 100},
	} {
		mustAddCounter(t, s, "acme", state.ChargesCounter(c.month, c.dataset), c.requests, c.cr)
	}
	mustAddCounter(t, s, "acme", state.AnswersCounter(month), 4, 0)
	u, err := s.Usage("acme", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	want := []state.DatasetCharge{
		{Dataset: "alpha", Requests: 4, Credits: 4},
		{Dataset: "alpha-2", Requests: 5, Credits: 50},
		{Dataset: "m-1", Requests: 2, Credits: 4},
		{Dataset: "m_1", Requests: 1, Credits: 1},
		{Dataset: "zeta", Requests: 1, Credits: 2},
	}
	if !reflect.DeepEqual(u.Charges, want) {
		t.Errorf("Charges = %+v, want %+v", u.Charges, want)
	}
	if u.AnswersThisMonth != 4 || u.AnswersToday != 0 {
		t.Errorf("answers %d this month, %d today; want 4, 0", u.AnswersThisMonth, u.AnswersToday)
	}
}

func TestStore_UsageCorrupt(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		key   string
		value []byte // nil puts a bucket under key
		text  string
	}{
		{name: "short month counter", key: state.AnswersCounter("2026-11"), value: []byte{1, 2, 3}, text: "counter of 3 bytes, want 16"},
		{name: "negative day counter", key: state.AnswersCounter("2026-11-22"), value: counter{-1, 0}.append(nil), text: "negative counter"},
		{name: "short charge counter", key: state.ChargesCounter("2026-11", "roads"), value: []byte{}, text: "counter of 0 bytes"},
		{name: "negative charge credits", key: state.ChargesCounter("2026-11", "roads"), value: counter{1, -1}.append(nil), text: "negative counter"},
		{name: "charge without a dataset id", key: state.ChargesPrefix("2026-11"), value: counter{1, 1}.append(nil), text: "not a dataset charge counter"},
		{name: "charge with a bad dataset id", key: state.ChargesCounter("2026-11", "Roads:x"), value: counter{1, 1}.append(nil), text: "not a dataset charge counter"},
		{name: "a bucket among charges", key: state.ChargesCounter("2026-11", "roads"), value: nil, text: "not a dataset charge counter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "trial", 0)
			mustAddCounter(t, s, "acme", state.AnswersCounter("2026-10"), 1, 0) // makes the buckets
			if err := s.db.Update(func(tx *bbolt.Tx) error {
				b := tx.Bucket(bucketUsage).Bucket([]byte("acme"))
				if tt.value == nil {
					_, err := b.CreateBucket([]byte(tt.key))
					return err
				}
				return b.Put([]byte(tt.key), tt.value)
			}); err != nil {
				t.Fatal(err)
			}
			_, err := s.Usage("acme", now)
			if !errors.Is(err, state.ErrCorrupt) {
				t.Fatalf("Usage error = %v, want ErrCorrupt", err)
			}
			assertErrText(t, err, `of organisation "acme"`, tt.text)
			if strings.Contains(string(tt.key), "answers") {
				// The write side refuses to add to a damaged counter too.
				err := s.update(func(tx *bbolt.Tx) error {
					_, err := s.addCounter(tx, "acme", tt.key, 1, 0)
					return err
				})
				if !errors.Is(err, state.ErrCorrupt) {
					t.Errorf("addCounter on a damaged counter: %v, want ErrCorrupt", err)
				}
			}
		})
	}
}

func TestCounterRoundTrip(t *testing.T) {
	for _, c := range []counter{{0, 0}, {1, 0}, {0, 1}, {12345, 678}, {math.MaxInt64, math.MaxInt64}} {
		b := c.append(nil)
		if len(b) != counterSize {
			t.Fatalf("%+v encodes to %d bytes", c, len(b))
		}
		got, err := decodeCounter(b)
		if err != nil || got != c {
			t.Errorf("decodeCounter(encode(%+v)) = %+v, %v", c, got, err)
		}
	}
}
