package enrich_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/access"
	"frameindex/admin"
	"frameindex/area"
	"frameindex/bolt"
	"frameindex/demo"
	"frameindex/enrich"
	"frameindex/index"
	"frameindex/state"
)

// The national demo for the tests and benchmarks that need the whole
// grid: the file named by FRAMEINDEX_DEMO, or one built once in a
// temporary folder (about 5 s and 250 MB); skipped in -short mode.
var national struct {
	once  sync.Once
	store *bolt.Store
	ix    *index.Index
	dir   string
	err   error
}

func nationalDemo(tb testing.TB) (*bolt.Store, *index.Index) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("short: the national demo is large")
	}
	national.once.Do(func() { national.store, national.ix, national.err = openDemo() })
	if national.err != nil {
		tb.Fatal(national.err)
	}
	return national.store, national.ix
}

// openDemo opens FRAMEINDEX_DEMO read-only, or builds the demo into a
// temporary folder that TestMain removes.
func openDemo() (*bolt.Store, *index.Index, error) {
	var s *bolt.Store
	var err error
	if path := os.Getenv("FRAMEINDEX_DEMO"); path != "" {
		s, err = bolt.Open(path, bolt.Options{ReadOnly: true})
	} else if national.dir, err = os.MkdirTemp("", "frameindex-enrich"); err == nil {
		if s, err = bolt.Open(filepath.Join(national.dir, "demo.db"), bolt.Options{Create: true}); err == nil {
			err = buildDemo(s)
		}
	}
	if err != nil {
		return s, nil, err
	}
	_, runs, _, err := s.Grid()
	return s, index.NewLattice(runs), err
}

// buildDemo builds the national grid from the repository's outline of
// Nigeria, as `frameindex demo` does, and the demo's datasets on it.
func buildDemo(s *bolt.Store) error {
	outline, err := os.Open(filepath.Join("..", "testdata", "nigeria-outline.geojson"))
	if err != nil {
		return err
	}
	defer outline.Close()
	if _, err := (&admin.Ops{Store: s}).BuildGridFrom(context.Background(), outline, "enrich test"); err != nil {
		return err
	}
	_, err = demo.Build(context.Background(), s, time.Now(), nil)
	return err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if national.store != nil {
		national.store.Close()
	}
	if national.dir != "" {
		os.RemoveAll(national.dir)
	}
	os.Exit(code)
}

// nationalEngine is an engine over the demo as the operator reads it.
func nationalEngine(tb testing.TB, radii []float64) *enrich.Engine {
	store, ix := nationalDemo(tb)
	ds, err := store.Datasets()
	if err != nil {
		tb.Fatal(err)
	}
	var readable []state.Access
	for _, d := range ds {
		readable = append(readable, state.Access{Dataset: d})
	}
	e, err := enrich.New(enrich.Config{Index: ix, Places: area.NewPlaces(store, 0), Readable: readable,
		Columns: access.NewColumns(access.DefaultColumnBytes), Records: store,
		Reach: access.NewReach(access.DefaultReachBytes), Features: store, Radii: radii})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// sitesCSV is a reader of n sites spread over Nigeria's populated south
// and north (fixed seed), generated as they are read.
type sitesCSV struct {
	rng  *rand.Rand
	n, i int
	buf  bytes.Buffer
}

func newSites(n int) *sitesCSV {
	s := &sitesCSV{rng: rand.New(rand.NewPCG(25, 4)), n: n}
	s.buf.WriteString("name,lon,lat\n")
	return s
}

func (s *sitesCSV) Read(p []byte) (int, error) {
	for s.buf.Len() < len(p) && s.i < s.n {
		s.i++
		fmt.Fprintf(&s.buf, "site %d,%.5f,%.5f\n", s.i, 3.5+s.rng.Float64()*9.5, 5+s.rng.Float64()*7.5)
	}
	if s.buf.Len() == 0 {
		return 0, io.EOF
	}
	return s.buf.Read(p)
}

// BenchmarkEnrich enriches 2,000 sites with three rings (2, 5, 10 km),
// three measures and the distance to the nearest facility, on every core
// (GOMAXPROCS); sites/s is the figure of issue 25 on a quiet machine,
// cpu-µs/site the one that does not depend on the machine's other work.
func BenchmarkEnrich(b *testing.B) {
	e := nationalEngine(b, []float64{2, 5, 10})
	const n = 2000
	b.ReportAllocs()
	start, cpu0 := time.Now(), cpuTime()
	for b.Loop() {
		r, err := enrich.NewCSVReader(newSites(n), enrich.Options{})
		if err != nil {
			b.Fatal(err)
		}
		w, err := enrich.NewCSVWriter(io.Discard, enrich.Layout{Header: r.Header(), Figures: e.Columns()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := enrich.Run(context.Background(), r, e, w, 0, time.Hour, nil); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
	b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "sites/s")
	// The CPU a site takes, whatever else runs on the machine: on two
	// cores of its own the run does 2 s / cpu-µs/site sites a second.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(n*b.N), "cpu-µs/site")
}

// TestRun_MemoryFlat enriches 1,000 and then 100,000 generated sites and
// compares the largest live heap seen while each ran (sampled every 200
// ms, after a collection): streaming keeps it the same, whatever the
// number of sites. A 0.5 km ring keeps the run short; the memory per site in
// flight does not depend on the radius.
func TestRun_MemoryFlat(t *testing.T) {
	e := nationalEngine(t, []float64{0.5})
	peak := func(n int) (uint64, int) {
		r, err := enrich.NewCSVReader(newSites(n), enrich.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out countWriter
		w, err := enrich.NewCSVWriter(&out, enrich.Layout{Header: r.Header(), Figures: e.Columns()})
		if err != nil {
			t.Fatal(err)
		}
		var max uint64
		var ms runtime.MemStats
		sample := func(enrich.Progress) {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > max {
				max = ms.HeapAlloc
			}
		}
		st, err := enrich.Run(context.Background(), r, e, w, 2, 200*time.Millisecond, sample)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if st.Sites != n || out.lines != n+1 {
			t.Fatalf("%d sites written, %d lines, want %d", st.Sites, out.lines, n)
		}
		return max, st.Sites
	}
	small, _ := peak(1000)
	large, _ := peak(100_000)
	t.Logf("largest live heap: %d MB for 1,000 sites, %d MB for 100,000", small>>20, large>>20)
	if large > small+16<<20 {
		t.Errorf("the heap grew with the sites: %d MB for 1,000, %d MB for 100,000", small>>20, large>>20)
	}
}

// countWriter counts the lines written to it.
type countWriter struct{ lines int }

func (c *countWriter) Write(p []byte) (int, error) {
	c.lines += strings.Count(string(p), "\n")
	return len(p), nil
}
