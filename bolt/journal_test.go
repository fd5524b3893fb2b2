package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
	bberrors "go.etcd.io/bbolt/errors"
)

// holdEpochs keeps the committer's epochs open (no fold but when asked)
// for one test.
func holdEpochs(t *testing.T) {
	oldEvery, oldIdle := foldEvery, foldIdle
	foldEvery, foldIdle = time.Hour, time.Hour
	t.Cleanup(func() { foldEvery, foldIdle = oldEvery, oldIdle })
}

// mustKey gives the store's file its journal key: the first epoch on a
// file folds its groups while it writes the key, later ones journal them.
func mustKey(t *testing.T, s *Store) {
	t.Helper()
	if err := s.commit(func(*bbolt.Tx) (func() error, error) { return noWrite, nil }); err != nil {
		t.Fatal(err)
	}
	if s.journal.key == 0 {
		t.Fatal("the first epoch gave the file no journal key")
	}
}

// keyedStore returns a store whose file has its journal key, holding
// organisation acme with 100 credits.
func keyedStore(t *testing.T) *Store {
	t.Helper()
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 100)
	mustKey(t, s)
	return s
}

// lights is a per-query dataset of price 2.
var lights = []state.DatasetPrice{{ID: "lights", Price: 2}}

// mustCharge charges acme for lights as request rid.
func mustCharge(t *testing.T, s *Store, rid string) {
	t.Helper()
	if _, _, err := s.Charge("acme", "key_abc", rid, lights, testNow); err != nil {
		t.Fatal(err)
	}
}

// ledgerBuckets are the buckets the committer writes.
var ledgerBuckets = [][]byte{bucketOrgs, bucketLedger, bucketUsage, bucketPending, bucketRefunded}

// dumpLedger renders every record and bucket sequence of the ledger's
// buckets in path, read directly from the file (no fold is asked for).
func dumpLedger(t *testing.T, path string) string {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return dumpLedgerIn(t, db.View)
}

