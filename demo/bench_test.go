package demo

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"frameindex/bolt"
)

// BenchmarkBuild_National times Build over the national grid (about 1.08
// million frames, the grid itself built outside the timer) and reports the
// data file's size. Run with -benchtime=1x.
func BenchmarkBuild_National(b *testing.B) {
	runs := nationalRuns(b)
	b.ReportAllocs()
	var size int64
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "frames.db")
		s, err := bolt.Open(path, bolt.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.PutLattice(runs, "bench"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := Build(context.Background(), s, testNow, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		size = st.Size()
		b.StartTimer()
	}
	b.ReportMetric(float64(size)/(1<<20), "MiB")
}

// BenchmarkModel_National times the population and administrative model
// alone over the national grid.
func BenchmarkModel_National(b *testing.B) {
	l := newLattice(nationalRuns(b))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildModel(context.Background(), l); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuild_Small times Build over the small test lattice (about 4,700
// frames).
func BenchmarkBuild_Small(b *testing.B) {
	s := mustSmallStore(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(context.Background(), s, testNow, nil); err != nil {
			b.Fatal(err)
		}
	}
}
