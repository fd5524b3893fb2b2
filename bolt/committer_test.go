package bolt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// debitOp is a ledgerOp that debits n credits from acme when its balance
// covers them, as Charge does, and refuses otherwise.
func debitOp(s *Store, n int64, rid string) ledgerOp {
	return func(tx *bbolt.Tx) (func() error, error) {
		o, err := s.getOrg(tx, "acme")
		if err != nil {
			return nil, err
		}
		if n > o.Credits {
			return nil, state.Errorf(state.ErrNoAllowance, "%s: %d credits left, %d wanted", rid, o.Credits, n)
		}
		o.Credits -= n
		return func() error {
			e := state.LedgerEntry{Time: testNow, Kind: state.LedgerCharge, Credits: -n, Balance: o.Credits, Dataset: "health", RequestID: rid}
			if _, err := s.appendLedger(tx, o.ID, e); err != nil {
				return err
			}
			return s.putOrg(tx, o)
		}, nil
	}
}

func queued(ops ...ledgerOp) []*queuedOp {
	var g []*queuedOp
	for _, op := range ops {
		g = append(g, newOp(op))
	}
	return g
}

// A group mixing affordable and unaffordable debits: each is checked
// against the balance the ones before it left, in order; a refusal answers
// that one alone.
func TestCommitter_GroupChecksInOrder(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 10)
	prices := []int64{4, 7, 3, 5, 2, 1, 1}
	// 10-4=6; 7 > 6 refused; 6-3=3; 5 > 3 refused; 3-2=1; 1-1=0; 1 > 0 refused.
	wantApplied := []bool{true, false, true, false, true, true, false}
	var ops []ledgerOp
	for i, p := range prices {
		ops = append(ops, debitOp(s, p, fmt.Sprintf("req-%d", i)))
	}
	group := queued(ops...)
	s.applyGroup(group)
	for i, q := range group {
		err := <-q.done
		if applied := err == nil; applied != wantApplied[i] {
			t.Errorf("debit %d of %d: error %v, want applied %v", i, prices[i], err, wantApplied[i])
		}
		if err != nil && !errors.Is(err, state.ErrNoAllowance) {
			t.Errorf("debit %d: error %v, want the refusal", i, err)
		}
	}
	o, entries := mustOrgLedger(t, s, "acme")
	if o.Credits != 0 {
		t.Errorf("balance %d, want 0", o.Credits)
	}
	var got []string
	for _, e := range entries {
		if e.Kind == state.LedgerCharge {
			got = append(got, fmt.Sprintf("%s:%d:%d", e.RequestID, e.Credits, e.Balance))
		}
	}
	want := []string{"req-0:-4:6", "req-2:-3:3", "req-4:-2:1", "req-5:-1:0"}
	if !slices.Equal(got, want) {
		t.Errorf("ledger %v, want %v", got, want)
	}
}

// A write that fails fails the whole group: every waiter gets the error
// and nothing of the group is written.
func TestCommitter_WriteErrorFailsGroup(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 10)
	boom := errors.New("disk on fire")
	failing := func(tx *bbolt.Tx) (func() error, error) {
		return func() error { return boom }, nil
	}
	group := queued(debitOp(s, 2, "a"), debitOp(s, 20, "refused"), failing, debitOp(s, 3, "b"))
	s.applyGroup(group)
	for i, q := range group {
		if err := <-q.done; !errors.Is(err, boom) {
			t.Errorf("waiter %d: error %v, want the group's", i, err)
		}
	}
	o, entries := mustOrgLedger(t, s, "acme")
	for _, e := range entries {
		if e.Kind == state.LedgerCharge {
			t.Errorf("a failed group wrote %+v", e)
		}
	}
	if o.Credits != 10 {
		t.Errorf("balance %d after a failed group, want 10", o.Credits)
	}
}

