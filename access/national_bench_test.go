package access_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"frameindex/access"
	"frameindex/bolt"
	"frameindex/demo"
	"frameindex/grid"
	"frameindex/insight"
	"frameindex/plan"
)

// The national demo for the benchmarks of area questions: the file named
// by FRAMEINDEX_DEMO, or one built once in a temporary folder (about 5 s
// and 250 MB), skipped in -short mode.
var national struct {
	once  sync.Once
	store *bolt.Store
	runs  []grid.Run
	err   error
}

func nationalDemo(b *testing.B) (*bolt.Store, []grid.Run) {
	b.Helper()
	if testing.Short() {
		b.Skip("short: the national demo is large")
	}
	national.once.Do(func() {
		path := os.Getenv("FRAMEINDEX_DEMO")
		if path == "" {
			dir, err := os.MkdirTemp("", "frameindex-bench")
			if err != nil {
				national.err = err
				return
			}
			path = filepath.Join(dir, "demo.db")
			s, err := bolt.Open(path, bolt.Options{Create: true})
			if err != nil {
				national.err = err
				return
			}
			if _, err := demo.Build(context.Background(), s, time.Now(), nil); err != nil {
				national.err = err
				return
			}
			national.store = s
		} else if national.store, national.err = bolt.Open(path, bolt.Options{ReadOnly: true}); national.err != nil {
			return
		}
		_, national.runs, _, national.err = national.store.Grid()
	})
	if national.err != nil {
		b.Fatal(national.err)
	}
	return national.store, national.runs
}

// frameSet is every lattice frame whose centre lies in box, ascending id.
func frameSet(runs []grid.Run, box grid.Box) insight.FrameSet {
	var fs insight.FrameSet
	for _, r := range runs {
		for col := r.Col0; col <= r.Col1; col++ {
			cb := grid.CellBox(int(r.Row), int(col))
			lon, lat := (cb.MinLon+cb.MaxLon)/2, (cb.MinLat+cb.MaxLat)/2
			if lon < box.MinLon || lon > box.MaxLon || lat < box.MinLat || lat > box.MaxLat {
				continue
			}
			fs.IDs = append(fs.IDs, grid.CellID(int(r.Row), int(col)))
			fs.Lon = append(fs.Lon, lon)
			fs.Lat = append(fs.Lat, lat)
			fs.AreaKm2 = append(fs.AreaKm2, access.BoxAreaKm2(cb))
		}
	}
	return fs
}

// benchPlan computes p over fs through the column cache, as an area
// question does: the input read from the warm cache, then Compute.
func benchPlan(b *testing.B, p *plan.Plan, fs insight.FrameSet) {
	s, _ := nationalDemo(b)
	key := bolt.Key{ID: "bench", OrgID: demo.OrgDemo}
	cols := access.NewColumns(access.DefaultColumnBytes)
	reach := access.NewReach(access.DefaultReachBytes)
	run := func() *insight.Answer {
		ans, err := access.Readable(s, key)
		if err != nil {
			b.Fatal(err)
		}
		near, err := ans.Near(p, reach, s)
		if err != nil {
			b.Fatal(err)
		}
		in, err := ans.FrameSetInput(p, access.Question{}, fs, cols, s, near)
		if err != nil {
			b.Fatal(err)
		}
		return insight.Compute(p, &in)
	}
	a := run() // builds the caches
	if a.Result.Value == nil && len(a.Result.Groups) == 0 {
		b.Fatalf("nothing computed: %s / %s", a.Headline, a.Detail)
	}
	b.Logf("%d frames: %s (cache %d MB)", fs.Len(), a.Headline[:min(len(a.Headline), 160)], cols.Bytes()>>20)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
}

var pop = plan.Measure{Dataset: demo.DatasetPopulation, Attribute: "population_2020", Match: "name"}

// kanoBox holds about 25,000 frames, a state's worth.
var kanoBox = grid.Box{MinLon: 7.9, MinLat: 11.2, MaxLon: 9.15, MaxLat: 12.6}

func BenchmarkArea25000Total(b *testing.B) {
	_, runs := nationalDemo(b)
	fs := frameSet(runs, kanoBox)
	benchPlan(b, &plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop}}, fs)
}

func BenchmarkCountryByLGA(b *testing.B) {
	_, runs := nationalDemo(b)
	fs := frameSet(runs, grid.Box{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90})
	benchPlan(b, &plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{pop},
		Group: &plan.Group{Measure: plan.Measure{Dataset: demo.DatasetAdmin, Attribute: "lga", Match: "name"}}}, fs)
}

func BenchmarkCountryCoverage5kmByLGA(b *testing.B) {
	_, runs := nationalDemo(b)
	fs := frameSet(runs, grid.Box{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90})
	benchPlan(b, &plan.Plan{Agg: plan.AggCoverage, Measures: []plan.Measure{pop},
		Distance: &plan.Distance{Feature: demo.DatasetHealth, Km: 5, Op: "beyond"},
		Group:    &plan.Group{Measure: plan.Measure{Dataset: demo.DatasetAdmin, Attribute: "lga", Match: "name"}}}, fs)
}
