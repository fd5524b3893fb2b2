package access

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/insight"
	"frameindex/state"
)

// ellipsoidAreaKm2 integrates the WGS84 area element M(φ)·N(φ)·cos φ over
// latitude (Simpson, 2,000 steps) for a band of dLon degrees: an oracle
// independent of the authalic latitude.
func ellipsoidAreaKm2(lat1, lat2, dLon float64) float64 {
	const a = 6378137.0
	e2 := wgs84F * (2 - wgs84F)
	p1, p2 := lat1*math.Pi/180, lat2*math.Pi/180
	n := 2000
	h := (p2 - p1) / float64(n)
	s := 0.0
	for i := 0; i <= n; i++ {
		p := p1 + float64(i)*h
		sp := math.Sin(p)
		w := 2.0
		switch {
		case i == 0 || i == n:
			w = 1
		case i%2 == 1:
			w = 4
		}
		m := a * (1 - e2) / math.Pow(1-e2*sp*sp, 1.5)
		nn := a / math.Sqrt(1-e2*sp*sp)
		s += w * m * nn * math.Cos(p)
	}
	return s * h / 3 * dLon * math.Pi / 180 / 1e6
}

func TestBoxAreaKm2(t *testing.T) {
	tests := []struct {
		name string
		box  grid.Box
	}{
		{"Abuja cell", grid.CellBox(grid.CellAt(9.054, 7.454))},
		{"Lagos cell", grid.CellBox(grid.CellAt(6.4541, 3.3947))},
		{"Sokoto cell", grid.CellBox(grid.CellAt(13.06, 5.24))},
		{"1 degree at the equator", grid.Box{MinLon: 0, MinLat: 0, MaxLon: 1, MaxLat: 1}},
		{"southern band", grid.Box{MinLon: 10, MinLat: -40, MaxLon: 12, MaxLat: -38}},
		{"near the pole", grid.Box{MinLon: 0, MinLat: 89, MaxLon: 1, MaxLat: 90}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BoxAreaKm2(tt.box)
			want := ellipsoidAreaKm2(tt.box.MinLat, tt.box.MaxLat, tt.box.MaxLon-tt.box.MinLon)
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("BoxAreaKm2 = %.12g km², integration gives %.12g", got, want)
			}
		})
	}
	// GDAL (SpatiaLite's geodesic ST_Area on WGS84) gave 844,425.874190688
	// m² for the Abuja cell from 7.45°E, 9.05°N to 7.4583°E, 9.0583°N.
	if got := BoxAreaKm2(grid.CellBox(grid.CellAt(9.054, 7.454))); math.Abs(got-0.844425874190688) > 1e-9 {
		t.Errorf("Abuja cell: %.12f km², GDAL says 0.844425874190688", got)
	}
	if BoxAreaKm2(grid.Box{MinLon: 1, MaxLon: 1, MinLat: 0, MaxLat: 1}) != 0 {
		t.Error("a degenerate box has an area")
	}
}

