package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// opsStore is a store with two organisations with ledgers, a key and a
// dataset of attributes and features.
func opsStore(tb testing.TB) *Store {
	tb.Helper()
	s := MustOpenStore(tb)
	mustAddOrg(tb, s, "acme", state.PlanPro, 100)
	mustAddOrg(tb, s, "geodata", state.PlanTrial, 0)
	if _, _, err := s.AddCredits("acme", -30, "taken back", testNow); err != nil {
		tb.Fatal(err)
	}
	if _, _, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Now: testNow}); err != nil {
		tb.Fatal(err)
	}
	mustImport(tb, s, popDataset(), opsRecords(200, 3))
	return s
}

// opsRecords are n frame records, every one with attributes and every
// third with feats features.
func opsRecords(n, feats int) []FrameRecord {
	recs := make([]FrameRecord, n)
	for i := range recs {
		recs[i] = FrameRecord{Frame: uint64(1000 + i), Attrs: []byte(fmt.Sprintf(`{"population_2020":%d,"class":"rural"}`, i))}
		if i%3 == 0 {
			for j := 0; j < feats; j++ {
				recs[i].Features = append(recs[i].Features, feature(fmt.Sprintf("f%d-%d", i, j)))
			}
		}
	}
	return recs
}

func mustCheck(tb testing.TB, s *Store) CheckReport {
	tb.Helper()
	r, err := s.Check(context.Background())
	if err != nil {
		tb.Fatalf("Check: %v", err)
	}
	return r
}

func TestStore_CheckSound(t *testing.T) {
	s := opsStore(t)
	r := mustCheck(t, s)
	if !r.OK() {
		t.Fatalf("problems in a sound file: %q", r.Problems)
	}
	if r.Orgs != 2 || r.Keys != 1 || r.LedgerEntries != 2 || r.Datasets != 1 || r.Records != 200 || r.Features != 67*3 {
		t.Errorf("report = %+v", r)
	}
	if r.Size == 0 || r.Schema != Schema || len(r.Staging) != 0 {
		t.Errorf("report = %+v", r)
	}
}

// TestStore_CheckFindsDamage damages one invariant at a time, below the
// store's API, and wants Check to name it.
func TestStore_CheckFindsDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(tx *bbolt.Tx) error
		want   string
	}{
		{"balance without its ledger change", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketOrgs).Put([]byte("acme"), []byte(`{"id":"acme","name":"acme","plan":"pro","created":"0001-01-01T00:00:00Z","credits":71}`))
		}, `organisation "acme": balance 71, but its ledger sums to 70`},
		{"ledger entry with a wrong balance", func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketLedger).Bucket([]byte("acme"))
			return b.Put(ledgerKey(2), []byte(`{"seq":2,"time":"2025-03-14T09:26:53Z","kind":"adjust","credits":-30,"balance":60,"note":"x"}`))
		}, `entry 2: balance 60, but the changes so far sum to 70`},
		{"ledger gap", func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketLedger).Bucket([]byte("acme"))
			v := b.Get(ledgerKey(2))
			v = bytes.Replace(v, []byte(`"seq":2`), []byte(`"seq":3`), 1)
			if err := b.Delete(ledgerKey(2)); err != nil {
				return err
			}
			return b.Put(ledgerKey(3), v)
		}, "entry 3 follows entry 1"},
		{"malformed key digest", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketKeys).ForEach(func(k, v []byte) error {
				var buf bytes.Buffer
				i := bytes.Index(v, []byte(`"digest":"`)) + len(`"digest":"`)
				buf.Write(v[:i])
				buf.WriteString("zz")
				buf.Write(v[i+2:])
				return tx.Bucket(bucketKeys).Put(slices.Clone(k), buf.Bytes())
			})
		}, "digest is not 64 hex digits"},
		{"digest index pointing nowhere", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketKeyDigests).Put(bytes.Repeat([]byte{7}, 32), []byte("key_gone"))
		}, `names key "key_gone", which does not exist`},
		{"key missing from the digest index", func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketKeyDigests)
			k, _ := b.Cursor().First()
			return b.Delete(slices.Clone(k))
		}, "is not in the digest index"},
		{"missing live version", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketVersions).DeleteBucket(versionBucketName("population", 1))
		}, `dataset "population": version 1 is missing`},
		{"incomplete version: a frame record lost", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketVersions).Bucket(versionBucketName("population", 1)).Bucket(bucketVFrames).Delete(frameKey(nil, 1001))
		}, "199 frame records, but the description says 200"},
		{"incomplete version: a feature lost", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketVersions).Bucket(versionBucketName("population", 1)).Bucket(bucketVFeats).Delete(featKey(nil, 1003, 1))
		}, "frame 1003: feature 1 of 3 is missing"},
		{"undeclared attribute", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketVersions).Bucket(versionBucketName("population", 1)).Bucket(bucketVFrames).Put(frameKey(nil, 1001), frameValue(nil, 0, []byte(`{"height":3}`)))
		}, `frame 1001: attributes: "height" is not a declared attribute`},
		{"dataset of a missing owner", func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketOrgs).Delete([]byte("geodata"))
		}, ""}, // geodata owns nothing: no problem expected
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := opsStore(t)
			if err := s.update(tt.damage); err != nil {
				t.Fatal(err)
			}
			r := mustCheck(t, s)
			if tt.want == "" {
				if !r.OK() {
					t.Fatalf("problems: %q", r.Problems)
				}
				return
			}
			if !slices.ContainsFunc(r.Problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Fatalf("problems %q do not mention %q", r.Problems, tt.want)
			}
		})
	}
}

