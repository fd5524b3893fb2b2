package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/ingest"
	"frameindex/state"
)

// The small test lattice: rows 9700-9719, columns 22480-22499, a 20 x 20
// block of frames just north of Abuja (lon 7.3333-7.5, lat 9.0-9.1667).
const (
	row0, row1 = 9700, 9719
	col0, col1 = 22480, 22499
)

func cell(row, col int) uint64 { return grid.CellID(row, col) }

// centre returns the centre of a lattice cell as lon, lat.
func centre(row, col int) (lon, lat float64) {
	return grid.Lon(col) + 0.5/grid.CellsPerDegree, grid.Lat(row) - 0.5/grid.CellsPerDegree
}

// datasetOps opens a store holding the small lattice and the organisation
// "agency", and records the changes the operations report.
func datasetOps(t testing.TB) (*Ops, *bolt.Store, *[]Change) {
	t.Helper()
	s, _ := openStore(t)
	var runs []grid.Run
	for r := row0; r <= row1; r++ {
		runs = append(runs, grid.Run{Row: int32(r), Col0: col0, Col1: col1})
	}
	if _, err := s.PutLattice(runs, "test block"); err != nil {
		t.Fatal(err)
	}
	mustOrg(t, s, "agency", "pro", 0)
	var changes []Change
	ops := &Ops{Store: s, Now: func() time.Time { return time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC) },
		Changed: func(c Change) { changes = append(changes, c) }}
	return ops, s, &changes
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	attrPop   = state.Attribute{Name: "pop", Label: "Population", Unit: "people", Type: state.TypeNumber, Aggregation: state.AggSum, Year: 2020, Aliases: []string{"people"}}
	attrClass = state.Attribute{Name: "class", Label: "Settlement class", Type: state.TypeCategory, Aggregation: state.AggMode}
	attrName  = state.Attribute{Name: "name", Label: "Name", Type: state.TypeText, Aggregation: state.AggMode}
	attrState = state.Attribute{Name: "state", Label: "State", Type: state.TypeCategory, Aggregation: state.AggMode}
	attrNum   = state.Attribute{Name: "num", Label: "Number", Type: state.TypeNumber, Aggregation: state.AggMean}
)

// recordMap renders records as frame -> attributes text and frame ->
// features, for comparing.
func recordMap(recs []bolt.FrameRecord) (map[uint64]string, map[uint64][]string) {
	attrs, feats := map[uint64]string{}, map[uint64][]string{}
	for _, r := range recs {
		if r.Attrs != nil {
			attrs[r.Frame] = string(r.Attrs)
		}
		for _, f := range r.Features {
			feats[r.Frame] = append(feats[r.Frame], string(f))
		}
	}
	return attrs, feats
}

// gatherOK runs the reading stage of an import and fails on error.
func gatherOK(t *testing.T, ops *Ops, m ingest.Manifest) ([]bolt.FrameRecord, int) {
	t.Helper()
	_, recs, skipped, err := ingest.Gather(context.Background(), m, ops.Store, ops.openInput)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].Frame <= recs[i-1].Frame {
			t.Fatalf("records out of order: %d after %d", recs[i].Frame, recs[i-1].Frame)
		}
	}
	for _, r := range recs {
		if r.Attrs != nil && !json.Valid(r.Attrs) {
			t.Fatalf("frame %d: attributes %s are not JSON", r.Frame, r.Attrs)
		}
		for _, f := range r.Features {
			if !json.Valid(f) {
				t.Fatalf("frame %d: feature %s is not JSON", r.Frame, f)
			}
		}
	}
	return recs, skipped
}

func TestImport_CSVByFrameID(t *testing.T) {
	ops, _, _ := datasetOps(t)
	dir := t.TempDir()
	a, b, c, d := cell(9700, 22480), cell(9701, 22481), cell(9719, 22499), cell(9710, 22490)
	path := writeFile(t, dir, "pop.csv", "\ufeffframe_id,pop,name,class\r\n"+
		fmt.Sprintf("%d,1234,\"Wuse \"\"II\"\"\",urban\r\n", a)+
		fmt.Sprintf("%d,0012.50,,rural\r\n", b)+
		fmt.Sprintf(" %d , -0 ,Garki é <&>,\r\n", c)+
		fmt.Sprintf("%d,,,\r\n", d)+ // nothing recorded
		fmt.Sprintf("%d,1e3,\"line\nbreak\",  \r\n", d+1))
	m := ingest.Manifest{ID: "pop", Owner: "agency", Attributes: []state.Attribute{attrPop, attrClass, attrName},
		Inputs: []ingest.Input{{CSV: path}}}
	recs, skipped := gatherOK(t, ops, m)
	attrs, feats := recordMap(recs)
	want := map[uint64]string{
		a:     `{"pop":1234,"class":"urban","name":"Wuse \"II\""}`,
		b:     `{"pop":12.5,"class":"rural"}`,
		c:     `{"pop":0,"name":"Garki é <&>"}`,
		d + 1: `{"pop":1000,"name":"line\nbreak"}`,
	}
	if !reflect.DeepEqual(attrs, want) || len(feats) != 0 || skipped != 0 || len(recs) != 4 {
		t.Fatalf("got %v (features %v, skipped %d), want %v", attrs, feats, skipped, want)
	}
}

func TestImport_CSVByLatLon(t *testing.T) {
	ops, _, _ := datasetOps(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "pts.csv", "lon,lat,pop\n7.4042,9.0958,5\n7.5,9.1,7\n7.4,9.2,1\n")
	m := ingest.Manifest{ID: "pts", Owner: "agency", Attributes: []state.Attribute{attrPop},
		Inputs: []ingest.Input{{CSV: path, Outside: "skip"}}}
	recs, skipped := gatherOK(t, ops, m)
	attrs, _ := recordMap(recs)
	// (9.0958, 7.4042) is inside row 9708, column 22488; lon 7.5 is the
	// east edge of the block, whose frame (column 22500) is not in the
	// grid, nor is lat 9.2.
	want := map[uint64]string{cell(9708, 22488): `{"pop":5}`}
	if !reflect.DeepEqual(attrs, want) || skipped != 2 {
		t.Fatalf("got %v, skipped %d; want %v, skipped 2", attrs, skipped, want)
	}
}

