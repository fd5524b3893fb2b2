package grid

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// square returns a closed counter-clockwise ring around b.
func square(b Box) Ring {
	return Ring{{b.MinLon, b.MinLat}, {b.MaxLon, b.MinLat}, {b.MaxLon, b.MaxLat}, {b.MinLon, b.MaxLat}, {b.MinLon, b.MinLat}}
}

func cellPolygon(row, col int) Polygon { return Polygon{square(CellBox(row, col))} }

func TestContainsPointMatchesCellAt(t *testing.T) {
	// A 4x4 block of lattice squares near Abuja; every point of the block
	// except its own east and south border lies in exactly one square, the
	// one CellAt names.
	const r0, c0, n = 9708, 22452, 4
	var cells []Polygon
	for r := r0; r < r0+n; r++ {
		for c := c0; c < c0+n; c++ {
			cells = append(cells, cellPolygon(r, c))
		}
	}
	var pts []Point
	// Every lattice corner and edge midpoint and centre, exactly.
	for r := r0; r <= r0+n; r++ {
		for c := c0; c <= c0+n; c++ {
			pts = append(pts, Point{Lon(c), Lat(r)})
			pts = append(pts, Point{(Lon(c) + Lon(c+1)) / 2, Lat(r)})
			pts = append(pts, Point{Lon(c), (Lat(r) + Lat(r+1)) / 2})
			pts = append(pts, Point{(Lon(c) + Lon(c+1)) / 2, (Lat(r) + Lat(r+1)) / 2})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		pts = append(pts, Point{Lon(c0) + rng.Float64()*n/CellsPerDegree, Lat(r0+n) + rng.Float64()*n/CellsPerDegree})
	}
	for _, pt := range pts {
		row, col := CellAt(pt[1], pt[0])
		inBlock := row >= r0 && row < r0+n && col >= c0 && col < c0+n
		found := -1
		for i, p := range cells {
			if p.ContainsPoint(pt[0], pt[1]) {
				if found >= 0 {
					t.Fatalf("point %v in squares %d and %d", pt, found, i)
				}
				found = i
			}
		}
		switch {
		case !inBlock && found >= 0:
			t.Fatalf("point %v outside the block (cell %d,%d) found in square %d", pt, row, col, found)
		case inBlock && found != (row-r0)*n+(col-c0):
			t.Fatalf("point %v: CellAt gives (%d, %d) = square %d, ContainsPoint square %d",
				pt, row, col, (row-r0)*n+(col-c0), found)
		}
	}
}

func TestContainsPointHalfOpenRule(t *testing.T) {
	// Unit square with a hole [0.25, 0.75]^2, outer ring clockwise to show
	// orientation does not matter.
	p := Polygon{
		{{0, 0}, {0, 1}, {1, 1}, {1, 0}, {0, 0}},
		{{0.25, 0.25}, {0.75, 0.25}, {0.75, 0.75}, {0.25, 0.75}, {0.25, 0.25}},
	}
	tests := []struct {
		name     string
		lon, lat float64
		want     bool
	}{
		{"interior", 0.1, 0.1, true},
		{"west edge", 0, 0.5, true},
		{"north edge", 0.1, 1, true},
		{"east edge", 1, 0.5, false},
		{"south edge", 0.1, 0, false},
		{"NW corner", 0, 1, true},
		{"NE corner", 1, 1, false},
		{"SW corner", 0, 0, false},
		{"SE corner", 1, 0, false},
		{"outside", 1.5, 0.5, false},
		{"in hole", 0.5, 0.5, false},
		// A hole's edges follow the rule from the hole's side: its west and
		// north edges belong to the hole (a frame filling it would own them).
		{"hole west edge", 0.25, 0.5, false},
		{"hole east edge", 0.75, 0.5, true},
		{"hole north edge", 0.5, 0.75, false},
		{"hole south edge", 0.5, 0.25, true},
		{"NaN", math.NaN(), 0.5, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.ContainsPoint(tc.lon, tc.lat); got != tc.want {
				t.Fatalf("ContainsPoint(%v, %v) = %v, want %v", tc.lon, tc.lat, got, tc.want)
			}
			if got := (MultiPolygon{p}).ContainsPoint(tc.lon, tc.lat); got != tc.want {
				t.Fatalf("MultiPolygon.ContainsPoint(%v, %v) = %v, want %v", tc.lon, tc.lat, got, tc.want)
			}
		})
	}
}

