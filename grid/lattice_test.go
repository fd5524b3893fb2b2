package grid

import (
	"math"
	"strconv"
	"testing"
)

// dec parses decimal text as a client's request would arrive.
func dec(t testing.TB, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCellAt(t *testing.T) {
	tests := []struct {
		name     string
		lat, lon string
		row, col int
	}{
		// Lagos: row = floor((90-6.5244)*120) = floor(10017.072) = 10017,
		// col = floor((3.3792+180)*120) = floor(22005.504) = 22005.
		{"Lagos", "6.5244", "3.3792", 10017, 22005},
		// Abuja 9.0765 N, 7.3986 E: (90-9.0765)*120 = 9710.82, (187.3986)*120 = 22487.832.
		{"Abuja", "9.0765", "7.3986", 9710, 22487},
		{"origin", "0", "0", 10800, 21600},
		// On a vertical grid line: the cell east of it. 7.1 = 852/120.
		{"lon on line 7.1", "9.06", "7.1", 9712, 22452},
		{"lon just west of 7.1", "9.06", "7.0999999", 9712, 22451},
		// On a horizontal grid line: the cell south of it. 9.1 = 1092/120.
		{"lat on line 9.1", "9.1", "7.06", 9708, 22447},
		{"lat just north of 9.1", "9.1000001", "7.06", 9707, 22447},
		{"lat on line 9.05", "9.05", "7.06", 9714, 22447},
		// A corner: the cell east and south of it.
		{"corner 9.1, 7.1", "9.1", "7.1", 9708, 22452},
		{"corner 0, 0", "0", "0", 10800, 21600},
		{"corner negative", "-0.025", "-0.025", 10803, 21597},
		// Decimals that are multiples of 1/120 but not exact in binary.
		{"lon 3.3 = 396/120", "6.5", "3.3", 10020, 21996},
		{"lon -0.1 = -12/120", "6.5", "-0.1", 10020, 21588},
		{"lat -33.9 on line", "-33.9", "18.4", 14868, 23808},
		// Poles: lat 90 is row 0, lat -90 the last row.
		{"north pole", "90", "0", 0, 21600},
		{"south pole", "-90", "0", Rows - 1, 21600},
		{"south pole west", "-90", "-180", Rows - 1, 0},
		// Antimeridian: 180 and -180 are one meridian, column 0.
		{"lon 180", "0", "180", 10800, 0},
		{"lon -180", "0", "-180", 10800, 0},
		{"lon just west of 180", "0", "179.999", 10800, Cols - 1},
		{"lon 179.9916667 is west of the last line", "0", "179.9916666", 10800, Cols - 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			row, col := CellAt(dec(t, tc.lat), dec(t, tc.lon))
			if row != tc.row || col != tc.col {
				t.Fatalf("CellAt(%s, %s) = (%d, %d), want (%d, %d)", tc.lat, tc.lon, row, col, tc.row, tc.col)
			}
		})
	}
}

func TestCellIDHandComputed(t *testing.T) {
	tests := []struct {
		name     string
		row, col int
		id       uint64
	}{
		{"first", 0, 0, 0},
		{"end of row 0", 0, Cols - 1, 43199},
		{"start of row 1", 1, 0, 43200},
		{"Lagos", 10017, 22005, 10017*43200 + 22005}, // 432756405
		{"last", Rows - 1, Cols - 1, MaxID},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CellID(tc.row, tc.col); got != tc.id {
				t.Fatalf("CellID(%d, %d) = %d, want %d", tc.row, tc.col, got, tc.id)
			}
			row, col, ok := RowCol(tc.id)
			if !ok || row != tc.row || col != tc.col {
				t.Fatalf("RowCol(%d) = (%d, %d, %v), want (%d, %d, true)", tc.id, row, col, ok, tc.row, tc.col)
			}
		})
	}
	if MaxID != 933119999 {
		t.Fatalf("MaxID = %d, want 933119999", MaxID)
	}
	if _, _, ok := RowCol(MaxID + 1); ok {
		t.Fatalf("RowCol(MaxID+1) ok, want not ok")
	}
	if got := CellID(10017, 22005); got != 432756405 {
		t.Fatalf("Lagos id = %d, want 432756405", got)
	}
}

