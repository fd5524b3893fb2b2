package bolt

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"frameindex/grid"
	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// snapshotOf writes a snapshot of s beside it, as `frameindex backup` does,
// and returns its path.
func snapshotOf(tb testing.TB, s *Store) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "snapshot.db")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Snapshot(context.Background(), f, nil); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// importAt imports records into d with the clock at now.
func importAt(tb testing.TB, s *Store, d state.Dataset, now time.Time, records ...FrameRecord) {
	tb.Helper()
	if _, err := s.ImportDataset(d, records, now); err != nil {
		tb.Fatalf("ImportDataset(%s): %v", d.ID, err)
	}
}

// datasetsOf returns what the file holds of every dataset: descriptions
// and every record, for comparing two files.
type datasetState struct {
	Datasets []state.Dataset
	Frames   []FrameData
}

func datasetsOf(tb testing.TB, s *Store) datasetState {
	tb.Helper()
	ds, err := s.Datasets()
	if err != nil {
		tb.Fatal(err)
	}
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	fd, err := s.ReadFrames(ids, []uint64{10, 20, 30, 40}, true, 200)
	if err != nil {
		tb.Fatal(err)
	}
	return datasetState{ds, fd}
}

// mustBeSound checks the file as `frameindex check` does: no problems and
// no staging buckets left.
func mustBeSound(tb testing.TB, s *Store) {
	tb.Helper()
	rep, err := s.Check(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if !rep.OK() || len(rep.Staging) > 0 {
		tb.Fatalf("check: problems %q, staging %q", rep.Problems, rep.Staging)
	}
}

func ids(list []DatasetSync) []string {
	out := []string{}
	for _, d := range list {
		out = append(out, d.ID)
	}
	return out
}

func TestStore_SyncDatasets(t *testing.T) {
	later := testNow.Add(time.Hour)
	roads := state.Dataset{ID: "roads", Owner: "acme"}
	pop := popDataset()
	r1 := FrameRecord{Frame: 10, Attrs: []byte(`{"population_2020":7}`), Features: [][]byte{feature("a"), feature("b")}}
	r2 := FrameRecord{Frame: 20, Attrs: []byte(`{"class":"urban"}`)}
	r3 := FrameRecord{Frame: 30, Features: [][]byte{feature("c")}}

	tests := []struct {
		name     string
		snapshot func(*Store) // builds the other node's file
		target   func(*Store) // builds this node's file
		opts     SyncOptions
		copied   []string
		updated  []string
		removed  []string
		kept     []string
		same     []string
		equal    bool // the target then holds exactly the snapshot's datasets
	}{
		{"new dataset", func(s *Store) { importAt(t, s, pop, testNow, r1, r2) }, func(*Store) {},
			SyncOptions{}, []string{"population"}, nil, nil, nil, nil, true},
		{"newer version", func(s *Store) { importAt(t, s, pop, testNow, r1); importAt(t, s, pop, later, r2, r3) },
			func(s *Store) { importAt(t, s, pop, testNow, r1) },
			SyncOptions{}, []string{"population"}, nil, nil, nil, nil, true},
		{"same counter, another import", func(s *Store) { importAt(t, s, pop, later, r2) },
			func(s *Store) { importAt(t, s, pop, testNow, r1, r3) },
			SyncOptions{}, []string{"population"}, nil, nil, nil, nil, true},
		{"older version in the snapshot", func(s *Store) { importAt(t, s, pop, testNow, r1) },
			func(s *Store) {
				importAt(t, s, pop, testNow, r2)
				importAt(t, s, pop, later, r3)
				importAt(t, s, pop, later, r1, r2)
			},
			SyncOptions{}, []string{"population"}, nil, nil, nil, nil, true},
		{"only here: removed", func(s *Store) { importAt(t, s, pop, testNow, r1) },
			func(s *Store) { importAt(t, s, pop, testNow, r1); importAt(t, s, roads, testNow, r3) },
			SyncOptions{}, nil, nil, []string{"roads"}, nil, []string{"population"}, true},
		{"only here: kept", func(s *Store) { importAt(t, s, pop, testNow, r1) },
			func(s *Store) { importAt(t, s, pop, testNow, r1); importAt(t, s, roads, testNow, r3) },
			SyncOptions{Keep: true}, nil, nil, nil, []string{"roads"}, []string{"population"}, false},
		{"price only", func(s *Store) {
			importAt(t, s, pop, testNow, r1)
			if _, err := s.SetPrice("population", 9); err != nil {
				t.Fatal(err)
			}
		}, func(s *Store) { importAt(t, s, pop, testNow, r1) },
			SyncOptions{}, nil, []string{"population"}, nil, nil, nil, true},
		{"nothing to do", func(s *Store) { importAt(t, s, pop, testNow, r1); importAt(t, s, roads, testNow, r3) },
			func(s *Store) { importAt(t, s, pop, testNow, r1); importAt(t, s, roads, testNow, r3) },
			SyncOptions{}, nil, nil, nil, nil, []string{"population", "roads"}, true},
		{"empty snapshot", func(*Store) {}, func(s *Store) { importAt(t, s, pop, testNow, r1) },
			SyncOptions{}, nil, nil, []string{"population"}, nil, nil, true},
		{"dry run", func(s *Store) { importAt(t, s, pop, later, r2) },
			func(s *Store) { importAt(t, s, roads, testNow, r3) },
			SyncOptions{DryRun: true}, []string{"population"}, nil, []string{"roads"}, nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			other := MustOpenStore(t)
			mustAddOrg(t, other, "acme", "pro", 0)
			tc.snapshot(other)
			snap := snapshotOf(t, other)

			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "pro", 5)
			mustAddOrg(t, s, "beta", "trial", 0)
			tc.target(s)
			if _, err := s.GrantLicence("beta", "population", state.LicencePerQuery, testNow); err != nil && !errors.Is(err, state.ErrNotFound) {
				t.Fatal(err)
			}
			_, secret, err := s.MintKey(state.MintRequest{OrgID: "beta", Preset: "locality", Now: testNow})
			if err != nil {
				t.Fatal(err)
			}
			before := datasetsOf(t, s)
			orgsBefore, _ := s.Orgs()

			rep, err := s.SyncDatasets(context.Background(), snap, tc.opts)
			if err != nil {
				t.Fatalf("SyncDatasets: %v", err)
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{
				{"copied", ids(rep.Copied), tc.copied}, {"updated", ids(rep.Updated), tc.updated},
				{"removed", ids(rep.Removed), tc.removed}, {"kept", rep.Kept, tc.kept}, {"unchanged", rep.Unchanged, tc.same},
			} {
				if !slices.Equal(c.got, c.want) && len(c.got)+len(c.want) > 0 {
					t.Errorf("%s %q, want %q", c.what, c.got, c.want)
				}
			}
			if rep.Changed() != (len(tc.copied)+len(tc.updated)+len(tc.removed) > 0) {
				t.Errorf("Changed() = %v", rep.Changed())
			}
			after := datasetsOf(t, s)
			switch {
			case tc.opts.DryRun:
				if !reflect.DeepEqual(after, before) {
					t.Errorf("a dry run changed the datasets:\n%+v\nwas\n%+v", after, before)
				}
			case tc.equal:
				if want := datasetsOf(t, other); !reflect.DeepEqual(after, want) {
					t.Errorf("after sync:\n%+v\nwant the snapshot's\n%+v", after, want)
				}
			}
			// Organisations and keys are untouched.
			if orgs, _ := s.Orgs(); !reflect.DeepEqual(orgs, orgsBefore) {
				t.Errorf("orgs changed: %+v", orgs)
			}
			kr, err := s.Keyring()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := kr.Lookup(secret, testNow); err != nil {
				t.Errorf("the key no longer authenticates: %v", err)
			}
			// A removed dataset's licence goes with it; a kept one's stays.
			lic, _ := s.Licences("beta")
			if slices.Contains(tc.removed, "population") && len(lic) != 0 {
				t.Errorf("licences of a removed dataset stay: %+v", lic)
			}
			mustBeSound(t, s)
			// Syncing again changes nothing.
			if !tc.opts.DryRun {
				again, err := s.SyncDatasets(context.Background(), snap, tc.opts)
				if err != nil || again.Changed() {
					t.Errorf("second sync: %+v, %v", again, err)
				}
			}
		})
	}
}