// TestBoxAreaKm2_GDAL checks cells against ogrinfo's geodesic area when
// GDAL is installed.
func TestBoxAreaKm2_GDAL(t *testing.T) {
	ogr, err := exec.LookPath("ogrinfo")
	if err != nil {
		t.Skip("gdal-bin not installed: ogrinfo absent")
	}
	dir := t.TempDir()
	var feats []string
	var boxes []grid.Box
	for _, p := range [][2]float64{{4.3, 3.1}, {9.05, 7.45}, {13.9, 13.6}, {6.45, 3.39}} {
		b := grid.CellBox(grid.CellAt(p[0], p[1]))
		boxes = append(boxes, b)
		feats = append(feats, fmt.Sprintf(`{"type":"Feature","properties":{"k":%d},"geometry":{"type":"Polygon","coordinates":[[[%.15g,%.15g],[%.15g,%.15g],[%.15g,%.15g],[%.15g,%.15g],[%.15g,%.15g]]]}}`,
			len(feats), b.MinLon, b.MinLat, b.MaxLon, b.MinLat, b.MaxLon, b.MaxLat, b.MinLon, b.MaxLat, b.MinLon, b.MinLat))
	}
	path := filepath.Join(dir, "cells.geojson")
	if err := os.WriteFile(path, []byte(`{"type":"FeatureCollection","features":[`+strings.Join(feats, ",")+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ogr, "-q", "-dialect", "SQLite", "-sql", "SELECT k, ST_Area(geometry, 1) AS a FROM cells ORDER BY k", path).CombinedOutput()
	if err != nil {
		t.Skipf("ogrinfo cannot compute geodesic areas here (SpatiaLite absent?): %v: %s", err, out)
	}
	var areas []float64
	for _, line := range strings.Split(string(out), "\n") {
		if _, v, ok := strings.Cut(line, "a (Real) = "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			areas = append(areas, f/1e6)
		}
	}
	if len(areas) != len(boxes) {
		t.Fatalf("ogrinfo gave %d areas: %s", len(areas), out)
	}
	for i, b := range boxes {
		if got := BoxAreaKm2(b); math.Abs(got-areas[i]) > 1e-8*areas[i] {
			t.Errorf("cell %d: %.12g km², GDAL %.12g", i, got, areas[i])
		}
	}
}

func TestPolygonAreaKm2(t *testing.T) {
	b := grid.CellBox(grid.CellAt(9.054, 7.454))
	ring := func(b grid.Box, ccw bool) grid.Ring {
		r := grid.Ring{{b.MinLon, b.MinLat}, {b.MaxLon, b.MinLat}, {b.MaxLon, b.MaxLat}, {b.MinLon, b.MaxLat}, {b.MinLon, b.MinLat}}
		if !ccw {
			slices.Reverse(r)
		}
		return r
	}
	cell := BoxAreaKm2(b)
	inner := grid.Box{MinLon: b.MinLon + (b.MaxLon-b.MinLon)/4, MaxLon: b.MaxLon - (b.MaxLon-b.MinLon)/4,
		MinLat: b.MinLat + (b.MaxLat-b.MinLat)/4, MaxLat: b.MaxLat - (b.MaxLat-b.MinLat)/4}
	tri := grid.Ring{{b.MinLon, b.MinLat}, {b.MaxLon, b.MinLat}, {b.MinLon, b.MaxLat}, {b.MinLon, b.MinLat}}
	tests := []struct {
		name string
		m    grid.MultiPolygon
		want float64
		tol  float64
	}{
		{"the cell as a polygon", grid.MultiPolygon{{ring(b, true)}}, cell, 1e-11},
		{"clockwise", grid.MultiPolygon{{ring(b, false)}}, cell, 1e-11},
		{"with a hole", grid.MultiPolygon{{ring(b, true), ring(inner, false)}}, cell - BoxAreaKm2(inner), 1e-11},
		{"two cells", grid.MultiPolygon{{ring(b, true)}, {ring(inner, true)}}, cell + BoxAreaKm2(inner), 1e-11},
		// a triangle over half the cell: straight edges in the equal-area
		// projection, within a part in a million of half the cell
		{"triangle", grid.MultiPolygon{{tri}}, cell / 2, 1e-6},
		{"empty", nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PolygonAreaKm2(tt.m)
			if math.Abs(got-tt.want) > tt.tol*math.Max(tt.want, 1e-300) {
				t.Errorf("PolygonAreaKm2 = %.15g, want %.15g", got, tt.want)
			}
		})
	}
	if got := ShapeAreaKm2(grid.Shape{Box: b, Geom: grid.MultiPolygon{{ring(b, true)}}}); math.Abs(got-cell) > 1e-11 {
		t.Errorf("ShapeAreaKm2 of a polygon frame %g, want %g", got, cell)
	}
}

// sampledDistance samples n points along each edge of b.
func sampledDistance(lon, lat float64, b grid.Box, n int) float64 {
	if b.Contains(lon, lat) {
		return 0
	}
	best := math.Inf(1)
	for i := 0; i <= n; i++ {
		f := float64(i) / float64(n)
		x := b.MinLon + f*(b.MaxLon-b.MinLon)
		y := b.MinLat + f*(b.MaxLat-b.MinLat)
		for _, p := range [][2]float64{{x, b.MinLat}, {x, b.MaxLat}, {b.MinLon, y}, {b.MaxLon, y}} {
			best = math.Min(best, HaversineKm(lon, lat, p[0], p[1]))
		}
	}
	return best
}

