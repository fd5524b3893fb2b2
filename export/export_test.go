package export

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"frameindex/grid"
	"frameindex/ingest/gpkg"
)

var testCols = []Column{{"pop", Number}, {"name", Text}, {"count", Integer}}

// testFrames is a 3 x 4 block of lattice cells at 9°N 7°E with values,
// some null, one with quotes and non-ASCII text.
func testFrames() []Frame {
	r0, c0 := grid.CellAt(9.0, 7.0)
	var out []Frame
	for r := r0; r < r0+3; r++ {
		for c := c0; c < c0+4; c++ {
			k := len(out)
			f := Frame{ID: grid.CellID(r, c), Values: []any{float64(k) * 1.25, "cell " + strconv.Itoa(k), int64(k) - 5}}
			switch k {
			case 1:
				f.Values = []any{nil, `Ọ̀yọ́ "quoted"`, nil}
			case 2:
				f.Values = nil // all null
			case 5:
				f.Values = []any{math.NaN(), "bad\xffbyte", 3} // NaN is null, U+FFFD replaces the byte
			case 3:
				f.Values = []any{1e300, "", int64(1<<53 + 1)} // not exact as a float64
			}
			out = append(out, f)
		}
	}
	return out
}

// writeAll writes frames to path and closes the writer.
func writeAll(t *testing.T, path string, opts Options, frames []Frame) {
	t.Helper()
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeTestFrames writes testFrames to the file name in a new directory
// and checks that nothing else is left there; it returns the file's path
// and the frames.
func writeTestFrames(t *testing.T, name string, opts Options) (string, []Frame) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	frames := testFrames()
	writeAll(t, path, opts, frames)
	onlyFile(t, dir, name)
	return path, frames
}

// onlyFile checks that dir holds just the named file (no temporaries).
func onlyFile(t *testing.T, dir, name string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != name {
		t.Errorf("directory holds %q, want only %q", names, name)
	}
}

// cellRing is the ring a lattice cell is written with.
func cellRing(id uint64) [][2]float64 {
	row, col, _ := grid.RowCol(id)
	w, e, n, s := grid.Lon(col), grid.Lon(col+1), grid.Lat(row), grid.Lat(row+1)
	return [][2]float64{{w, s}, {e, s}, {e, n}, {w, n}, {w, s}}
}

// wantProps is what a frame's properties read back as (JSON decoded).
func wantProps(f Frame) map[string]any {
	p := map[string]any{"frame_id": strconv.FormatUint(f.ID, 10)}
	for i, c := range testCols {
		var v any
		if i < len(f.Values) {
			v = f.Values[i]
		}
		switch x := v.(type) {
		case int64:
			v = json.Number(strconv.FormatInt(x, 10))
		case int:
			v = json.Number(strconv.Itoa(x))
		case float64:
			v = json.Number(strconv.FormatFloat(x, 'g', -1, 64))
			if math.IsNaN(x) {
				v = nil
			}
		case string:
			v = strings.ToValidUTF8(x, "\uFFFD")
		}
		p[c.Name] = v
	}
	return p
}

func decodeJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
}

type jsonFeature struct {
	ID       any `json:"id"`
	Geometry struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

// sameNumber compares a JSON number with want: within 7 decimals when
// rounded is set, else within 1e-12 (GDAL's text output trims digits that
// look like noise; exactness of the stored doubles is checked elsewhere).
func sameNumber(n json.Number, want float64, rounded bool) bool {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return false
	}
	if rounded {
		return math.Abs(f-want) <= 5e-8
	}
	return math.Abs(f-want) <= 1e-12
}

func checkRing(t *testing.T, raw json.RawMessage, want [][2]float64, multi, rounded bool) {
	t.Helper()
	var ring [][]json.Number
	if multi {
		var c [][][][]json.Number
		decodeJSON(t, raw, &c)
		if len(c) != 1 || len(c[0]) != 1 {
			t.Fatalf("multipolygon shape %s", raw)
		}
		ring = c[0][0]
	} else {
		var c [][][]json.Number
		decodeJSON(t, raw, &c)
		if len(c) != 1 {
			t.Fatalf("polygon shape %s", raw)
		}
		ring = c[0]
	}
	if len(ring) != len(want) {
		t.Fatalf("ring %s, want %v", raw, want)
	}
	for i := range want {
		if !sameNumber(ring[i][0], want[i][0], rounded) || !sameNumber(ring[i][1], want[i][1], rounded) {
			t.Fatalf("ring %s, want %v", raw, want)
		}
	}
}