func TestStore_SyncDatasetsRefuses(t *testing.T) {
	pop := popDataset()
	rec := FrameRecord{Frame: 10, Attrs: []byte(`{"population_2020":7}`), Features: [][]byte{feature("a")}}
	tests := []struct {
		name  string
		build func(t *testing.T, other *Store)
		path  func(snap string, s *Store) string
		want  error
		text  []string
	}{
		{"owner missing here", func(t *testing.T, o *Store) {
			mustAddOrg(t, o, "gamma", "pro", 0)
			importAt(t, o, state.Dataset{ID: "roads", Owner: "gamma"}, testNow, FrameRecord{Frame: 10, Features: [][]byte{feature("r")}})
		}, nil, state.ErrNotFound, []string{`dataset "roads" is owned by organisation "gamma"`, "frameindex org add gamma"}},
		{"incomplete version", func(t *testing.T, o *Store) {
			importAt(t, o, pop, testNow, rec)
			d, _ := o.Dataset("population")
			d.Frames++
			if err := o.update(func(tx *bbolt.Tx) error { return putJSON(tx.Bucket(bucketDatasets), []byte(d.ID), d) }); err != nil {
				t.Fatal(err)
			}
		}, nil, state.ErrCorrupt, []string{"snapshot", `dataset "population", version 1: 1 frame records, but the description says 2`, "nothing was synced"}},
		{"the file itself", func(*testing.T, *Store) {}, func(_ string, s *Store) string { return s.Path() }, state.ErrInvalid, []string{"is the data file itself"}},
		{"no snapshot", func(*testing.T, *Store) {}, func(snap string, _ *Store) string { return snap + ".missing" }, state.ErrNotFound, []string{"snapshot", "does not exist", "frameindex backup"}},
		{"not a data file", func(*testing.T, *Store) {}, func(snap string, _ *Store) string {
			os.WriteFile(snap+".txt", []byte("hello"), 0o600)
			return snap + ".txt"
		}, ErrForeign, []string{"snapshot"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			other := MustOpenStore(t)
			mustAddOrg(t, other, "acme", "pro", 0)
			tc.build(t, other)
			snap := snapshotOf(t, other)
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "pro", 0)
			importAt(t, s, state.Dataset{ID: "mine", Owner: "acme"}, testNow, FrameRecord{Frame: 20, Features: [][]byte{feature("m")}})
			before := datasetsOf(t, s)
			path := snap
			if tc.path != nil {
				path = tc.path(snap, s)
			}
			_, err := s.SyncDatasets(context.Background(), path, SyncOptions{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			assertErrText(t, err, tc.text...)
			if after := datasetsOf(t, s); !reflect.DeepEqual(after, before) {
				t.Errorf("a refused sync changed the datasets")
			}
			mustBeSound(t, s)
		})
	}
}

func TestStore_SyncDatasetsInterrupted(t *testing.T) {
	other := MustOpenStore(t)
	mustAddOrg(t, other, "acme", "pro", 0)
	importAt(t, other, popDataset(), testNow, FrameRecord{Frame: 10, Attrs: []byte(`{"population_2020":7}`), Features: [][]byte{feature("a")}})
	importAt(t, other, state.Dataset{ID: "roads", Owner: "acme"}, testNow, FrameRecord{Frame: 20, Features: [][]byte{feature("r")}})
	snap := snapshotOf(t, other)

	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	importAt(t, s, popDataset(), testNow.Add(-time.Hour), FrameRecord{Frame: 30, Attrs: []byte(`{"population_2020":1}`)})
	before := datasetsOf(t, s)

	// Cancel after the first staging transaction, as SIGTERM would.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	afterSyncBatch = func(string) { cancel() }
	defer func() { afterSyncBatch = nil }()
	if _, err := s.SyncDatasets(ctx, snap, SyncOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if after := datasetsOf(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("an interrupted sync changed the datasets:\n%+v\nwas\n%+v", after, before)
	}
	if got := versionBuckets(t, s); !slices.Equal(got, []string{"population@1"}) {
		t.Errorf("version buckets %q, want only the live one", got)
	}
	mustBeSound(t, s)

	// A later sync completes.
	afterSyncBatch = nil
	if _, err := s.SyncDatasets(context.Background(), snap, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := datasetsOf(t, s), datasetsOf(t, other); !reflect.DeepEqual(got, want) {
		t.Errorf("after sync:\n%+v\nwant\n%+v", got, want)
	}
}

// BenchmarkStore_SyncDatasets copies a dataset of 20,000 frames with a
// feature each into a file that lacks it.
func BenchmarkStore_SyncDatasets(b *testing.B) {
	other := MustOpenStore(b)
	mustAddOrg(b, other, "acme", "pro", 0)
	recs := make([]FrameRecord, 20_000)
	for i := range recs {
		recs[i] = FrameRecord{Frame: uint64(i + 1), Attrs: []byte(`{"population_2020":12.5}`), Features: [][]byte{feature("x")}}
	}
	importAt(b, other, popDataset(), testNow, recs...)
	snap := snapshotOf(b, other)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		s := MustOpenStore(b)
		mustAddOrg(b, s, "acme", "pro", 0)
		b.StartTimer()
		if _, err := s.SyncDatasets(context.Background(), snap, SyncOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzSyncDatasets syncs from a snapshot whose dataset description and
// records are arbitrary bytes (a damaged or forged file): the sync either
// refuses, leaving the target as it was, or leaves a target that passes
// Check and reads.
func FuzzSyncDatasets(f *testing.F) {
	desc := func(frames, features int) []byte {
		return []byte(fmt.Sprintf(`{"id":"population","name":"Population","owner":"acme","attributes":[{"name":"population_2020","label":"Population","type":"number","aggregation":"sum"}],"price":0,"version":1,"frames":%d,"features":%d,"importedAt":"2026-01-01T00:00:00Z"}`, frames, features))
	}
	key10 := binary.BigEndian.AppendUint64(nil, 10)
	f.Add(desc(1, 1), key10, append([]byte{1}, `{"population_2020":7}`...), feature("a"))
	f.Add(desc(1, 0), key10, append([]byte{0}, `{"population_2020":7}`...), []byte(nil))
	f.Add(desc(1, 1), key10, []byte{1}, []byte(`{"type":"Feature"}`))
	f.Add(desc(1, 1), key10, append([]byte{1}, `{"population_2020":"x"}`...), feature("a")) // wrong type
	f.Add(desc(1, 2), key10, []byte{2}, feature("a"))                                       // a feature missing
	f.Add(desc(2, 1), []byte{1, 2, 3}, []byte{1}, feature("a"))                             // short key
	f.Add([]byte(`{"id":"population"}`), key10, []byte{0}, []byte(nil))                     // no owner, no version
	f.Add(desc(1, 1), key10, []byte{0x80}, []byte("not json"))                              // unterminated count
	f.Fuzz(func(t *testing.T, description, frameKey, frameValue, featValue []byte) {
		if len(frameKey) == 0 {
			return // bbolt refuses an empty key
		}
		dir := fuzzDir(t)
		snap := filepath.Join(dir, "snapshot.db")
		src, err := Open(snap, Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		err = src.update(func(tx *bbolt.Tx) error {
			if err := putJSON(mustBucket(tx, bucketOrgs), []byte("acme"), state.Org{ID: "acme", Name: "acme", Plan: "pro", Created: testNow}); err != nil {
				return err
			}
			if err := mustBucket(tx, bucketDatasets).Put([]byte("population"), description); err != nil {
				return err
			}
			vs, err := mustBucket(tx, bucketVersions).CreateBucket([]byte("population@1"))
			if err != nil {
				return err
			}
			frames, _ := vs.CreateBucket(bucketVFrames)
			feats, _ := vs.CreateBucket(bucketVFeats)
			if err := frames.Put(frameKey, frameValue); err != nil {
				return err
			}
			if featValue != nil {
				return feats.Put(featKey(nil, 10, 0), featValue)
			}
			return nil
		})
		src.Close()
		if err != nil {
			return
		}
		s := mustOpenStoreOpts(t, filepath.Join(dir, "frames.db"), Options{Create: true})
		mustAddOrg(t, s, "acme", "pro", 0)
		if _, err := s.SyncDatasets(context.Background(), snap, SyncOptions{}); err != nil {
			if ds, _ := s.Datasets(); len(ds) != 0 {
				t.Fatalf("a refused sync left datasets: %+v", ds)
			}
		}
		mustBeSound(t, s)
		if _, err := s.ReadFrames([]string{"population"}, []uint64{10}, true, 200); err != nil && !errors.Is(err, state.ErrNotFound) {
			t.Fatalf("ReadFrames after sync: %v", err)
		}
	})
}

// fuzzDir is a temporary directory in memory when the system has one
// (/dev/shm): every execution writes two data files, and fsync on a disk
// would slow fuzzing to a few executions a second.
func fuzzDir(t *testing.T) string {
	dir, err := os.MkdirTemp("/dev/shm", "frameindex-fuzz-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func mustBucket(tx *bbolt.Tx, name []byte) *bbolt.Bucket {
	b, err := tx.CreateBucketIfNotExists(name)
	if err != nil {
		panic(err)
	}
	return b
}

func TestStore_SyncDatasetsGrid(t *testing.T) {
	lattice := func(s *Store, col1 int32) {
		t.Helper()
		if _, err := s.PutLattice([]grid.Run{{Row: 9000, Col0: 22000, Col1: col1}}, "test"); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		theirs     int32 // last column of the snapshot's lattice; 0 for no grid
		mine       int32
		wantDiffer bool
	}{
		{"same lattice", 22010, 22010, false},
		{"no grid on either", 0, 0, false},
		{"another lattice", 22010, 22011, true},
		{"no grid here", 22010, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			other := MustOpenStore(t)
			mustAddOrg(t, other, "acme", "pro", 0)
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "pro", 0)
			if tc.theirs != 0 {
				lattice(other, tc.theirs)
			}
			if tc.mine != 0 {
				lattice(s, tc.mine)
			}
			rep, err := s.SyncDatasets(context.Background(), snapshotOf(t, other), SyncOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.GridDiffers != tc.wantDiffer {
				t.Errorf("GridDiffers = %v, want %v", rep.GridDiffers, tc.wantDiffer)
			}
		})
	}
}

// TestStore_SyncDatasetsKeepPrices: a node sharing its state keeps every
// price it has, whether the snapshot's dataset is the same version
// (nothing to update) or a newer one (copied, at this file's price); a
// dataset it lacks comes with the snapshot's price.
func TestStore_SyncDatasetsKeepPrices(t *testing.T) {
	pop, roads, lights := popDataset(), popDataset(), popDataset()
	roads.ID, lights.ID = "roads", "lights"
	r1 := FrameRecord{Frame: 10, Attrs: []byte(`{"population_2020":7}`)}
	r2 := FrameRecord{Frame: 20, Attrs: []byte(`{"class":"urban"}`)}
	price := func(s *Store, id string, p int64) {
		t.Helper()
		if _, err := s.SetPrice(id, p); err != nil {
			t.Fatal(err)
		}
	}
	other := MustOpenStore(t)
	mustAddOrg(t, other, "acme", "pro", 0)
	importAt(t, other, pop, testNow, r1)
	importAt(t, other, roads, testNow, r1)
	importAt(t, other, roads, testNow.Add(time.Hour), r2)
	importAt(t, other, lights, testNow, r2)
	price(other, "population", 9)
	price(other, "roads", 8)
	price(other, "lights", 7)
	snap := snapshotOf(t, other)

	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	importAt(t, s, pop, testNow, r1)
	importAt(t, s, roads, testNow, r1)
	price(s, "population", 2)
	price(s, "roads", 3)
	rep, err := s.SyncDatasets(context.Background(), snap, SyncOptions{KeepPrices: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.SharedTerms || !slices.Equal(rep.PricesKept, []string{"population", "roads"}) ||
		!slices.Equal(ids(rep.Copied), []string{"lights", "roads"}) || len(rep.Updated) != 0 || !slices.Equal(rep.Unchanged, []string{"population"}) {
		t.Fatalf("report %+v", rep)
	}
	for id, want := range map[string]int64{"population": 2, "roads": 3, "lights": 7} {
		d, err := s.Dataset(id)
		if err != nil || d.Price != want {
			t.Errorf("%s after the sync: price %d, %v; want %d", id, d.Price, err, want)
		}
	}
	if d, _ := s.Dataset("roads"); d.Version != 2 {
		t.Errorf("roads: version %d, want the snapshot's 2", d.Version)
	}
	mustBeSound(t, s)
	if again, err := s.SyncDatasets(context.Background(), snap, SyncOptions{KeepPrices: true}); err != nil || again.Changed() {
		t.Errorf("second sync: %+v, %v", again, err)
	}
}