func TestHaversine(t *testing.T) {
	// Haversine against a known distance: one degree of latitude on the
	// mean sphere.
	if got := HaversineKm(7, 9, 7, 10); math.Abs(got-EarthRadiusKm*math.Pi/180) > 1e-9 {
		t.Errorf("one degree: %g km", got)
	}
}

// TestGrownBox: every point outside the grown box lies farther than r
// from the box, so a ring search may stop at r.
func TestGrownBox(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, sel := range []grid.Box{grid.CellBox(grid.CellAt(9.054, 7.454)), {MinLon: 3, MinLat: 6, MaxLon: 3.5, MaxLat: 6.4},
		{MinLon: 10, MinLat: 60, MaxLon: 10.1, MaxLat: 60.1}} {
		for _, km := range nearestRings {
			g := grownBox(sel, km)
			for i := 0; i < 60; i++ {
				lon := g.MinLon + (r.Float64()*1.4-0.2)*(g.MaxLon-g.MinLon)
				lat := g.MinLat + (r.Float64()*1.4-0.2)*(g.MaxLat-g.MinLat)
				if g.Contains(lon, lat) {
					continue
				}
				// 500 samples an edge: at most 60 m too far on these boxes
				if d := sampledDistance(lon, lat, sel, 500); d < km-0.06 {
					t.Errorf("box %+v, r %g: (%g, %g) outside the grown box is only %g km away", sel, km, lon, lat, d)
				}
			}
		}
	}
}

func TestFeaturePoint(t *testing.T) {
	tests := []struct {
		ft       string
		lon, lat float64
		ok       bool
	}{
		{`{"type":"Feature","geometry":{"type":"Point","coordinates":[7.5,9.1]}}`, 7.5, 9.1, true},
		{`{"type":"Feature","geometry":{"type":"Point","coordinates":[7.5,9.1,300]}}`, 7.5, 9.1, true},
		{`{"type":"Feature","geometry":{"type":"MultiPoint","coordinates":[[1,2],[3,4]]}}`, 1, 2, true},
		{`{"type":"Feature","geometry":{"type":"LineString","coordinates":[[1,2],[3,6]]}}`, 2, 4, true},
		{`{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,2],[0,2],[0,0]]]}}`, 2, 1, true},
		{`{"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,5]]]]}}`, 3, 3, true},
		{`{"type":"Feature","geometry":null}`, 0, 0, false},
		{`{"type":"Feature","geometry":{"type":"Point","coordinates":[200,9]}}`, 0, 0, false},
		{`{"type":"Feature","geometry":{"type":"Point","coordinates":["a","b"]}}`, 0, 0, false},
		{`{"type":"Feature","geometry":{"type":"Polygon","coordinates":[]}}`, 0, 0, false},
	}
	for _, tt := range tests {
		lon, lat, ok := featurePoint([]byte(tt.ft))
		if ok != tt.ok || lon != tt.lon || lat != tt.lat {
			t.Errorf("featurePoint(%s) = %g, %g, %v; want %g, %g, %v", tt.ft, lon, lat, ok, tt.lon, tt.lat, tt.ok)
		}
	}
	name, props := featureProperties([]byte(`{"properties":{"type":"clinic","Name":"Kano Clinic","beds":12,"open":true,"x":null,"o":{}}}`))
	want := []insight.Property{{Key: "type", Value: insight.Value{Str: "clinic"}}, {Key: "Name", Value: insight.Value{Str: "Kano Clinic"}},
		{Key: "beds", Value: insight.Value{Num: 12, IsNum: true}}, {Key: "open", Value: insight.Value{Str: "true"}}}
	if name != "Kano Clinic" || !slices.Equal(props, want) {
		t.Errorf("featureProperties = %q, %+v", name, props)
	}
}

// nearStore is a Store over prepared features of one dataset (and
// attributes of another), counting the frames read.
type nearStore struct {
	access   []state.Access
	features map[uint64][]string
	read     int
	calls    int
	fail     error
	wrongID  bool
}

func (s *nearStore) Readable(state.Key) ([]state.Access, error) { return s.access, nil }