// StartCharge and StartReserveAnswer answer once the group's writes are
// applied, before its commit: a refusal at once, a decision with durable,
// which returns once the group is on disk. A group that fails before
// deciding answers every waiter with its error and no decision.
func TestCommitter_DecidedBeforeDurable(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 3)
	ds := []state.DatasetPrice{{ID: "a", Price: 2}, {ID: "b", Price: 2}}
	charged, leftOut, durable, err := s.StartCharge("acme", "key_abc", "req-1", ds, testNow)
	if err != nil || !slices.Equal(charged, []string{"a"}) || !slices.Equal(leftOut, []string{"b"}) {
		t.Fatalf("StartCharge: %v %v %v", charged, leftOut, err)
	}
	if err := durable(); err != nil {
		t.Fatal(err)
	}
	if o, entries := mustOrgLedger(t, s, "acme"); o.Credits != 1 || entries[len(entries)-1].RequestID != "req-1" {
		t.Errorf("after durable: balance %d, ledger %+v", o.Credits, entries)
	}
	// trial's allowance is spent after its answers; then 1 credit does
	// not pay for 3.
	for i := 0; ; i++ {
		r, durable, err := s.StartReserveAnswer("acme", "key_abc", fmt.Sprint("ans-", i), 3, testNow)
		if errors.Is(err, state.ErrNoAllowance) {
			if durable != nil {
				t.Error("a refusal came with a durable")
			}
			break
		}
		if err != nil || r.ID == 0 {
			t.Fatalf("reservation %d: %+v %v", i, r, err)
		}
		if err := durable(); err != nil {
			t.Fatal(err)
		}
		if err := s.CommitAnswer(r); err != nil {
			t.Fatalf("commit of reservation %d once durable: %v", r.ID, err)
		}
		if i > state.PlanAllowance["trial"] {
			t.Fatalf("%d reservations: the allowance was passed", i+1)
		}
	}

	boom := errors.New("disk on fire")
	group := queued(debitOp(s, 1, "a"), func(tx *bbolt.Tx) (func() error, error) {
		return func() error { return boom }, nil
	})
	s.applyGroup(group)
	for i, q := range group {
		if durable, err := q.wait(); !errors.Is(err, boom) || durable != nil {
			t.Errorf("waiter %d of a failed group: %v, durable %v", i, err, durable != nil)
		}
	}
}

// Charges waiting while another transaction holds the file are applied
// together, and the ledger still equals the answers.
func TestCommitter_ConcurrentCharges(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 25)
	release := make(chan struct{})
	held := make(chan struct{})
	go s.update(func(tx *bbolt.Tx) error { close(held); <-release; return nil })
	<-held
	const n = 40
	var wg sync.WaitGroup
	results := make([][]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// 2 + 1 credits a request, 25 credits: a balance of 1 charges
			// "b" alone.
			c, _, err := s.Charge("acme", "key_abc", fmt.Sprintf("req-%d", i), []state.DatasetPrice{{ID: "a", Price: 2}, {ID: "b", Price: 1}}, testNow)
			if err != nil {
				t.Error(err)
			}
			results[i] = c
		}()
	}
	time.Sleep(100 * time.Millisecond) // let them queue behind the held transaction
	close(release)
	wg.Wait()
	o, entries := mustOrgLedger(t, s, "acme")
	ledger := map[string]bool{}
	var spent int64
	for _, e := range entries {
		if e.Kind == state.LedgerCharge {
			ledger[e.RequestID+"/"+e.Dataset] = true
			spent -= e.Credits
		}
	}
	answered := 0
	for i, c := range results {
		for _, d := range c {
			answered++
			if !ledger[fmt.Sprintf("req-%d/%s", i, d)] {
				t.Errorf("req-%d was charged %s without a ledger entry", i, d)
			}
		}
	}
	if answered != len(ledger) || spent != 25 || o.Credits != 0 {
		t.Errorf("%d charges answered, %d in the ledger, %d credits spent, balance %d; want equal counts, 25, 0", answered, len(ledger), spent, o.Credits)
	}
}

// crashChildEnv names the data file a re-run of this test binary charges
// until it is killed (TestCommitter_CrashChild).
const crashChildEnv = "FRAMEINDEX_CRASH_CHILD"

