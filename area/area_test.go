package area

import (
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/planar"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/state"
)

func TestKey(t *testing.T) {
	for _, c := range []struct{ in, key, kind string }{
		{"Dala", "dala", ""},
		{"Dala LGA", "dala", "lga"},
		{"dala local government area", "dala", "lga"},
		{"Kano State", "kano", "state"},
		{"State of Kano", "kano", "state"},
		{"Akwa-Ibom", "akwaibom", ""},
		{"Akwa Ibom State", "akwaibom", "state"},
		{"Port-Harcourt", "portharcourt", ""},
		{"Port Harcourt", "portharcourt", ""},
		{"Nassarawa", "nasarawa", ""},
		{"Nasarawa", "nasarawa", ""},
		{"Qua'an Pan", "quanpan", ""},
		{"Qua’An Pan L.G.A.", "quanpan", "lga"},
		{"Ọ̀yọ́", "oyo", ""},
		{"Abua/Odual", "abuaodual", ""},
		{"Dala Ward 3", "dalaward3", ""},
	} {
		k, kind := Key(c.in)
		if k != c.key || kind != c.kind {
			t.Errorf("Key(%q) = %q, %q; want %q, %q", c.in, k, kind, c.key, c.kind)
		}
	}
	if k, _ := storedKey("Dala Ward 3", "ward"); k != "dalaward3" {
		t.Error("storedKey lost a stored name's words")
	}
	if k, sp := storedKey("Nassarawa LGA", "lga"); k != "nasarawa" || sp != "nassarawa" {
		t.Error("storedKey lost a stored name's words")
	}
	if synonyms[nameKey(words("FCT"))] != nameKey(words("Federal Capital Territory")) {
		t.Error("FCT is not the Federal Capital Territory")
	}
}