// crashImport leaves a staging bucket as an import that crashed between
// two staging transactions does.
func crashImport(tb testing.TB, s *Store, id string, version int) {
	tb.Helper()
	err := s.update(func(tx *bbolt.Tx) error {
		v, err := tx.Bucket(bucketVersions).CreateBucket(versionBucketName(id, version))
		if err != nil {
			return err
		}
		f, err := v.CreateBucket(bucketVFrames)
		if err != nil {
			return err
		}
		if _, err := v.CreateBucket(bucketVFeats); err != nil {
			return err
		}
		for i := range 5000 {
			if err := f.Put(frameKey(nil, uint64(i)), frameValue(nil, 0, bytes.Repeat([]byte("x"), 200))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func TestStore_CompactDropsRemovedAndStaging(t *testing.T) {
	s := opsStore(t)
	big := popDataset()
	big.ID = "big"
	mustImport(t, s, big, opsRecords(20000, 2))
	crashImport(t, s, "population", 2)
	if r := mustCheck(t, s); !r.OK() || !slices.Equal(r.Staging, []string{"population@2"}) {
		t.Fatalf("before: problems %q, staging %q", r.Problems, r.Staging)
	}
	if err := s.RemoveDataset("big"); err != nil {
		t.Fatal(err)
	}
	_, ledgerBefore, _ := s.OrgLedger("acme", 0)
	rep, err := s.Compact(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.After >= rep.Before || rep.Before == 0 {
		t.Errorf("sizes before %d, after %d: want smaller", rep.Before, rep.After)
	}
	if !slices.Equal(rep.Dropped, []string{"population@2"}) {
		t.Errorf("dropped %q", rep.Dropped)
	}
	fi, err := os.Stat(s.Path())
	if err != nil || fi.Size() != rep.After {
		t.Errorf("file size %v (%v), report says %d", fi.Size(), err, rep.After)
	}
	if fi.Mode().Perm() != fileMode {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), os.FileMode(fileMode))
	}
	if _, err := os.Stat(s.Path() + compactSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the copy is still there: %v", err)
	}
	r := mustCheck(t, s)
	if !r.OK() || len(r.Staging) != 0 || r.Records != 200 {
		t.Fatalf("after: %+v", r)
	}
	// Sequences are kept: the next ledger entry is numbered 3.
	_, e, err := s.AddCredits("acme", 5, "after compaction", testNow)
	if err != nil || e.Seq != uint64(len(ledgerBefore)+1) {
		t.Fatalf("entry after compaction: %+v, %v", e, err)
	}
	if versions := versionBuckets(t, s); !slices.Equal(versions, []string{"population@1"}) {
		t.Errorf("version buckets %q", versions)
	}
}

// TestStore_CompactLive compacts while writers and readers run: no write
// is lost, none fails, and every read succeeds.
func TestStore_CompactLive(t *testing.T) {
	s := opsStore(t)
	big := popDataset()
	big.ID = "big"
	mustImport(t, s, big, opsRecords(20000, 2))
	if err := s.RemoveDataset("big"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var writes, reads atomic.Int64
	errs := make(chan error, 16)
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if _, _, err := s.AddCredits("acme", 1, fmt.Sprintf("writer %d", w), testNow); err != nil {
					errs <- err
					return
				}
				writes.Add(1)
			}
		}()
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if _, err := s.ReadFrames([]string{"population"}, []uint64{1000, 1003}, true, 10); err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	rep, err := s.Compact(context.Background())
	time.Sleep(20 * time.Millisecond)
	cancel()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent call failed: %v", e)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rep.After >= rep.Before {
		t.Errorf("before %d, after %d", rep.Before, rep.After)
	}
	org, ledger, err := s.OrgLedger("acme", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 + writes.Load(); int64(len(ledger)) != want || org.Credits != 70+writes.Load() {
		t.Fatalf("%d ledger entries, balance %d; want %d entries, balance %d", len(ledger), org.Credits, want, 70+writes.Load())
	}
	if reads.Load() == 0 {
		t.Error("no read ran")
	}
	if r := mustCheck(t, s); !r.OK() {
		t.Fatalf("problems: %q", r.Problems)
	}
}

func TestStore_CompactRefusals(t *testing.T) {
	t.Run("cancelled", func(t *testing.T) {
		s := opsStore(t)
		big := popDataset()
		big.ID = "big"
		mustImport(t, s, big, opsRecords(20000, 2))
		before, _ := os.ReadFile(s.Path())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := s.Compact(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		after, _ := os.ReadFile(s.Path())
		if !bytes.Equal(before, after) {
			t.Error("a cancelled compaction changed the file")
		}
		if _, err := os.Stat(s.Path() + compactSuffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the copy was left: %v", err)
		}
	})
	t.Run("import running", func(t *testing.T) {
		s := opsStore(t)
		w, err := s.BeginImport(popDataset(), testNow)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		_, err = s.Compact(context.Background())
		assertErrText(t, err, "an import is running")
		if !errors.Is(err, state.ErrInvalid) {
			t.Errorf("err = %v, want ErrInvalid", err)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "frames.db")
		s := mustOpenStoreOpts(t, path, Options{Create: true})
		s.Close()
		ro := mustOpenStoreOpts(t, path, Options{ReadOnly: true})
		if _, err := ro.Compact(context.Background()); !errors.Is(err, state.ErrInvalid) {
			t.Fatalf("err = %v, want ErrInvalid", err)
		}
	})
}

// TestStore_SnapshotUnderWrites takes a snapshot while writers append to a
// ledger: the copy is sound and its ledger a prefix of the final one.
func TestStore_SnapshotUnderWrites(t *testing.T) {
	s := opsStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if _, _, err := s.AddCredits("acme", 1, "busy", testNow); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	time.Sleep(10 * time.Millisecond)
	out := filepath.Join(t.TempDir(), "copy.db")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	var announced int64
	n, err := s.Snapshot(context.Background(), f, func(size int64) { announced = size })
	f.Close()
	time.Sleep(10 * time.Millisecond)
	cancel()
	wg.Wait()
	if err != nil || n != announced || n == 0 {
		t.Fatalf("Snapshot: %d bytes (announced %d), %v", n, announced, err)
	}
	r, err := CheckFile(context.Background(), out)
	if err != nil || !r.OK() {
		t.Fatalf("CheckFile: %+v, %v", r, err)
	}
	c, err := Open(out, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, copied, _ := c.OrgLedger("acme", 0)
	_, final, _ := s.OrgLedger("acme", 0)
	if len(copied) < 2 || len(copied) > len(final) {
		t.Fatalf("copy has %d entries, file %d", len(copied), len(final))
	}
	for i := range copied {
		if copied[i] != final[i] {
			t.Fatalf("entry %d differs: %+v vs %+v", i+1, copied[i], final[i])
		}
	}
}

func TestStore_SnapshotCancelled(t *testing.T) {
	s := opsStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	var buf bytes.Buffer
	_, err := s.Snapshot(ctx, writerFunc(func(p []byte) (int, error) {
		cancel()
		return buf.Write(p)
	}), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if buf.Len() > 64<<10 { // one page, the one whose write cancelled

		t.Errorf("%d bytes written after cancelling", buf.Len())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func BenchmarkStore_Check(b *testing.B) {
	s := MustOpenStore(b)
	mustAddOrg(b, s, "acme", state.PlanPro, 100)
	mustImport(b, s, popDataset(), opsRecords(100000, 1))
	b.ReportAllocs()
	for b.Loop() {
		if r := mustCheck(b, s); !r.OK() {
			b.Fatal(r.Problems)
		}
	}
}
