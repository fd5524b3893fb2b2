package bolt

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// mustReserve reserves a worded answer for organisation org and fails the
// test on error.
func mustReserve(tb testing.TB, s *Store, org string, cost int64, now time.Time) state.Reservation {
	tb.Helper()
	r, err := s.ReserveAnswer(org, "key_abc", "req-1", cost, now)
	if err != nil {
		tb.Fatalf("ReserveAnswer(%q) at %v: %v", org, now, err)
	}
	return r
}

// answerCounters reads an organisation's answer counters of a month and a
// day.
func answerCounters(tb testing.TB, s *Store, org, month, day string) (m, d counter) {
	tb.Helper()
	s.settled()
	err := s.view(func(tx *bbolt.Tx) error {
		var err error
		if m, err = s.readCounter(tx, org, state.AnswersCounter(month)); err != nil {
			return err
		}
		d, err = s.readCounter(tx, org, state.AnswersCounter(day))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m, d
}

// assertLedgerSum checks that the organisation's balance is the sum of its
// ledger, each entry's balance the running sum, and returns the ledger.
func assertLedgerSum(tb testing.TB, s *Store, org string) (state.Org, []state.LedgerEntry) {
	tb.Helper()
	o, entries := mustOrgLedger(tb, s, org)
	var sum int64
	for i, e := range entries {
		sum += e.Credits
		if e.Seq != uint64(i+1) || e.Balance != sum || e.Balance < 0 {
			tb.Fatalf("ledger entry %d = %+v: want seq %d, balance %d", i, e, i+1, sum)
		}
	}
	if sum != o.Credits {
		tb.Fatalf("ledger of %s sums to %d, balance is %d", org, sum, o.Credits)
	}
	return o, entries
}

func TestStore_ReserveAnswerOrder(t *testing.T) {
	s := MustOpenStore(t)
	s.db.NoSync = true
	mustAddOrg(t, s, "acme", "trial", 4)

	// The trial allowance, one reservation at a time.
	for i := range state.PlanAllowance["trial"] {
		r := mustReserve(t, s, "acme", 0, testNow)
		want := state.Reservation{ID: uint64(i + 1), OrgID: "acme", KeyID: "key_abc", RequestID: "req-1", Source: state.SourceAllowance,
			Month: "2025-03", Day: "2025-03-14", Time: testNow.Round(0)}
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("reservation %d = %+v, want %+v", i, r, want)
		}
		if err := s.CommitAnswer(r); err != nil {
			t.Fatal(err)
		}
	}
	// Then credits: 1 by default, or what the caller says.
	for _, tt := range []struct {
		cost, want int64
	}{{0, 1}, {-5, 1}, {2, 2}} {
		r, err := s.ReserveAnswer("acme", "key_xyz", fmt.Sprintf("req-cost%d", tt.cost), tt.cost, testNow)
		if err != nil {
			t.Fatalf("cost %d: %v", tt.cost, err)
		}
		if r.Source != state.SourceCredits || r.Credits != tt.want {
			t.Fatalf("cost %d: reservation %+v, want %d credits", tt.cost, r, tt.want)
		}
	}
	// 0 credits left; a cost of 2 is refused while 0 are left, and so is 1.
	for _, cost := range []int64{1, 2} {
		_, err := s.ReserveAnswer("acme", "key_abc", "req-x", cost, testNow)
		if !errors.Is(err, state.ErrNoAllowance) {
			t.Fatalf("cost %d with the allowance and credits spent: %v, want ErrNoAllowance", cost, err)
		}
		assertErrText(t, err, "acme", "monthly allowance of 100 worded answers and credits are spent", "0 credits left")
	}

	o, entries := assertLedgerSum(t, s, "acme")
	if o.Credits != 0 || len(entries) != 4 {
		t.Fatalf("balance %d, %d ledger entries; want 0, the grant and 3 answers", o.Credits, len(entries))
	}
	for i, e := range entries[1:] {
		want := state.LedgerEntry{Seq: uint64(i + 2), Time: testNow.Round(0), Kind: state.LedgerAnswer, Credits: -[]int64{1, 1, 2}[i],
			Balance: []int64{3, 2, 0}[i], Note: "worded answer", KeyID: "key_xyz", RequestID: []string{"req-cost0", "req-cost-5", "req-cost2"}[i]}
		if !reflect.DeepEqual(e, want) {
			t.Errorf("entry %+v, want %+v", e, want)
		}
	}
	u, err := s.Usage("acme", testNow)
	if err != nil {
		t.Fatal(err)
	}
	if u.AnswersThisMonth != 103 || u.AnswersToday != 103 || u.Allowance != 100 || u.Credits != 0 {
		t.Errorf("usage %+v: want 103 answers this month and today, allowance 100, 0 credits", u)
	}
	if m, d := answerCounters(t, s, "acme", "2025-03", "2025-03-14"); m != (counter{103, 4}) || d != (counter{103, 4}) {
		t.Errorf("counters %+v, %+v; want 103 answers and 4 credits each", m, d)
	}

	// A plan with a larger allowance draws on it again before credits.
	if _, err := s.SetPlan("acme", "pro"); err != nil {
		t.Fatal(err)
	}
	if r := mustReserve(t, s, "acme", 1, testNow); r.Source != state.SourceAllowance {
		t.Errorf("after moving to pro: %+v, want the allowance", r)
	}
}

func TestStore_ReserveAnswerDailyCeiling(t *testing.T) {
	t.Run("loop", func(t *testing.T) {
		s := MustOpenStore(t)
		s.db.NoSync = true
		mustAddOrg(t, s, "acme", "scale", 5)
		for i := range state.DailyCeiling {
			mustReserve(t, s, "acme", 1, testNow.Add(time.Duration(i)*time.Second))
		}
		_, err := s.ReserveAnswer("acme", "key_abc", "req", 1, testNow.Add(time.Hour))
		if !errors.Is(err, state.ErrNoAllowance) {
			t.Fatalf("answer %d of the day: %v, want ErrNoAllowance", state.DailyCeiling+1, err)
		}
		assertErrText(t, err, "acme", "daily ceiling of 1,000 worded answers", "2025-03-14")
		// The credits were not touched, and the next UTC day is open.
		if o, _ := assertLedgerSum(t, s, "acme"); o.Credits != 5 {
			t.Errorf("balance %d, want 5", o.Credits)
		}
		if r := mustReserve(t, s, "acme", 1, time.Date(2025, 3, 15, 0, 0, 0, 0, time.UTC)); r.Source != state.SourceAllowance || r.Day != "2025-03-15" {
			t.Errorf("next day: %+v", r)
		}
	})
	t.Run("counters", func(t *testing.T) {
		s := MustOpenStore(t)
		mustAddOrg(t, s, "acme", "trial", 5)
		mustAddCounter(t, s, "acme", state.AnswersCounter("2025-03"), 100, 0)
		mustAddCounter(t, s, "acme", state.AnswersCounter("2025-03-14"), state.DailyCeiling-1, 0)
		if r := mustReserve(t, s, "acme", 1, testNow); r.Source != state.SourceCredits {
			t.Fatalf("answer %d of the day: %+v, want credits", state.DailyCeiling, r)
		}
		// Credits left do not pass the ceiling.
		_, err := s.ReserveAnswer("acme", "key_abc", "req", 1, testNow)
		if !errors.Is(err, state.ErrNoAllowance) {
			t.Fatalf("past the ceiling with 4 credits: %v, want ErrNoAllowance", err)
		}
		assertErrText(t, err, "daily ceiling of 1,000")
		if o, _ := assertLedgerSum(t, s, "acme"); o.Credits != 4 {
			t.Errorf("balance %d, want 4", o.Credits)
		}
		u, err := s.Usage("acme", testNow)
		if err != nil {
			t.Fatal(err)
		}
		if u.AnswersToday != state.DailyCeiling || u.AnswersThisMonth != 101 {
			t.Errorf("usage %+v", u)
		}
	})
}

func TestStore_ReserveAnswerPeriods(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 10)
	mustAddCounter(t, s, "acme", state.AnswersCounter("2025-03"), 100, 0)
	lagos := time.FixedZone("WAT", 3600)
	for _, tt := range []struct {
		now              time.Time
		month, day, from string
	}{
		{time.Date(2025, 3, 31, 23, 59, 59, 999_999_999, time.UTC), "2025-03", "2025-03-31", state.SourceCredits},
		// 00:30 on 1 April in Lagos is still 31 March in UTC.
		{time.Date(2025, 4, 1, 0, 30, 0, 0, lagos), "2025-03", "2025-03-31", state.SourceCredits},
		{time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC), "2025-04", "2025-04-01", state.SourceAllowance},
		{time.Date(2025, 4, 1, 1, 0, 0, 0, lagos), "2025-04", "2025-04-01", state.SourceAllowance},
	} {
		r := mustReserve(t, s, "acme", 1, tt.now)
		if r.Month != tt.month || r.Day != tt.day || r.Source != tt.from || r.Time.Location() != time.UTC || !r.Time.Equal(tt.now) {
			t.Errorf("at %v: %+v, want %s, %s from %s", tt.now, r, tt.month, tt.day, tt.from)
		}
	}
	march, march31 := answerCounters(t, s, "acme", "2025-03", "2025-03-31")
	april, april1 := answerCounters(t, s, "acme", "2025-04", "2025-04-01")
	if march != (counter{102, 2}) || march31 != (counter{2, 2}) || april != (counter{2, 0}) || april1 != (counter{2, 0}) {
		t.Fatalf("counters: March %+v, 31 March %+v, April %+v, 1 April %+v", march, march31, april, april1)
	}

	// A refund in April of an answer reserved in March takes it back from
	// March and 31 March.
	r := mustReserve(t, s, "acme", 1, time.Date(2025, 3, 31, 12, 0, 0, 0, time.UTC))
	if err := s.RefundAnswer(r, time.Date(2025, 4, 2, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	m, d := answerCounters(t, s, "acme", "2025-03", "2025-03-31")
	a, a1 := answerCounters(t, s, "acme", "2025-04", "2025-04-01")
	if m != march || d != march31 || a != april || a1 != april1 {
		t.Errorf("after a refund: %+v %+v %+v %+v", m, d, a, a1)
	}
	_, entries := assertLedgerSum(t, s, "acme")
	if last := entries[len(entries)-1]; last.Kind != state.LedgerRefund || !last.Time.Equal(time.Date(2025, 4, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("last entry %+v, want the refund at its own time", last)
	}
}

func TestStore_CommitRefundRules(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 0)
	mustAddOrg(t, s, "other", "trial", 0)

	committed := mustReserve(t, s, "acme", 1, testNow)
	for range 2 {
		if err := s.CommitAnswer(committed); err != nil {
			t.Fatalf("CommitAnswer: %v (committing twice is fine)", err)
		}
	}
	if err := s.RefundAnswer(committed, testNow); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("refunding a committed answer: %v, want ErrNotFound", err)
	} else {
		assertErrText(t, err, "was committed")
	}

	refunded := mustReserve(t, s, "acme", 1, testNow)
	if err := s.RefundAnswer(refunded, testNow); err != nil {
		t.Fatal(err)
	}
	if err := s.RefundAnswer(refunded, testNow); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("refunding twice: %v, want ErrNotFound", err)
	} else {
		assertErrText(t, err, "was refunded")
	}
	if err := s.CommitAnswer(refunded); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("committing a refunded answer: %v, want ErrNotFound", err)
	}

	// Another organisation's id, or one never made, is not found; a
	// mistaken call leaves the reservation pending.
	pending := mustReserve(t, s, "acme", 1, testNow)
	wrongOrg := pending
	wrongOrg.OrgID = "other"
	never := pending
	never.ID = 1000
	for _, r := range []state.Reservation{wrongOrg, never} {
		if err := s.CommitAnswer(r); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("CommitAnswer(%+v): %v, want ErrNotFound", r, err)
		}
		if err := s.RefundAnswer(r, testNow); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("RefundAnswer(%+v): %v, want ErrNotFound", r, err)
		}
	}
	if err := s.CommitAnswer(state.Reservation{OrgID: "acme"}); !errors.Is(err, state.ErrInvalid) {
		t.Errorf("CommitAnswer without an id: %v, want ErrInvalid", err)
	}
	if err := s.RefundAnswer(state.Reservation{OrgID: "acme"}, testNow); !errors.Is(err, state.ErrInvalid) {
		t.Errorf("RefundAnswer without an id: %v, want ErrInvalid", err)
	}
	if err := s.CommitAnswer(pending); err != nil {
		t.Fatal(err)
	}
	if m, _ := answerCounters(t, s, "acme", "2025-03", "2025-03-14"); m.Count != 2 {
		t.Errorf("%d answers counted, want the 2 committed", m.Count)
	}

	// A store that never reserved anything knows no reservation.
	s2 := MustOpenStore(t)
	mustAddOrg(t, s2, "acme", "trial", 0)
	if err := s2.CommitAnswer(committed); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("CommitAnswer on a fresh file: %v, want ErrNotFound", err)
	}
}