func (s *nearStore) ReadFrames(ids []string, frames []uint64, withFeatures bool, featureCap int) ([]bolt.FrameData, error) {
	s.calls++
	if s.fail != nil {
		return nil, s.fail
	}
	var out []bolt.FrameData
	room := featureCap
	for _, f := range frames {
		s.read++
		fd := bolt.FrameData{Frame: f}
		if feats := s.features[f]; len(feats) > 0 && slices.Contains(ids, "health") {
			d := bolt.DatasetFrame{Dataset: "health", FeatureCount: len(feats)}
			if s.wrongID {
				d.Dataset = "other"
			}
			if withFeatures {
				n := min(len(feats), room)
				for _, ft := range feats[:n] {
					d.Features = append(d.Features, []byte(ft))
				}
				room -= n
				d.FeaturesTruncated = n < len(feats)
			}
			fd.Datasets = append(fd.Datasets, d)
		}
		out = append(out, fd)
	}
	return out, nil
}

func (s *nearStore) Charge(string, string, string, []state.DatasetPrice, time.Time) ([]string, []string, error) {
	return nil, nil, errors.New("not used")
}

// nearGrid is a lattice over rows 9700..11500 and columns 22400..24200 of
// central Nigeria.
var nearGrid = func() *index.Index {
	var runs []grid.Run
	for r := int32(9700); r <= 11500; r++ {
		runs = append(runs, grid.Run{Row: r, Col0: 22400, Col1: 24200})
	}
	return index.NewLattice(runs)
}()

// pointFeature is a health facility at lon, lat.
func pointFeature(name string, lon, lat float64) string {
	return fmt.Sprintf(`{"type":"Feature","geometry":{"type":"Point","coordinates":[%.7f,%.7f]},"properties":{"name":%q,"type":"clinic"}}`, lon, lat, name)
}

// nearFixture places n facilities at random within about 60 km of
// (lon, lat), each on the frame holding it.
func nearFixture(seed uint64, n int, lon, lat float64) (map[uint64][]string, [][3]float64) {
	r := rand.New(rand.NewPCG(seed, 9))
	feats := map[uint64][]string{}
	var pts [][3]float64
	for i := 0; i < n; i++ {
		x := lon + (r.Float64()-0.5)*1.1
		y := lat + (r.Float64()-0.5)*1.1
		row, col := grid.CellAt(y, x)
		id := grid.CellID(row, col)
		feats[id] = append(feats[id], pointFeature("Clinic "+strconv.Itoa(i), x, y))
		pts = append(pts, [3]float64{x, y, float64(i)})
	}
	return feats, pts
}