func TestImport_Features(t *testing.T) {
	ops, _, _ := datasetOps(t)
	dir := t.TempDir()
	pt := func(row, col int) string {
		lon, lat := centre(row, col)
		return fmt.Sprintf("[%v,%v]", lon, lat)
	}
	w := 1.0 / grid.CellsPerDegree
	sq := func(lon, lat, size float64) string { // counter-clockwise square, south-west corner lon, lat
		return fmt.Sprintf("[[[%v,%v],[%v,%v],[%v,%v],[%v,%v],[%v,%v]]]", lon, lat, lon+size, lat, lon+size, lat+size, lon, lat+size, lon, lat)
	}
	// A U three cells wide and high, open to the north: its centroid lies
	// in the notch, so it is located by its surface point.
	ax, by := grid.Lon(22490), grid.Lat(9716)
	u := fmt.Sprintf("[[[%v,%v],[%v,%v],[%v,%v],[%v,%v],[%v,%v],[%v,%v],[%v,%v],[%v,%v],[%v,%v]]]",
		ax, by, ax+3*w, by, ax+3*w, by+3*w, ax+2*w, by+3*w, ax+2*w, by+w, ax+w, by+w, ax+w, by+3*w, ax, by+3*w, ax, by)
	lon0, lat0 := centre(9710, 22480)
	lon1, _ := centre(9710, 22490)
	path := writeFile(t, dir, "things.geojson", `{"type":"FeatureCollection","features":[
 {"type":"Feature","id":7,"properties":{"b":"x<y","a":1.50},"geometry":{"type":"Point","coordinates":`+pt(9705, 22485)+`}},
 {"type":"Feature","properties":null,"geometry":{"type":"MultiPoint","coordinates":[`+pt(9706, 22486)+`,`+pt(9700, 22480)+`]}},
 {"type":"Feature","properties":{"k":"line"},"geometry":{"type":"LineString","coordinates":[`+fmt.Sprintf("[%v,%v],[%v,%v]", lon0, lat0, lon1, lat0)+`]}},
 {"type":"Feature","properties":{"k":"multiline"},"geometry":{"type":"MultiLineString","coordinates":[[`+pt(9711, 22481)+`,`+pt(9711, 22483)+`],[`+pt(9700, 22480)+`,`+pt(9700, 22481)+`]]}},
 {"type":"Feature","properties":{"k":"square"},"geometry":{"type":"Polygon","coordinates":`+sq(grid.Lon(22482), grid.Lat(9713), w)+`}},
 {"type":"Feature","properties":{"k":"U"},"geometry":{"type":"Polygon","coordinates":`+u+`}},
 {"type":"Feature","properties":{"k":"far"},"geometry":{"type":"Point","coordinates":[3.39,6.45]}},
 {"type":"Feature","properties":{"k":"second point here"},"geometry":{"type":"Point","coordinates":`+pt(9705, 22485)+`}}
]}`)
	m := ingest.Manifest{ID: "things", Owner: "agency", Inputs: []ingest.Input{{Features: path, Outside: "skip"}}}
	recs, skipped := gatherOK(t, ops, m)
	attrs, feats := recordMap(recs)
	lonP, latP := centre(9705, 22485)
	lonM, latM := centre(9706, 22486)
	lonA, latA := centre(9700, 22480)
	want := map[uint64][]string{
		cell(9705, 22485): {
			fmt.Sprintf(`{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[%v,%v]},"properties":{"b":"x<y","a":1.50}}`, lonP, latP),
			fmt.Sprintf(`{"type":"Feature","geometry":{"type":"Point","coordinates":[%v,%v]},"properties":{"k":"second point here"}}`, lonP, latP),
		},
		cell(9706, 22486): {fmt.Sprintf(`{"type":"Feature","geometry":{"type":"MultiPoint","coordinates":[[%v,%v],[%v,%v]]},"properties":null}`, lonM, latM, lonA, latA)},
		cell(9710, 22485): {fmt.Sprintf(`{"type":"Feature","geometry":{"type":"LineString","coordinates":[[%v,%v],[%v,%v]]},"properties":{"k":"line"}}`, lon0, lat0, lon1, lat0)},
		cell(9711, 22482): nil, // filled below: only the properties matter
		cell(9712, 22482): nil,
		cell(9714, 22490): nil,
	}
	if len(attrs) != 0 || skipped != 1 || len(feats) != len(want) {
		t.Fatalf("attributes %v, skipped %d, features on %d frames: %v", attrs, skipped, len(feats), feats)
	}
	for id, fs := range want {
		if fs != nil && !reflect.DeepEqual(feats[id], fs) {
			t.Errorf("frame %d: got %q, want %q", id, feats[id], fs)
		}
	}
	for id, k := range map[uint64]string{cell(9711, 22482): "multiline", cell(9712, 22482): "square", cell(9714, 22490): "U"} {
		if len(feats[id]) != 1 || !strings.Contains(feats[id][0], `"properties":{"k":"`+k+`"}`) {
			t.Errorf("frame %d: got %q, want the %s", id, feats[id], k)
		}
	}
}