func TestGeoJSONL(t *testing.T) {
	path, frames := writeTestFrames(t, "grid.geojsonl", Options{Columns: testCols})
	f, _ := os.Open(path)
	defer f.Close()
	sc := bufio.NewScanner(f)
	i := 0
	for ; sc.Scan(); i++ {
		var got jsonFeature
		decodeJSON(t, sc.Bytes(), &got)
		want := frames[i]
		if got.ID != strconv.FormatUint(want.ID, 10) {
			t.Errorf("line %d: id %v", i+1, got.ID)
		}
		if got.Geometry.Type != "Polygon" {
			t.Errorf("line %d: %s", i+1, got.Geometry.Type)
		}
		checkRing(t, got.Geometry.Coordinates, cellRing(want.ID), false, true)
		if !equalProps(got.Properties, wantProps(want)) {
			t.Errorf("line %d: properties %v, want %v", i+1, got.Properties, wantProps(want))
		}
	}
	if i != len(frames) {
		t.Errorf("%d lines, want %d", i, len(frames))
	}
}

func equalProps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		g, ok := a[k]
		if !ok {
			return false
		}
		if gn, ok := g.(json.Number); ok {
			wn, ok := v.(json.Number)
			if !ok {
				return false
			}
			gf, _ := strconv.ParseFloat(string(gn), 64)
			wf, _ := strconv.ParseFloat(string(wn), 64)
			if gf != wf {
				return false
			}
			continue
		}
		if g != v {
			return false
		}
	}
	return true
}