// TestCommitter_CrashChild is the process TestCommitter_SIGKILL kills: it
// charges, reserves, commits and refunds from several goroutines at once
// and writes a line to stdout before each call ("start"), when a charge or
// reservation is decided but not yet durable ("decided") and after each
// answer ("ack"), until it is killed. Run alone it does nothing.
func TestCommitter_CrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		return
	}
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	if _, err := s.RecoverPending(time.Time{}); err != nil {
		fmt.Println("recover:", err)
		os.Exit(2)
	}
	round := os.Getenv(crashChildEnv + "_ROUND")
	var out sync.Mutex
	say := func(format string, args ...any) {
		out.Lock()
		defer out.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...) // one write each: os.Stdout is unbuffered
	}
	ds := []state.DatasetPrice{{ID: "lights", Price: 2}, {ID: "roads", Price: 1}}
	for g := range 8 {
		go func() {
			for i := 0; ; i++ {
				rid := fmt.Sprintf("r%s-g%d-%d", round, g, i)
				say("start %s", rid)
				if g >= 6 { // two goroutines word answers
					// As the wording step does: decided, then durable.
					r, durable, err := s.StartReserveAnswer("acme", "key_abc", rid, 3, time.Time{})
					if err != nil {
						say("refused %s", rid)
						continue
					}
					say("decided %s", rid)
					if err := durable(); err != nil {
						say("error %s %v", rid, err)
						os.Exit(2)
					}
					say("reserved %s %s", rid, r.Source)
					if i%2 == 0 {
						if err := s.CommitAnswer(r); err != nil {
							say("error %s %v", rid, err)
							os.Exit(2)
						}
						say("committed %s", rid)
					} else {
						if err := s.RefundAnswer(r, time.Time{}); err != nil {
							say("error %s %v", rid, err)
							os.Exit(2)
						}
						say("refunded %s", rid)
					}
					continue
				}
				var c []string
				var err error
				if g%2 == 0 {
					c, _, err = s.Charge("acme", "key_abc", rid, ds, time.Time{})
				} else {
					// As the data call does: the charge is decided, the
					// answer built while it commits, and told once durable.
					var durable func() error
					if c, _, durable, err = s.StartCharge("acme", "key_abc", rid, ds, time.Time{}); err == nil {
						say("decided %s", rid)
						err = durable()
					}
				}
				if err != nil {
					say("error %s %v", rid, err)
					os.Exit(2)
				}
				say("ack %s %s", rid, strings.Join(c, ","))
			}
		}()
	}
	select {}
}

