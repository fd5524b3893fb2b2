package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/state"
)

// testNow is the fixed clock of the tests.
var testNow = time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)

// mustOpenStore opens a new store on a temporary file, closed at cleanup.
func mustOpenStore(tb testing.TB) *bolt.Store {
	tb.Helper()
	s, err := bolt.Open(filepath.Join(tb.TempDir(), "frames.db"), bolt.Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// boxRuns returns the runs of a rows x cols block of cells centred on a point.
func boxRuns(lat, lon float64, rows, cols int) []grid.Run {
	r0, c0 := grid.CellAt(lat, lon)
	r0, c0 = r0-rows/2, c0-cols/2
	runs := make([]grid.Run, rows)
	for k := range runs {
		runs[k] = grid.Run{Row: int32(r0 + k), Col0: int32(c0), Col1: int32(c0 + cols - 1)}
	}
	return runs
}

// Places the small test lattice holds and the tests look at.
var (
	lagosMushin = [2]float64{6.5300, 3.3500}
	kanoCentre  = [2]float64{12.0001, 8.5167}
	ruralNiger  = [2]float64{11.0, 6.0} // farmland between Kontagora and Kaduna
)

// smallRuns is a lattice of about 4,700 frames: blocks around Lagos, Kano,
// the Abuja footprint sample and a rural area.
func smallRuns() []grid.Run {
	var runs []grid.Run
	runs = append(runs, boxRuns(kanoCentre[0], kanoCentre[1], 40, 40)...)
	runs = append(runs, boxRuns(ruralNiger[0], ruralNiger[1], 20, 20)...)
	runs = append(runs, boxRuns(sampleLat, sampleLon, 14, 14)...)
	runs = append(runs, boxRuns(lagosMushin[0], lagosMushin[1], 50, 50)...)
	return grid.MergeRuns(runs)
}

// mustSmallStore returns a store holding the small lattice.
func mustSmallStore(tb testing.TB) *bolt.Store {
	tb.Helper()
	s := mustOpenStore(tb)
	if _, err := s.PutLattice(smallRuns(), "test lattice"); err != nil {
		tb.Fatal(err)
	}
	return s
}

func mustBuild(tb testing.TB, s *bolt.Store) Summary {
	tb.Helper()
	sum, err := Build(context.Background(), s, testNow, nil)
	if err != nil {
		tb.Fatalf("Build: %v", err)
	}
	return sum
}

// allFrames lists the ids of every frame of the stored grid.
func allFrames(tb testing.TB, s *bolt.Store) []uint64 {
	tb.Helper()
	_, runs, _, err := s.Grid()
	if err != nil {
		tb.Fatal(err)
	}
	var ids []uint64
	for _, r := range runs {
		for c := r.Col0; c <= r.Col1; c++ {
			ids = append(ids, grid.CellID(int(r.Row), int(c)))
		}
	}
	return ids
}

var allIDs = []string{DatasetAdmin, DatasetBuildings, DatasetHealth, DatasetNightlights, DatasetPopulation, DatasetSettlement}

// readAll reads what every demo dataset records on every frame, features
// included.
func readAll(tb testing.TB, s *bolt.Store) []bolt.FrameData {
	tb.Helper()
	fd, err := s.ReadFrames(allIDs, allFrames(tb, s), true, 1<<30)
	if err != nil {
		tb.Fatal(err)
	}
	return fd
}

// number returns attribute name of a frame's record in dataset, and whether
// there is one.
func attr(tb testing.TB, f bolt.FrameData, dataset, name string) (any, bool) {
	tb.Helper()
	for _, d := range f.Datasets {
		if d.Dataset != dataset || d.Attrs == nil {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(d.Attrs, &m); err != nil {
			tb.Fatalf("frame %d dataset %s: attributes %s: %v", f.Frame, dataset, d.Attrs, err)
		}
		v, ok := m[name]
		return v, ok
	}
	return nil, false
}

func TestBuild_Datasets(t *testing.T) {
	s := mustSmallStore(t)
	sum := mustBuild(t, s)
	if want := []string{OrgDemo, OrgMarket}; !slices.Equal(sum.Orgs, want) {
		t.Errorf("Orgs = %v, want %v", sum.Orgs, want)
	}
	tests := []struct {
		id, owner string
		attrs     []string
		features  bool
	}{
		{DatasetAdmin, OrgDemo, []string{"state", "lga", "ward"}, false},
		{DatasetPopulation, OrgDemo, []string{"population_2020"}, false},
		{DatasetBuildings, OrgDemo, []string{"building_count"}, true},
		{DatasetSettlement, OrgDemo, []string{"settlement_class"}, false},
		{DatasetHealth, OrgDemo, []string{"facility_count"}, true},
		{DatasetNightlights, OrgMarket, []string{"radiance"}, false},
	}
	if len(sum.Datasets) != len(tests) {
		t.Fatalf("Summary has %d datasets, want %d", len(sum.Datasets), len(tests))
	}
	for k, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			d, err := s.Dataset(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Datasets[k].ID != tt.id || sum.Datasets[k].Version != d.Version {
				t.Errorf("Summary dataset %d = %s v%d, want %s v%d", k, sum.Datasets[k].ID, sum.Datasets[k].Version, tt.id, d.Version)
			}
			if d.Owner != tt.owner || d.Price != 1 || d.Name == "" || d.Source == "" {
				t.Errorf("owner %q price %d name %q source %q", d.Owner, d.Price, d.Name, d.Source)
			}
			if !strings.Contains(d.Description, "SYNTHETIC") {
				t.Errorf("description does not say SYNTHETIC: %s", d.Description)
			}
			var names []string
			for _, a := range d.Attributes {
				names = append(names, a.Name)
				if a.Label == "" || a.Type == "" || a.Aggregation == "" || len(a.Aliases) == 0 || a.Year == 0 && tt.id != DatasetAdmin {
					t.Errorf("attribute %s not fully declared: %+v", a.Name, a)
				}
			}
			if !slices.Equal(names, tt.attrs) {
				t.Errorf("attributes %v, want %v", names, tt.attrs)
			}
			if d.Frames == 0 {
				t.Error("no frames recorded")
			}
			if (d.Features > 0) != tt.features {
				t.Errorf("features = %d, want some: %v", d.Features, tt.features)
			}
		})
	}
	if !strings.Contains(sum.Datasets[0].Description, "frameindex import") {
		t.Error("admin description does not point to frameindex import of real boundaries")
	}

	demo, err := s.Org(OrgDemo)
	if err != nil || demo.Plan != state.PlanPro || demo.Name != "Demo agency" || demo.Credits != demoCredits {
		t.Errorf("org demo = %+v, %v", demo, err)
	}
	market, err := s.Org(OrgMarket)
	if err != nil || market.Plan != state.PlanScale || market.Name != "GeoData Marketplace Ltd" {
		t.Errorf("org geodata = %+v, %v", market, err)
	}
	lic, err := s.Licences(OrgDemo)
	if err != nil || len(lic) != 1 || lic[0].Dataset != DatasetNightlights || lic[0].Mode != state.LicencePerQuery {
		t.Errorf("demo licences = %+v, %v", lic, err)
	}
}

func TestBuild_Figures(t *testing.T) {
	s := mustSmallStore(t)
	mustBuild(t, s)
	fd := readAll(t, s)
	byFrame := map[uint64]bolt.FrameData{}
	var pop, buildings, facilities, healthFeatures, lit float64
	for _, f := range fd {
		byFrame[f.Frame] = f
		if v, ok := attr(t, f, DatasetPopulation, "population_2020"); ok {
			pop += v.(float64)
		} else {
			t.Fatalf("frame %d has no population record", f.Frame)
		}
		if v, ok := attr(t, f, DatasetBuildings, "building_count"); ok {
			buildings += v.(float64)
		}
		if v, ok := attr(t, f, DatasetHealth, "facility_count"); ok {
			facilities += v.(float64)
		}
		if _, ok := attr(t, f, DatasetNightlights, "radiance"); ok {
			lit++
		}
		if _, ok := attr(t, f, DatasetSettlement, "settlement_class"); !ok {
			t.Fatalf("frame %d has no settlement class", f.Frame)
		}
		for _, d := range f.Datasets {
			if d.Dataset == DatasetHealth {
				healthFeatures += float64(len(d.Features))
			}
		}
	}
	if pop <= 0 || buildings <= 0 || facilities <= 0 || lit <= 0 {
		t.Fatalf("totals: population %.0f, buildings %.0f, facilities %.0f, lit frames %.0f", pop, buildings, facilities, lit)
	}
	if r := pop / buildings; r < 5 || r > 6 {
		t.Errorf("people per building = %.2f, want about %.1f", r, peoplePerBuilding)
	}
	if healthFeatures != facilities {
		t.Errorf("%.0f health features, facility_count sums to %.0f", healthFeatures, facilities)
	}
	if r := pop / facilities; r < 20000 || r > 30000 {
		t.Errorf("people per facility = %.0f, want about %d", r, peoplePerFacility)
	}

	at := func(p [2]float64) bolt.FrameData {
		row, col := grid.CellAt(p[0], p[1])
		f, ok := byFrame[grid.CellID(row, col)]
		if !ok {
			t.Fatalf("no frame at %v", p)
		}
		return f
	}
	lagos, rural := at(lagosMushin), at(ruralNiger)
	lagosPop, _ := attr(t, lagos, DatasetPopulation, "population_2020")
	ruralPop, _ := attr(t, rural, DatasetPopulation, "population_2020")
	if lagosPop.(float64) < 15000 || ruralPop.(float64) > 1000 || lagosPop.(float64) < 30*ruralPop.(float64) {
		t.Errorf("population: Mushin frame %v, rural frame %v; want a dense city and a sparse countryside", lagosPop, ruralPop)
	}
	tests := []struct {
		name     string
		p        [2]float64
		state    string
		class    string
		lit      bool
		lgaStart string
	}{
		{"Mushin", lagosMushin, "Lagos", "urban", true, "Mushin"},
		{"Kano", kanoCentre, "Kano", "urban", true, "Kano"},
		{"rural Niger", ruralNiger, "Niger", "rural", false, ""},
	}
	for _, tt := range tests {
		f := at(tt.p)
		if v, _ := attr(t, f, DatasetAdmin, "state"); v != tt.state {
			t.Errorf("%s: state %v, want %s", tt.name, v, tt.state)
		}
		if v, _ := attr(t, f, DatasetSettlement, "settlement_class"); v != tt.class {
			t.Errorf("%s: settlement class %v, want %s", tt.name, v, tt.class)
		}
		lga, _ := attr(t, f, DatasetAdmin, "lga")
		ward, _ := attr(t, f, DatasetAdmin, "ward")
		if !strings.HasPrefix(lga.(string), tt.lgaStart) || !strings.HasPrefix(ward.(string), lga.(string)+" Ward ") {
			t.Errorf("%s: lga %v ward %v", tt.name, lga, ward)
		}
		if _, ok := attr(t, f, DatasetNightlights, "radiance"); ok != tt.lit {
			t.Errorf("%s: lit %v, want %v", tt.name, ok, tt.lit)
		}
	}
}

// representative returns a feature's representative point: the point
// itself, or the centre of a polygon's box (the footprints are rectangles).
func representative(tb testing.TB, feature []byte) (lat, lon float64) {
	tb.Helper()
	var f struct {
		Type     string `json:"type"`
		Geometry struct {
			Type        string          `json:"type"`
			Coordinates json.RawMessage `json:"coordinates"`
		} `json:"geometry"`
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(feature, &f); err != nil || f.Type != "Feature" {
		tb.Fatalf("feature %s: %v", feature, err)
	}
	switch f.Geometry.Type {
	case "Point":
		var p [2]float64
		if err := json.Unmarshal(f.Geometry.Coordinates, &p); err != nil {
			tb.Fatal(err)
		}
		return p[1], p[0]
	case "Polygon":
		raw, _ := json.Marshal(map[string]any{"type": "Polygon", "coordinates": f.Geometry.Coordinates})
		m, err := grid.ParseGeometry(raw)
		if err != nil {
			tb.Fatal(err)
		}
		if err := m.Validate(); err != nil {
			tb.Fatalf("footprint %s: %v", feature, err)
		}
		b := m.Bounds()
		return (b.MinLat + b.MaxLat) / 2, (b.MinLon + b.MaxLon) / 2
	}
	tb.Fatalf("unexpected geometry %s", f.Geometry.Type)
	return 0, 0
}

func TestBuild_FeaturesInTheirFrames(t *testing.T) {
	s := mustSmallStore(t)
	mustBuild(t, s)
	counts := map[string]int{}
	types := map[string]int{}
	for _, f := range readAll(t, s) {
		for _, d := range f.Datasets {
			if len(d.Features) != d.FeatureCount || d.FeaturesTruncated {
				t.Fatalf("frame %d %s: %d of %d features", f.Frame, d.Dataset, len(d.Features), d.FeatureCount)
			}
			for _, feat := range d.Features {
				counts[d.Dataset]++
				lat, lon := representative(t, feat)
				row, col := grid.CellAt(lat, lon)
				if id := grid.CellID(row, col); id != f.Frame {
					t.Fatalf("%s feature %s is in frame %d, stored on %d", d.Dataset, feat, id, f.Frame)
				}
				if d.Dataset == DatasetHealth {
					var v struct {
						Properties struct{ Name, Type string } `json:"properties"`
					}
					json.Unmarshal(feat, &v)
					types[v.Properties.Type]++
					if v.Properties.Name == "" {
						t.Errorf("facility without a name: %s", feat)
					}
				}
			}
		}
	}
	if n := counts[DatasetBuildings]; n < 1000 || n > sampleRows*sampleCols*footprintsPerFrame {
		t.Errorf("%d footprints, want a few thousand", n)
	}
	for typ := range types {
		if !slices.Contains(facilityTypes[:], typ) {
			t.Errorf("facility type %q", typ)
		}
	}
	if types["primary health centre"] == 0 || types["clinic"] == 0 || types["general hospital"] == 0 {
		t.Errorf("facility types %v", types)
	}
}

// TestBuild_Deterministic builds twice on two files and compares every
// byte read back; a third build on the first file replaces its datasets.
func TestBuild_Deterministic(t *testing.T) {
	a, b := mustSmallStore(t), mustSmallStore(t)
	mustBuild(t, a)
	mustBuild(t, b)
	fa, fb := readAll(t, a), readAll(t, b)
	same := func(x, y []bolt.FrameData) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Frame != y[i].Frame || len(x[i].Datasets) != len(y[i].Datasets) {
				return false
			}
			for j, d := range x[i].Datasets {
				e := y[i].Datasets[j]
				if d.Dataset != e.Dataset || !bytes.Equal(d.Attrs, e.Attrs) || d.FeatureCount != e.FeatureCount ||
					!slices.EqualFunc(d.Features, e.Features, bytes.Equal) {
					return false
				}
			}
		}
		return true
	}
	if !same(fa, fb) {
		t.Fatal("two builds on the same grid differ")
	}

	sum := mustBuild(t, a)
	for _, d := range sum.Datasets {
		if d.Version != 2 {
			t.Errorf("rebuilt %s is version %d, want 2", d.ID, d.Version)
		}
	}
	if !same(fa, readAll(t, a)) {
		t.Error("a rebuild changed the data")
	}
	if o, _ := a.Org(OrgDemo); o.Credits != demoCredits {
		t.Errorf("after a rebuild demo has %d credits, want %d (granted once)", o.Credits, demoCredits)
	}
}