func TestStore_RefundAnswerRestores(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 7)
	mustAddCounter(t, s, "acme", state.AnswersCounter("2025-03"), 99, 0)
	mustAddCounter(t, s, "acme", state.AnswersCounter("2025-03-14"), 3, 0)

	for _, tt := range []struct {
		cost   int64
		source string
	}{{1, state.SourceAllowance}, {3, state.SourceCredits}} {
		if tt.source == state.SourceCredits {
			mustReserve(t, s, "acme", 1, testNow) // the last of the allowance, kept
		}
		before, err := s.Usage("acme", testNow)
		if err != nil {
			t.Fatal(err)
		}
		m0, d0 := answerCounters(t, s, "acme", "2025-03", "2025-03-14")
		_, ledger0 := assertLedgerSum(t, s, "acme")

		r := mustReserve(t, s, "acme", tt.cost, testNow)
		if r.Source != tt.source {
			t.Fatalf("reservation %+v, want source %s", r, tt.source)
		}
		if err := s.RefundAnswer(r, testNow.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		after, err := s.Usage("acme", testNow)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(after, before) {
			t.Errorf("%s: usage after a refund %+v, before %+v", tt.source, after, before)
		}
		if m, d := answerCounters(t, s, "acme", "2025-03", "2025-03-14"); m != m0 || d != d0 {
			t.Errorf("%s: counters %+v %+v after a refund, %+v %+v before", tt.source, m, d, m0, d0)
		}
		_, ledger := assertLedgerSum(t, s, "acme")
		added := ledger[len(ledger0):]
		switch tt.source {
		case state.SourceAllowance:
			if len(added) != 0 {
				t.Errorf("an answer from the allowance wrote ledger entries %+v", added)
			}
		case state.SourceCredits:
			if len(added) != 2 || added[0].Kind != state.LedgerAnswer || added[0].Credits != -3 ||
				added[1].Kind != state.LedgerRefund || added[1].Credits != 3 || added[1].Balance != before.Credits ||
				added[1].KeyID != "key_abc" || added[1].RequestID != "req-1" {
				t.Errorf("ledger entries of a refunded answer: %+v", added)
			}
		}
	}
}

