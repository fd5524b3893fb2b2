package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// mustAddOrg adds organisation id on plan and grants it balance credits
// (none when balance is 0).
func mustAddOrg(tb testing.TB, s *Store, id, plan string, balance int64) {
	tb.Helper()
	if _, err := s.AddOrg(state.Org{ID: id, Plan: plan}); err != nil {
		tb.Fatal(err)
	}
	if balance != 0 {
		if _, _, err := s.AddCredits(id, balance, "opening balance", testNow); err != nil {
			tb.Fatal(err)
		}
	}
}

func TestPlanAllowance(t *testing.T) {
	// The spec's Allowances table.
	want := map[string]int{"trial": 100, "pro": 2000, "scale": 20000}
	if !reflect.DeepEqual(state.PlanAllowance, want) {
		t.Errorf("PlanAllowance = %v, want %v", state.PlanAllowance, want)
	}
	if state.DailyCeiling != 1000 {
		t.Errorf("DailyCeiling = %d, want 1000", state.DailyCeiling)
	}
	for plan := range want {
		if err := state.CheckPlan(plan); err != nil {
			t.Errorf("checkPlan(%q) = %v", plan, err)
		}
	}
}

func TestStore_SetPlan(t *testing.T) {
	tests := []struct {
		name    string
		org     string // organisation asked for; "acme" exists on trial with 7 credits
		plan    string
		wantErr error
		text    string
	}{
		{name: "trial to pro", org: "acme", plan: "pro"},
		{name: "trial to scale", org: "acme", plan: "scale"},
		{name: "same plan", org: "acme", plan: "trial"},
		{name: "unknown plan", org: "acme", plan: "gold", wantErr: state.ErrInvalid, text: `invalid plan "gold": must be trial, pro or scale`},
		{name: "empty plan", org: "acme", plan: "", wantErr: state.ErrInvalid, text: `invalid plan "": must be trial, pro or scale`},
		{name: "plan in capitals", org: "acme", plan: "Pro", wantErr: state.ErrInvalid, text: `invalid plan "Pro"`},
		{name: "unknown organisation", org: "nope", plan: "pro", wantErr: state.ErrNotFound, text: `organisation "nope" not found`},
		{name: "empty organisation", org: "", plan: "pro", wantErr: state.ErrNotFound, text: `organisation "" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "trial", 7)
			before, err := s.Org("acme")
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.SetPlan(tt.org, tt.plan)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("SetPlan error = %v, want %v", err, tt.wantErr)
				}
				assertErrText(t, err, tt.text)
				if after, _ := s.Org("acme"); after != before {
					t.Errorf("a refused SetPlan changed the organisation: %+v, was %+v", after, before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := before
			want.Plan = tt.plan
			if got != want {
				t.Errorf("SetPlan = %+v, want %+v", got, want)
			}
			if stored, _ := s.Org("acme"); stored != want {
				t.Errorf("stored %+v, want %+v", stored, want)
			}
			if u, _ := s.Usage("acme", testNow); u.Plan != tt.plan || u.Allowance != state.PlanAllowance[tt.plan] {
				t.Errorf("Usage after SetPlan: plan %q allowance %d", u.Plan, u.Allowance)
			}
		})
	}
}

func TestStore_AddOrgRefusesCredits(t *testing.T) {
	s := MustOpenStore(t)
	_, err := s.AddOrg(state.Org{ID: "acme", Credits: 50})
	if !errors.Is(err, state.ErrInvalid) {
		t.Fatalf("AddOrg with credits: %v, want ErrInvalid", err)
	}
	assertErrText(t, err, "starts with 0 credits", "asked for 50")
	if _, err := s.Org("acme"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("refused AddOrg stored the organisation: %v", err)
	}
}

func TestStore_AddCredits(t *testing.T) {
	lagos := time.FixedZone("WAT", 3600)
	when := time.Date(2026, 11, 22, 10, 30, 0, 0, lagos)
	tests := []struct {
		name    string
		start   int64 // balance granted first (ledger entry 1 when not 0)
		org     string
		n       int64
		note    string
		clock   bool // pass a zero time: the store's clock gives it
		wantErr error
		text    string
		kind    string // of the new entry
	}{
		{name: "grant", start: 0, n: 100, note: "invoice 2026-117", kind: "grant"},
		{name: "grant on top", start: 40, n: 60, note: "top-up", kind: "grant"},
		{name: "adjust", start: 100, n: -30, note: "refund of a duplicate grant", kind: "adjust"},
		{name: "remove everything", start: 100, n: -100, note: "account closed", kind: "adjust"},
		{name: "zero time means the store clock", start: 0, n: 5, note: "x", clock: true, kind: "grant"},
		{name: "note of 200 two-byte characters", start: 0, n: 1, note: strings.Repeat("é", 200), kind: "grant"},
		{name: "note with non-ASCII text", start: 0, n: 1, note: "Grant — Ọ̀yọ́ State office", kind: "grant"},
		{name: "largest balance", start: math.MaxInt64 - 1, n: 1, note: "x", kind: "grant"},

		{name: "below zero", start: 5, n: -10, note: "x", wantErr: state.ErrInvalid, text: "organisation acme has 5 credits; cannot remove 10"},
		{name: "from nothing", start: 0, n: -1, note: "x", wantErr: state.ErrInvalid, text: "organisation acme has 0 credits; cannot remove 1"},
		{name: "one credit", start: 1, n: -2, note: "x", wantErr: state.ErrInvalid, text: "organisation acme has 1 credit; cannot remove 2"},
		{name: "most negative change", start: 5, n: math.MinInt64, note: "x", wantErr: state.ErrInvalid, text: "cannot remove 9223372036854775808"},
		{name: "past the largest balance", start: math.MaxInt64, n: 1, note: "x", wantErr: state.ErrInvalid, text: "adding 1 would pass the largest balance"},
		{name: "zero", start: 5, n: 0, note: "x", wantErr: state.ErrInvalid, text: "0 credits"},
		{name: "no note", start: 5, n: 10, note: "", wantErr: state.ErrInvalid, text: "a note is required"},
		{name: "blank note", start: 5, n: 10, note: " \t ", wantErr: state.ErrInvalid, text: "a note is required"},
		{name: "note of 201 characters", start: 5, n: 10, note: strings.Repeat("é", 201), wantErr: state.ErrInvalid, text: "201 characters, at most 200"},
		{name: "note with a newline", start: 5, n: 10, note: "line one\nline two", wantErr: state.ErrInvalid, text: "control character U+000A"},
		{name: "note not UTF-8", start: 5, n: 10, note: "\xff", wantErr: state.ErrInvalid, text: "not UTF-8"},
		{name: "unknown organisation", start: 5, org: "nope", n: 10, note: "x", wantErr: state.ErrNotFound, text: `organisation "nope" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "pro", tt.start)
			before, beforeLedger := mustOrgLedger(t, s, "acme")
			org := tt.org
			if org == "" {
				org = "acme"
			}
			now := when
			if tt.clock {
				now = time.Time{}
			}
			o, e, err := s.AddCredits(org, tt.n, tt.note, now)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("AddCredits error = %v, want %v", err, tt.wantErr)
				}
				assertErrText(t, err, tt.text)
				after, afterLedger := mustOrgLedger(t, s, "acme")
				if after != before || !reflect.DeepEqual(afterLedger, beforeLedger) {
					t.Errorf("a refused AddCredits changed the file: %+v %v, was %+v %v", after, afterLedger, before, beforeLedger)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantTime := when.UTC()
			if tt.clock {
				wantTime = testNow
			}
			wantOrg := before
			wantOrg.Credits = tt.start + tt.n
			wantEntry := state.LedgerEntry{Seq: uint64(len(beforeLedger)) + 1, Time: wantTime, Kind: tt.kind,
				Credits: tt.n, Balance: tt.start + tt.n, Note: tt.note}
			if o != wantOrg {
				t.Errorf("org = %+v, want %+v", o, wantOrg)
			}
			if e != wantEntry {
				t.Errorf("entry = %+v, want %+v", e, wantEntry)
			}
			if e.Time.Location() != time.UTC {
				t.Errorf("entry time %v is not UTC", e.Time)
			}
			stored, ledger := mustOrgLedger(t, s, "acme")
			if stored != wantOrg {
				t.Errorf("stored org = %+v, want %+v", stored, wantOrg)
			}
			if len(ledger) == 0 || ledger[len(ledger)-1] != wantEntry {
				t.Errorf("stored ledger = %+v, want it to end with %+v", ledger, wantEntry)
			}
		})
	}
}