// TestCommitter_SIGKILL kills a process charging from several goroutines
// at once (group commit on) at a random moment, again and again, and
// checks the file after each kill: every charge the process was told of
// is in the ledger, every ledger entry is a charge some call made (once),
// the balance is the ledger's sum and never below zero, and the file
// passes the check. 50 kills with -short, 200 without.
func TestCommitter_SIGKILL(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		return
	}
	kills := 200
	if testing.Short() {
		kills = 50
	}
	path := filepath.Join(t.TempDir(), "frames.db")
	s, err := Open(path, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	mustAddOrg(t, s, "acme", "trial", 0)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(26, 1))
	acked, started, replayed, replayRounds := 0, 0, 0, 0
	for round := range kills {
		grant := int64(20 + rng.IntN(400)) // often runs out within the round
		func() {
			s, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, _, err := s.AddCredits("acme", grant, "crash test", time.Time{}); err != nil {
				t.Fatal(err)
			}
		}()
		cmd := exec.Command(exe, "-test.run=^TestCommitter_CrashChild$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path, crashChildEnv+"_ROUND="+strconv.Itoa(round))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan []string)
		go func() {
			var all []string
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				all = append(all, sc.Text())
			}
			lines <- all
		}()
		time.Sleep(time.Duration(30+rng.IntN(120)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		all := <-lines
		cmd.Wait()
		a, st, r := checkAfterKill(t, path, round, all)
		acked += a
		started += st
		replayed += r
		if r > 0 {
			replayRounds++
		}
		if t.Failed() {
			t.Fatalf("round %d failed", round)
		}
	}
	if acked == 0 {
		t.Fatal("no call was answered before a kill: the test tested nothing")
	}
	if replayRounds == 0 {
		t.Fatal("no kill left records in the journal: the replay was not tested")
	}
	t.Logf("%d kills; %d calls started, %d answers (a worded answer has two: reserved, then settled); %d kills left journal records (%d groups replayed)", kills, started, acked, replayRounds, replayed)
}

// checkAfterKill opens the file a killed child wrote, with the child's
// output, and checks the ledger against it. It returns how many calls were
// answered and started, and how many journal records the open replayed. Entries of earlier rounds were checked in
// theirs.
func checkAfterKill(t *testing.T, path string, round int, out []string) (acked, started, replayed int) {
	t.Helper()
	calls := map[string]bool{}   // every request id the child began
	charged := map[string]bool{} // "rid/dataset" the child was told was charged
	answered := map[string]string{}
	for _, l := range out {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue // a line cut by the kill
		}
		switch f[0] {
		case "start":
			calls[f[1]] = true
			started++
		case "ack":
			acked++
			if len(f) == 3 {
				for _, d := range strings.Split(f[2], ",") {
					charged[f[1]+"/"+d] = true
				}
			}
		case "reserved":
			acked++
			if f[2] == state.SourceCredits {
				answered[f[1]] = f[0]
			}
		case "committed", "refunded":
			acked++
			if answered[f[1]] != "" { // paid in credits
				answered[f[1]] = f[0]
			}
		case "refused":
		case "decided":
			// Decided, not yet durable: told to no one, so it may or may
			// not have survived the kill.
		default:
			t.Fatalf("child: %s", l)
		}
	}

	ro, err := CheckFile(context.Background(), path)
	if err != nil || len(ro.Problems) > 0 {
		t.Fatalf("read-only check after a kill: %v %v", err, ro.Problems)
	}
	replayed = ro.Journal
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.Check(context.Background())
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("check after a kill: %v %v", err, rep.Problems)
	}
	o, entries, err := s.OrgLedger("acme", 0)
	if err != nil {
		t.Fatal(err)
	}
	var balance int64
	inLedger := map[string]int{}
	kinds := map[string][]string{}
	for i, e := range entries {
		balance += e.Credits
		if e.Balance != balance || balance < 0 || e.Seq != uint64(i+1) {
			t.Fatalf("ledger entry %+v: running balance %d, position %d", e, balance, i+1)
		}
		kinds[e.RequestID] = append(kinds[e.RequestID], e.Kind)
		if e.Kind == state.LedgerCharge {
			inLedger[e.RequestID+"/"+e.Dataset]++
		}
	}
	if balance != o.Credits {
		t.Fatalf("ledger sums to %d, balance %d", balance, o.Credits)
	}
	for c := range charged {
		if inLedger[c] != 1 {
			t.Errorf("charge %s was answered but is in the ledger %d times", c, inLedger[c])
		}
	}
	for c, n := range inLedger {
		rid := strings.Split(c, "/")[0]
		if n != 1 {
			t.Errorf("charge %s is in the ledger %d times", c, n)
		}
		if strings.HasPrefix(rid, fmt.Sprintf("r%d-", round)) && !calls[rid] {
			t.Errorf("charge %s in the ledger was never made", c)
		}
	}
	for rid, what := range answered {
		k := kinds[rid]
		switch what {
		case "reserved", "committed":
			if !slices.Contains(k, state.LedgerAnswer) {
				t.Errorf("worded answer %s was %s in credits without a ledger entry (%v)", rid, what, k)
			}
		case "refunded":
			if !slices.Contains(k, state.LedgerRefund) || !slices.Contains(k, state.LedgerAnswer) {
				t.Errorf("refunded answer %s: ledger kinds %v", rid, k)
			}
		}
	}
	if n, err := s.RecoverPending(time.Time{}); err != nil {
		t.Fatalf("recover after the check (%d): %v", n, err)
	}
	return acked, started, replayed
}

// medianMs reports the median and 99th percentile of took, in ms, as
// metrics named with prefix.
func medianMs(b *testing.B, took []time.Duration, prefix string) {
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, prefix+"median-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, prefix+"p99-ms")
}