func TestImport_Zones(t *testing.T) {
	ops, _, _ := datasetOps(t)
	dir := t.TempDir()
	box := func(c0, c1, r0, r1 int) string { // the cells c0..c1 x r0..r1, counter-clockwise
		w, e, n, s := grid.Lon(c0), grid.Lon(c1+1), grid.Lat(r0), grid.Lat(r1+1)
		return fmt.Sprintf("[[[%v,%v],[%v,%v],[%v,%v],[%v,%v],[%v,%v]]]", w, s, e, s, e, n, w, n, w, s)
	}
	path := writeFile(t, dir, "zones.geojson", `{"type":"FeatureCollection","features":[
 {"type":"Feature","properties":{"st":"Alpha","n":12.0,"other":true},"geometry":{"type":"Polygon","coordinates":`+box(22480, 22484, 9700, 9704)+`}},
 {"type":"Feature","properties":{"st":"Beta","n":null},"geometry":{"type":"MultiPolygon","coordinates":[`+box(22483, 22489, 9702, 9706)+`]}},
 {"type":"Feature","properties":{"st":"Outside"},"geometry":{"type":"Polygon","coordinates":[[[3,6],[4,6],[4,7],[3,7],[3,6]]]}}
]}`)
	csvPath := writeFile(t, dir, "pop.csv", fmt.Sprintf("frame_id,pop\n%d,5\n%d,6\n", cell(9700, 22480), cell(9719, 22499)))
	m := ingest.Manifest{ID: "admin", Owner: "agency", Attributes: []state.Attribute{attrState, attrNum, attrPop},
		Inputs: []ingest.Input{{Zones: path, Properties: map[string]string{"st": "state", "n": "num"}}, {CSV: csvPath}}}
	recs, _ := gatherOK(t, ops, m)
	attrs, _ := recordMap(recs)
	if len(attrs) != 25+35-6+1 {
		t.Errorf("%d frames recorded, want 55 (zones of 25 and 35 overlapping on 6, and one CSV row)", len(attrs))
	}
	for _, tc := range []struct {
		row, col int
		want     string
	}{
		{9700, 22480, `{"state":"Alpha","num":12.0,"pop":5}`}, // zone and CSV merged, in declared order
		{9704, 22484, `{"state":"Alpha","num":12.0}`},
		{9703, 22483, `{"state":"Alpha","num":12.0}`}, // in both zones: the first wins
		{9702, 22485, `{"state":"Beta"}`},             // null property: absent
		{9706, 22489, `{"state":"Beta"}`},
		{9707, 22489, ``},
		{9700, 22485, ``},
		{9719, 22499, `{"pop":6}`},
	} {
		if got := attrs[cell(tc.row, tc.col)]; got != tc.want {
			t.Errorf("frame (%d, %d): %q, want %q", tc.row, tc.col, got, tc.want)
		}
	}
}