// dumpLedgerIn is dumpLedger in the read transactions view runs.
func dumpLedgerIn(t *testing.T, view func(func(*bbolt.Tx) error) error) string {
	t.Helper()
	var out bytes.Buffer
	err := view(func(tx *bbolt.Tx) error {
		var walk func(prefix string, b *bbolt.Bucket) error
		walk = func(prefix string, b *bbolt.Bucket) error {
			fmt.Fprintf(&out, "%s seq=%d\n", prefix, b.Sequence())
			return b.ForEach(func(k, v []byte) error {
				if v == nil {
					return walk(prefix+"/"+string(k), b.Bucket(k))
				}
				fmt.Fprintf(&out, "%s %q=%q\n", prefix, k, v)
				return nil
			})
		}
		for _, name := range ledgerBuckets {
			if b := tx.Bucket(name); b != nil {
				if err := walk(string(name), b); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// copyFile copies src to dst as it is on disk now.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// crashCopy copies the data file and journal of s, as a crash now would
// leave them, into a new directory and returns the copy's path.
func crashCopy(t *testing.T, s *Store) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "frames.db")
	copyFile(t, s.path, dst)
	copyFile(t, s.path+journalSuffix, dst+journalSuffix)
	return dst
}

// ledgerWork makes every kind of ledger write through the committer, each
// answered (durable) before it returns: priced and free charges, a charge
// the balance does not cover, worded answers from the allowance and from
// credits, committed and refunded.
func ledgerWork(t *testing.T, s *Store, round int) {
	t.Helper()
	ds := []state.DatasetPrice{{ID: "free", Price: 0}, {ID: "lights", Price: 2}, {ID: "roads", Price: 1}}
	for i := range 5 {
		if _, _, err := s.Charge("acme", "key_abc", fmt.Sprintf("c%d-%d", round, i), ds, testNow); err != nil {
			t.Fatal(err)
		}
	}
	if _, left, err := s.Charge("acme", "key_abc", fmt.Sprintf("big%d", round), []state.DatasetPrice{{ID: "gold", Price: 1 << 40}}, testNow); err != nil || len(left) != 1 {
		t.Fatalf("an uncovered charge: left out %v, %v", left, err)
	}
	for i := range 4 {
		r, err := s.ReserveAnswer("acme", "key_abc", fmt.Sprintf("a%d-%d", round, i), 3, testNow)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			err = s.CommitAnswer(r)
		} else {
			err = s.RefundAnswer(r, testNow)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// One left pending, as a crash mid-wording leaves it.
	if _, err := s.ReserveAnswer("acme", "key_abc", fmt.Sprintf("p%d", round), 3, testNow); err != nil {
		t.Fatal(err)
	}
}

// A crash while an epoch holds answered writes leaves them in the journal
// only; opening the file writes them in, byte for byte as the fold would
// have: every kind of ledger write is journaled.
func TestJournal_CrashReplaysEveryWrite(t *testing.T) {
	holdEpochs(t)
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "trial", 1000)
	ledgerWork(t, s, 0)
	s.settled() // a fold in between: the next epoch starts on it
	ledgerWork(t, s, 1)
	if !s.group.dirty.Load() {
		t.Fatal("the epoch was folded: the test would test nothing")
	}
	crashed := crashCopy(t, s)
	before := dumpLedger(t, crashed)

	s.settled()
	want := dumpLedgerIn(t, s.view)
	if before == want {
		t.Fatal("the data file already held the epoch's writes")
	}
	rep, err := CheckFile(context.Background(), crashed)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Journal == 0 {
		t.Fatalf("a read-only check counts no journal records: %+v", rep)
	}

	c, err := Open(crashed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(crashed + journalSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replayed journal is still there: %v", err)
	}
	if rep, err := c.Check(context.Background()); err != nil || !rep.OK() {
		t.Fatalf("check after the replay: %v %v", err, rep.Problems)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := dumpLedger(t, crashed); got != want {
		t.Errorf("after the replay the ledger differs from the folded one:\n--- replayed\n%s--- folded\n%s", got, want)
	}
}

// A record cut short by the crash ends the replay: the groups before it are
// written in, its own was never answered.
func TestJournal_TornRecordEndsReplay(t *testing.T) {
	holdEpochs(t)
	s := keyedStore(t)
	for i := range 3 {
		mustCharge(t, s, fmt.Sprintf("r%d", i))
	}
	crashed := crashCopy(t, s)
	j := &journal{path: crashed + journalSuffix, key: s.journal.key}
	var ends []int64
	var at int64
	if _, err := j.records(s.journal.base, func(p []byte) error {
		at += int64(journalHeader + len(p))
		ends = append(ends, at)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ends) != 3 {
		t.Fatalf("%d records for 3 charges answered one at a time", len(ends))
	}
	// Cut the last record in its middle, as a crash during its write.
	if err := os.Truncate(j.path, ends[1]+10); err != nil {
		t.Fatal(err)
	}
	c, err := Open(crashed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o, entries, err := c.OrgLedger("acme", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || o.Credits != 96 || entries[2].RequestID != "r1" {
		t.Errorf("after a torn third record: %d entries, balance %d (%+v), want the grant and two charges, 96", len(entries), o.Credits, entries)
	}
}

// Records the data file already holds (a fold committed after them), and
// records of another file, are never replayed.
func TestJournal_StaleRecordsNotReplayed(t *testing.T) {
	holdEpochs(t)
	s := keyedStore(t)
	mustCharge(t, s, "r1")
	old, err := os.ReadFile(s.path + journalSuffix)
	if err != nil {
		t.Fatal(err)
	}
	s.settled()
	// Another writer after the fold: replaying r1's record (the balance
	// it wrote, 98) would undo it.
	if _, _, err := s.AddCredits("acme", 50, "top-up", testNow); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := dumpLedger(t, s.path)
	if err := os.WriteFile(s.path+journalSuffix, old, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Open(s.path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o, err := c.Org("acme"); err != nil || o.Credits != 148 {
		t.Errorf("after a stale journal: %+v, %v; want 148 credits", o, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := dumpLedger(t, s.path); got != want {
		t.Errorf("a stale journal changed the file:\n%s\nwant\n%s", got, want)
	}

	// Another file at the same transaction: its key differs.
	other := keyedStore(t)
	mustCharge(t, other, "r1")
	foreign := crashCopy(t, other)
	copyFile(t, s.path, foreign) // s's file beside other's journal
	rep, err := CheckFile(context.Background(), foreign)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Journal != 0 {
		t.Errorf("another file's journal counts %d records for this one", rep.Journal)
	}
}

// Compact gives the copy a journal key of its own.
func TestJournal_CompactNewKey(t *testing.T) {
	holdEpochs(t) // before the store: its committer reads the timings until it closes
	s := keyedStore(t)
	before := s.journal.key
	if _, err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	var inFile uint64
	if err := s.view(func(tx *bbolt.Tx) error { inFile = journalKey(tx); return nil }); err != nil {
		t.Fatal(err)
	}
	if inFile == before || inFile != s.journal.key || inFile == 0 {
		t.Errorf("key before %x, in the compacted file %x, the journal's %x", before, inFile, s.journal.key)
	}
	// Charges after the swap are journaled for the new file (the first
	// may be folded: Compact asked the committer to fold).
	mustCharge(t, s, "r1")
	mustCharge(t, s, "r2")
	rep, err := CheckFile(context.Background(), crashCopy(t, s))
	if err != nil || rep.Journal < 1 {
		t.Errorf("a crash copy after the compaction: %d records, %v", rep.Journal, err)
	}
}

// A journal that cannot be written fails the group being gathered; the
// groups answered before it stay, and later writes go on.
func TestJournal_WriteFailureKeepsAnsweredWrites(t *testing.T) {
	holdEpochs(t)
	s := keyedStore(t)
	mustCharge(t, s, "r1")
	// Break the journal behind the committer's back: the next record's
	// write fails.
	_ = s.journal.f.Close()
	if _, _, err := s.Charge("acme", "key_abc", "r2", lights, testNow); err == nil {
		t.Fatal("a charge was answered with its journal write failing")
	}
	mustCharge(t, s, "r3")
	o, entries := mustOrgLedger(t, s, "acme")
	var rids []string
	for _, e := range entries[1:] {
		rids = append(rids, e.RequestID)
	}
	if o.Credits != 96 || fmt.Sprint(rids) != "[r1 r3]" {
		t.Errorf("balance %d, charges %v; want 96, r1 and r3", o.Credits, rids)
	}
}

// A file opened for writing and given no ledger write is not changed: the
// first epoch gives it its journal key.
func TestJournal_OpenWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frames.db")
	s, err := Open(path, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("opening and closing the file changed it")
	}
}

// A store closed cleanly leaves no journal.
func TestJournal_CloseRemovesIt(t *testing.T) {
	holdEpochs(t)
	path := filepath.Join(t.TempDir(), "frames.db")
	s, err := Open(path, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	mustAddOrg(t, s, "acme", "trial", 100)
	mustKey(t, s)
	mustCharge(t, s, "r1")
	if _, err := os.Stat(path + journalSuffix); err != nil {
		t.Fatalf("no journal while an epoch holds a charge: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + journalSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal outlived a clean close: %v", err)
	}
	c, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if o, err := c.Org("acme"); err != nil || o.Credits != 98 {
		t.Errorf("%+v, %v; want 98 credits", o, err)
	}
}

// FuzzRedo: any payload either applies or is refused as corrupt, without a
// panic; and what note writes parses back to the same writes.
func FuzzRedo(f *testing.F) {
	j := &journal{}
	j.note(redoPut, [][]byte{bucketLedger, []byte("acme")}, []byte{0, 0, 0, 0, 0, 0, 0, 1}, []byte(`{"seq":1}`), 0)
	j.note(redoSeq, [][]byte{bucketLedger, []byte("acme")}, nil, nil, 1)
	j.note(redoDelete, [][]byte{bucketPending}, []byte("k"), nil, 0)
	f.Add(j.buf)
	f.Add([]byte{redoPut, 1, 1, 'a', 1, 'k', 0})
	f.Add([]byte{redoSeq, 5})
	s := MustOpenStore(f)
	db := s.current()
	f.Fuzz(func(t *testing.T, payload []byte) {
		var again journal
		err := parseRedo(payload, func(kind byte, path [][]byte, key, value []byte, seq uint64) error {
			again.note(kind, path, key, value, seq)
			return nil
		})
		if err == nil && !bytes.Equal(again.buf, payload) {
			// Uvarints have one shortest form; a longer one is accepted
			// and written back shorter.
			if len(again.buf) >= len(payload) {
				t.Fatalf("parsed %x, noted back as %x", payload, again.buf)
			}
		}
		tx, err := db.Begin(true)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		err = applyRedo(tx, payload)
		if err != nil && !errors.Is(err, state.ErrCorrupt) && !isBboltRefusal(err) {
			t.Fatalf("applyRedo(%x): %v", payload, err)
		}
	})
}

// isBboltRefusal reports the errors bbolt returns for a write it refuses
// (a key too long, a bucket where a value is, ...).
func isBboltRefusal(err error) bool {
	for _, e := range []error{bberrors.ErrKeyRequired, bberrors.ErrKeyTooLarge, bberrors.ErrValueTooLarge, bberrors.ErrIncompatibleValue, bberrors.ErrBucketNameRequired} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// FuzzJournalRecord: parseRecord never reads past its input and accepts
// only what writeGroup's framing produces for the key and base.
func FuzzJournalRecord(f *testing.F) {
	rec := make([]byte, journalHeader)
	copy(rec, journalMagic)
	binary.BigEndian.PutUint32(rec[4:], 3)
	binary.BigEndian.PutUint64(rec[12:], 7)
	binary.BigEndian.PutUint64(rec[20:], 9)
	rec = append(rec, 1, 2, 3)
	f.Add(rec)
	f.Add([]byte("fij1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		payload, rest, ok := parseRecord(data, 7, 9)
		if !ok {
			return
		}
		if len(payload)+len(rest)+journalHeader != len(data) {
			t.Fatalf("payload %d and rest %d of %d bytes", len(payload), len(rest), len(data))
		}
	})
}

// FuzzRecordEncoding: the hand-written encoders write exactly what
// encoding/json writes.
func FuzzRecordEncoding(f *testing.F) {
	f.Add(uint64(1), int64(1741944413589793238), "charge", int64(-2), int64(98), "", "key_abc", "lights", "req-1", "acme", "Acme <&> \"Ltd\"", int64(5), true)
	f.Add(uint64(0), int64(-62135596800), "grant", int64(0), int64(0), "top-up\n\u2028é", "", "", "", "a", "", int64(0), false)
	f.Fuzz(func(t *testing.T, seq uint64, nanos int64, kind string, credits, balance int64, note, key, ds, rid, id, name string, orgCredits int64, utc bool) {
		tm := time.Unix(0, nanos)
		if utc {
			tm = tm.UTC()
		} else {
			tm = tm.In(time.FixedZone("x", 3600))
		}
		e := state.LedgerEntry{Seq: seq, Time: tm, Kind: kind, Credits: credits, Balance: balance, Note: note, KeyID: key, Dataset: ds, RequestID: rid}
		want, werr := json.Marshal(e)
		got, gerr := encodeLedgerEntry(e)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("ledger entry %+v:\n got %s (%v)\nwant %s (%v)", e, got, gerr, want, werr)
		}
		o := state.Org{ID: id, Name: name, Plan: kind, Created: tm, Credits: orgCredits}
		want, werr = json.Marshal(orgRecord(o))
		got, gerr = encodeOrg(o)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("organisation %+v:\n got %s (%v)\nwant %s (%v)", o, got, gerr, want, werr)
		}
	})
}

// Records written one after another read back whole, however they fall
// across the blocks a direct write rewrites: ending inside a block, on
// its end, spanning several; through direct writes (O_DIRECT|O_DSYNC,
// where the file system has them) and through buffered ones with
// fdatasync. A record after a failed write (the file dropped and
// reopened) rewrites the block whole and keeps the ones before it.
func TestJournal_RecordsReadBack(t *testing.T) {
	for _, mode := range []string{"direct", "buffered"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			j := &journal{path: filepath.Join(dir, "x.db"+journalSuffix), key: 7, base: 9}
			if mode == "buffered" {
				// A journal grown to an odd size is written buffered.
				if err := os.WriteFile(j.path, make([]byte, directBlock+1), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			rng := rand.New(rand.NewPCG(1, 2))
			var want [][]byte
			add := func(size int) {
				t.Helper()
				payload := make([]byte, size)
				for i := range payload {
					payload[i] = byte(rng.IntN(256))
				}
				j.buf = append(j.buf, payload...)
				if _, err := j.writeGroup(); err != nil {
					t.Fatal(err)
				}
				want = append(want, payload)
			}
			// Sizes whose records end inside a block, exactly at its
			// end, and span more than one.
			add(100)
			add(directBlock - int(j.off%directBlock) - journalHeader)
			if j.off%directBlock != 0 {
				t.Fatalf("a record was to end on a block's end, off %d", j.off)
			}
			add(3*directBlock + 17)
			for range 200 {
				add(1 + rng.IntN(1500))
			}
			if mode == "direct" && !j.direct {
				t.Logf("%s refuses O_DIRECT: the journal was written buffered", dir)
			}
			if mode == "buffered" && j.direct {
				t.Fatal("a journal of an odd size was opened for direct writes")
			}
			// The file is dropped, as after a failed write; the next
			// record reopens it and rewrites its first block.
			j.drop()
			add(33)
			var got [][]byte
			n, err := j.records(9, func(p []byte) error { got = append(got, bytes.Clone(p)); return nil })
			if err != nil || n != len(want) {
				t.Fatalf("read %d records (%v), wrote %d", n, err, len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("record %d of %d: %d bytes read back differ from the %d written", i, n, len(got[i]), len(want[i]))
				}
			}
			if err := j.close(); err == nil {
				t.Fatal("close removed a journal holding unfolded records")
			}
		})
	}
}

// LedgerStats counts each journal record, the ledger writes it carried
// and the time spent writing it, and each fold.
func TestJournal_LedgerStats(t *testing.T) {
	holdEpochs(t)
	s := keyedStore(t)
	before := s.LedgerStats()
	if before.Groups != 0 || before.Writes != 0 || before.Folds == 0 {
		t.Fatalf("after the keying epoch: %+v, want no record and a fold", before)
	}
	mustCharge(t, s, "r1")
	mustCharge(t, s, "r2")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := s.Charge("acme", "key_abc", fmt.Sprintf("c%d", i), lights, testNow); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	st := s.LedgerStats()
	if st.Writes != 22 || st.Groups < 3 || st.Groups > 22 || st.WriteTime <= 0 || st.Folds != before.Folds {
		t.Errorf("after 22 charges, epochs held: %+v", st)
	}
	// Reading the ledger folds the epoch.
	if o, _ := mustOrgLedger(t, s, "acme"); o.Credits != 100-2*22 {
		t.Errorf("balance %d", o.Credits)
	}
	if got := s.LedgerStats().Folds; got != before.Folds+1 {
		t.Errorf("folds %d after a read of the ledger, want %d", got, before.Folds+1)
	}
}