// TestStore_ReserveAnswerConcurrent has 50 requests reserve at once for
// an organisation whose allowance is spent and which has 10 credits.
func TestStore_ReserveAnswerConcurrent(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 10)
	mustAddCounter(t, s, "acme", state.AnswersCounter("2025-03"), 100, 0)
	const workers = 50
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		reserved []state.Reservation
		refused  int
		start    = make(chan struct{})
	)
	for i := range workers {
		wg.Go(func() {
			<-start
			r, err := s.ReserveAnswer("acme", "key_abc", fmt.Sprintf("req-%d", i), 1, testNow)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				reserved = append(reserved, r)
			case errors.Is(err, state.ErrNoAllowance):
				refused++
			default:
				t.Errorf("request %d: %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if len(reserved) != 10 || refused != workers-10 {
		t.Fatalf("%d reserved, %d refused; want 10 and %d", len(reserved), refused, workers-10)
	}
	o, entries := assertLedgerSum(t, s, "acme")
	if o.Credits != 0 || len(entries) != 11 {
		t.Fatalf("balance %d, %d ledger entries; want 0 and the grant and 10 answers", o.Credits, len(entries))
	}
	requests := map[string]bool{}
	for _, e := range entries[1:] {
		if e.Kind != state.LedgerAnswer || e.Credits != -1 || requests[e.RequestID] {
			t.Errorf("entry %+v", e)
		}
		requests[e.RequestID] = true
	}
	ids := map[uint64]bool{}
	for _, r := range reserved {
		if r.Source != state.SourceCredits || r.Credits != 1 || ids[r.ID] || !requests[r.RequestID] {
			t.Errorf("reservation %+v", r)
		}
		ids[r.ID] = true
		if err := s.CommitAnswer(r); err != nil {
			t.Fatal(err)
		}
	}
	u, err := s.Usage("acme", testNow)
	if err != nil {
		t.Fatal(err)
	}
	if u.AnswersThisMonth != 110 || u.AnswersToday != 10 || u.Credits != 0 {
		t.Errorf("usage %+v", u)
	}
}

// TestStore_RecoverPending reserves answers, commits some and "crashes"
// (closes the file) before the rest are settled.
func TestStore_RecoverPending(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 10)
	mustAddOrg(t, s, "beta", "pro", 0)
	mustAddCounter(t, s, "acme", state.AnswersCounter("2025-03"), 98, 0)

	var kept, lost []state.Reservation
	for i := range 5 { // 2 from the allowance, then 3 credits each
		r := mustReserve(t, s, "acme", 3, testNow.Add(time.Duration(i)*time.Minute))
		if i%2 == 0 {
			kept = append(kept, r)
		} else {
			lost = append(lost, r)
		}
	}
	lost = append(lost, mustReserve(t, s, "beta", 1, testNow))
	refunded := mustReserve(t, s, "beta", 1, testNow)
	if err := s.RefundAnswer(refunded, testNow); err != nil {
		t.Fatal(err)
	}
	for _, r := range kept {
		if err := s.CommitAnswer(r); err != nil {
			t.Fatal(err)
		}
	}
	// kept: allowance, credits, credits (6 credits); lost: allowance, credits.
	if kept[0].Source != state.SourceAllowance || kept[1].Credits != 3 || kept[2].Credits != 3 || lost[0].Source != state.SourceAllowance || lost[1].Credits != 3 {
		t.Fatalf("kept %+v, lost %+v", kept, lost)
	}

	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpenStoreOpts(t, path, Options{})
	n, err := s.RecoverPending(testNow.Add(time.Hour))
	if err != nil || n != 3 {
		t.Fatalf("RecoverPending = %d, %v; want 3", n, err)
	}
	if n, err := s.RecoverPending(testNow.Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("RecoverPending again = %d, %v; want 0", n, err)
	}

	o, entries := assertLedgerSum(t, s, "acme")
	if o.Credits != 4 {
		t.Errorf("balance %d, want 10 less the 6 of the committed answers", o.Credits)
	}
	if last := entries[len(entries)-1]; last.Kind != state.LedgerRefund || last.Credits != 3 || !last.Time.Equal(testNow.Add(time.Hour)) {
		t.Errorf("last entry %+v, want the refund of the lost credits answer", last)
	}
	// The 98 set at the start and the 3 committed answers (6 credits).
	for _, tt := range []struct {
		org        string
		month, day counter
	}{{"acme", counter{101, 6}, counter{3, 6}}, {"beta", counter{}, counter{}}} {
		if m, d := answerCounters(t, s, tt.org, "2025-03", "2025-03-14"); m != tt.month || d != tt.day {
			t.Errorf("%s: counters %+v, %+v after recovery; want %+v, %+v", tt.org, m, d, tt.month, tt.day)
		}
	}
	for _, r := range lost {
		if err := s.RefundAnswer(r, testNow); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("refunding recovered %d: %v, want ErrNotFound", r.ID, err)
		}
		if err := s.CommitAnswer(r); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("committing recovered %d: %v, want ErrNotFound", r.ID, err)
		}
	}
	for _, r := range kept {
		if err := s.CommitAnswer(r); err != nil {
			t.Errorf("committed %d: %v", r.ID, err)
		}
	}
	// Ids go on from where they were.
	if r := mustReserve(t, s, "beta", 1, testNow); r.ID != refunded.ID+1 {
		t.Errorf("next id %d, want %d", r.ID, refunded.ID+1)
	}
}