// TestImport_BadInput runs every kind of bad input through the operation
// and checks the error names the file and the line or feature, and that
// nothing was written.
func TestImport_BadInput(t *testing.T) {
	ops, s, changes := datasetOps(t)
	dir := t.TempDir()
	id := cell(9705, 22485)
	f := func(name, content string) string { return writeFile(t, dir, name, content) }
	csvIn := func(p string) []ingest.Input { return []ingest.Input{{CSV: p}} }
	pop := []state.Attribute{attrPop}
	sq := `[[[7.4,9.05],[7.41,9.05],[7.41,9.06],[7.4,9.06],[7.4,9.05]]]`
	var (
		badNumber   = f("bad-number.csv", fmt.Sprintf("frame_id,pop\n%d,1\n%d,12x\n", id, id+1))
		infNumber   = f("inf.csv", fmt.Sprintf("frame_id,pop\n%d,1e999\n", id))
		unknown     = f("unknown.csv", fmt.Sprintf("frame_id,pop\n%d,1\n5,2\n", id))
		notID       = f("not-id.csv", "frame_id,pop\n12a,1\n")
		emptyID     = f("empty-id.csv", "frame_id,pop\n,1\n")
		outside     = f("outside.csv", "lat,lon,pop\n9.1,7.4,1\n10.5,7.4,2\n")
		latRange    = f("lat-range.csv", "lat,lon,pop\n95,7.4,1\n")
		latText     = f("lat-text.csv", "lat,lon,pop\nnine,7.4,1\n")
		noKey       = f("no-key.csv", "pop\n1\n")
		latOnly     = f("lat-only.csv", "lat,pop\n9.1,1\n")
		bothKeys    = f("both-keys.csv", "frame_id,lat,lon,pop\n1,2,3,4\n")
		undeclared  = f("undeclared.csv", fmt.Sprintf("frame_id,pop,colour\n%d,1,red\n", id))
		dupColumn   = f("dup-column.csv", fmt.Sprintf("frame_id,pop,pop\n%d,1,2\n", id))
		noName      = f("no-name.csv", fmt.Sprintf("frame_id,,pop\n%d,1,2\n", id))
		dupA        = f("a.csv", fmt.Sprintf("frame_id,pop\n%d,1\n", id))
		dupB        = f("b.csv", fmt.Sprintf("frame_id,pop\n%d,1\n%d,2\n", id+1, id))
		dupRow      = f("dup-row.csv", "lat,lon,pop\n9.1,7.4,1\n9.0999,7.4001,2\n")
		badUTF8     = f("latin1.csv", fmt.Sprintf("frame_id,name\n%d,caf\xe9\n", id))
		badUTF8Head = f("latin1-head.csv", "frame_id,caf\xe9\n")
		empty       = f("empty.csv", "")
		headerOnly  = f("header-only.csv", "frame_id,pop\n")
		fieldCount  = f("field-count.csv", fmt.Sprintf("frame_id,pop\n%d,1\n%d,1,2\n", id, id+1))
		quoteLines  = f("quote-lines.csv", fmt.Sprintf("frame_id,name\n%d,\"two\nlines\"\n%d,\"bad\"quote\n", id, id+1))
		brokenGeom  = f("broken.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[7.4,9.1]}},
{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[7.4,9.05],[7.41,9.06],[7.41,9.05],[7.4,9.06],[7.4,9.05]]]}}]}`)
		unclosed   = f("unclosed.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[7.4,9.05],[7.41,9.05],[7.41,9.06]]]}}]}`)
		noGeom     = f("no-geom.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":null}]}`)
		farPoint   = f("far.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[3.39,6.45]}}]}`)
		noFeatures = f("none.geojson", `{"type":"FeatureCollection","features":[]}`)
		notJSON    = f("not-json.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature",`)
		propsArray = f("props-array.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":[1],"geometry":null}]}`)
		zonePoint  = f("zone-point.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":1},"geometry":{"type":"Point","coordinates":[7.4,9.1]}}]}`)
		zoneText   = f("zone-text.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":1},"geometry":{"type":"Polygon","coordinates":`+sq+`}},{"type":"Feature","properties":{"n":"many"},"geometry":{"type":"Polygon","coordinates":`+sq+`}}]}`)
		zoneNumber = f("zone-number.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"st":7},"geometry":{"type":"Polygon","coordinates":`+sq+`}}]}`)
		zoneBool   = f("zone-bool.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"st":true},"geometry":{"type":"Polygon","coordinates":`+sq+`}}]}`)
		zoneA      = f("zone-a.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"st":"A"},"geometry":{"type":"Polygon","coordinates":`+sq+`}}]}`)
		zoneB      = f("zone-b.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"x":"B"},"geometry":{"type":"Polygon","coordinates":[[[7.34,9.01],[7.36,9.01],[7.36,9.02],[7.34,9.02],[7.34,9.01]]]}},{"type":"Feature","properties":{"x":"B2"},"geometry":{"type":"Polygon","coordinates":`+sq+`}}]}`)
		allEmpty   = f("all-empty.csv", fmt.Sprintf("frame_id,pop\n%d,\n", id))
	)
	tests := []struct {
		name string
		m    ingest.Manifest
		kind error
		want string
	}{
		{"bad number", ingest.Manifest{Attributes: pop, Inputs: csvIn(badNumber)}, state.ErrInvalid, badNumber + ` line 3: column "pop": "12x" is not a finite decimal number`},
		{"infinite number", ingest.Manifest{Attributes: pop, Inputs: csvIn(infNumber)}, state.ErrInvalid, infNumber + ` line 2: column "pop": "1e999" is not a finite decimal number`},
		{"unknown frame", ingest.Manifest{Attributes: pop, Inputs: csvIn(unknown)}, state.ErrInvalid, unknown + ` line 3: frame 5 is not in the grid`},
		{"frame id not a number", ingest.Manifest{Attributes: pop, Inputs: csvIn(notID)}, state.ErrInvalid, notID + ` line 2: frame_id "12a" is not a frame id`},
		{"frame id empty", ingest.Manifest{Attributes: pop, Inputs: csvIn(emptyID)}, state.ErrInvalid, emptyID + ` line 2: frame_id is empty`},
		{"lat/lon on no frame", ingest.Manifest{Attributes: pop, Inputs: csvIn(outside)}, state.ErrInvalid, outside + ` line 3: lat 10.5, lon 7.4 is on no frame of the grid`},
		{"lat out of range", ingest.Manifest{Attributes: pop, Inputs: csvIn(latRange)}, state.ErrInvalid, latRange + ` line 2: lat 95 is outside -90..90`},
		{"lat not a number", ingest.Manifest{Attributes: pop, Inputs: csvIn(latText)}, state.ErrInvalid, latText + ` line 2: lat "nine" is not a decimal number`},
		{"no key column", ingest.Manifest{Attributes: pop, Inputs: csvIn(noKey)}, state.ErrInvalid, noKey + ` line 1: has no frame_id column, nor lat and lon columns`},
		{"lat without lon", ingest.Manifest{Attributes: pop, Inputs: csvIn(latOnly)}, state.ErrInvalid, latOnly + ` line 1: has a lat column but no lon column`},
		{"both keys", ingest.Manifest{Attributes: pop, Inputs: csvIn(bothKeys)}, state.ErrInvalid, bothKeys + ` line 1: has frame_id and lat/lon columns`},
		{"undeclared column", ingest.Manifest{Attributes: pop, Inputs: csvIn(undeclared)}, state.ErrInvalid, undeclared + ` line 1: column "colour" is not a declared attribute (declared: pop)`},
		{"column twice", ingest.Manifest{Attributes: pop, Inputs: csvIn(dupColumn)}, state.ErrInvalid, dupColumn + ` line 1: column "pop" appears twice (columns 2 and 3)`},
		{"column without name", ingest.Manifest{Attributes: pop, Inputs: csvIn(noName)}, state.ErrInvalid, noName + ` line 1: column 2 has no name`},
		{"declared attribute in no input", ingest.Manifest{Attributes: []state.Attribute{attrPop, attrClass}, Inputs: csvIn(dupA)}, state.ErrInvalid, `attribute "class" is declared but no input gives it`},
		{"same attribute from two inputs", ingest.Manifest{Attributes: pop, Inputs: []ingest.Input{{CSV: dupA}, {CSV: dupB}}}, state.ErrInvalid,
			fmt.Sprintf(`frame %d is given attribute "pop" twice: by %s line 2 and by %s line 3`, id, dupA, dupB)},
		{"two rows on one frame", ingest.Manifest{Attributes: pop, Inputs: csvIn(dupRow)}, state.ErrInvalid,
			fmt.Sprintf(`frame %d is given attribute "pop" twice: by %s line 2 and by %s line 3`, cell(9708, 22488), dupRow, dupRow)},
		{"zone and CSV give one attribute", ingest.Manifest{Attributes: []state.Attribute{attrState}, Inputs: []ingest.Input{
			{Zones: zoneA, Properties: map[string]string{"st": "state"}}, {Zones: zoneB, Properties: map[string]string{"x": "state"}}}}, state.ErrInvalid,
			fmt.Sprintf(`is given attribute "state" twice: by %s feature 0 and by %s feature 1`, zoneA, zoneB)},
		{"invalid UTF-8", ingest.Manifest{Attributes: []state.Attribute{attrName}, Inputs: csvIn(badUTF8)}, state.ErrInvalid, badUTF8 + ` line 2: column "name": not valid UTF-8 (the file must be UTF-8)`},
		{"invalid UTF-8 header", ingest.Manifest{Attributes: []state.Attribute{attrName}, Inputs: csvIn(badUTF8Head)}, state.ErrInvalid, badUTF8Head + ` line 1: column 2: the header is not valid UTF-8`},
		{"empty file", ingest.Manifest{Attributes: pop, Inputs: csvIn(empty)}, state.ErrInvalid, empty + `: the file is empty; want a header row`},
		{"header only", ingest.Manifest{Attributes: pop, Inputs: csvIn(headerOnly)}, state.ErrInvalid, headerOnly + `: the file has a header but no rows`},
		{"wrong field count", ingest.Manifest{Attributes: pop, Inputs: csvIn(fieldCount)}, state.ErrInvalid, fieldCount + ` line 3: wrong number of fields`},
		{"bad quote after a two-line field", ingest.Manifest{Attributes: []state.Attribute{attrName}, Inputs: csvIn(quoteLines)}, state.ErrInvalid, quoteLines + ` line 4: extraneous or missing " in quoted-field`},
		{"nothing recorded", ingest.Manifest{Attributes: pop, Inputs: csvIn(allEmpty)}, state.ErrInvalid, `nothing to import`},
		{"broken polygon feature", ingest.Manifest{Inputs: []ingest.Input{{Features: brokenGeom}}}, state.ErrInvalid, brokenGeom + ` feature 1: `},
		{"unclosed polygon feature", ingest.Manifest{Inputs: []ingest.Input{{Features: unclosed}}}, state.ErrInvalid, unclosed + ` feature 0: `},
		{"feature without geometry", ingest.Manifest{Inputs: []ingest.Input{{Features: noGeom}}}, state.ErrInvalid, noGeom + ` feature 0: has no geometry`},
		{"feature outside the grid", ingest.Manifest{Inputs: []ingest.Input{{Features: farPoint}}}, state.ErrInvalid, farPoint + ` feature 0: its point (lon 3.39, lat 6.45) is on no frame of the grid`},
		{"no features", ingest.Manifest{Inputs: []ingest.Input{{Features: noFeatures}}}, state.ErrInvalid, noFeatures + `: no features`},
		{"truncated GeoJSON", ingest.Manifest{Inputs: []ingest.Input{{Features: notJSON}}}, state.ErrInvalid, notJSON + `: feature 0: unexpected EOF`},
		{"properties an array", ingest.Manifest{Inputs: []ingest.Input{{Features: propsArray}}}, state.ErrInvalid, propsArray + `: feature 0: properties is an array, want an object`},
		{"zone not a polygon", ingest.Manifest{Attributes: []state.Attribute{attrNum}, Inputs: []ingest.Input{{Zones: zonePoint, Properties: map[string]string{"n": "num"}}}}, state.ErrInvalid,
			zonePoint + ` feature 0: geometry type "Point" is not Polygon or MultiPolygon`},
		{"zone string for a number", ingest.Manifest{Attributes: []state.Attribute{attrNum}, Inputs: []ingest.Input{{Zones: zoneText, Properties: map[string]string{"n": "num"}}}}, state.ErrInvalid,
			zoneText + ` feature 1: property "n" is the string "many", but attribute "num" is a number`},
		{"zone number for a category", ingest.Manifest{Attributes: []state.Attribute{attrState}, Inputs: []ingest.Input{{Zones: zoneNumber, Properties: map[string]string{"st": "state"}}}}, state.ErrInvalid,
			zoneNumber + ` feature 0: property "st" is the number 7, but attribute "state" is a category (want a string)`},
		{"zone boolean", ingest.Manifest{Attributes: []state.Attribute{attrState}, Inputs: []ingest.Input{{Zones: zoneBool, Properties: map[string]string{"st": "state"}}}}, state.ErrInvalid,
			zoneBool + ` feature 0: property "st" is a boolean; attribute "state" takes a string`},
		{"missing file", ingest.Manifest{Attributes: pop, Inputs: csvIn(filepath.Join(dir, "nope.csv"))}, state.ErrInvalid, `nope.csv: no such file or directory`},
		{"directory", ingest.Manifest{Attributes: pop, Inputs: csvIn(dir)}, state.ErrInvalid, dir + ` is a directory`},
		// The manifest itself.
		{"bad id", ingest.Manifest{ID: "Pop!", Attributes: pop, Inputs: csvIn(dupA)}, state.ErrInvalid, `invalid dataset id "Pop!"`},
		{"unknown owner", ingest.Manifest{Owner: "nobody", Attributes: pop, Inputs: csvIn(dupA)}, state.ErrNotFound, `dataset "x": owner: organisation "nobody" not found`},
		{"no owner", ingest.Manifest{Owner: "-", Attributes: pop, Inputs: csvIn(dupA)}, state.ErrInvalid, `no owner organisation`},
		{"negative price", ingest.Manifest{Price: -1, Attributes: pop, Inputs: csvIn(dupA)}, state.ErrInvalid, `price -1 is negative`},
		{"no inputs", ingest.Manifest{Attributes: pop}, state.ErrInvalid, `no inputs`},
		{"relative path", ingest.Manifest{Attributes: pop, Inputs: csvIn("pop.csv")}, state.ErrInvalid, `input 0: path "pop.csv" must be absolute`},
		{"two kinds in one input", ingest.Manifest{Attributes: pop, Inputs: []ingest.Input{{CSV: dupA, Features: farPoint}}}, state.ErrInvalid, `input 0: give exactly one of csv, features, zones and raster`},
		{"zones without properties", ingest.Manifest{Inputs: []ingest.Input{{Zones: zoneA}}}, state.ErrInvalid, `a zones input needs properties`},
		{"property to an undeclared attribute", ingest.Manifest{Inputs: []ingest.Input{{Zones: zoneA, Properties: map[string]string{"st": "state"}}}}, state.ErrInvalid, `property "st" maps to "state", which is not a declared attribute`},
		{"properties on a CSV", ingest.Manifest{Attributes: pop, Inputs: []ingest.Input{{CSV: dupA, Properties: map[string]string{"a": "pop"}}}}, state.ErrInvalid, `properties are for zones inputs`},
		{"outside on zones", ingest.Manifest{Attributes: []state.Attribute{attrState}, Inputs: []ingest.Input{{Zones: zoneA, Outside: "skip", Properties: map[string]string{"st": "state"}}}}, state.ErrInvalid, `outside: skip is for csv and features inputs`},
		{"outside unknown", ingest.Manifest{Attributes: pop, Inputs: []ingest.Input{{CSV: dupA, Outside: "ignore"}}}, state.ErrInvalid, `outside "ignore": want error or skip`},
		{"sum of a category", ingest.Manifest{Attributes: []state.Attribute{{Name: "c", Type: state.TypeCategory, Aggregation: state.AggSum}}, Inputs: csvIn(dupA)}, state.ErrInvalid, `attribute "c": aggregation "sum" is only for numbers`},
		{"number without aggregation", ingest.Manifest{Attributes: []state.Attribute{{Name: "n", Type: state.TypeNumber}}, Inputs: csvIn(dupA)}, state.ErrInvalid, `attribute "n": a number needs an aggregation`},
		{"unknown type", ingest.Manifest{Attributes: []state.Attribute{{Name: "n", Type: "integer", Aggregation: "sum"}}, Inputs: csvIn(dupA)}, state.ErrInvalid, `attribute "n": type "integer": want number, category or text`},
		{"bad attribute name", ingest.Manifest{Attributes: []state.Attribute{{Name: "pop 2020", Type: state.TypeNumber, Aggregation: "sum"}}, Inputs: csvIn(dupA)}, state.ErrInvalid, `attribute 0: name "pop 2020" must match`},
		{"reserved attribute name", ingest.Manifest{Attributes: []state.Attribute{{Name: "lat", Type: state.TypeNumber, Aggregation: "mean"}}, Inputs: csvIn(dupA)}, state.ErrInvalid, `attribute "lat": the name is reserved`},
		{"attribute twice", ingest.Manifest{Attributes: []state.Attribute{attrPop, attrPop}, Inputs: csvIn(dupA)}, state.ErrInvalid, `attribute "pop" is declared twice`},
	}
	before, err := s.Datasets()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			if m.ID == "" {
				m.ID = "x"
			}
			switch m.Owner {
			case "":
				m.Owner = "agency"
			case "-":
				m.Owner = ""
			}
			_, err := ops.run(context.Background(), OpDatasetImport, mustJSON(t, DatasetImport{Manifest: m}))
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %v with %q", err, tc.kind, tc.want)
			}
		})
	}
	after, err := s.Datasets()
	if err != nil || !reflect.DeepEqual(before, after) || len(*changes) != 0 {
		t.Fatalf("a refused import changed the datasets: %v -> %v (%v), changes %v", before, after, err, *changes)
	}
}