func TestCloseEnough(t *testing.T) {
	for _, c := range []struct {
		a, b string
		ok   bool
	}{
		{"maiduguri", "maidugiri", true}, // one letter changed
		{"ungogo", "ungoggo", true},
		{"gwale", "gwala", false}, // under 6 letters: exact only
		{"yenegoa", "yenagoa", true},
		{"ibadannorth", "ibadansouth", false},
		{"ibadannorth", "ibadannortt", true},
		{"portharcourt", "portharcort", true},
		{"katsina", "kastina", true}, // neighbours swapped
		{"abcdefghij", "abcdefghxy", false},
		{"abcdefghij", "abcdefxyzj", false},
	} {
		if got := closeEnough(c.a, c.b); got != c.ok {
			t.Errorf("closeEnough(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestDecode(t *testing.T) {
	for _, c := range []struct {
		body, code, msg string
	}{
		{`{"place":"Dala","kind":"lga"}`, "", ""},
		{`{"bbox":[8.4,11.9,8.6,12.1]}`, "", ""},
		{`{"around":[8.5,12],"radiusKm":5}`, "", ""},
		{`{"inQuestion":true}`, "", ""},
		{`{"geometry":{"type":"Polygon","coordinates":[[[8,12],[8.1,12],[8.1,12.1],[8,12]]]}}`, "", ""},
		{`{"place":"Dala","bbox":[8.4,11.9,8.6,12.1]}`, CodeInvalid, "exactly one"},
		{`{}`, CodeInvalid, "names no area"},
		{`[]`, CodeInvalid, "must be an object"},
		{`{"place":"Dala","colour":"red"}`, CodeInvalid, `unknown member "colour"`},
		{`{"place":"Dala","place":"Kano"}`, CodeInvalid, "twice"},
		{`{"place":7}`, CodeInvalid, "must be a string"},
		{`{"place":"  "}`, CodeInvalid, "empty"},
		{`{"kind":"lga"}`, CodeInvalid, "goes with place"},
		{`{"bbox":[1,2,3]}`, CodeInvalid, "4 numbers"},
		{`{"bbox":[9,12,8,13]}`, CodeInvalid, "minLon <= maxLon"},
		{`{"bbox":[8,12,8,13]}`, CodeInvalid, "no area"},
		{`{"around":[8.5,12]}`, CodeInvalid, "go together"},
		{`{"around":[8.5,12],"radiusKm":0}`, CodeInvalid, "more than 0"},
		{`{"around":[8.5,12],"radiusKm":101}`, CodeInvalid, "at most 100"},
		{`{"around":[8.5,95],"radiusKm":1}`, CodeInvalid, "lat in [-90, 90]"},
		{`{"inQuestion":false}`, CodeInvalid, "may only be true"},
		{`{"geometry":{"type":"Point","coordinates":[8,12]}}`, CodeInvalid, "Polygon or MultiPolygon"},
		{`{"geometry":{"type":"Polygon","coordinates":[[[8,12],[8.1,12.1],[8.1,12],[8,12.1],[8,12]]]}}`, CodeInvalid, "valid GeoJSON"},
		{`{"place":"Dala"`, CodeInvalidBody, "not valid JSON"},
	} {
		_, err := Decode([]byte(c.body))
		var ae *Error
		switch {
		case c.code == "" && err != nil:
			t.Errorf("Decode(%s): %v", c.body, err)
		case c.code != "" && (!errors.As(err, &ae) || ae.Code != c.code || !strings.Contains(ae.Message, c.msg)):
			t.Errorf("Decode(%s) = %v; want %s containing %q", c.body, err, c.code, c.msg)
		}
	}
}

// square is a lattice of rows r0..r1 and columns c0..c1.
func square(r0, r1, c0, c1 int) *index.Index {
	var runs []grid.Run
	for r := r0; r <= r1; r++ {
		runs = append(runs, grid.Run{Row: int32(r), Col0: int32(c0), Col1: int32(c1)})
	}
	return index.NewLattice(runs)
}

// orbFraction is the fraction of the cell at pos inside m, from orb's
// clipping and planar areas in degrees (independent of this package):
// planar degrees differ from the ellipsoid by the change of scale across
// one cell, under 3e-5 of its area at these latitudes.
func orbFraction(ix *index.Index, pos int, m orb.MultiPolygon) float64 {
	b := ix.ShapeAt(pos).Box
	bound := orb.Bound{Min: orb.Point{b.MinLon, b.MinLat}, Max: orb.Point{b.MaxLon, b.MaxLat}}
	in := 0.0
	for _, p := range m {
		c := clip.Polygon(bound, p.Clone())
		if c == nil {
			continue
		}
		in += planar.Area(c)
	}
	return in / ((b.MaxLon - b.MinLon) * (b.MaxLat - b.MinLat))
}

func toOrb(m grid.MultiPolygon) orb.MultiPolygon {
	var out orb.MultiPolygon
	for _, p := range m {
		var op orb.Polygon
		for _, r := range p {
			var or orb.Ring
			for _, q := range r {
				or = append(or, orb.Point{q[0], q[1]})
			}
			op = append(op, or)
		}
		out = append(out, op)
	}
	return out
}

// TestWeigh_PolygonWithHole checks every frame's fraction against orb's
// clipped areas, and that frames wholly in the hole are left out.
func TestWeigh_PolygonWithHole(t *testing.T) {
	row, col := grid.CellAt(12.0, 8.5)
	ix := square(row-30, row+30, col-30, col+30)
	m := grid.MultiPolygon{{
		{{8.40, 11.90}, {8.60, 11.92}, {8.58, 12.10}, {8.47, 12.04}, {8.42, 12.08}, {8.40, 11.90}},
		{{8.48, 11.97}, {8.50, 12.02}, {8.53, 11.98}, {8.48, 11.97}},
	}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	pos, w, km2, centred := weigh(ix, m)
	if centred || len(pos) == 0 {
		t.Fatalf("weigh: %d frames, centred %v", len(pos), centred)
	}
	om := toOrb(m)
	got := map[int]float64{}
	for i, p := range pos {
		got[int(p)] = w[i]
	}
	partial, whole, sum := 0, 0, 0.0
	for p := 0; p < ix.Len(); p++ {
		want := orbFraction(ix, p, om)
		if math.Abs(got[p]-want) > 3e-5 {
			t.Fatalf("frame %d: fraction %.6f, orb %.6f", ix.IDAt(p), got[p], want)
		}
		if want > 1e-6 && want < 1-1e-6 {
			partial++
		} else if want > 1-1e-6 {
			whole++
		}
		sum += want * cellKm2(ix, p)
	}
	if partial < 50 || whole < 100 {
		t.Fatalf("the test polygon should give many partial (%d) and whole (%d) frames", partial, whole)
	}
	if math.Abs(km2-sum)/sum > 1e-4 {
		t.Fatalf("area %.4f km², from orb's fractions %.4f", km2, sum)
	}
	// A frame wholly inside the hole is not in the area.
	hp, _ := ix.Pos(grid.CellID(grid.CellAt(11.99, 8.505)))
	if _, in := got[hp]; in {
		t.Fatal("a frame inside the hole counts")
	}
}

// cellKm2 is a lattice cell's area on the ellipsoid by the closed formula
// of an ellipsoidal zone (independent of package access).
func cellKm2(ix *index.Index, pos int) float64 {
	b := ix.ShapeAt(pos).Box
	a, f := 6378.137, 1/298.257223563
	e2 := f * (2 - f)
	e := math.Sqrt(e2)
	q := func(lat float64) float64 {
		s := math.Sin(lat * math.Pi / 180)
		return s/(1-e2*s*s) + math.Log((1+e*s)/(1-e*s))/(2*e)
	}
	return a * a * (1 - e2) / 2 * (b.MaxLon - b.MinLon) * math.Pi / 180 * (q(b.MaxLat) - q(b.MinLat))
}

// TestRing checks a ring's area against the spherical cap of its radius
// and its frames' fractions against orb.
func TestRing(t *testing.T) {
	row, col := grid.CellAt(12.0, 8.5)
	ix := square(row-60, row+60, col-60, col+60)
	for _, r := range []float64{0.3, 2, 15} {
		m := Ring(8.5, 12.0, r)
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, q := range m[0][0][:len(m[0][0])-1] {
			if d := HaversineKm(8.5, 12.0, q[0], q[1]); d < r || d > r*1.0002 {
				t.Fatalf("ring %v km: a vertex at %v km", r, d)
			}
		}
		pos, w, km2, _ := weigh(ix, m)
		cap := 2 * math.Pi * EarthRadiusKm * EarthRadiusKm * (1 - math.Cos(r/EarthRadiusKm))
		// The sphere of the distance rule and the ellipsoid of areas differ
		// in scale by about 0.3 % at 12° N; the polygon itself is within
		// 0.01 % of its circle.
		if math.Abs(km2-cap)/cap > 0.005 {
			t.Fatalf("ring %v km: %.4f km², cap %.4f km²", r, km2, cap)
		}
		om := toOrb(m)
		for i, p := range pos {
			if want := orbFraction(ix, int(p), om); math.Abs(w[i]-want) > 3e-5 {
				t.Fatalf("ring %v km, frame %d: %.6f, orb %.6f", r, ix.IDAt(int(p)), w[i], want)
			}
		}
	}
}

// fakeScan serves records of frames per dataset.
type fakeScan map[string]map[uint64]string

func (f fakeScan) ScanRecords(id string, _ []bolt.IDRange, fn func(uint64, int, []byte) bool) error {
	recs := f[id]
	var ids []uint64
	for k := range recs {
		ids = append(ids, k)
	}
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			if ids[j] < ids[i] {
				ids[i], ids[j] = ids[j], ids[i]
			}
		}
	}
	for _, k := range ids {
		if !fn(k, 0, []byte(recs[k])) {
			break
		}
	}
	return nil
}

func TestFind(t *testing.T) {
	ix := square(100, 101, 100, 109) // 20 frames
	id := func(i int) uint64 { return ix.IDAt(i) }
	rec := func(state, lga, ward string) string {
		return `{"state":"` + state + `","lga":"` + lga + `","ward":"` + ward + `"}`
	}
	// Frames in order, each run of n frames with its state, LGA and ward.
	runs := []struct {
		n                int
		state, lga, ward string
	}{
		{4, "Kano", "Dala", "Dala Ward 1"},
		{2, "Kano", "Kano", "Kano Ward 1"},
		{2, "Kano", "Nassarawa", "Nassarawa Ward 1"},
		{2, "Nasarawa", "Lafia", "Lafia Ward 1"},
		{2, "Benue", "Obi", "Obi Ward 1"},
		{2, "Nasarawa", "Obi", "Obi Ward 1"},
		{2, "Federal Capital Territory", "Municipal Area Council", "Garki"},
		{4, "Rivers", "Port-Harcourt", "Maiduguri Road"},
	}
	recs := map[uint64]string{}
	i := 0
	for _, r := range runs {
		for k := 0; k < r.n; k, i = k+1, i+1 {
			recs[id(i)] = rec(r.state, r.lga, r.ward)
		}
	}
	ps := NewPlaces(fakeScan{"admin": recs}, 4)
	ds := state.Dataset{ID: "admin", Version: 1, ImportedAt: time.Unix(1, 0), Attributes: []state.Attribute{
		{Name: "state", Type: state.TypeCategory}, {Name: "lga", Type: state.TypeCategory}, {Name: "ward", Type: state.TypeCategory}}}
	c := ps.Catalogue(ix, []state.Access{{Dataset: ds}})
	for _, tc := range []struct {
		name, kind     string
		want, parent   string
		frames         int
		code, contains string
	}{
		{name: "Dala", want: "Dala", parent: "Kano", frames: 4},
		{name: "dala lga", want: "Dala", frames: 4},
		{name: "DALA", kind: "lga", want: "Dala", frames: 4},
		{name: "Kano State", want: "Kano", frames: 8},
		{name: "Kano", kind: "state", want: "Kano", frames: 8},
		{name: "Kano", code: CodeInvalid, contains: "Kano (State, 8 frames); Kano (LGA in Kano, 2 frames)"},
		{name: "Nasarawa", want: "Nasarawa", frames: 4},
		{name: "Nasarawa State", want: "Nasarawa", frames: 4},
		{name: "Nassarawa LGA", want: "Nassarawa", parent: "Kano", frames: 2},
		{name: "Obi", code: CodeInvalid, contains: "Obi (LGA in Benue, 2 frames); Obi (LGA in Nasarawa, 2 frames)"},
		{name: "Obi, Benue State", want: "Obi", parent: "Benue", frames: 2},
		{name: "obi lga, nasarawa", want: "Obi", parent: "Nasarawa", frames: 2},
		{name: "Nassarawa", want: "Nassarawa", parent: "Kano", frames: 2},
		{name: "FCT", want: "Federal Capital Territory", frames: 2},
		{name: "Abuja", want: "Federal Capital Territory", frames: 2},
		{name: "AMAC", want: "Municipal Area Council", frames: 2},
		{name: "Port Harcourt", want: "Port-Harcourt", frames: 4},
		{name: "Port Harcort", want: "Port-Harcourt", frames: 4},
		{name: "dala ward 1", kind: "ward", want: "Dala Ward 1", frames: 4},
		{name: "Timbuktu", code: CodeNotFound, contains: `no place called "Timbuktu"`},
		{name: "Dala", kind: "town", code: CodeInvalid, contains: "kinds are state, lga, ward"},
		{name: "Nigeria", frames: 20},
	} {
		a, err := c.Resolve(Spec{Place: tc.name, Kind: tc.kind}, "")
		if tc.code != "" {
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != tc.code || !strings.Contains(ae.Message, tc.contains) {
				t.Errorf("%q/%q: %v; want %s with %q", tc.name, tc.kind, err, tc.code, tc.contains)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q/%q: %v", tc.name, tc.kind, err)
			continue
		}
		if (tc.want != "" && a.Name != tc.want) || a.FrameCount != tc.frames || len(a.Pos) != tc.frames || (tc.parent != "" && a.Parent != tc.parent) {
			t.Errorf("%q/%q = %s %s in %q, %d frames", tc.name, tc.kind, a.Kind, a.Name, a.Parent, a.FrameCount)
		}
		want := 0.0
		for _, p := range a.Pos {
			want += cellKm2(ix, int(p))
		}
		if math.Abs(a.Km2-want) > 1e-9*want {
			t.Errorf("%q: %v km², want %v", tc.name, a.Km2, want)
		}
	}
	for _, tc := range []struct{ q, want string }{
		{"How many people live in Dala?", "Dala"},
		{"population of Kano State by LGA", "Kano State"},
		{"which ward of the Federal Capital Territory has the most people", "Federal Capital Territory"},
		{"total population", ""},
		{"people in nigeria", "nigeria"},
	} {
		got, err := c.InText(tc.q)
		if err != nil || got != tc.want {
			t.Errorf("InText(%q) = %q, %v; want %q", tc.q, got, err, tc.want)
		}
	}
}

// countingNear is a point set searched by brute force, counting searches.
type countingNear struct {
	pts      [][2]float64
	searches atomic.Int64
}

func (c *countingNear) NearestKm(lon, lat, limit float64) float64 {
	c.searches.Add(1)
	best := math.Inf(1)
	for _, p := range c.pts {
		best = math.Min(best, HaversineKm(lon, lat, p[0], p[1]))
	}
	if best > limit {
		return math.Inf(1)
	}
	return best
}

func TestFields(t *testing.T) {
	row, col := grid.CellAt(12.0, 8.5)
	ix := square(row-50, row+50, col-50, col+50)
	near := &countingNear{pts: [][2]float64{{8.5, 12.0}, {8.9, 12.3}}}
	f := NewFields(2)
	w := f.Wrap(ix, "clinics", 3, near)
	for pass := 0; pass < 2; pass++ {
		for p := 0; p < ix.Len(); p += 7 {
			b := ix.ShapeAt(p).Box
			lon, lat := (b.MinLon+b.MaxLon)/2, (b.MinLat+b.MaxLat)/2
			for _, limit := range []float64{5, 100} {
				want := near.NearestKm(lon, lat, limit)
				near.searches.Add(-1)
				if got := w.NearestKm(lon, lat, limit); got != want {
					t.Fatalf("pos %d limit %v: %v, want %v", p, limit, got, want)
				}
			}
		}
	}
	if n, frames := near.searches.Load(), int64((ix.Len()+6)/7); n != frames {
		t.Fatalf("%d searches for %d frames asked about twice at two limits", n, frames)
	}
	// Off a frame's centre, or beyond the field's limit: the index itself.
	if got, want := w.NearestKm(8.51, 12.01, 5), near.NearestKm(8.51, 12.01, 5); got != want {
		t.Fatalf("off-centre: %v, want %v", got, want)
	}
	if f.Wrap(ix, "clinics", 3, near) != w || f.Wrap(ix, "clinics", 4, near) == w {
		t.Fatal("a field is per dataset version")
	}
}

// TestRingHoistedTerms checks Ring, whose loop reads precomputed sines
// and cosines, against the formula computed whole for each vertex: the
// same float64s, so enrichment and the question call agree to the bit.
func TestRingHoistedTerms(t *testing.T) {
	for _, c := range [][3]float64{{8.52, 12, 5}, {3.3947, 6.4541, 2}, {13.1, 13.9, 100}, {-70, -33, 0.5}} {
		lon, lat, km := c[0], c[1], c[2]
		got := Ring(lon, lat, km)[0][0]
		theta := 2 * math.Pi / ringVertices
		d := km * math.Sqrt(theta/math.Sin(theta)) / EarthRadiusKm
		phi1, lam1 := lat*math.Pi/180, lon*math.Pi/180
		for i := 0; i < ringVertices; i++ {
			brg := -float64(i) * theta
			phi2 := math.Asin(math.Sin(phi1)*math.Cos(d) + math.Cos(phi1)*math.Sin(d)*math.Cos(brg))
			lam2 := lam1 + math.Atan2(math.Sin(brg)*math.Sin(d)*math.Cos(phi1), math.Cos(d)-math.Sin(phi1)*math.Sin(phi2))
			want := grid.Point{round7(lam2 * 180 / math.Pi), round7(phi2 * 180 / math.Pi)}
			if got[i] != want {
				t.Fatalf("Ring(%v, %v, %v) vertex %d = %v, want %v", lon, lat, km, i, got[i], want)
			}
		}
	}
}