// TestGPKGCore reads the GeoPackage back with frameindex/ingest/gpkg and
// checks the required tables with SQL, without GDAL.
func TestGPKGCore(t *testing.T) {
	path, frames := writeTestFrames(t, "grid.gpkg", Options{Columns: testCols, Layer: "national grid"})

	r, err := gpkg.Open(path, gpkg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Layer() != "national grid" {
		t.Errorf("layer %q", r.Layer())
	}
	wantFields := []gpkg.Field{{Name: "frame_id", Type: "TEXT"}, {Name: "pop", Type: "DOUBLE"}, {Name: "name", Type: "TEXT"}, {Name: "count", Type: "INTEGER"}}
	if got := r.Fields(); len(got) != len(wantFields) {
		t.Errorf("fields %v", got)
	} else {
		for i := range got {
			if got[i] != wantFields[i] {
				t.Errorf("field %d: %v, want %v", i, got[i], wantFields[i])
			}
		}
	}
	for i := 0; ; i++ {
		f, err := r.Next()
		if err == io.EOF {
			if i != len(frames) {
				t.Errorf("%d features, want %d", i, len(frames))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.FID != int64(i+1) {
			t.Errorf("fid %d", f.FID)
		}
		var got jsonFeature
		decodeJSON(t, f.JSON, &got)
		checkRing(t, got.Geometry.Coordinates, cellRing(frames[i].ID), false, true)
		if !equalProps(got.Properties, wantProps(frames[i])) {
			t.Errorf("feature %d: properties %v, want %v", i, got.Properties, wantProps(frames[i]))
		}
	}

	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	// The stored geometry is exact: GP header with the cell's envelope,
	// then the ring at the lattice edges, bit for bit.
	var blob []byte
	if err := db.QueryRow(`SELECT geom FROM "national grid" WHERE fid = 5`).Scan(&blob); err != nil {
		t.Fatal(err)
	}
	ring := cellRing(frames[4].ID)
	if len(blob) != 40+13+5*16 || string(blob[:4]) != "GP\x00\x03" || leU32(blob[4:]) != 4326 {
		t.Fatalf("blob % x", blob)
	}
	if env := [4]float64{leF64(blob[8:]), leF64(blob[16:]), leF64(blob[24:]), leF64(blob[32:])}; env != [4]float64{ring[0][0], ring[1][0], ring[0][1], ring[2][1]} {
		t.Errorf("envelope %v, ring %v", env, ring)
	}
	if blob[40] != 1 || leU32(blob[41:]) != 3 || leU32(blob[45:]) != 1 || leU32(blob[49:]) != 5 {
		t.Errorf("WKB head % x", blob[40:53])
	}
	for i, p := range ring {
		if x, y := leF64(blob[53+16*i:]), leF64(blob[61+16*i:]); x != p[0] || y != p[1] {
			t.Errorf("point %d: %v %v, want %v", i, x, y, p)
		}
	}
	checks := []struct{ q, want string }{
		{"PRAGMA application_id", "1196444487"},
		{"PRAGMA user_version", "10300"},
		{"PRAGMA integrity_check", "ok"},
		{"SELECT group_concat(srs_id) FROM (SELECT srs_id FROM gpkg_spatial_ref_sys ORDER BY srs_id)", "-1,0,4326"},
		{"SELECT data_type || ' ' || srs_id FROM gpkg_contents", "features 4326"},
		{"SELECT printf('%.6f %.6f %.6f %.6f', min_x, min_y, max_x, max_y) FROM gpkg_contents", "7.000000 8.975000 7.033333 9.000000"},
		{"SELECT geometry_type_name || ' ' || column_name || ' ' || srs_id || z || m FROM gpkg_geometry_columns", "POLYGON geom 432600"},
		{"SELECT extension_name || ' ' || scope FROM gpkg_extensions", "gpkg_rtree_index write-only"},
		{`SELECT count(*) FROM "rtree_national grid_geom"`, "12"},
		{`SELECT count(*) FROM sqlite_master WHERE type = 'trigger'`, "6"},
		{`SELECT rtreecheck('rtree_national grid_geom')`, "ok"},
		// the cell at 9°N 7°E (its north-west corner) is the 4th row, 1st cell
		{`SELECT id FROM "rtree_national grid_geom" WHERE minx <= 7.004 AND maxx >= 7.004 AND miny <= 8.996 AND maxy >= 8.996`, "1"},
	}
	for _, c := range checks {
		var got string
		if err := db.QueryRow(c.q).Scan(&got); err != nil {
			t.Errorf("%s: %v", c.q, err)
		} else if got != c.want {
			t.Errorf("%s = %q, want %q", c.q, got, c.want)
		}
	}
}

// TestFGBCore checks the FlatGeobuf layout without GDAL: magic, header
// count, index size, and that every leaf's offset lands on a feature whose
// frame id matches the leaf's box.
func TestFGBCore(t *testing.T) {
	path, frames := writeTestFrames(t, "grid.fgb", Options{Columns: testCols})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkFGBIndex(t, b, len(frames))
}

// checkFGBIndex walks the index of an FGB file with n features.
func checkFGBIndex(t *testing.T, b []byte, n int) {
	t.Helper()
	if string(b[:8]) != string(fgbMagic) {
		t.Fatalf("magic % x", b[:8])
	}
	hsize := int(leU32(b[8:]))
	_, numNodes := levelBounds(n, fgbNodeSize)
	idx := 12 + hsize
	feats := idx + numNodes*fgbNodeLen
	if feats > len(b) {
		t.Fatalf("index runs past the end: %d > %d", feats, len(b))
	}
	leaves := idx + (numNodes-n)*fgbNodeLen
	seen := map[uint64]bool{}
	for k := 0; k < n; k++ {
		nd := b[leaves+k*fgbNodeLen:]
		minX, minY := leF64(nd), leF64(nd[8:])
		maxX, maxY := leF64(nd[16:]), leF64(nd[24:])
		off := feats + int(leU64(nd[32:]))
		if off+4 > len(b) {
			t.Fatalf("leaf %d points past the end", k)
		}
		size := int(leU32(b[off:]))
		if off+4+size > len(b) {
			t.Fatalf("leaf %d: feature runs past the end", k)
		}
		// The feature must be the cell at the box centre: its first
		// property (frame_id) is that id and its ring is the cell's,
		// bit for bit, with the leaf's box as its bounds.
		row, col := grid.CellAt((minY+maxY)/2, (minX+maxX)/2)
		id := grid.CellID(row, col)
		props, xy := fgbFeature(b[off+4 : off+4+size])
		text := strconv.FormatUint(id, 10)
		if len(props) < 6+len(text) || leU16(props) != 0 || int(leU32(props[2:])) != len(text) || string(props[6:6+len(text)]) != text {
			t.Errorf("leaf %d (box centre in cell %d) points at a feature with properties % x", k, id, props)
		}
		want := cellRing(id)
		if len(xy) != 2*len(want) {
			t.Fatalf("leaf %d: %d coordinates", k, len(xy))
		}
		for i, p := range want {
			if xy[2*i] != p[0] || xy[2*i+1] != p[1] {
				t.Fatalf("leaf %d: ring %v, want %v", k, xy, want)
			}
		}
		if minX != want[0][0] || minY != want[0][1] || maxX != want[2][0] || maxY != want[2][1] {
			t.Errorf("leaf %d: box %v %v %v %v, want the cell's", k, minX, minY, maxX, maxY)
		}
		seen[id] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct cells among %d leaves", len(seen), n)
	}
	if last := feats; last >= len(b) {
		t.Errorf("no features after the index")
	}
}

// fgbFeature reads a Feature flatbuffer's properties and its geometry's xy.
func fgbFeature(buf []byte) (props []byte, xy []float64) {
	tab := flatbuffers.Table{Bytes: buf, Pos: flatbuffers.GetUOffsetT(buf)}
	if o := flatbuffers.UOffsetT(tab.Offset(flatbuffers.VOffsetT(4 + 2*featProperties))); o != 0 {
		props = tab.ByteVector(o + tab.Pos)
	}
	o := flatbuffers.UOffsetT(tab.Offset(flatbuffers.VOffsetT(4 + 2*featGeometry)))
	if o == 0 {
		return props, nil
	}
	geo := flatbuffers.Table{Bytes: buf, Pos: tab.Indirect(o + tab.Pos)}
	if o := flatbuffers.UOffsetT(geo.Offset(flatbuffers.VOffsetT(4 + 2*geoXY))); o != 0 {
		start, n := geo.Vector(o), geo.VectorLen(o)
		for i := 0; i < n; i++ {
			xy = append(xy, geo.GetFloat64(start+flatbuffers.UOffsetT(8*i)))
		}
	}
	return props, xy
}

func leU16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func leU32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func leU64(b []byte) uint64  { return uint64(leU32(b)) | uint64(leU32(b[4:]))<<32 }
func leF64(b []byte) float64 { return math.Float64frombits(leU64(b)) }

func TestLevelBounds(t *testing.T) {
	tests := []struct {
		n     int
		want  [][2]int
		nodes int
	}{
		{1, [][2]int{{1, 2}, {0, 1}}, 2},
		{16, [][2]int{{1, 17}, {0, 1}}, 17},
		{17, [][2]int{{3, 20}, {1, 3}, {0, 1}}, 20},
		{300, [][2]int{{22, 322}, {3, 22}, {1, 3}, {0, 1}}, 322},
	}
	for _, tc := range tests {
		t.Run(strconv.Itoa(tc.n), func(t *testing.T) {
			got, nodes := levelBounds(tc.n, 16)
			if nodes != tc.nodes || len(got) != len(tc.want) {
				t.Fatalf("got %v %d, want %v %d", got, nodes, tc.want, tc.nodes)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestHilbert(t *testing.T) {
	// The first cells of the order-16 curve visit (0,0), (0,1), (1,1), (1,0)
	// and every value is distinct on a small grid.
	seen := map[uint32]bool{}
	for x := uint32(0); x < 64; x++ {
		for y := uint32(0); y < 64; y++ {
			h := hilbert(x<<10, y<<10)
			if seen[h] {
				t.Fatalf("hilbert(%d,%d) repeats %d", x, y, h)
			}
			seen[h] = true
		}
	}
	if hilbert(0, 0) != 0 {
		t.Errorf("hilbert(0,0) = %d", hilbert(0, 0))
	}
}

func TestMultiPolygonFrames(t *testing.T) {
	outer := grid.Ring{{7, 9}, {7.1, 9}, {7.1, 9.1}, {7, 9.1}, {7, 9}}
	hole := grid.Ring{{7.02, 9.02}, {7.02, 9.04}, {7.04, 9.04}, {7.04, 9.02}, {7.02, 9.02}}
	other := grid.Ring{{8, 9}, {8.1, 9}, {8.1, 9.1}, {8, 9}}
	frames := []Frame{
		{ID: 1, Geom: grid.MultiPolygon{{outer, hole}}},
		{ID: 2, Geom: grid.MultiPolygon{{outer}, {other}}},
		{ID: 3}, // a lattice cell among imported frames
	}
	for _, ext := range Formats {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "m"+ext)
			writeAll(t, path, Options{Multi: true}, frames)
			if ext == ".gpkg" {
				r, err := gpkg.Open(path, gpkg.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				f, _ := r.Next()
				want := `{"type":"MultiPolygon","coordinates":[[[[7,9],[7.1,9],[7.1,9.1],[7,9.1],[7,9]],[[7.02,9.02],[7.02,9.04],[7.04,9.04],[7.04,9.02],[7.02,9.02]]]]}`
				if !strings.Contains(string(f.JSON), want) {
					t.Errorf("got %s", f.JSON)
				}
			}
			if ext == ".fgb" {
				b, _ := os.ReadFile(path)
				if string(b[:8]) != string(fgbMagic) {
					t.Error("magic")
				}
			}
			if ext == ".geojsonl" {
				b, _ := os.ReadFile(path)
				if n := strings.Count(string(b), `"type":"MultiPolygon"`); n != 3 {
					t.Errorf("%d MultiPolygons in %s", n, b)
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	type errorCase struct {
		name  string
		path  string
		opts  Options
		frame *Frame
		want  string
	}
	tests := []errorCase{
		{"unknown extension", "grid.shp", Options{}, nil, `unknown format ".shp": the file name must end in .gpkg, .fgb, .geojsonl`},
		{"no extension", "grid", Options{}, nil, "unknown format"},
		{"reserved column", "g.gpkg", Options{Columns: []Column{{"Frame_ID", Text}}}, nil, `column name "Frame_ID" is reserved`},
		{"duplicate column", "g.fgb", Options{Columns: []Column{{"a", Text}, {"A", Number}}}, nil, `"A" appears twice`},
		{"empty column name", "g.fgb", Options{Columns: []Column{{"", Text}}}, nil, "column 1 has no name"},
		{"bad column type", "g.fgb", Options{Columns: []Column{{"x", 9}}}, nil, "unknown type"},
		{"reserved layer", "g.gpkg", Options{Layer: "gpkg_contents"}, nil, "reserved"},
		{"missing directory", "nodir/g.gpkg", Options{}, nil, "no such file or directory"},
	}
	for _, ext := range Formats {
		tests = append(tests,
			errorCase{"wrong value type " + ext, "v" + ext, Options{Columns: testCols}, &Frame{ID: 5, Values: []any{"ten"}}, `frame 5: column "pop" (number) cannot hold string value ten`},
			errorCase{"too many values " + ext, "v" + ext, Options{}, &Frame{ID: 6, Values: []any{1.0}}, "frame 6: 1 values for 0 columns"},
			errorCase{"two polygons, not multi " + ext, "p" + ext, Options{}, &Frame{ID: 7, Geom: grid.MultiPolygon{{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}, {{{2, 0}, {3, 0}, {3, 1}, {2, 0}}}}}, "frame 7: 2 polygons"},
			errorCase{"NaN point " + ext, "n" + ext, Options{}, &Frame{ID: 8, Geom: grid.MultiPolygon{{{{0, 0}, {math.NaN(), 0}, {1, 1}, {0, 0}}}}}, "frame 8: polygon 1 ring 1 has a point that is not finite"},
			errorCase{"not a lattice id " + ext, "l" + ext, Options{}, &Frame{ID: grid.MaxID + 1}, "is not a lattice cell"},
		)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sub := t.TempDir()
			if tc.name == "missing directory" {
				sub = dir
			}
			path := filepath.Join(sub, tc.path)
			w, err := Create(path, tc.opts)
			if tc.frame != nil {
				if err != nil {
					t.Fatal(err)
				}
				if err = w.Write(Frame{ID: 1}); err != nil {
					t.Fatal(err)
				}
				err = w.Write(*tc.frame)
				if err2 := w.Write(Frame{ID: 2}); err2 == nil {
					t.Error("Write after an error succeeded")
				}
				if cerr := w.Close(); cerr == nil || cerr.Error() != err.Error() {
					t.Errorf("Close after an error: %v", cerr)
				}
				if ents, _ := os.ReadDir(sub); len(ents) != 0 {
					t.Errorf("files left behind: %v", ents)
				}
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("error %q lacks %q or the path", err, tc.want)
			}
		})
	}
}

// TestAtomicReplace: until Close, the old file stays; Abort leaves it and
// removes the temporary file.
func TestAtomicReplace(t *testing.T) {
	for _, ext := range Formats {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "grid"+ext)
			os.WriteFile(path, []byte("old"), 0o644)
			w, err := Create(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(Frame{ID: 100}); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); string(b) != "old" {
				t.Error("the target changed before Close")
			}
			if err := w.Abort(); err != nil {
				t.Fatal(err)
			}
			onlyFile(t, dir, "grid"+ext)
			if b, _ := os.ReadFile(path); string(b) != "old" {
				t.Error("Abort changed the target")
			}
			if err := w.Write(Frame{ID: 1}); err == nil {
				t.Error("Write after Abort succeeded")
			}
			if err := w.Abort(); err != nil {
				t.Error("second Abort:", err)
			}
			writeAll(t, path, Options{}, []Frame{{ID: 100}})
			if b, _ := os.ReadFile(path); string(b) == "old" {
				t.Error("Close did not replace the target")
			}
			onlyFile(t, dir, "grid"+ext)
		})
	}
}

func TestEmptyExport(t *testing.T) {
	for _, ext := range Formats {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "empty"+ext)
			writeAll(t, path, Options{Columns: testCols}, nil)
			if _, err := os.Stat(path); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRTreeBulkLoad writes lattice cells in a scrambled order (as an
// imported grid may come) for tree depths 0 to 2, then checks the R-tree
// with SQLite's rtreecheck() and compares window queries with a scan.
func TestRTreeBulkLoad(t *testing.T) {
	for _, n := range []int{1, 51, 52, 2601, 2602, 20000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			r0, c0 := grid.CellAt(12.0, 4.0)
			frames := make([]Frame, n)
			for i := range frames {
				k := (i * 7919) % n // a permutation when n is not a multiple of 7919
				frames[i] = Frame{ID: grid.CellID(r0+k/150, c0+k%150)}
			}
			path := filepath.Join(t.TempDir(), "r.gpkg")
			writeAll(t, path, Options{}, frames)
			db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var check string
			if err := db.QueryRow(`SELECT rtreecheck('rtree_frames_geom')`).Scan(&check); err != nil || check != "ok" {
				t.Fatalf("rtreecheck: %q %v", check, err)
			}
			var count int
			db.QueryRow(`SELECT count(*) FROM rtree_frames_geom`).Scan(&count)
			if count != n {
				t.Errorf("%d rows in the R-tree, want %d", count, n)
			}
			for w := 0; w < 5; w++ {
				lon := grid.Lon(c0+w*31) + 0.003
				lat := grid.Lat(r0+w*29) - 0.002
				q := `SELECT count(*) FROM rtree_frames_geom WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ?`
				var got int
				if err := db.QueryRow(q, lon, lon+0.05, lat-0.04, lat).Scan(&got); err != nil {
					t.Fatal(err)
				}
				want := 0
				for _, f := range frames {
					row, col, _ := grid.RowCol(f.ID)
					b := grid.CellBox(row, col)
					if b.MaxLon >= lon && b.MinLon <= lon+0.05 && b.MaxLat >= lat-0.04 && b.MinLat <= lat {
						want++
					}
				}
				if got != want {
					t.Errorf("window %d: %d rows, scan finds %d", w, got, want)
				}
			}
		})
	}
}

// TestExportMode: a new export is made as os.Create makes a file (0666
// less the umask), and a replaced one keeps its mode, so an export of
// licensed data made private stays private.
func TestExportMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe")
	f, err := os.OpenFile(probe, os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, _ := os.Stat(probe)
	want := fi.Mode().Perm() // 0666 less this process's umask
	fresh := filepath.Join(dir, "fresh.geojsonl")
	writeAll(t, fresh, Options{}, []Frame{{ID: 100}})
	if got, _ := os.Stat(fresh); got.Mode().Perm() != want {
		t.Errorf("a new export has mode %o, want %o (as os.Create)", got.Mode().Perm(), want)
	}
	private := filepath.Join(dir, "private.geojsonl")
	os.WriteFile(private, []byte("old"), 0o600)
	writeAll(t, private, Options{}, []Frame{{ID: 100}})
	if got, _ := os.Stat(private); got.Mode().Perm() != 0o600 {
		t.Errorf("a replaced private export has mode %o, want 600", got.Mode().Perm())
	}
}