func TestCellBoxAndEdges(t *testing.T) {
	tests := []struct {
		name     string
		row, col int
		want     Box
	}{
		{"first cell", 0, 0, Box{-180, 90 - 1.0/120, -180 + 1.0/120, 90}},
		{"last cell", Rows - 1, Cols - 1, Box{180 - 1.0/120, -90, 180, -90 + 1.0/120}},
		{"origin cell", 10800, 21600, Box{0, -1.0 / 120, 1.0 / 120, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CellBox(tc.row, tc.col)
			for i, pair := range [4][2]float64{
				{got.MinLon, tc.want.MinLon}, {got.MinLat, tc.want.MinLat},
				{got.MaxLon, tc.want.MaxLon}, {got.MaxLat, tc.want.MaxLat},
			} {
				if math.Abs(pair[0]-pair[1]) > 1e-12 {
					t.Fatalf("CellBox(%d, %d) member %d = %v, want %v", tc.row, tc.col, i, pair[0], pair[1])
				}
			}
		})
	}
	if Lon(0) != -180 || Lon(Cols) != 180 || Lat(0) != 90 || Lat(Rows) != -90 {
		t.Fatalf("edges: Lon(0)=%v Lon(Cols)=%v Lat(0)=%v Lat(Rows)=%v", Lon(0), Lon(Cols), Lat(0), Lat(Rows))
	}
	// Every cell's own corners map back to it (the NW corner is in the
	// cell by the east/south rule), and its SE corner to the cell south-east.
	for _, rc := range [][2]int{{0, 0}, {9708, 22452}, {10800, 21600}, {Rows - 2, Cols - 2}, {12345, 31}} {
		b := CellBox(rc[0], rc[1])
		if r, c := CellAt(b.MaxLat, b.MinLon); r != rc[0] || c != rc[1] {
			t.Errorf("NW corner of (%d, %d) -> (%d, %d)", rc[0], rc[1], r, c)
		}
		if r, c := CellAt(b.MinLat, b.MaxLon); r != rc[0]+1 || c != rc[1]+1 {
			t.Errorf("SE corner of (%d, %d) -> (%d, %d), want (%d, %d)", rc[0], rc[1], r, c, rc[0]+1, rc[1]+1)
		}
	}
}

func TestColSpanRowSpan(t *testing.T) {
	colTests := []struct {
		name           string
		minLon, maxLon float64
		c0, c1         int
	}{
		{"inside one cell", 0.001, 0.002, 21600, 21600},
		{"on a line: both neighbours", 0, 0, 21599, 21600},
		{"cell exactly: neighbours too", 0, 1.0 / 120, 21599, 21601},
		{"decimal line 7.1", 7.1, 7.1, 22451, 22452},
		{"from the west end", -180, -179.999, 0, 0},
		{"to the east end", 179.999, 180, Cols - 1, Cols - 1},
		{"point on 180 clamps", 180, 180, Cols - 1, Cols - 1},
		{"whole world", -180, 180, 0, Cols - 1},
	}
	for _, tc := range colTests {
		t.Run("col "+tc.name, func(t *testing.T) {
			c0, c1 := ColSpan(tc.minLon, tc.maxLon)
			if c0 != tc.c0 || c1 != tc.c1 {
				t.Fatalf("ColSpan(%v, %v) = (%d, %d), want (%d, %d)", tc.minLon, tc.maxLon, c0, c1, tc.c0, tc.c1)
			}
		})
	}
	rowTests := []struct {
		name           string
		minLat, maxLat float64
		r0, r1         int
	}{
		{"inside one cell", 0.001, 0.002, 10799, 10799},
		{"on a line: both neighbours", 0, 0, 10799, 10800},
		{"cell exactly: neighbours too", -1.0 / 120, 0, 10799, 10801},
		{"decimal line 9.1", 9.1, 9.1, 9707, 9708},
		{"north pole", 90, 90, 0, 0},
		{"south pole", -90, -90, Rows - 1, Rows - 1},
		{"pole to pole", -90, 90, 0, Rows - 1},
	}
	for _, tc := range rowTests {
		t.Run("row "+tc.name, func(t *testing.T) {
			r0, r1 := RowSpan(tc.minLat, tc.maxLat)
			if r0 != tc.r0 || r1 != tc.r1 {
				t.Fatalf("RowSpan(%v, %v) = (%d, %d), want (%d, %d)", tc.minLat, tc.maxLat, r0, r1, tc.r0, tc.r1)
			}
		})
	}
}