// TestBuild_ExistingOrg: the demo command may have made "demo" already.
func TestBuild_ExistingOrg(t *testing.T) {
	s := mustSmallStore(t)
	if _, err := s.AddOrg(state.Org{ID: OrgDemo, Name: "Demo agency", Plan: state.PlanPro}); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, s)
	if o, _ := s.Org(OrgDemo); o.Credits != demoCredits {
		t.Errorf("demo has %d credits, want %d", o.Credits, demoCredits)
	}
}

func TestBuild_Errors(t *testing.T) {
	t.Run("no grid", func(t *testing.T) {
		_, err := Build(context.Background(), mustOpenStore(t), testNow, nil)
		if !errors.Is(err, bolt.ErrNoGrid) {
			t.Errorf("err = %v, want ErrNoGrid", err)
		}
	})
	t.Run("polygon grid", func(t *testing.T) {
		s := mustOpenStore(t)
		sq := grid.MultiPolygon{{{{7, 9}, {7.1, 9}, {7.1, 9.1}, {7, 9.1}, {7, 9}}}}
		if _, err := s.PutPolygons([]grid.Frame{{ID: 1, Geom: sq}}, "test"); err != nil {
			t.Fatal(err)
		}
		_, err := Build(context.Background(), s, testNow, nil)
		if err == nil || !strings.Contains(err.Error(), "lattice") {
			t.Errorf("err = %v, want one naming the lattice", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Build(ctx, mustSmallStore(t), testNow, nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestBuild_Progress(t *testing.T) {
	var steps []string
	_, err := Build(context.Background(), mustSmallStore(t), testNow, func(step string, done, total int64) {
		if total != 6 || done < 0 || done > total {
			t.Errorf("progress(%q, %d, %d)", step, done, total)
		}
		steps = append(steps, step)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{DatasetAdmin, DatasetPopulation, DatasetBuildings, DatasetSettlement, DatasetHealth, DatasetNightlights, "done"}
	if !slices.Equal(steps, want) {
		t.Errorf("steps %v, want %v", steps, want)
	}
}

// nationalRuns rasterises the embedded outline of Nigeria as `frameindex
// grid build` does.
func nationalRuns(tb testing.TB) []grid.Run {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "nigeria-outline.geojson"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var runs []grid.Run
	err = grid.ReadFeatures(f, func(i int, feat grid.InFeature) error {
		m, err := grid.ParseGeometry(feat.Geometry)
		if err != nil {
			return err
		}
		runs = grid.MergeRuns(append(runs, grid.Rasterize(m)...))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return runs
}

// TestBuild_National builds the demo over the national grid and checks
// the national population total.
func TestBuild_National(t *testing.T) {
	if testing.Short() {
		t.Skip("national build takes several seconds")
	}
	s := mustOpenStore(t)
	if _, err := s.PutLattice(nationalRuns(t), "Natural Earth outline"); err != nil {
		t.Fatal(err)
	}
	sum := mustBuild(t, s)
	ids := allFrames(t, s)
	total := 0.0
	for k := 0; k < len(ids); k += 100_000 {
		fd, err := s.ReadFrames([]string{DatasetPopulation}, ids[k:min(k+100_000, len(ids))], false, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fd {
			v, _ := attr(t, f, DatasetPopulation, "population_2020")
			total += v.(float64)
		}
	}
	if total < 0.95*206e6 || total > 1.05*206e6 {
		t.Errorf("national population %.1f million, want 206 million within 5%%", total/1e6)
	}
	for _, d := range sum.Datasets {
		if d.ID == DatasetBuildings && (d.Features < 1000 || d.Features > sampleRows*sampleCols*footprintsPerFrame) {
			t.Errorf("%d footprints, want a few thousand", d.Features)
		}
		if d.ID == DatasetHealth && (d.Features < 7000 || d.Features > 9500) {
			t.Errorf("%d health facilities, want about 8,200 (one per 25,000 people)", d.Features)
		}
	}
}