// TestStore_AnswersModel runs random reservations, commits and refunds
// against a model of the balance and counters.
func TestStore_AnswersModel(t *testing.T) {
	s := MustOpenStore(t)
	s.db.NoSync = true
	mustAddOrg(t, s, "acme", "trial", 0)
	rng := rand.New(rand.NewPCG(6, 2026))
	var (
		balance, count, spent int64
		open                  []state.Reservation
		refusals              int
	)
	now := testNow
	for i := range 600 {
		switch op := rng.IntN(20); {
		case op == 0:
			n := rng.Int64N(5) + 1
			if _, _, err := s.AddCredits("acme", n, "top-up", now); err != nil {
				t.Fatal(err)
			}
			balance += n
		case op < 12:
			cost := rng.Int64N(3) + 1
			r, err := s.ReserveAnswer("acme", "key_abc", fmt.Sprint("req-", i), cost, now)
			wantSource := state.SourceAllowance
			if count >= 100 {
				wantSource = state.SourceCredits
			}
			if wantSource == state.SourceCredits && balance < cost {
				if !errors.Is(err, state.ErrNoAllowance) {
					t.Fatalf("step %d: %v, want ErrNoAllowance", i, err)
				}
				refusals++
				continue
			}
			if err != nil || r.Source != wantSource {
				t.Fatalf("step %d: %+v, %v; want source %s", i, r, err, wantSource)
			}
			count++
			balance -= r.Credits
			spent += r.Credits
			open = append(open, r)
		case len(open) > 0:
			j := rng.IntN(len(open))
			r := open[j]
			open = append(open[:j], open[j+1:]...)
			if op < 17 {
				if err := s.CommitAnswer(r); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := s.RefundAnswer(r, now); err != nil {
				t.Fatal(err)
			}
			count--
			balance += r.Credits
			spent -= r.Credits
		}
		o, _ := assertLedgerSum(t, s, "acme")
		m, d := answerCounters(t, s, "acme", "2025-03", "2025-03-14")
		if o.Credits != balance || m != (counter{count, spent}) || d != m {
			t.Fatalf("step %d: balance %d, counters %+v %+v; want %d, (%d, %d)", i, o.Credits, m, d, balance, count, spent)
		}
	}
	if count <= 100 || refusals == 0 {
		t.Fatalf("the run counted %d answers and refused %d: it does not exercise credits and refusals", count, refusals)
	}
}

func TestStore_ReserveAnswerInvalid(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 0)
	if _, err := s.ReserveAnswer("nobody", "key_abc", "req", 1, testNow); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("unknown organisation: %v, want ErrNotFound", err)
	}
	if _, err := s.ReserveAnswer("acme", "key\nabc", "req", 1, testNow); !errors.Is(err, state.ErrInvalid) {
		t.Errorf("bad key id: %v, want ErrInvalid", err)
	}
	if _, err := s.ReserveAnswer("acme", "key_abc", string(make([]byte, 201)), 1, testNow); !errors.Is(err, state.ErrInvalid) {
		t.Errorf("long request id: %v, want ErrInvalid", err)
	}
	if u, _ := s.Usage("acme", testNow); u.AnswersThisMonth != 0 {
		t.Errorf("refused reservations were counted: %+v", u)
	}
}