func TestAppendCoord(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{-0.00000004, "0"}, // rounds to -0
		{1, "1"},
		{-180, "-180"},
		{180, "180"},
		{0.5, "0.5"},
		{-0.5, "-0.5"},
		{3.0083333333, "3.0083333"},
		{1.0 / 120, "0.0083333"},
		{-179.99166666666667, "-179.9916667"},
		{7.1, "7.1"},
		{12.34567891, "12.3456789"},
		{0.0000001, "0.0000001"},
		{-2.25, "-2.25"},
		{89.99999999, "90"},
		{1e-300, "0"},
		{math.NaN(), "0"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			got := string(AppendCoord([]byte("x"), tc.in))
			if got != "x"+tc.want {
				t.Fatalf("AppendCoord(%v) = %q, want %q", tc.in, got[1:], tc.want)
			}
		})
	}
}

func TestAppendEdgeText(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"lon 0", string(AppendLonEdge(nil, 0)), "-180"},
		{"lon Cols", string(AppendLonEdge(nil, Cols)), "180"},
		{"lon 22452", string(AppendLonEdge(nil, 22452)), "7.1"},
		{"lon 1", string(AppendLonEdge(nil, 1)), "-179.9916667"},
		{"lat 0", string(AppendLatEdge(nil, 0)), "90"},
		{"lat Rows", string(AppendLatEdge(nil, Rows)), "-90"},
		{"lat 9708", string(AppendLatEdge(nil, 9708)), "9.1"},
		{"lat 10801", string(AppendLatEdge(nil, 10801)), "-0.0083333"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

// tolDeg is the snap of the lattice in degrees: CellAt treats a coordinate
// within 1e-9 cell widths of a grid line as on it.
const tolDeg = snap/CellsPerDegree + 1e-13

// FuzzCellRoundTrip: any in-range point lies in the closed CellBox of the
// cell CellAt gives (within the documented snap), and the id round-trips.
func FuzzCellRoundTrip(f *testing.F) {
	f.Add(6.5244, 3.3792)              // Lagos
	f.Add(9.1, 7.1)                    // a lattice corner from decimals
	f.Add(90.0, 180.0)                 // north pole on the antimeridian
	f.Add(-90.0, -180.0)               // south-west corner of the world
	f.Add(0.0, 0.0)                    // origin
	f.Add(-33.9, 18.4)                 // southern, on a line
	f.Add(13.885714, 14.677968)        // Nigeria's NE bounds
	f.Add(4.270204, 2.692613)          // Nigeria's SW bounds
	f.Add(7.099999999999999, 7.1)      // a hair below a line
	f.Add(-89.99999999999, 179.999999) // near the last cell
	f.Fuzz(func(t *testing.T, lat, lon float64) {
		if !(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180) {
			return
		}
		row, col := CellAt(lat, lon)
		if row < 0 || row >= Rows || col < 0 || col >= Cols {
			t.Fatalf("CellAt(%v, %v) = (%d, %d) outside the lattice", lat, lon, row, col)
		}
		id := CellID(row, col)
		r2, c2, ok := RowCol(id)
		if !ok || r2 != row || c2 != col {
			t.Fatalf("RowCol(CellID(%d, %d)) = (%d, %d, %v)", row, col, r2, c2, ok)
		}
		b := CellBox(row, col)
		plon := lon
		if lon >= 180-tolDeg && col == 0 {
			plon = lon - 360 // the antimeridian is column 0's west edge
		}
		if plon < b.MinLon-tolDeg || plon > b.MaxLon+tolDeg || lat < b.MinLat-tolDeg || lat > b.MaxLat+tolDeg {
			t.Fatalf("point (%v, %v) not in CellBox(%d, %d) = %+v", lat, lon, row, col, b)
		}
		// The east/south rule: the point is never on the cell's east or south edge
		// unless that edge is the south pole.
		if plon >= b.MaxLon {
			t.Fatalf("point (%v, %v) on the east edge of its cell %+v", lat, lon, b)
		}
		if lat <= b.MinLat && row != Rows-1 {
			t.Fatalf("point (%v, %v) on the south edge of its cell %+v", lat, lon, b)
		}
	})
}
