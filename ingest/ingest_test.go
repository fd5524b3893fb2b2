package ingest

import (
	"encoding/json"
	"strings"
	"testing"

	"frameindex/grid"
	"frameindex/state"
)

// The small test lattice: rows 9700-9719, columns 22480-22499, a 20 x 20
// block of frames just north of Abuja (lon 7.3333-7.5, lat 9.0-9.1667).
const (
	row0, row1 = 9700, 9719
	col0, col1 = 22480, 22499
)

func cell(row, col int) uint64 { return grid.CellID(row, col) }

var (
	attrPop   = state.Attribute{Name: "pop", Label: "Population", Unit: "people", Type: state.TypeNumber, Aggregation: state.AggSum, Year: 2020, Aliases: []string{"people"}}
	attrClass = state.Attribute{Name: "class", Label: "Settlement class", Type: state.TypeCategory, Aggregation: state.AggMode}
	attrState = state.Attribute{Name: "state", Label: "State", Type: state.TypeCategory, Aggregation: state.AggMode}
	attrNum   = state.Attribute{Name: "num", Label: "Number", Type: state.TypeNumber, Aggregation: state.AggMean}
)

func TestRepresentativePoint(t *testing.T) {
	tests := []struct {
		name string
		geom string
		want grid.Point
		err  string
	}{
		{"point", `{"type":"Point","coordinates":[7.4,9.1,350]}`, grid.Point{7.4, 9.1}, ""},
		{"multipoint", `{"type":"MultiPoint","coordinates":[[1,2],[3,4]]}`, grid.Point{1, 2}, ""},
		{"line halfway by length", `{"type":"LineString","coordinates":[[0,0],[3,0],[3,1]]}`, grid.Point{2, 0}, ""},
		{"line of one point twice", `{"type":"LineString","coordinates":[[5,5],[5,5]]}`, grid.Point{5, 5}, ""},
		{"multiline first line", `{"type":"MultiLineString","coordinates":[[[0,0],[0,2]],[[9,9],[9,8]]]}`, grid.Point{0, 1}, ""},
		{"square centroid", `{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}`, grid.Point{1, 1}, ""},
		{"centroid in a hole", `{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,4],[0,0]],[[1,1],[1,3],[3,3],[3,1],[1,1]]]}`, grid.Point{0.5, 2}, ""},
		{"U shape", `{"type":"Polygon","coordinates":[[[0,0],[3,0],[3,3],[2,3],[2,1],[1,1],[1,3],[0,3],[0,0]]]}`, grid.Point{0.5, 1.5}, ""},
		{"multipolygon first polygon", `{"type":"MultiPolygon","coordinates":[[[[10,10],[12,10],[12,12],[10,12],[10,10]]],[[[0,0],[1,0],[1,1],[0,0]]]]}`, grid.Point{11, 11}, ""},
		{"null", `null`, grid.Point{}, "has no geometry"},
		{"no type", `{"coordinates":[1,2]}`, grid.Point{}, "geometry has no type"},
		{"collection", `{"type":"GeometryCollection","geometries":[]}`, grid.Point{}, `geometry type "GeometryCollection" is not supported`},
		{"point one number", `{"type":"Point","coordinates":[1]}`, grid.Point{}, "Point has 1 numbers, want at least 2"},
		{"point as text", `{"type":"Point","coordinates":["1","2"]}`, grid.Point{}, "Point: coordinates are not a position"},
		{"point lat out of range", `{"type":"Point","coordinates":[1,91]}`, grid.Point{}, "Point latitude 91 is outside -90..90"},
		{"empty multipoint", `{"type":"MultiPoint","coordinates":[]}`, grid.Point{}, "MultiPoint: has no points"},
		{"line of one point", `{"type":"LineString","coordinates":[[1,2]]}`, grid.Point{}, "LineString has 1 positions, want at least 2"},
		{"line bad point", `{"type":"LineString","coordinates":[[1,2],[200,2]]}`, grid.Point{}, "LineString point 1 longitude 200 is outside -180..180"},
		{"unclosed ring", `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}`, grid.Point{}, "not closed"},
		{"bow tie", `{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}`, grid.Point{}, "cross"},
		{"not JSON", `{"type":`, grid.Point{}, "geometry:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RepresentativePoint(json.RawMessage(tc.geom))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestZoneContainer_MatchesContainsPoint checks the scanline shortcut
// against the exact test, on points exactly on edges and vertices too.
func TestZoneContainer_MatchesContainsPoint(t *testing.T) {
	m := grid.MultiPolygon{
		{{{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}, {{1, 1}, {1, 3}, {3, 3}, {3, 1}, {1, 1}}},
		{{{5, 0}, {7, 1}, {6, 3}, {5, 0}}},
	}
	z := newZoneContainer(m)
	for y := -0.5; y <= 4.5; y += 0.25 {
		for x := -0.5; x <= 7.5; x += 0.125 {
			if got, want := z.contains(x, y), m.ContainsPoint(x, y); got != want {
				t.Errorf("(%v, %v): %v, ContainsPoint says %v", x, y, got, want)
			}
		}
	}
}

func TestAppendNumber(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1234", "1234"}, {"+1234", "1234"}, {"-1234", "-1234"}, {"0012", "12"}, {"-0", "0"}, {"000", "0"},
		{"12345678901234567890123", "12345678901234567890123"}, // integers keep every digit
		{"1.50", "1.5"}, {"1234.0", "1234"}, {" 2.5 ", "2.5"}, {".5", "0.5"}, {"5.", "5"}, {"-0.0", "0"},
		{"1e3", "1000"}, {"1E-7", "1e-07"}, {"1.5e21", "1.5e+21"}, {"0.1", "0.1"}, {"0.000001", "0.000001"},
		{"1e999", ""}, {"1e-999", "0"}, {"abc", ""}, {"0x10", ""}, {"1_000", ""}, {"Inf", ""}, {"NaN", ""},
		{"", ""}, {"-", ""}, {".", ""}, {"1e", ""}, {"1e+", ""}, {"1,5", ""}, {"1 2", ""}, {"--1", ""},
	}
	for _, tc := range tests {
		got, ok := appendNumber(nil, tc.in)
		if string(got) != tc.want || ok != (tc.want != "") {
			t.Errorf("appendNumber(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