func mustOrgLedger(tb testing.TB, s *Store, id string) (state.Org, []state.LedgerEntry) {
	tb.Helper()
	o, entries, err := s.OrgLedger(id, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return o, entries
}

func TestStore_Ledger(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 0)
	mustAddOrg(t, s, "other", "trial", 1000)
	mustAddOrg(t, s, "empty", "trial", 0)
	changes := []int64{50, -20, 5, -35, 100} // balances 50, 30, 35, 0, 100
	for i, n := range changes {
		if _, _, err := s.AddCredits("acme", n, "step", testNow.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		org      string
		limit    int
		wantSeqs []uint64
	}{
		{name: "all", org: "acme", limit: 0, wantSeqs: []uint64{1, 2, 3, 4, 5}},
		{name: "negative limit is all", org: "acme", limit: -1, wantSeqs: []uint64{1, 2, 3, 4, 5}},
		{name: "newest one", org: "acme", limit: 1, wantSeqs: []uint64{5}},
		{name: "newest three, oldest first", org: "acme", limit: 3, wantSeqs: []uint64{3, 4, 5}},
		{name: "limit equal to the length", org: "acme", limit: 5, wantSeqs: []uint64{1, 2, 3, 4, 5}},
		{name: "limit past the length", org: "acme", limit: 50, wantSeqs: []uint64{1, 2, 3, 4, 5}},
		{name: "another organisation's own ledger", org: "other", limit: 0, wantSeqs: []uint64{1}},
		{name: "never had credits", org: "empty", limit: 10, wantSeqs: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, err := s.Ledger(tt.org, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var seqs []uint64
			for _, e := range entries {
				seqs = append(seqs, e.Seq)
				if tt.org == "acme" {
					if want := changes[e.Seq-1]; e.Credits != want {
						t.Errorf("entry %d credits %d, want %d", e.Seq, e.Credits, want)
					}
					if want := testNow.Add(time.Duration(e.Seq-1) * time.Minute); !e.Time.Equal(want) {
						t.Errorf("entry %d time %v, want %v", e.Seq, e.Time, want)
					}
				}
			}
			if !reflect.DeepEqual(seqs, tt.wantSeqs) {
				t.Errorf("Ledger(%q, %d) seqs = %v, want %v", tt.org, tt.limit, seqs, tt.wantSeqs)
			}
		})
	}
	if all, _ := s.Ledger("acme", 0); len(all) == 5 {
		wantBalances := []int64{50, 30, 35, 0, 100}
		wantKinds := []string{"grant", "adjust", "grant", "adjust", "grant"}
		for i, e := range all {
			if e.Balance != wantBalances[i] || e.Kind != wantKinds[i] {
				t.Errorf("entry %d: balance %d kind %q, want %d %q", e.Seq, e.Balance, e.Kind, wantBalances[i], wantKinds[i])
			}
		}
	}
	for _, id := range []string{"nope", ""} {
		if _, err := s.Ledger(id, 0); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("Ledger(%q) error = %v, want ErrNotFound", id, err)
		}
	}
}