func TestReadManifest(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "m.json", `{"id":"pop","owner":"agency","attributes":[{"name":"pop","label":"P","type":"number","aggregation":"sum"}],
"inputs":[{"csv":"data/pop.csv"},{"zones":"/abs/z.geojson","properties":{"a":"b"}}]}`)
	m, err := ingest.ReadManifest(p)
	if err != nil {
		t.Fatal(err)
	}
	want := ingest.Manifest{ID: "pop", Owner: "agency", Attributes: []state.Attribute{{Name: "pop", Label: "P", Type: "number", Aggregation: "sum"}},
		Inputs: []ingest.Input{{CSV: filepath.Join(dir, "data", "pop.csv")}, {Zones: "/abs/z.geojson", Properties: map[string]string{"a": "b"}}}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	for name, content := range map[string]string{
		"unknown member": `{"id":"x","colour":"red"}`,
		"trailing data":  `{"id":"x"} {}`,
		"not JSON":       `{"id":`,
	} {
		p := writeFile(t, dir, "bad.json", content)
		if _, err := ingest.ReadManifest(p); !errors.Is(err, state.ErrInvalid) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want ErrInvalid naming the file", name, err)
		}
	}
}

// TestImport_StoreAndReimport imports through the operation, reads the
// records back, refuses a bad re-import without touching the stored
// version, and replaces it with a good one.
func TestImport_StoreAndReimport(t *testing.T) {
	ops, s, changes := datasetOps(t)
	dir := t.TempDir()
	a, b := cell(9700, 22480), cell(9701, 22481)
	v1 := writeFile(t, dir, "v1.csv", fmt.Sprintf("frame_id,pop\n%d,10\n%d,20\n", a, b))
	m := ingest.Manifest{ID: "pop", Name: "Population", Owner: "agency", Attributes: []state.Attribute{attrPop},
		Inputs: []ingest.Input{{CSV: v1}}}
	res, err := ops.run(context.Background(), OpDatasetImport, mustJSON(t, DatasetImport{Manifest: m}))
	if err != nil {
		t.Fatal(err)
	}
	got := res.(DatasetView)
	if got.ID != "pop" || got.Owner != "agency" || got.Price != 1 || got.Frames != 2 || got.Features != 0 ||
		got.Version < 1 || got.Source != "csv v1.csv" || !reflect.DeepEqual(got.Attributes, []state.Attribute{attrPop}) {
		t.Fatalf("imported %+v", got)
	}
	if !reflect.DeepEqual(*changes, []Change{ChangeDatasets}) {
		t.Fatalf("changes %v, want ChangeDatasets", *changes)
	}
	fd, err := s.ReadFrames([]string{"pop"}, []uint64{b, a, 5}, true, 200)
	if err != nil {
		t.Fatal(err)
	}
	want := []bolt.FrameData{
		{Frame: b, Datasets: []bolt.DatasetFrame{{Dataset: "pop", Attrs: []byte(`{"pop":20}`)}}},
		{Frame: a, Datasets: []bolt.DatasetFrame{{Dataset: "pop", Attrs: []byte(`{"pop":10}`)}}},
		{Frame: 5},
	}
	if !reflect.DeepEqual(fd, want) {
		t.Fatalf("read back %+v\nwant %+v", fd, want)
	}

	bad := writeFile(t, dir, "bad.csv", fmt.Sprintf("frame_id,pop\n%d,1\n%d,x\n", a, b))
	m.Inputs = []ingest.Input{{CSV: bad}}
	if _, err := ops.run(context.Background(), OpDatasetImport, mustJSON(t, DatasetImport{Manifest: m})); !errors.Is(err, state.ErrInvalid) {
		t.Fatalf("bad re-import: %v", err)
	}
	if d, err := s.Dataset("pop"); err != nil || d.Version != got.Version || d.Frames != 2 {
		t.Fatalf("after a refused re-import: %+v, %v", d, err)
	}

	v2 := writeFile(t, dir, "v2.csv", fmt.Sprintf("frame_id,pop\n%d,30\n", b))
	m.Inputs = []ingest.Input{{CSV: v2}}
	res, err = ops.run(context.Background(), OpDatasetImport, mustJSON(t, DatasetImport{Manifest: m}))
	if err != nil {
		t.Fatal(err)
	}
	if d := res.(DatasetView); d.Version <= got.Version || d.Frames != 1 {
		t.Fatalf("re-imported %+v after version %d", d, got.Version)
	}
	fd, err = s.ReadFrames([]string{"pop"}, []uint64{a, b}, false, 200)
	if err != nil {
		t.Fatal(err)
	}
	want = []bolt.FrameData{{Frame: a}, {Frame: b, Datasets: []bolt.DatasetFrame{{Dataset: "pop", Attrs: []byte(`{"pop":30}`)}}}}
	if !reflect.DeepEqual(fd, want) {
		t.Fatalf("after re-import %+v\nwant %+v", fd, want)
	}
}