func TestStore_RecoverPendingCorrupt(t *testing.T) {
	for name, value := range map[string]string{
		"not json":      `{`,
		"other id":      `{"id":2,"org":"acme","source":"allowance","month":"2025-03","day":"2025-03-14","time":"2025-03-14T09:00:00Z"}`,
		"bad source":    `{"id":1,"org":"acme","source":"gift","month":"2025-03","day":"2025-03-14","time":"2025-03-14T09:00:00Z"}`,
		"free credits":  `{"id":1,"org":"acme","source":"credits","month":"2025-03","day":"2025-03-14","time":"2025-03-14T09:00:00Z"}`,
		"day elsewhere": `{"id":1,"org":"acme","source":"allowance","month":"2025-03","day":"2025-04-14","time":"2025-03-14T09:00:00Z"}`,
		"counter short": `{"id":1,"org":"acme","source":"allowance","month":"2025-02","day":"2025-02-14","time":"2025-02-14T09:00:00Z"}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "trial", 0)
			mustReserve(t, s, "acme", 1, testNow)
			err := s.db.Update(func(tx *bbolt.Tx) error {
				return tx.Bucket(bucketPending).Put(reservationKey(1), []byte(value))
			})
			if err != nil {
				t.Fatal(err)
			}
			if n, err := s.RecoverPending(testNow); !errors.Is(err, state.ErrCorrupt) || n != 0 {
				t.Fatalf("RecoverPending = %d, %v; want ErrCorrupt", n, err)
			}
			if err := s.RefundAnswer(state.Reservation{ID: 1, OrgID: "acme"}, testNow); !errors.Is(err, state.ErrCorrupt) {
				t.Errorf("RefundAnswer: %v, want ErrCorrupt", err)
			}
			if m, _ := answerCounters(t, s, "acme", "2025-03", "2025-03-14"); m.Count != 1 {
				t.Errorf("a failed recovery changed the counters: %+v", m)
			}
		})
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 20000: "20,000", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := state.GroupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}

func BenchmarkStore_ReserveAnswer(b *testing.B) {
	for _, commit := range []bool{false, true} {
		b.Run(fmt.Sprintf("commit=%v", commit), func(b *testing.B) {
			s := MustOpenStore(b)
			mustAddOrg(b, s, "acme", "pro", 1<<40)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// 500 answers a UTC day, under the ceiling.
				now := testNow.Add(time.Duration(i) * 24 * time.Hour / 500)
				i++
				r, err := s.ReserveAnswer("acme", "key_abc", "req", 1, now)
				if err != nil {
					b.Fatal(err)
				}
				if commit {
					if err := s.CommitAnswer(r); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