func TestAppendCrossings(t *testing.T) {
	// A 10 x 10 square with a 2 x 2 hole in the middle, and a triangle
	// whose apex is at latitude 10.
	holed := Polygon{square(Box{0, 0, 10, 10}), square(Box{4, 4, 6, 6})}
	tri := Polygon{{{20, 0}, {30, 0}, {25, 10}}} // unclosed: the last point joins the first
	tests := []struct {
		name string
		p    Polygon
		lat  float64
		want []float64
	}{
		{"through the hole", holed, 5, []float64{0, 4, 6, 10}},
		{"on the hole's south edge: its sides start there", holed, 4, []float64{0, 10}},
		{"on the hole's north edge: its sides end there", holed, 6, []float64{0, 4, 6, 10}},
		{"on the south edge: nothing", holed, 0, nil},
		{"on the north edge", holed, 10, []float64{0, 10}},
		{"above", holed, 11, nil},
		{"sloped sides", tri, 5, []float64{22.5, 27.5}},
		{"at the apex", tri, 10, []float64{25, 25}},
		{"no rings", nil, 5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.p.AppendCrossings(nil, tc.lat)
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("AppendCrossings(%v) = %v, want %v", tc.lat, got, tc.want)
			}
			// Away from the crossings, their parity east of a point is
			// ContainsPoint.
			for lon := -1.25; lon < 32; lon += 0.5 {
				if slices.Contains(got, lon) {
					continue
				}
				east := 0
				for _, x := range got {
					if x > lon {
						east++
					}
				}
				if in := tc.p.ContainsPoint(lon, tc.lat); in != (east%2 == 1) {
					t.Errorf("lon %v: %d crossings east, ContainsPoint %v", lon, east, in)
				}
			}
		})
	}
}

func TestContainsPointSlopedTiling(t *testing.T) {
	// A quadrilateral cut into four triangles at an irregular inner point,
	// and a square cut along its diagonal: shared sloping edges. Every point
	// of the tile (not on its outer east/south border) lies in exactly one
	// triangle, whatever the direction each triangle walks the shared edge.
	a, b, c, d := Point{2.1, 4.3}, Point{7.7, 4.6}, Point{7.3, 9.9}, Point{1.9, 9.2}
	e := Point{4.4444444, 6.1234567}
	tilings := map[string][]Polygon{
		"fan": {
			{{a, b, e, a}},
			{{b, c, e, b}},
			{{c, d, e, c}},
			{{d, a, e, d}},
		},
		"diagonal": {
			{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}},
			{{{1, 1}, {0, 1}, {0, 0}, {1, 1}}},
		},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for name, tiles := range tilings {
		t.Run(name, func(t *testing.T) {
			union := MultiPolygon(tiles)
			box := union.Bounds()
			var pts []Point
			for i := 0; i < 20000; i++ {
				pts = append(pts, Point{box.MinLon + rng.Float64()*(box.MaxLon-box.MinLon), box.MinLat + rng.Float64()*(box.MaxLat-box.MinLat)})
			}
			// Points on each shared edge (as close as float64 gets) and at the vertices.
			for _, tile := range tiles {
				r := tile[0]
				for k := 0; k+1 < len(r); k++ {
					pts = append(pts, r[k])
					for i := 0; i < 200; i++ {
						s := rng.Float64()
						pts = append(pts, Point{r[k][0] + s*(r[k+1][0]-r[k][0]), r[k][1] + s*(r[k+1][1]-r[k][1])})
					}
				}
			}
			inside := 0
			for _, pt := range pts {
				n := 0
				for _, tile := range tiles {
					if tile.ContainsPoint(pt[0], pt[1]) {
						n++
					}
				}
				if n > 1 {
					t.Fatalf("point %v in %d tiles", pt, n)
				}
				// Interior of the union (away from its outer border) must be covered.
				if n == 0 && name == "diagonal" && pt[0] < 1 && pt[1] > 0 && pt[0] >= 0 && pt[1] <= 1 {
					t.Fatalf("point %v of the square in no tile", pt)
				}
				inside += n
			}
			if inside < len(pts)/3 {
				t.Fatalf("only %d of %d points inside; the test lost its points", inside, len(pts))
			}
		})
	}
}

func TestOrientAgreesWithExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	counts := map[int]int{}
	for i := 0; i < 20000; i++ {
		a := Point{rng.Float64()*20 - 10, rng.Float64()*20 - 10}
		b := Point{rng.Float64()*20 - 10, rng.Float64()*20 - 10}
		s := rng.Float64()
		// Nearly collinear: a point on the segment as float64 rounds it,
		// nudged by a few ulps or not at all.
		c := Point{a[0] + s*(b[0]-a[0]), a[1] + s*(b[1]-a[1])}
		switch i % 3 {
		case 1:
			c[0] = math.Nextafter(c[0], math.Inf(1))
		case 2:
			c = Point{math.Round(c[0]*120) / 120, math.Round(c[1]*120) / 120}
			a = Point{math.Round(a[0]*120) / 120, math.Round(a[1]*120) / 120}
			b = Point{a[0] + 3*(c[0]-a[0]), a[1] + 3*(c[1]-a[1])}
		}
		got, want := orient(a, b, c), orientExact(a, b, c)
		if got != want {
			t.Fatalf("orient(%v, %v, %v) = %d, exact %d", a, b, c, got, want)
		}
		counts[want]++
	}
	if counts[0] == 0 || counts[1] == 0 || counts[-1] == 0 {
		t.Fatalf("cases not exercised: %v", counts)
	}
	tests := []struct {
		name    string
		a, b, c Point
		want    int
	}{
		{"left", Point{0, 0}, Point{1, 0}, Point{0, 1}, 1},
		{"right", Point{0, 0}, Point{1, 0}, Point{0, -1}, -1},
		{"collinear vertical", Point{7.1, 1}, Point{7.1, 2}, Point{7.1, 5}, 0},
		{"collinear decimals", Point{0.1, 0.1}, Point{0.3, 0.3}, Point{0.2, 0.2}, orientExact(Point{0.1, 0.1}, Point{0.3, 0.3}, Point{0.2, 0.2})},
		{"NaN", Point{math.NaN(), 0}, Point{1, 0}, Point{0, 1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := orient(tc.a, tc.b, tc.c); got != tc.want {
				t.Fatalf("orient = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestBounds(t *testing.T) {
	tests := []struct {
		name string
		m    MultiPolygon
		want Box
	}{
		{"empty", nil, Box{}},
		{"empty rings", MultiPolygon{{{}}}, Box{}},
		{"one square", MultiPolygon{{square(Box{1, 2, 3, 4})}}, Box{1, 2, 3, 4}},
		{"two parts", MultiPolygon{{square(Box{1, 2, 3, 4})}, {square(Box{-5, 3, -4, 9})}}, Box{-5, 2, 3, 9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.m.Bounds(); got != tc.want {
				t.Fatalf("Bounds = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestIntersectsBox(t *testing.T) {
	// Square [0,10]^2 with a hole [4,6]^2, and a separate triangle.
	m := MultiPolygon{
		{square(Box{0, 0, 10, 10}), square(Box{4, 4, 6, 6})},
		{{{20, 0}, {30, 0}, {20, 10}, {20, 0}}},
	}
	tests := []struct {
		name string
		b    Box
		want bool
	}{
		{"inside", Box{1, 1, 2, 2}, true},
		{"covers everything", Box{-1, -1, 31, 11}, true},
		{"outside west", Box{-3, 1, -1, 2}, false},
		{"between parts", Box{11, 1, 19, 9}, false},
		{"inside hole", Box{4.5, 4.5, 5.5, 5.5}, false},
		{"point inside hole", Box{5, 5, 5, 5}, false},
		{"hole exactly: touches its edges", Box{4, 4, 6, 6}, true},
		{"touches hole edge from inside", Box{4.5, 4.5, 6, 5.5}, true},
		{"covers hole", Box{3, 3, 7, 7}, true},
		{"touches outer east edge", Box{10, 2, 12, 3}, true},
		{"touches outer vertex only", Box{10, 10, 12, 12}, true},
		{"just off outer vertex", Box{10.000001, 10, 12, 12}, false},
		{"point on west edge", Box{0, 5, 0, 5}, true},
		{"point on hole edge", Box{4, 5, 4, 5}, true},
		{"horizontal line through hole only", Box{4.5, 5, 5.5, 5}, false},
		{"horizontal line crossing", Box{-1, 5, 11, 5}, true},
		{"vertical line outside", Box{15, -5, 15, 20}, false},
		// Triangle hypotenuse from (30,0) to (20,10): x+y = 30.
		{"touches hypotenuse at a corner", Box{25, 5, 26, 6}, true},
		{"just beyond hypotenuse", Box{25.0000001, 5, 26, 6}, false},
		{"point on hypotenuse", Box{22.5, 7.5, 22.5, 7.5}, true},
		{"point beyond hypotenuse", Box{22.5, 7.50000001, 22.5, 7.50000001}, false},
		{"inverted box", Box{2, 2, 1, 1}, false},
		{"NaN box", Box{math.NaN(), 1, 2, 2}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := m.IntersectsBox(tc.b); got != tc.want {
				t.Fatalf("IntersectsBox(%+v) = %v, want %v", tc.b, got, tc.want)
			}
		})
	}
}

func TestValidateRing(t *testing.T) {
	tests := []struct {
		name string
		r    Ring
		want string // "" for valid; else the exact message
	}{
		{"square", square(Box{0, 0, 1, 1}), ""},
		{"clockwise square", Ring{{0, 0}, {0, 1}, {1, 1}, {1, 0}, {0, 0}}, ""},
		{"repeated points", Ring{{0, 0}, {1, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 1}, {0, 0}}, ""},
		{"triangle", Ring{{0, 0}, {1, 0}, {0, 1}, {0, 0}}, ""},
		{"collinear vertex on a side", Ring{{0, 0}, {1, 0}, {2, 0}, {2, 2}, {0, 0}}, ""},
		{"lattice cell", square(CellBox(9708, 22452)), ""},
		{"too few", Ring{{0, 0}, {1, 0}, {0, 0}}, "ring has 3 points, a ring needs at least 4 (3 corners and the first repeated)"},
		{"not closed", Ring{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, "ring is not closed: first point [0, 0] differs from last point [0, 1]"},
		{"NaN", Ring{{0, 0}, {math.NaN(), 0}, {1, 1}, {0, 0}}, "ring has a non-finite coordinate at point 1"},
		{"infinite", Ring{{0, 0}, {1, math.Inf(1)}, {1, 1}, {0, 0}}, "ring has a non-finite coordinate at point 1"},
		{"lon out of range", Ring{{0, 0}, {181, 0}, {1, 1}, {0, 0}}, "ring has point 1 [181, 0] outside lon -180..180, lat -90..90"},
		{"lat out of range", Ring{{0, 0}, {1, -90.5}, {1, 1}, {0, 0}}, "ring has point 1 [1, -90.5] outside lon -180..180, lat -90..90"},
		{"one point", Ring{{1, 1}, {1, 1}, {1, 1}, {1, 1}}, "ring has fewer than 3 distinct points"},
		{"two points", Ring{{0, 0}, {1, 1}, {0, 0}, {0, 0}}, "ring has fewer than 3 distinct points"},
		{"bowtie", Ring{{0, 0}, {1, 1}, {1, 0}, {0, 1}, {0, 0}}, "ring crosses itself at segments 0 and 2 near [0.5, 0.5]"},
		{"figure eight at a vertex", Ring{{0, 0}, {2, 0}, {1, 1}, {2, 2}, {0, 2}, {1, 1}, {0, 0}}, "ring touches itself at segments 1 and 4 near [1, 1]"},
		{"vertex on a far side", Ring{{0, 0}, {4, 0}, {4, 4}, {2, 0}, {0, 4}, {0, 0}}, "ring touches itself at segments 0 and 2 near [2, 0]"},
		{"spike folds back", Ring{{0, 0}, {2, 0}, {3, 0}, {2, 0}, {2, 2}, {0, 0}}, "ring overlaps itself at segments 1 and 2 near [3, 0]"},
		{"collinear triangle", Ring{{0, 0}, {1, 1}, {2, 2}, {0, 0}}, "ring overlaps itself at segments 0 and 2 near [0, 0]"},
		{"collinear overlap of far sides", Ring{{0, 0}, {3, 0}, {3, 1}, {2, 1}, {2, 0}, {1, 0}, {1, -1}, {0, -1}, {0, 0}}, "ring touches itself at segments 0 and 3 near [2, 0]"},
		{"segment index counts repeated points", Ring{{0, 0}, {0, 0}, {1, 1}, {1, 0}, {0, 1}, {0, 0}}, "ring crosses itself at segments 1 and 3 near [0.5, 0.5]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateRing(tc.r)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("ValidateRing: %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ValidateRing = nil, want %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Fatalf("ValidateRing = %q, want %q", err, tc.want)
			}
			if !errors.Is(err, ErrInvalidGeometry) {
				t.Fatalf("error %v does not match ErrInvalidGeometry", err)
			}
			var re *RingError
			if !errors.As(err, &re) || re.Ring != -1 || re.Polygon != -1 {
				t.Fatalf("error %#v is not a RingError without place", err)
			}
		})
	}
}

func TestValidateMultiPolygon(t *testing.T) {
	good := square(Box{0, 0, 10, 10})
	hole := square(Box{4, 4, 6, 6})
	open := Ring{{0, 0}, {1, 0}, {1, 1}, {0, 1}}
	bow := Ring{{0, 0}, {1, 1}, {1, 0}, {0, 1}, {0, 0}}
	tests := []struct {
		name string
		m    MultiPolygon
		want string
	}{
		{"polygon with hole", MultiPolygon{{good, hole}}, ""},
		{"two polygons", MultiPolygon{{good}, {square(Box{20, 0, 21, 1})}}, ""},
		{"empty", MultiPolygon{}, "geometry has no polygons"},
		{"polygon without rings", MultiPolygon{{}}, "polygon has no rings"},
		{"second polygon without rings", MultiPolygon{{good}, {}}, "polygon 1 has no rings"},
		{"open hole", MultiPolygon{{good, open}}, "ring 1 is not closed: first point [0, 0] differs from last point [0, 1]"},
		{"bowtie outer", MultiPolygon{{bow}}, "ring 0 crosses itself at segments 0 and 2 near [0.5, 0.5]"},
		{"bowtie in second polygon", MultiPolygon{{good}, {bow}}, "polygon 1 ring 0 crosses itself at segments 0 and 2 near [0.5, 0.5]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.m.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Validate = %v, want %q", err, tc.want)
			}
			if !errors.Is(err, ErrInvalidGeometry) {
				t.Fatalf("error %v does not match ErrInvalidGeometry", err)
			}
		})
	}
}

// starRing returns a closed simple ring of n vertices around (cx, cy) with
// random radii in [rMin, rMax] (a star-shaped polygon is always simple).
func starRing(rng *rand.Rand, cx, cy, rMin, rMax float64, n int, ccw bool) Ring {
	r := make(Ring, 0, n+1)
	for k := 0; k < n; k++ {
		a := 2 * math.Pi * float64(k) / float64(n)
		if !ccw {
			a = -a
		}
		rad := rMin + rng.Float64()*(rMax-rMin)
		r = append(r, Point{cx + rad*math.Cos(a), cy + rad*math.Sin(a)})
	}
	return append(r, r[0])
}

func TestValidateRingLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	r := starRing(rng, 8, 9, 4.99, 5, 50000, true)
	if err := ValidateRing(r); err != nil {
		t.Fatalf("50,000-vertex star: %v", err)
	}
	// Swap two far-apart vertices: the ring now crosses itself.
	r[100], r[25100] = r[25100], r[100]
	err := ValidateRing(r)
	if err == nil || !strings.Contains(err.Error(), "crosses itself at segments") {
		t.Fatalf("corrupted star: %v, want a crossing", err)
	}
}

// ngaDir is the shared folder of real Nigerian boundaries; tests using it
// skip when it is absent.
var ngaDir = filepath.Join("..", "..", "shared", "data", "nga")

func readNGA(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ngaDir, name))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s absent; skipping", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestValidateNigeria(t *testing.T) {
	for _, name := range []string{"nga_country.geojson", "nga_states.geojson", "nga_lgas.geojson"} {
		t.Run(name, func(t *testing.T) {
			ms := readNGAGeometries(t, name)
			for i, m := range ms {
				if err := m.Validate(); err != nil {
					t.Fatalf("feature %d: %v", i, err)
				}
			}
		})
	}
}

func readNGAGeometries(t testing.TB, name string) []MultiPolygon {
	t.Helper()
	raw := readNGA(t, name)
	var out []MultiPolygon
	err := ReadFeatures(strings.NewReader(string(raw)), func(i int, f InFeature) error {
		m, err := ParseGeometry(f.Geometry)
		out = append(out, m)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func BenchmarkValidateNigeria(b *testing.B) {
	m := readNGAGeometries(b, "nga_country.geojson")[0]
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkContainsPointNigeria(b *testing.B) {
	m := readNGAGeometries(b, "nga_country.geojson")[0]
	bb := m.Bounds()
	rng := rand.New(rand.NewPCG(9, 10))
	pts := make([]Point, 1024)
	for i := range pts {
		pts[i] = Point{bb.MinLon + rng.Float64()*(bb.MaxLon-bb.MinLon), bb.MinLat + rng.Float64()*(bb.MaxLat-bb.MinLat)}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := pts[i%len(pts)]
		m.ContainsPoint(p[0], p[1])
		i++
	}
}