func TestNearest(t *testing.T) {
	healthAccess := []state.Access{{Dataset: state.Dataset{ID: "health", Name: "Health facilities", Features: 100}, PerQuery: true}}
	const lon, lat = 7.45, 9.05
	row, col := grid.CellAt(lat, lon)
	sel := []uint64{grid.CellID(row, col), grid.CellID(row, col+1), grid.CellID(row+2, col)}
	for _, tt := range []struct {
		name  string
		seed  uint64
		n     int
		count int
	}{
		{"sparse, one", 1, 6, 1},
		{"sparse, three", 2, 6, 3},
		{"dense, one", 3, 400, 1},
		{"dense, five", 4, 400, 5},
		{"none near", 5, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			feats, pts := nearFixture(tt.seed, tt.n, lon, lat)
			store := &nearStore{access: healthAccess, features: feats}
			a, err := Read(store, nearGrid, state.Key{ID: "k", OrgID: "o"}, sel, false)
			if err != nil {
				t.Fatal(err)
			}
			nr, err := a.Nearest(store, nearGrid, "health", tt.count, true)
			if err != nil {
				t.Fatal(err)
			}
			// The oracle: every facility, its distance to the centre of
			// the nearest selected frame, within 100 km, nearest first.
			type hit struct {
				d    float64
				name string
			}
			var want []hit
			for _, p := range pts {
				d := math.Inf(1)
				for _, id := range sel {
					r, c, _ := grid.RowCol(id)
					b := grid.CellBox(r, c)
					d = math.Min(d, HaversineKm((b.MinLon+b.MaxLon)/2, (b.MinLat+b.MaxLat)/2, p[0], p[1]))
				}
				if d <= NearestLimitKm {
					want = append(want, hit{d, "Clinic " + strconv.Itoa(int(p[2]))})
				}
			}
			slices.SortFunc(want, func(x, y hit) int { return int(math.Copysign(1, x.d-y.d)) })
			if len(want) > tt.count {
				want = want[:tt.count]
			}
			if len(nr.Features) != len(want) {
				t.Fatalf("%d features, want %d: %+v", len(nr.Features), len(want), nr.Features)
			}
			// The features' coordinates are stored rounded: within 10 cm.
			for i, f := range nr.Features {
				if f.Name != want[i].name || math.Abs(f.DistanceKm-want[i].d) > 1e-4 {
					t.Errorf("feature %d: %s at %g km, want %s at %g km", i, f.Name, f.DistanceKm, want[i].name, want[i].d)
				}
				r, c := grid.CellAt(f.Lat, f.Lon)
				if f.Frame != strconv.FormatUint(grid.CellID(r, c), 10) || !slices.Contains(sel, mustUint(f.From)) {
					t.Errorf("feature %d: frame %s from %s", i, f.Frame, f.From)
				}
			}
			if got := a.State[0].Contributed; got != (len(want) > 0) {
				t.Errorf("contributed %v with %d features found", got, len(want))
			}
			if len(want) == tt.count && nr.Searched < want[len(want)-1].d {
				t.Errorf("stopped at %g km before the %g km of the last feature", nr.Searched, want[len(want)-1].d)
			}
			if nr.Hidden || nr.LimitKm != 100 || nr.Dataset != "health" {
				t.Errorf("%+v", nr)
			}
		})
	}
	t.Run("hidden without feature.read", func(t *testing.T) {
		feats, _ := nearFixture(7, 50, lon, lat)
		store := &nearStore{access: healthAccess, features: feats}
		a, _ := Read(store, nearGrid, state.Key{}, sel, false)
		nr, err := a.Nearest(store, nearGrid, "health", 2, false)
		if err != nil || !nr.Hidden || len(nr.Features) != 2 || nr.Features[0].Name != "" || nr.Features[0].Properties != nil || nr.Features[0].Lon != 0 {
			t.Errorf("%+v %v", nr, err)
		}
	})
	t.Run("not readable, left out, no known frame", func(t *testing.T) {
		store := &nearStore{access: healthAccess, features: map[uint64][]string{sel[0]: {pointFeature("x", lon, lat)}}}
		a, _ := Read(store, nearGrid, state.Key{}, sel, false)
		if nr, err := a.Nearest(store, nearGrid, "schools", 1, true); nr != nil || err != nil {
			t.Errorf("unreadable: %+v %v", nr, err)
		}
		a.State[0].LeftOut = true
		if nr, err := a.Nearest(store, nearGrid, "health", 1, true); nr != nil || err != nil {
			t.Errorf("left out: %+v %v", nr, err)
		}
		b, _ := Read(store, nearGrid, state.Key{}, []uint64{5}, false)
		calls := store.calls
		if nr, err := b.Nearest(store, nearGrid, "health", 1, true); nr != nil || err != nil || store.calls != calls {
			t.Errorf("no known frame: %+v %v, %d reads", nr, err, store.calls-calls)
		}
	})
	t.Run("store errors", func(t *testing.T) {
		store := &nearStore{access: healthAccess, features: map[uint64][]string{sel[0]: {pointFeature("x", lon, lat)}}}
		a, _ := Read(store, nearGrid, state.Key{}, sel, false)
		store.fail = errors.New("disk on fire")
		if _, err := a.Nearest(store, nearGrid, "health", 1, true); err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Errorf("failure: %v", err)
		}
		store.fail, store.wrongID = nil, true
		if _, err := a.Nearest(store, nearGrid, "health", 1, true); !errors.Is(err, ErrStore) {
			t.Errorf("wrong dataset: %v", err)
		}
		store.wrongID = false
		store.features[sel[0]] = []string{`[1,2]`}
		if _, err := a.Nearest(store, nearGrid, "health", 1, true); !errors.Is(err, ErrStore) {
			t.Errorf("not an object: %v", err)
		}
		store.features[sel[0]] = []string{`{"type":"Feature","geometry":null}`}
		if nr, err := a.Nearest(store, nearGrid, "health", 1, true); err != nil || nr.Unread != 1 || len(nr.Features) != 0 {
			t.Errorf("no geometry: %+v %v", nr, err)
		}
	})
	t.Run("the read cap", func(t *testing.T) {
		many := make([]string, nearestReadCap+5)
		for i := range many {
			many[i] = pointFeature("c", lon+0.001, lat-0.001)
		}
		store := &nearStore{access: healthAccess, features: map[uint64][]string{sel[0]: many}}
		a, _ := Read(store, nearGrid, state.Key{}, sel, false)
		nr, err := a.Nearest(store, nearGrid, "health", 1, true)
		if err != nil || nr.Unread != 5 || len(nr.Features) != 1 {
			t.Errorf("unread %d, %d features, %v", nr.Unread, len(nr.Features), err)
		}
	})
}