// TestStore_BalanceIsLedgerSum applies a long random sequence of grants and
// removals (fixed seed) and checks after each that the balance matches a
// model, and at the end that the ledger accounts for every credit.
func TestStore_BalanceIsLedgerSum(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			s := MustOpenStore(t)
			// The property is about arithmetic, not durability: skip the
			// fsync of every commit to keep the test quick.
			s.db.NoSync = true
			mustAddOrg(t, s, "acme", "trial", 0)
			rng := rand.New(rand.NewPCG(seed, 2026))
			var model int64
			written, refused := 0, 0
			for i := range 300 {
				n := rng.Int64N(121) - 60 // -60..60, more removals than the balance allows at times
				if n == 0 {
					continue
				}
				o, e, err := s.AddCredits("acme", n, "step", testNow.Add(time.Duration(i)*time.Second))
				if model+n < 0 {
					if !errors.Is(err, state.ErrInvalid) {
						t.Fatalf("step %d: removing %d from %d: %v, want ErrInvalid", i, -n, model, err)
					}
					refused++
					continue
				}
				if err != nil {
					t.Fatalf("step %d: AddCredits(%d) on %d: %v", i, n, model, err)
				}
				model += n
				written++
				if o.Credits != model || e.Balance != model || e.Seq != uint64(written) {
					t.Fatalf("step %d: balance %d, entry %+v; want balance %d, seq %d", i, o.Credits, e, model, written)
				}
			}
			if refused == 0 || written < 100 {
				t.Fatalf("the sequence wrote %d and refused %d: it does not exercise both", written, refused)
			}

			// Reopen the file: what was committed is what is read.
			path := s.Path()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s = mustOpenStoreOpts(t, path, Options{ReadOnly: true})
			o, ledger := mustOrgLedger(t, s, "acme")
			if o.Credits != model || len(ledger) != written {
				t.Fatalf("after reopening: balance %d, %d entries; want %d, %d", o.Credits, len(ledger), model, written)
			}
			var sum int64
			for i, e := range ledger {
				sum += e.Credits
				wantKind := "grant"
				if e.Credits < 0 {
					wantKind = "adjust"
				}
				if e.Seq != uint64(i+1) || e.Balance != sum || e.Balance < 0 || e.Kind != wantKind {
					t.Fatalf("entry %d = %+v: want seq %d, balance %d (the running sum), kind %s", i, e, i+1, sum, wantKind)
				}
			}
			if sum != o.Credits {
				t.Fatalf("ledger sums to %d, balance is %d", sum, o.Credits)
			}
		})
	}
}