// TestOps_DatasetsAndLicences runs the other dataset and licence
// operations in order.
func TestOps_DatasetsAndLicences(t *testing.T) {
	ops, s, changes := datasetOps(t)
	mustOrg(t, s, "buyer", "trial", 0)
	dir := t.TempDir()
	p := writeFile(t, dir, "pop.csv", fmt.Sprintf("frame_id,pop\n%d,10\n", cell(9700, 22480)))
	ctx := context.Background()
	if _, err := ops.run(ctx, OpDatasetImport, mustJSON(t, DatasetImport{Manifest: ingest.Manifest{ID: "pop", Owner: "agency",
		Attributes: []state.Attribute{attrPop}, Inputs: []ingest.Input{{CSV: p}}}})); err != nil {
		t.Fatal(err)
	}
	do := func(op string, args any) any {
		t.Helper()
		res, err := ops.run(ctx, op, mustJSON(t, args))
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return res
	}
	if ds := do(OpDatasetList, struct{}{}).([]state.Dataset); len(ds) != 1 || ds[0].ID != "pop" {
		t.Fatalf("list: %+v", ds)
	}
	if d := do(OpDatasetPrice, DatasetPrice{ID: "pop", Credits: 3}).(state.Dataset); d.Price != 3 {
		t.Fatalf("price: %+v", d)
	}
	l := do(OpLicenceGrant, LicenceGrant{OrgID: "buyer", Dataset: "pop", Mode: state.LicencePerQuery}).(state.Licence)
	wantL := state.Licence{OrgID: "buyer", Dataset: "pop", Mode: state.LicencePerQuery, Granted: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC), Price: 3, Priced: true}
	if !reflect.DeepEqual(l, wantL) {
		t.Fatalf("grant: %+v, want %+v", l, wantL)
	}
	if d := do(OpDatasetShow, DatasetShow{ID: "pop"}).(DatasetDetail); d.Price != 3 || !reflect.DeepEqual(d.Licences, []state.Licence{wantL}) {
		t.Fatalf("show: %+v", d)
	}
	if ls := do(OpLicenceList, LicenceList{OrgID: "buyer"}).([]state.Licence); !reflect.DeepEqual(ls, []state.Licence{wantL}) {
		t.Fatalf("licence list: %+v", ls)
	}
	if r := do(OpLicenceRevoke, LicenceRevoke{OrgID: "buyer", Dataset: "pop"}).(state.Licence); !reflect.DeepEqual(r, wantL) {
		t.Fatalf("revoke: %+v", r)
	}
	if ls := do(OpLicenceList, LicenceList{}).([]state.Licence); len(ls) != 0 || ls == nil {
		t.Fatalf("licences after revoke: %#v, want []", ls)
	}
	if d := do(OpDatasetRemove, DatasetRemove{ID: "pop"}).(state.Dataset); d.ID != "pop" {
		t.Fatalf("remove: %+v", d)
	}
	if ds := do(OpDatasetList, struct{}{}).([]state.Dataset); len(ds) != 0 || ds == nil {
		t.Fatalf("list after remove: %#v, want []", ds)
	}
	want := []Change{ChangeDatasets, ChangeDatasets, ChangeDatasets, ChangeDatasets, ChangeDatasets}
	if !reflect.DeepEqual(*changes, want) {
		t.Fatalf("changes %v, want %v", *changes, want)
	}
	for _, tc := range []struct {
		op   string
		args any
		kind error
		text string
	}{
		{OpDatasetShow, DatasetShow{ID: "pop"}, state.ErrNotFound, ""},
		{OpDatasetRemove, DatasetRemove{ID: "pop"}, state.ErrNotFound, ""},
		{OpDatasetPrice, DatasetPrice{ID: "pop", Credits: -1}, state.ErrInvalid, "negative"},
		{OpLicenceGrant, LicenceGrant{OrgID: "buyer", Dataset: "pop", Mode: "forever"}, state.ErrInvalid, `licence mode "forever"`},
		{OpLicenceGrant, LicenceGrant{OrgID: "buyer", Dataset: "pop", Mode: state.LicenceSubscription}, state.ErrNotFound, ""},
		{OpDatasetShow, map[string]any{"id": "pop", "colour": 1}, state.ErrInvalid, "arguments"},
	} {
		if _, err := ops.run(ctx, tc.op, mustJSON(t, tc.args)); !errors.Is(err, tc.kind) || !strings.Contains(fmt.Sprint(err), tc.text) {
			t.Errorf("%s %+v: %v, want %v with %q", tc.op, tc.args, err, tc.kind, tc.text)
		}
	}
}

