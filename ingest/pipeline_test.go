package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/state"
)

// testStore opens a store holding the small test lattice and the
// organisation "agency".
func testStore(t testing.TB) *bolt.Store {
	t.Helper()
	s, err := bolt.Open(filepath.Join(t.TempDir(), "frames.db"), bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var runs []grid.Run
	for r := row0; r <= row1; r++ {
		runs = append(runs, grid.Run{Row: int32(r), Col0: col0, Col1: col1})
	}
	if _, err := s.PutLattice(runs, "test block"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddOrg(state.Org{ID: "agency", Plan: "pro", Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	return s
}

// centreOf returns the centre of a lattice cell as "lon,lat" JSON.
func centreOf(row, col int) string {
	lon, lat := grid.Lon(col)+0.5/grid.CellsPerDegree, grid.Lat(row)-0.5/grid.CellsPerDegree
	return fmt.Sprintf("[%v,%v]", lon, lat)
}

func write(t testing.TB, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func point(row, col int, props string) string {
	return `{"type":"Feature","properties":` + props + `,"geometry":{"type":"Point","coordinates":` + centreOf(row, col) + `}}`
}

// attrsOf returns frame -> attributes object as decoded values.
func attrsOf(t testing.TB, recs []bolt.FrameRecord) map[uint64]map[string]any {
	t.Helper()
	out := map[uint64]map[string]any{}
	for _, r := range recs {
		if r.Attrs == nil {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(r.Attrs, &m); err != nil {
			t.Fatalf("frame %d: %s: %v", r.Frame, r.Attrs, err)
		}
		out[r.Frame] = m
	}
	return out
}

var (
	attrCount = state.Attribute{Name: "building_count", Label: "Buildings", Unit: "buildings", Type: state.TypeNumber, Aggregation: state.AggSum}
	attrArea  = state.Attribute{Name: "footprint_area", Label: "Footprint area", Unit: "m²", Type: state.TypeNumber, Aggregation: state.AggSum}
	attrMeanH = state.Attribute{Name: "mean_height", Label: "Mean height", Unit: "m", Type: state.TypeNumber, Aggregation: state.AggMean}
	attrUse   = state.Attribute{Name: "use", Label: "Main use", Type: state.TypeCategory, Aggregation: state.AggMode}
)

// TestImport_DerivedFromFeatures: count, and take by sum, mean and mode,
// from a GeoJSON text sequence; with attributesOnly no feature is kept.
func TestImport_DerivedFromFeatures(t *testing.T) {
	s := testStore(t)
	lines := []string{
		point(9701, 22481, `{"area":100,"h":3,"use":"home"}`),
		point(9701, 22481, `{"area":50.5,"h":6,"use":"shop"}`),
		point(9701, 22481, `{"area":20,"h":null,"use":"shop"}`),
		"",
		point(9702, 22482, `{"area":7,"h":9,"use":"home"}`),
		point(9702, 22482, `{"use":"school"}`),
	}
	path := write(t, "footprints.geojsonl", strings.Join(lines, "\n")+"\n")
	for _, only := range []bool{false, true} {
		t.Run(fmt.Sprintf("attributesOnly=%v", only), func(t *testing.T) {
			m := Manifest{ID: "buildings", Owner: "agency", Attributes: []state.Attribute{attrCount, attrArea, attrMeanH, attrUse},
				Inputs: []Input{{Features: path, Count: "building_count", AttributesOnly: only,
					Take: map[string]string{"area": "footprint_area", "h": "mean_height", "use": "use"}}}}
			_, recs, _, err := Gather(context.Background(), m, s, OpenFile)
			if err != nil {
				t.Fatal(err)
			}
			got := attrsOf(t, recs)
			want := map[uint64]map[string]any{
				cell(9701, 22481): {"building_count": 3.0, "footprint_area": 170.5, "mean_height": 4.5, "use": "shop"},
				cell(9702, 22482): {"building_count": 2.0, "footprint_area": 7.0, "mean_height": 9.0, "use": "home"}, // home/school tie: the smaller
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
			nf := 0
			for _, r := range recs {
				nf += len(r.Features)
			}
			if wantF := map[bool]int{false: 5, true: 0}[only]; nf != wantF {
				t.Errorf("%d features kept, want %d", nf, wantF)
			}
			// The record text keeps declared order and integer counts.
			for _, r := range recs {
				if r.Frame == cell(9701, 22481) && string(r.Attrs) != `{"building_count":3,"footprint_area":170.5,"mean_height":4.5,"use":"shop"}` {
					t.Errorf("attributes text %s", r.Attrs)
				}
			}
		})
	}
}

func TestImport_DerivedErrors(t *testing.T) {
	s := testStore(t)
	good := write(t, "f.geojsonl", point(9701, 22481, `{"area":"big"}`)+"\n")
	csvPath := write(t, "c.csv", "frame_id,building_count\n"+strconv.FormatUint(cell(9701, 22481), 10)+",4\n")
	// A features file broken after its first line: declaration errors must
	// come before any of it is read.
	broken := write(t, "broken.geojsonl", point(9701, 22481, `{}`)+"\n{not json\n")
	tests := []struct {
		name string
		m    Manifest
		want string
	}{
		{"string where a sum is declared", Manifest{Attributes: []state.Attribute{attrArea},
			Inputs: []Input{{Features: good, Take: map[string]string{"area": "footprint_area"}}}},
			`f.geojsonl feature 0: property "area" is the string "big", but attribute "footprint_area" is a number`},
		{"declared but given by nothing, before reading", Manifest{Attributes: []state.Attribute{attrCount, attrArea},
			Inputs: []Input{{Features: broken, Count: "building_count"}}},
			`attribute "footprint_area" is declared but no input gives it`},
		{"count into a mean", Manifest{Attributes: []state.Attribute{attrMeanH},
			Inputs: []Input{{Features: good, Count: "mean_height"}}},
			`count goes to "mean_height", which must be a number with aggregation sum`},
		{"attributesOnly without count or take", Manifest{Attributes: []state.Attribute{attrCount},
			Inputs: []Input{{Features: good, AttributesOnly: true}, {CSV: csvPath}}},
			`attributesOnly keeps only what count and take derive`},
		{"derived and CSV on one frame", Manifest{Attributes: []state.Attribute{attrCount},
			Inputs: []Input{{CSV: csvPath}, {Features: good, Count: "building_count"}}},
			`is given attribute "building_count" twice: by ` + csvPath + ` line 2 and by ` + good + ` feature 0`},
		{"take from a raster", Manifest{Attributes: []state.Attribute{attrCount},
			Inputs: []Input{{Raster: good, Take: map[string]string{"a": "building_count"}}}},
			`take is for features and zones inputs`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.m.ID, tt.m.Owner = "b", "agency"
			_, _, _, err := Gather(context.Background(), tt.m, s, OpenFile)
			if !errors.Is(err, state.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v\nwant invalid with %q", err, tt.want)
			}
		})
	}
}

// TestSpillSorter_SameAsInMemory: features spilled to many run files come
// back in the order an in-memory sort gives: by frame, then arrival.
func TestSpillSorter_SameAsInMemory(t *testing.T) {
	type rec struct {
		frame uint64
		text  string
	}
	var in []rec
	for i := range 5000 {
		in = append(in, rec{uint64((i * 7919) % 97), fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", i%50))})
	}
	sorted := func(limit int) ([]rec, int) {
		s := newSpillSorter(limit)
		defer s.close()
		for _, r := range in {
			if err := s.add(r.frame, []byte(r.text)); err != nil {
				t.Fatal(err)
			}
		}
		it, err := s.iter()
		if err != nil {
			t.Fatal(err)
		}
		var out []rec
		for {
			f, text, ok, err := it.next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			out = append(out, rec{f, string(text)})
		}
		return out, len(s.runs)
	}
	mem, runs0 := sorted(1 << 30)
	spilled, runs := sorted(4096)
	if runs0 != 0 || runs < 10 {
		t.Fatalf("runs: %d in memory, %d spilled; want 0 and many", runs0, runs)
	}
	if len(mem) != len(in) || fmt.Sprint(mem) != fmt.Sprint(spilled) {
		t.Fatalf("spilled order differs from the in-memory order")
	}
	for i := 1; i < len(mem); i++ {
		if mem[i].frame < mem[i-1].frame {
			t.Fatalf("not sorted at %d", i)
		}
	}
}

// TestImport_StreamsIntoStore: Import writes through the store's staged
// writer; a failing input leaves the old version served and nothing
// staged behind.
func TestImport_StreamsIntoStore(t *testing.T) {
	s := testStore(t)
	var b strings.Builder
	for r := row0; r <= row1; r++ {
		for c := col0; c <= col1; c++ {
			b.WriteString(point(r, c, `{"k":1}`) + "\n")
			b.WriteString(point(r, c, `{"k":2}`) + "\n")
		}
	}
	path := write(t, "pts.geojsonl", b.String())
	m := Manifest{ID: "pts", Owner: "agency", Attributes: []state.Attribute{attrCount},
		Inputs: []Input{{Features: path, Count: "building_count"}}}
	d, skipped, err := Import(context.Background(), m, s, OpenFile, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Frames != 400 || d.Features != 800 || skipped != 0 || d.Version != 1 {
		t.Fatalf("got %+v, skipped %d", d, skipped)
	}
	fd, err := s.ReadFrames([]string{"pts"}, []uint64{cell(9710, 22490)}, true, 200)
	if err != nil || len(fd) != 1 || string(fd[0].Datasets[0].Attrs) != `{"building_count":2}` || len(fd[0].Datasets[0].Features) != 2 {
		t.Fatalf("read back %+v, %v", fd, err)
	}
	bad := write(t, "bad.geojsonl", b.String()+"{\"type\":\"Feature\"}\n")
	m.Inputs[0].Features = bad
	if _, _, err := Import(context.Background(), m, s, OpenFile, time.Time{}); !errors.Is(err, state.ErrInvalid) ||
		!strings.Contains(err.Error(), "bad.geojsonl feature 800: has no geometry") {
		t.Fatalf("got %v", err)
	}
	if d2, err := s.Dataset("pts"); err != nil || d2.Version != 1 {
		t.Fatalf("after a failed import: %+v, %v", d2, err)
	}
}

// TestImport_Raster: a GeoTIFF made by GDAL from a hand-written ASCII grid
// at 3 arc-seconds (10 x 10 pixels per frame) imports as per-frame sums
// and means; the total is kept and nodata gives no value.
func TestImport_Raster(t *testing.T) {
	if _, err := exec.LookPath("gdal_translate"); err != nil {
		t.Skip("gdal-bin absent: gdal_translate not found")
	}
	s := testStore(t)
	// 20 x 20 pixels of 1/1200 degree over the 2 x 2 frames at rows
	// 9701-9702, columns 22481-22482; pixel value row*20+col, one nodata.
	var b strings.Builder
	west, south := grid.Lon(22481), grid.Lat(9702)-1.0/grid.CellsPerDegree
	fmt.Fprintf(&b, "ncols 20\nnrows 20\nxllcorner %.12f\nyllcorner %.12f\ncellsize %.15f\nNODATA_value -9999\n", west, south, 1.0/1200)
	total := 0.0
	for y := range 20 {
		for x := range 20 {
			v := float64(y*20 + x)
			if y == 0 && x == 0 {
				b.WriteString("-9999 ")
				continue
			}
			total += v
			fmt.Fprintf(&b, "%g ", v)
		}
		b.WriteString("\n")
	}
	asc := write(t, "pop.asc", b.String())
	tif := filepath.Join(t.TempDir(), "pop.tif")
	if out, err := exec.Command("gdal_translate", "-q", "-of", "GTiff", "-ot", "Float32", "-a_srs", "EPSG:4326",
		"-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=3", "-co", "TILED=YES", "-co", "BLOCKXSIZE=16", "-co", "BLOCKYSIZE=16", asc, tif).CombinedOutput(); err != nil {
		t.Fatalf("gdal_translate: %v\n%s", err, out)
	}
	for _, agg := range []string{state.AggSum, state.AggMean} {
		a := state.Attribute{Name: "v", Type: state.TypeNumber, Aggregation: agg}
		m := Manifest{ID: "pop", Owner: "agency", Attributes: []state.Attribute{a}, Inputs: []Input{{Raster: tif}}}
		_, recs, _, err := Gather(context.Background(), m, s, OpenFile)
		if err != nil {
			t.Fatal(err)
		}
		got := attrsOf(t, recs)
		if len(got) != 4 {
			t.Fatalf("%s: %d frames, want 4: %v", agg, len(got), got)
		}
		sum := 0.0
		for _, v := range got {
			sum += v["v"].(float64)
		}
		// The north-west frame holds pixels y 0-9, x 0-9 less the nodata one.
		nw := 0.0
		for y := range 10 {
			for x := range 10 {
				if y+x > 0 {
					nw += float64(y*20 + x)
				}
			}
		}
		nwGot := got[cell(9701, 22481)]["v"].(float64)
		switch agg {
		case state.AggSum:
			if math.Abs(sum-total) > 1e-6*total || math.Abs(nwGot-nw) > 1e-9*nw {
				t.Errorf("sum: total %v want %v; north-west %v want %v", sum, total, nwGot, nw)
			}
		case state.AggMean:
			if math.Abs(nwGot-nw/99) > 1e-9 {
				t.Errorf("mean: north-west %v want %v", nwGot, nw/99)
			}
		}
	}
	// A band the raster lacks is refused before anything is read.
	m := Manifest{ID: "pop", Owner: "agency", Attributes: []state.Attribute{{Name: "v", Type: state.TypeNumber, Aggregation: state.AggSum}},
		Inputs: []Input{{Raster: tif, Band: 2}}}
	if _, _, _, err := Gather(context.Background(), m, s, OpenFile); err == nil || !strings.Contains(err.Error(), "band 2: the raster has 1 band") {
		t.Errorf("band 2: got %v", err)
	}
}