// TestStore_AddCreditsConcurrent has 50 goroutines each remove one credit
// from a balance of 10 at once: bbolt runs one writer at a time, and each
// checks the balance the last one left, so exactly 10 succeed.
func TestStore_AddCreditsConcurrent(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 10)
	const workers = 50
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results = make(chan error, workers)
	)
	for range workers {
		wg.Go(func() {
			<-start
			_, _, err := s.AddCredits("acme", -1, "charge", testNow)
			results <- err
		})
	}
	close(start)
	wg.Wait()
	close(results)
	ok, refused := 0, 0
	for err := range results {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, state.ErrInvalid) && strings.Contains(err.Error(), "has 0 credits; cannot remove 1"):
			refused++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 10 || refused != workers-10 {
		t.Fatalf("%d removals succeeded and %d were refused; want 10 and %d", ok, refused, workers-10)
	}
	o, ledger := mustOrgLedger(t, s, "acme")
	if o.Credits != 0 {
		t.Errorf("balance %d, want 0", o.Credits)
	}
	if len(ledger) != 11 {
		t.Fatalf("%d ledger entries, want the grant and 10 adjustments", len(ledger))
	}
	for i, e := range ledger[1:] {
		if e.Kind != "adjust" || e.Credits != -1 || e.Balance != int64(9-i) || e.Seq != uint64(i+2) {
			t.Errorf("entry %+v: want adjust -1 to balance %d, seq %d", e, 9-i, i+2)
		}
	}
}

