package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/access"
	"frameindex/admin"
	"frameindex/area"
	"frameindex/bolt"
	"frameindex/demo"
	"frameindex/index"
	"frameindex/state"
)

func TestQuantilesAndClasses(t *testing.T) {
	vals := []float64{5, 1, 4, 2, 3, 6, 6, 6, 6, 6, 6, 6}
	b := quantiles(vals, 6)
	for i := 1; i < len(b); i++ {
		if b[i] <= b[i-1] {
			t.Fatalf("breaks %v are not increasing", b)
		}
	}
	if b[len(b)-1] != 6 {
		t.Errorf("the last break %v is not the largest value", b)
	}
	for _, v := range vals {
		c := classOf(v, b)
		if v > b[c] || (c > 0 && v <= b[c-1]) {
			t.Errorf("%v in class %d of %v", v, c, b)
		}
	}
	if quantiles(nil, 6) != nil {
		t.Error("no values: breaks")
	}
}

func TestPercentAndRelative(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0%"}, {1, "100%"}, {0.4032, "40.3%"}, {0.05678, "5.68%"}, {0.000745, "0.0745%"}, {math.NaN(), "–"}} {
		if got := Percent(c.v); got != c.want {
			t.Errorf("Percent(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	people, density := Metrics[1], Metrics[3]
	if got := people.Relative(Value{50, true}, Value{200, true}); got != "25%" {
		t.Errorf("a share: %q", got)
	}
	if got := density.Relative(Value{300, true}, Value{200, true}); got != "index 150" {
		t.Errorf("an index: %q", got)
	}
	if got := density.Relative(Value{300, true}, Value{}); got != "" {
		t.Errorf("beside an unknown figure: %q", got)
	}
	if got := people.Text(Value{}); got != "–" {
		t.Errorf("an unknown figure shows %q", got)
	}
}

func TestLegendNumber(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 4954.35: "4,954", 12.6: "13", 0.1234: "0.12", 3.456: "3.5"} {
		if got := legendNumber(v); got != want {
			t.Errorf("legendNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

// figuresOf is an AreaFigures with people, people per facility and the
// share within 5 km.
func figuresOf(name string, people, perFacility, within5 float64) *AreaFigures {
	return &AreaFigures{Area: &area.Area{Name: name, Kind: "lga", Parent: "Kano", FrameCount: 10, Km2: 8.5},
		People: Value{people, true}, PerFacility: Value{perFacility, true},
		Coverage: []Coverage{{Km: 5, Share: Value{within5, true}}}}
}

func TestComparison_MarksAndCSV(t *testing.T) {
	c := &Comparison{Areas: []*AreaFigures{
		figuresOf("Dala", 100, 20000, 1), figuresOf("Fagge", 300, 9000, 0.5), figuresOf("Gwale", 200, 15000, 0.75)}}
	byKey := map[string]Metric{}
	for _, m := range Metrics {
		byKey[m.Key] = m
	}
	for key, want := range map[string][]string{
		"people":              {"low", "high", ""},   // neither better: highest and lowest
		"people_per_facility": {"worst", "best", ""}, // fewer is better
		"within_5km":          {"best", "worst", ""}, // more is better
		"buildings":           {"", "", ""},          // unknown everywhere
		"km2":                 {"", "", ""},          // all equal
	} {
		got := c.Marks(byKey[key])
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: marks %q, want %q", key, got, want)
		}
	}
	var buf bytes.Buffer
	if err := c.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 4 || len(rows[0]) != 4+len(Metrics) {
		t.Fatalf("CSV: %v %v", rows, err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if r := rows[2]; r[col["area"]] != "Fagge LGA" || r[col["people"]] != "300" || r[col["within_5km"]] != "0.5" || r[col["buildings"]] != "" {
		t.Errorf("Fagge's row: %q", r)
	}
	var page bytes.Buffer
	if err := c.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if h := page.String(); !strings.Contains(h, `class="n best">9,000<`) || !strings.Contains(h, `class="n worst">20,000<`) {
		t.Errorf("the comparison page does not mark the best and worst people per facility")
	}
}

// TestMake_Refuses: requests refused before anything is read.
func TestMake_Refuses(t *testing.T) {
	e := &Engine{}
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{}, "name an area"},
		{Request{Areas: []area.Spec{{Place: "Dala"}}, Format: "pdf"}, "not pdf"},
		{Request{Areas: []area.Spec{{Place: "Dala"}}, Format: "csv"}, "CSV is for a comparison"},
		{Request{Areas: []area.Spec{{Around: []float64{8.5, 12}, RadiusKm: 500}}}, "radiusKm"},
		{Request{Areas: []area.Spec{{Place: "Dala"}, {BBox: []float64{9, 12, 8, 11}}}}, "area 2: area.bbox"},
	} {
		err := e.Make(context.Background(), state.Key{}, c.req, &bytes.Buffer{})
		var ae *area.Error
		if !errors.As(err, &ae) || ae.Code != area.CodeInvalid || !strings.Contains(ae.Message, c.want) {
			t.Errorf("%+v: %v, want invalid with %q", c.req, err, c.want)
		}
	}
	if _, err := mapMeasure("rainfall"); err == nil {
		t.Error("an unknown map measure was accepted")
	}
}

// The national demo for the tests and benchmarks that read it: the file
// FRAMEINDEX_DEMO names, or one built once in a temporary folder.
var nationalOnce struct {
	sync.Once
	dir   string // the temporary folder of a demo built here
	store *bolt.Store
	ix    *index.Index
	err   error
}

// TestMain removes a demo built for the tests (about 250 MB).
func TestMain(m *testing.M) {
	code := m.Run()
	if n := &nationalOnce; n.store != nil {
		n.store.Close()
	}
	if nationalOnce.dir != "" {
		os.RemoveAll(nationalOnce.dir)
	}
	os.Exit(code)
}

func nationalEngine(tb testing.TB) *Engine {
	tb.Helper()
	if testing.Short() {
		tb.Skip("short: the national demo is large")
	}
	n := &nationalOnce
	n.Do(func() {
		path := os.Getenv("FRAMEINDEX_DEMO")
		if path == "" {
			dir, err := os.MkdirTemp("", "frameindex-report")
			if err != nil {
				n.err = err
				return
			}
			n.dir, path = dir, filepath.Join(dir, "demo.db")
			if n.store, n.err = bolt.Open(path, bolt.Options{Create: true}); n.err != nil {
				return
			}
			outline, err := os.Open(filepath.Join("..", "testdata", "nigeria-outline.geojson"))
			if err != nil {
				n.err = err
				return
			}
			defer outline.Close()
			if _, n.err = (&admin.Ops{Store: n.store}).BuildGridFrom(context.Background(), outline, "Nigeria's outline"); n.err != nil {
				return
			}
			if _, n.err = demo.Build(context.Background(), n.store, time.Now(), nil); n.err != nil {
				return
			}
		} else if n.store, n.err = bolt.Open(path, bolt.Options{ReadOnly: true}); n.err != nil {
			return
		}
		_, runs, _, err := n.store.Grid()
		n.ix, n.err = index.NewLattice(runs), err
	})
	if n.err != nil {
		tb.Fatal(n.err)
	}
	return &Engine{Store: n.store, Scanner: n.store, Columns: access.NewColumns(access.DefaultColumnBytes),
		Reach: access.NewReach(access.DefaultReachBytes), Places: area.NewPlaces(n.store, 0), Grid: func() *index.Index { return n.ix }}
}

// TestBuild_Demo: the report of a demo LGA as the demo organisation reads
// it: its people are the sum of the data call's values over its frames,
// it lies in its state, the per-query night lights are left off.
func TestBuild_Demo(t *testing.T) {
	e := nationalEngine(t)
	r, err := e.Reader(state.Key{ID: "k", OrgID: "demo"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(context.Background(), r, area.Spec{Place: "Kano", Kind: "lga"}, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Area.Area
	ids := r.cat.Frames(a).IDs
	want := dataCallPeople(t, r, ids)
	if !rep.Area.People.OK || math.Abs(rep.Area.People.V-want) > 1e-6*want {
		t.Errorf("people %+v, want %v (the data call's sum over %d frames)", rep.Area.People, want, len(ids))
	}
	if rep.Parent == nil || rep.Parent.Area.Name != "Kano" || rep.Parent.Area.Kind != "state" || rep.Country == nil {
		t.Fatalf("parent %+v, country %v", rep.Parent, rep.Country != nil)
	}
	if rep.Parent.People.V <= rep.Area.People.V || rep.Country.People.V <= rep.Parent.People.V {
		t.Errorf("people: LGA %v, state %v, country %v", rep.Area.People.V, rep.Parent.People.V, rep.Country.People.V)
	}
	if len(rep.LeftOff) != 1 || rep.LeftOff[0].ID != "nightlights" {
		t.Errorf("left off %v, want the per-query nightlights", rep.LeftOff)
	}
	if rep.Breakdown == nil || rep.Breakdown.Level != "ward" || len(rep.Breakdown.Rows) == 0 {
		t.Fatalf("breakdown %+v", rep.Breakdown)
	}
	sum := 0.0
	for _, row := range rep.Breakdown.Rows {
		sum += row.People.V
	}
	if math.Abs(sum-want) > 1e-6*want {
		t.Errorf("the wards' people add up to %v, the LGA's %v", sum, want)
	}
	var page bytes.Buffer
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if rep.Map == nil || rep.Map.Cells == 0 || rep.Map.Colours < 2 || !strings.Contains(page.String(), "Place report: Kano LGA") {
		t.Errorf("map %+v", rep.Map)
	}
	for _, s := range rep.Sources {
		if s.ID == "nightlights" {
			t.Error("the per-query nightlights is among the sources")
		}
	}
}

// dataCallPeople sums the population the data call reads on ids.
func dataCallPeople(t *testing.T, r *Reader, ids []uint64) float64 {
	t.Helper()
	fd, err := nationalOnce.store.ReadFrames([]string{r.M.Population.Dataset}, ids, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, f := range fd {
		for _, d := range f.Datasets {
			vals, err := access.Values(d.Attrs)
			if err != nil {
				t.Fatal(err)
			}
			want += vals[r.M.Population.Attribute].Num
		}
	}
	return want
}

// TestBuild_Selection: a report of selected frames (the question call's
// frameIds) is of those frames whole, beside the state holding them.
func TestBuild_Selection(t *testing.T) {
	e := nationalEngine(t)
	r, err := e.Reader(state.Key{ID: "k", OrgID: "demo"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lga, err := r.Resolve(area.Spec{Place: "Kano", Kind: "lga"})
	if err != nil {
		t.Fatal(err)
	}
	ids := slices.Clone(r.cat.Frames(lga).IDs[:12])
	rep, err := Build(context.Background(), r, area.Spec{Frames: append(ids, ids[0])}, BuildOptions{}) // a repeated id counts once
	if err != nil {
		t.Fatal(err)
	}
	want := dataCallPeople(t, r, ids)
	a := rep.Area.Area
	if a.Kind != "frames" || a.FrameCount != len(ids) || a.Weights != nil || a.Name != "12 selected frames" {
		t.Errorf("area %+v", a)
	}
	if !rep.Area.People.OK || math.Abs(rep.Area.People.V-want) > 1e-6*want {
		t.Errorf("people %+v, want %v (the data call's sum)", rep.Area.People, want)
	}
	if rep.Parent == nil || rep.Parent.Area.Name != "Kano" || rep.Parent.Area.Kind != "state" {
		t.Errorf("parent %+v", rep.Parent)
	}
	// As the console asks for it.
	var page bytes.Buffer
	if err := e.Make(context.Background(), state.Key{ID: "k", OrgID: "demo"}, Request{Areas: []area.Spec{{Frames: ids}}}, &page); err != nil || !strings.Contains(page.String(), "Place report: the 12 selected frames") {
		t.Errorf("Make: %v %.200s", err, page.String())
	}
	if _, err := r.Resolve(area.Spec{Frames: []uint64{1}}); err == nil {
		t.Error("a frame id not in the grid was resolved")
	}
	if _, err := r.Resolve(area.Spec{Frames: make([]uint64, 51)}); err == nil {
		t.Error("51 frames were resolved")
	}
}

// BenchmarkReport_LGA: an LGA's report, figures to HTML, with the
// engine's caches warm (as on a running server).
func BenchmarkReport_LGA(b *testing.B) {
	e := nationalEngine(b)
	key := state.Key{ID: "k", OrgID: "demo"}
	mk := func() {
		var buf bytes.Buffer
		if err := e.Make(context.Background(), key, Request{Areas: []area.Spec{{Place: "Kano", Kind: "lga"}}}, &buf); err != nil {
			b.Fatal(err)
		}
	}
	mk()
	b.ResetTimer()
	for b.Loop() {
		mk()
	}
}

// TestPrintPDF_NoChromium: without a Chromium the PDF is refused with a
// message saying what to install, and nothing is written.
func TestPrintPDF_NoChromium(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("FRAMEINDEX_CHROMIUM", "")
	out := filepath.Join(t.TempDir(), "r.pdf")
	err := PrintPDF(context.Background(), []byte("<!DOCTYPE html><p>x"), out)
	if !errors.Is(err, ErrNoChromium) || !strings.Contains(err.Error(), "apt-get install chromium") || !strings.Contains(err.Error(), ".html") {
		t.Fatalf("%v, want ErrNoChromium saying to install it or write .html", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a file was written: %v", err)
	}
}