// TestDatasetView_JSON pins the flat shape of an import's result.
func TestDatasetView_JSON(t *testing.T) {
	v := DatasetView{Dataset: state.Dataset{ID: "h", Name: "H", Owner: "o", Price: 1, Version: 2, Frames: 3, Features: 4,
		ImportedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}, Skipped: 9}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"h","name":"H","owner":"o","price":1,"version":2,"frames":3,"features":4,"importedAt":"2026-01-02T03:04:05Z","skipped":9}`
	if string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
}

// TestImport_RealBoundaries puts states and LGAs onto the national grid as
// zones and checks known places; then the OSM health facilities as
// features.
func TestImport_RealBoundaries(t *testing.T) {
	states, err := filepath.Abs(ngaFile(t, "nga_states.geojson"))
	if err != nil {
		t.Fatal(err)
	}
	lgas, _ := filepath.Abs(ngaFile(t, "nga_lgas.geojson"))
	health, _ := filepath.Abs(ngaFile(t, "nga_health_facilities_osm.geojson"))
	ops, s := nationalOps(t)
	ctx := context.Background()
	lga := state.Attribute{Name: "lga", Label: "Local government area", Type: state.TypeCategory, Aggregation: state.AggMode}
	m := ingest.Manifest{ID: "admin", Name: "Administrative identity", Owner: "demo", Attributes: []state.Attribute{attrState, lga},
		Inputs: []ingest.Input{
			{Zones: states, Properties: map[string]string{"state_name": "state"}},
			{Zones: lgas, Properties: map[string]string{"lga_name": "lga"}},
		}}
	res, err := ops.run(ctx, OpDatasetImport, mustJSON(t, DatasetImport{Manifest: m}))
	if err != nil {
		t.Fatal(err)
	}
	d := res.(DatasetView)
	// Cells whose centre is in the country: 1,083,396 (SOURCES.md, by
	// gdal_rasterize); the state and LGA polygons (simplified LGAs reach a
	// little beyond the outline) hold 1,083,435 of the grid's centres.
	if d.Frames < 1_080_000 || d.Frames > 1_086_885 {
		t.Errorf("admin dataset covers %d frames, want about 1,083,396", d.Frames)
	}
	ix := loadIndex(t, s)
	wantState := map[string]string{"Kano city centre": "Kano", "Lagos Island": "Lagos", "central Abuja": "Federal Capital Territory"}
	for _, p := range places {
		sh, ok := ix.At(p.lat, p.lon)
		if !ok {
			t.Fatalf("%s is on no frame", p.name)
		}
		fd, err := s.ReadFrames([]string{"admin"}, []uint64{sh.ID}, false, 200)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]string
		if len(fd) == 1 && len(fd[0].Datasets) == 1 {
			json.Unmarshal(fd[0].Datasets[0].Attrs, &got)
		}
		want := map[string]string{"state": wantState[p.name], "lga": p.lga}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s (frame %d): %v, want %v", p.name, sh.ID, got, want)
		}
	}

	res, err = ops.run(ctx, OpDatasetImport, mustJSON(t, DatasetImport{Manifest: ingest.Manifest{ID: "health", Owner: "demo",
		Inputs: []ingest.Input{{Features: health, Outside: "skip"}}}}))
	if err != nil {
		t.Fatal(err)
	}
	h := res.(DatasetView)
	// 4,385 facilities; 9 lie outside every LGA polygon (SOURCES.md), and
	// 2 of those outside every cell the country's outline touches.
	if h.Features != 4383 || h.Skipped != 2 {
		t.Errorf("health: %d features stored, %d skipped; want 4,383 and 2", h.Features, h.Skipped)
	}
}

// BenchmarkImport_NationalCSV imports a CSV with a number for every frame
// of the national grid (about 1.1 million rows), end to end: reading,
// checking, and storing the new version.
func BenchmarkImport_NationalCSV(b *testing.B) {
	ops, m := nationalCSV(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ops.ImportDataset(ctx, DatasetImport{Manifest: m}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGather_NationalCSV is the reading part of the import alone.
func BenchmarkGather_NationalCSV(b *testing.B) {
	ops, m := nationalCSV(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := ingest.Gather(ctx, m, ops.Store, ops.openInput); err != nil {
			b.Fatal(err)
		}
	}
}

// nationalOps opens a store holding organisation "demo" and the national
// grid, built from Nigeria's outline; it skips when the real data is
// absent.
func nationalOps(tb testing.TB) (*Ops, *bolt.Store) {
	tb.Helper()
	country := ngaFile(tb, "nga_country.geojson")
	s, _ := openStore(tb)
	mustOrg(tb, s, "demo", "pro", 0)
	ops := &Ops{Store: s}
	if _, err := ops.run(context.Background(), OpGridBuild, mustJSON(tb, GridBuild{Boundary: country})); err != nil {
		tb.Fatal(err)
	}
	return ops, s
}

// nationalCSV returns nationalOps and the manifest of a CSV, written for
// the benchmark, with a number for every frame of the national grid
// (frame_id,pop).
func nationalCSV(b *testing.B) (*Ops, ingest.Manifest) {
	b.Helper()
	ops, s := nationalOps(b)
	ix := loadIndex(b, s)
	var buf bytes.Buffer
	buf.WriteString("frame_id,pop\n")
	n := 0
	ix.Box(ix.Bounds(), ix.Len(), func(sh grid.Shape) bool {
		n++
		fmt.Fprintf(&buf, "%d,%d.%d\n", sh.ID, n%5000, n%10)
		return true
	})
	path := filepath.Join(b.TempDir(), "national.csv")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return ops, ingest.Manifest{ID: "pop", Owner: "demo", Attributes: []state.Attribute{attrPop}, Inputs: []ingest.Input{{CSV: path}}}
}