// TestStore_OldFile opens a file as builds before credits wrote it — schema
// 1, organisation records without "credits", no ledger or usage buckets —
// and uses it.
func TestStore_OldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	oldRecord := `{"id":"acme","name":"Acme Surveys","plan":"pro","created":"2025-01-02T03:04:05Z"}`
	err = db.Update(func(tx *bbolt.Tx) error {
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		if err := meta.Put(metaSchema, binary.BigEndian.AppendUint32(nil, 1)); err != nil {
			return err
		}
		if err := meta.Put(metaCreated, []byte("2025-01-02T03:04:05Z")); err != nil {
			return err
		}
		orgs, err := tx.CreateBucket(bucketOrgs)
		if err != nil {
			return err
		}
		return orgs.Put([]byte("acme"), []byte(oldRecord))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := mustOpenStoreOpts(t, path, Options{})
	want := state.Org{ID: "acme", Name: "Acme Surveys", Plan: "pro", Created: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	if o, err := s.Org("acme"); err != nil || o != want {
		t.Fatalf("Org = %+v, %v; want %+v", o, err, want)
	}
	if orgs, err := s.Orgs(); err != nil || len(orgs) != 1 || orgs[0] != want {
		t.Fatalf("Orgs = %+v, %v", orgs, err)
	}
	if l, err := s.Ledger("acme", 0); err != nil || len(l) != 0 {
		t.Fatalf("Ledger = %+v, %v; want none", l, err)
	}
	u, err := s.Usage("acme", testNow)
	wantUsage := state.Usage{OrgID: "acme", Plan: "pro", Month: "2025-03", Day: "2025-03-14", Allowance: 2000, DailyCeiling: 1000}
	if err != nil || !reflect.DeepEqual(u, wantUsage) {
		t.Fatalf("Usage = %+v, %v; want %+v", u, err, wantUsage)
	}

	// A plan change keeps the record in the old form: no credits yet.
	if _, err := s.SetPlan("acme", "scale"); err != nil {
		t.Fatal(err)
	}
	if raw := rawOrg(t, s, "acme"); strings.Contains(raw, "credits") {
		t.Errorf("record without credits now reads %s", raw)
	}
	if _, _, err := s.AddCredits("acme", 25, "first grant", testNow); err != nil {
		t.Fatal(err)
	}
	if raw := rawOrg(t, s, "acme"); !strings.Contains(raw, `"credits":25`) {
		t.Errorf("record after a grant reads %s", raw)
	}
	want.Plan, want.Credits = "scale", 25
	if o, err := s.Org("acme"); err != nil || o != want {
		t.Fatalf("Org = %+v, %v; want %+v", o, err, want)
	}
}

// TestStore_NewOrgRecordUnchanged checks that a new organisation is stored
// exactly as builds before credits stored it, so they can still read it.
func TestStore_NewOrgRecordUnchanged(t *testing.T) {
	s := MustOpenStore(t)
	if _, err := s.AddOrg(state.Org{ID: "acme", Name: "Acme", Plan: "pro", Created: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"acme","name":"Acme","plan":"pro","created":"2025-01-02T03:04:05Z"}`
	if raw := rawOrg(t, s, "acme"); raw != want {
		t.Errorf("stored %s, want %s", raw, want)
	}
}

func rawOrg(tb testing.TB, s *Store, id string) string {
	tb.Helper()
	var raw string
	if err := s.db.View(func(tx *bbolt.Tx) error {
		raw = string(tx.Bucket(bucketOrgs).Get([]byte(id)))
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return raw
}

func TestStore_LedgerCorrupt(t *testing.T) {
	good := `{"seq":1,"time":"2025-01-01T00:00:00Z","kind":"grant","credits":5,"balance":5,"note":"x"}`
	tests := []struct {
		name  string
		key   []byte
		value string // "" puts a bucket under key instead
		text  string
	}{
		{name: "not JSON", key: ledgerKey(1), value: `{"seq":`, text: "entry 0000000000000001"},
		{name: "other sequence number", key: ledgerKey(2), value: good, text: "sequence number 1"},
		{name: "unknown field", key: ledgerKey(1), value: strings.Replace(good, `"note"`, `"extra":1,"note"`, 1), text: "unknown field"},
		{name: "no time", key: ledgerKey(1), value: `{"seq":1,"kind":"grant","credits":5,"balance":5}`, text: "no time"},
		{name: "no kind", key: ledgerKey(1), value: `{"seq":1,"time":"2025-01-01T00:00:00Z","credits":5,"balance":5}`, text: "no kind"},
		{name: "no change", key: ledgerKey(1), value: `{"seq":1,"time":"2025-01-01T00:00:00Z","kind":"grant","credits":0,"balance":5}`, text: "0 credits"},
		{name: "negative balance", key: ledgerKey(1), value: `{"seq":1,"time":"2025-01-01T00:00:00Z","kind":"adjust","credits":-5,"balance":-5}`, text: "negative balance"},
		{name: "short key", key: []byte{1}, value: good, text: "key of 1 bytes"},
		{name: "a bucket", key: ledgerKey(1), value: "", text: "holds a bucket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "trial", 0)
			if err := s.db.Update(func(tx *bbolt.Tx) error {
				all, err := tx.CreateBucketIfNotExists(bucketLedger)
				if err != nil {
					return err
				}
				b, err := all.CreateBucketIfNotExists([]byte("acme"))
				if err != nil {
					return err
				}
				if tt.value == "" {
					_, err = b.CreateBucket(tt.key)
					return err
				}
				return b.Put(tt.key, []byte(tt.value))
			}); err != nil {
				t.Fatal(err)
			}
			_, err := s.Ledger("acme", 0)
			if !errors.Is(err, state.ErrCorrupt) {
				t.Fatalf("Ledger error = %v, want ErrCorrupt", err)
			}
			assertErrText(t, err, `ledger of organisation "acme"`, tt.text)
		})
	}
}

func TestStore_OrgCorruptCredits(t *testing.T) {
	for name, v := range map[string]string{
		"negative credits": `{"id":"acme","name":"x","plan":"trial","created":"2025-01-01T00:00:00Z","credits":-1}`,
		"unknown plan":     `{"id":"acme","name":"x","plan":"gold","created":"2025-01-01T00:00:00Z"}`,
		"credits as text":  `{"id":"acme","name":"x","plan":"trial","created":"2025-01-01T00:00:00Z","credits":"5"}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "trial", 0)
			if err := s.db.Update(func(tx *bbolt.Tx) error {
				return tx.Bucket(bucketOrgs).Put([]byte("acme"), []byte(v))
			}); err != nil {
				t.Fatal(err)
			}
			for what, err := range map[string]error{
				"Org":        func() error { _, err := s.Org("acme"); return err }(),
				"AddCredits": func() error { _, _, err := s.AddCredits("acme", 1, "x", testNow); return err }(),
				"SetPlan":    func() error { _, err := s.SetPlan("acme", "pro"); return err }(),
				"Usage":      func() error { _, err := s.Usage("acme", testNow); return err }(),
				"Ledger":     func() error { _, err := s.Ledger("acme", 0); return err }(),
			} {
				if !errors.Is(err, state.ErrCorrupt) {
					t.Errorf("%s error = %v, want ErrCorrupt", what, err)
				}
			}
		})
	}
}