func mustUint(s string) uint64 {
	v, _ := strconv.ParseUint(s, 10, 64)
	return v
}

// TestSelectionInput_AreasAndDescription: the engine gets each known
// frame's area on the ellipsoid, how it was measured, and the datasets'
// descriptions; an unknown frame is missing.
func TestSelectionInput_AreasAndDescription(t *testing.T) {
	access := []state.Access{{Dataset: state.Dataset{ID: "health", Name: "Health facilities", Description: "Clinics."}}}
	row, col := grid.CellAt(9.054, 7.454)
	a, err := Read(&nearStore{access: access}, nearGrid, state.Key{}, []uint64{grid.CellID(row, col), 7}, false)
	if err != nil {
		t.Fatal(err)
	}
	in, err := a.SelectionInput(Question{Text: "density"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.AreaBasis != AreaBasis || in.Datasets[0].Description != "Clinics." {
		t.Errorf("basis %q, description %q", in.AreaBasis, in.Datasets[0].Description)
	}
	if len(in.Frames.AreaKm2) != 1 || math.Abs(in.Frames.AreaKm2[0]-0.844425874190688) > 1e-9 || !slices.Equal(in.Missing, []string{"7"}) {
		t.Errorf("areas %v, missing %v", in.Frames.AreaKm2, in.Missing)
	}
}

// BenchmarkNearest searches a real data file: a national-scale lattice
// region, one facility for about 25 km² placed at random, a selection of
// 50 frames. "far" selects frames in an empty stretch, so every ring out
// to 50 km is read.
func BenchmarkNearest(b *testing.B) {
	dir := b.TempDir()
	store, err := bolt.Open(filepath.Join(dir, "frames.db"), bolt.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	if _, err := store.AddOrg(state.Org{ID: "org", Name: "Org", Plan: "pro"}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	byFrame := map[uint64][][]byte{}
	for i := 0; i < 4000; i++ {
		x, y := 4.0+r.Float64()*11.0, 7.6+r.Float64()*5.0
		if x > 7.0 && x < 8.6 && y > 9.5 && y < 10.9 {
			continue // an empty stretch of about 170 km by 150 km
		}
		row, col := grid.CellAt(y, x)
		id := grid.CellID(row, col)
		byFrame[id] = append(byFrame[id], []byte(pointFeature("Clinic "+strconv.Itoa(i), x, y)))
	}
	var recs []bolt.FrameRecord
	for id, fs := range byFrame {
		recs = append(recs, bolt.FrameRecord{Frame: id, Features: fs})
	}
	slices.SortFunc(recs, func(x, y bolt.FrameRecord) int { return cmp.Compare(x.Frame, y.Frame) })
	if _, err := store.ImportDataset(state.Dataset{ID: "health", Name: "Health facilities", Owner: "org"}, recs, time.Now()); err != nil {
		b.Fatal(err)
	}
	var runs []grid.Run
	for row := int32(8800); row <= 9900; row++ {
		runs = append(runs, grid.Run{Row: row, Col0: 22000, Col1: 23600})
	}
	ix := index.NewLattice(runs)
	key := state.Key{ID: "key", OrgID: "org"}
	for _, bc := range []struct {
		name     string
		lon, lat float64
	}{{"near", 5.0, 8.0}, {"far", 7.8, 10.2}} {
		row, col := grid.CellAt(bc.lat, bc.lon)
		var sel []uint64
		for i := 0; i < 50; i++ {
			sel = append(sel, grid.CellID(row+i/10, col+i%10))
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var nr *insight.Nearest
			for b.Loop() {
				a, err := Read(store, ix, key, sel, false)
				if err != nil {
					b.Fatal(err)
				}
				if nr, err = a.Nearest(store, ix, "health", 1, true); err != nil || nr == nil {
					b.Fatal(nr, err)
				}
			}
			b.ReportMetric(nr.Searched, "km-searched")
		})
	}
}