// BenchmarkCommitter_ReserveAnswer is what wording adds to a question:
// a reservation (a durable write through the committer), alone and with
// 16 goroutines reserving at once. It reports the median and 99th
// percentile of one reservation until it is durable (median-ms, p99-ms)
// and until it is decided (decided-median-ms, decided-p99-ms): the model
// is called once it is decided, and the reservation's fsync runs while
// the model words, so the decision is what wording waits for.
func BenchmarkCommitter_ReserveAnswer(b *testing.B) {
	for _, par := range []int{1, 16} {
		b.Run(fmt.Sprintf("goroutines=%d", par), func(b *testing.B) {
			s := MustOpenStore(b)
			mustAddOrg(b, s, "acme", "pro", 1<<40)
			var mu sync.Mutex
			var took, decided []time.Duration
			var next atomic.Int64
			b.SetParallelism(max(1, par/runtime.GOMAXPROCS(0)))
			b.ResetTimer()
			run := func(pb interface{ Next() bool }) {
				var mine, mineDecided []time.Duration
				for pb.Next() {
					// 500 answers a UTC day, under the ceiling.
					now := testNow.Add(time.Duration(next.Add(1)) * 24 * time.Hour / 500)
					start := time.Now()
					_, durable, err := s.StartReserveAnswer("acme", "key_abc", "req", 1, now)
					if err != nil {
						b.Error(err)
						return
					}
					mineDecided = append(mineDecided, time.Since(start))
					if err := durable(); err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(start))
				}
				mu.Lock()
				took = append(took, mine...)
				decided = append(decided, mineDecided...)
				mu.Unlock()
			}
			if par == 1 {
				run(&serial{b: b})
			} else {
				b.RunParallel(func(pb *testing.PB) { run(pb) })
			}
			b.StopTimer()
			medianMs(b, took, "")
			medianMs(b, decided, "decided-")
		})
	}
}

// serial is testing.PB for one goroutine.
type serial struct {
	b *testing.B
	i int
}

func (p *serial) Next() bool { p.i++; return p.i <= p.b.N }

// BenchmarkCommitter_Charge is a per-query charge alone and with 16
// goroutines charging at once (a busy server's charged data calls).
func BenchmarkCommitter_Charge(b *testing.B) {
	for _, par := range []int{1, 16} {
		b.Run(fmt.Sprintf("goroutines=%d", par), func(b *testing.B) {
			s := MustOpenStore(b)
			mustAddOrg(b, s, "acme", "pro", 1<<40)
			ds := []state.DatasetPrice{{ID: "nightlights", Price: 1}}
			var next atomic.Int64
			charge := func() {
				if c, _, err := s.Charge("acme", "key_abc", fmt.Sprint("req-", next.Add(1)), ds, testNow); err != nil || len(c) != 1 {
					b.Error(c, err)
				}
			}
			b.ResetTimer()
			if par == 1 {
				for range b.N {
					charge()
				}
				return
			}
			b.SetParallelism(par / runtime.GOMAXPROCS(0))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					charge()
				}
			})
		})
	}
}

// txOp is a ledgerOp that writes nothing and remembers the transaction it
// was applied in: two writes with the same one were committed together.
// groupOf says which group a write was applied in: its transaction and,
// as a transaction spans the groups of an epoch, how much of the epoch's
// redo was journaled before it.
type groupOf struct {
	tx   *bbolt.Tx
	mark int
}

// txOp records the group it is applied in, and writes one record so that
// its group is journaled.
func txOp(s *Store, into *groupOf) ledgerOp {
	return func(tx *bbolt.Tx) (func() error, error) {
		*into = groupOf{tx, s.journal.mark}
		return func() error {
			b, err := s.writeBucket(tx, []byte("test"))
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), []byte("v"))
		}, nil
	}
}

// setCommitTiming sets maxCommitDelay and minGroup for one test, and
// foldEvery to the same delay, so that an epoch does not end a group early.
func setCommitTiming(t *testing.T, delay time.Duration, min int) {
	oldDelay, oldMin, oldFold := maxCommitDelay, minGroup, foldEvery
	maxCommitDelay, minGroup, foldEvery = delay, min, delay
	t.Cleanup(func() { maxCommitDelay, minGroup, foldEvery = oldDelay, oldMin, oldFold })
}

// durableIn runs durable in a goroutine and returns the channel its result
// arrives on.
func durableIn(durable func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- durable() }()
	return ch
}

// notYet fails when ch answers within 50 ms.
func notYet(t *testing.T, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned (%v) while it should still wait", what, err)
	case <-time.After(50 * time.Millisecond):
	}
}

// within fails unless ch answers nil within 5 s.
func within(t *testing.T, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not return", what)
	}
}

// A caller waiting for durability with no charge expected is committed at
// once, however long a group may stay open.
func TestCommitter_LoneCallerNotHeld(t *testing.T) {
	setCommitTiming(t, time.Hour, 4)
	s := MustOpenStore(t)
	var g groupOf
	durable, err := s.commitEarly(txOp(s, &g))
	if err != nil {
		t.Fatal(err)
	}
	within(t, durableIn(durable), "a lone caller's durable")
}

// A caller waiting for durability while another request's charge is
// expected waits for it, and both are committed in one transaction; the
// expected one, once decided, ends the wait.
func TestCommitter_WaitsForExpectedCharge(t *testing.T) {
	setCommitTiming(t, time.Hour, 4)
	s := MustOpenStore(t)
	arrived := s.ExpectCharge()
	var txA, txB groupOf
	durableA, err := s.commitEarly(txOp(s, &txA))
	if err != nil {
		t.Fatal(err)
	}
	a := durableIn(durableA)
	notYet(t, a, "durable, with a charge expected,")
	durableB, err := s.commitEarly(txOp(s, &txB))
	if err != nil {
		t.Fatal(err)
	}
	arrived()
	arrived() // a second call changes nothing
	within(t, a, "durable once the expected charge arrived")
	within(t, durableIn(durableB), "the expected charge's durable")
	if txA.tx == nil || txA != txB {
		t.Errorf("the two charges were committed in groups %+v and %+v, want one", txA, txB)
	}
	// Nothing is expected any more: the next caller is not held.
	var txC groupOf
	durableC, err := s.commitEarly(txOp(s, &txC))
	if err != nil {
		t.Fatal(err)
	}
	within(t, durableIn(durableC), "durable with nothing expected")
}

// A group of minGroup writes commits when a caller waits, even while more
// charges are expected: the cores are not left idle waiting for all.
func TestCommitter_MinGroupCommitsWithChargesExpected(t *testing.T) {
	setCommitTiming(t, time.Hour, 2)
	s := MustOpenStore(t)
	defer s.ExpectCharge()() // never arrives during the test
	var txA, txB groupOf
	durableA, err := s.commitEarly(txOp(s, &txA))
	if err != nil {
		t.Fatal(err)
	}
	a := durableIn(durableA)
	notYet(t, a, "durable, in a group of 1 with a charge expected,")
	durableB, err := s.commitEarly(txOp(s, &txB))
	if err != nil {
		t.Fatal(err)
	}
	within(t, a, "durable in a group of minGroup")
	within(t, durableIn(durableB), "the second write's durable")
	if txA != txB {
		t.Error("the two writes were committed apart")
	}
}

// A group that nobody waits for, or that waits for a charge that never
// comes, commits after maxCommitDelay: other writers are not locked out.
func TestCommitter_MaxDelayBoundsAnOpenGroup(t *testing.T) {
	setCommitTiming(t, 20*time.Millisecond, 4)
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 10)
	defer s.ExpectCharge()()
	durable, err := s.commitEarly(debitOp(s, 1, "held"))
	if err != nil {
		t.Fatal(err)
	}
	// Another writer gets bbolt's lock once the group commits, before
	// the caller asks for durability.
	within(t, durableIn(func() error { _, err := s.SetPlan("acme", "scale"); return err }), "another writer")
	select {
	case err := <-durableIn(durable):
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the group did not commit")
	}
	if o, _ := mustOrgLedger(t, s, "acme"); o.Credits != 9 || o.Plan != "scale" {
		t.Errorf("org %+v, want 9 credits and the new plan", o)
	}
}
