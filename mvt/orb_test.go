package mvt

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/paulmach/orb"
	orbmvt "github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/maptile"
)

// The tile the comparisons draw: zoom 10 over Abuja, where the API draws
// frames one by one.
const benchZ, benchX, benchY = 10, 533, 486

// frame is a frame's box with the properties a tile of frames carries.
type frame struct {
	box        orb.Bound
	id         uint64
	population float64
}

// benchFrames returns the frames (1/120 degree) of the tile and its
// buffer, and a frame more on every side: about 1,900, as the API's tile
// of a dataset draws them.
func benchFrames() []frame {
	b := Bounds(benchZ, benchX, benchY, Buffer)
	const step = 1.0 / 120
	c0, c1 := int(math.Floor(b.Min[0]/step))-1, int(math.Ceil(b.Max[0]/step))+1
	r0, r1 := int(math.Floor(b.Min[1]/step))-1, int(math.Ceil(b.Max[1]/step))+1
	var fs []frame
	for r := r0; r < r1; r++ {
		for c := c0; c < c1; c++ {
			box := orb.Bound{Min: orb.Point{float64(c) * step, float64(r) * step}, Max: orb.Point{float64(c+1) * step, float64(r+1) * step}}
			id := uint64(r)*43200 + uint64(c+21600)
			fs = append(fs, frame{box: box, id: id, population: float64(id%997) + 0.5})
		}
	}
	return fs
}

// benchLines returns lines crossing the tile and its surroundings, as the
// console's boundary tiles draw them: 40 random walks of 200 points.
func benchLines() orb.MultiLineString {
	b := Bounds(benchZ, benchX, benchY, 0)
	w, h := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
	rnd := rand.New(rand.NewPCG(1, 2))
	var ml orb.MultiLineString
	for range 40 {
		p := orb.Point{b.Min[0] - w/2 + 2*w*rnd.Float64(), b.Min[1] - h/2 + 2*h*rnd.Float64()}
		l := orb.LineString{p}
		for range 199 {
			p = orb.Point{p[0] + w*(rnd.Float64()-0.5)/10, p[1] + h*(rnd.Float64()-0.5)/10}
			l = append(l, p)
		}
		ml = append(ml, l)
	}
	return ml
}

// oursFrames encodes the frames with this package's encoder.
func oursFrames(fs []frame) ([]byte, error) {
	t := New("frames", benchZ, benchX, benchY)
	for _, f := range fs {
		if t.Rect(f.box, f.id) {
			t.TagUint("frame_id", f.id)
			t.TagFloat("population", f.population)
			t.Done()
		}
	}
	return t.Encode()
}

// orbFrames encodes the frames with orb's encoding/mvt, as this package's
// encoder does: the same projection (floored world coordinates), a
// buffer of the same width, rings clockwise on the tile.
func orbFrames(fs []frame) ([]byte, error) {
	fc := geojson.NewFeatureCollection()
	for _, f := range fs {
		nw, ne := orb.Point{f.box.Min[0], f.box.Max[1]}, f.box.Max
		se, sw := orb.Point{f.box.Max[0], f.box.Min[1]}, f.box.Min
		g := geojson.NewFeature(orb.Polygon{{nw, ne, se, sw, nw}})
		g.ID = f.id
		g.Properties["frame_id"] = f.id
		g.Properties["population"] = f.population
		fc.Append(g)
	}
	return orbEncode("frames", fc)
}

// oursLines encodes the lines with this package's encoder, as the
// console's line tiles do.
func oursLines(ml orb.MultiLineString) ([]byte, error) {
	t := New("lines", benchZ, benchX, benchY)
	t.Add(ml)
	return t.Encode()
}

// orbLines encodes the lines with orb's encoding/mvt, on a copy: its
// projection and clipping rewrite the geometry they are given.
func orbLines(ml orb.MultiLineString) ([]byte, error) {
	fc := geojson.NewFeatureCollection()
	fc.Append(geojson.NewFeature(ml.Clone()))
	return orbEncode("lines", fc)
}

func orbEncode(name string, fc *geojson.FeatureCollection) ([]byte, error) {
	l := orbmvt.NewLayer(name, fc)
	l.Version = 2 // as this package writes (orb writes 1)
	l.ProjectToTile(maptile.New(benchX, benchY, benchZ))
	l.Clip(orb.Bound{Min: orb.Point{-Buffer, -Buffer}, Max: orb.Point{Extent + Buffer, Extent + Buffer}})
	return orbmvt.Marshal(orbmvt.Layers{l})
}

// TestTile_AgreesWithOrb decodes a tile of frames and a tile of lines
// encoded by this package and by orb with orb's decoder: the same
// features, ids, properties and geometries (rings compared whatever
// point they start from and whichever way they turn, lines without the
// zero-length steps orb writes).
func TestTile_AgreesWithOrb(t *testing.T) {
	fs, ml := benchFrames(), benchLines()
	for _, tc := range []struct {
		name      string
		ours, orb func() ([]byte, error)
	}{
		{"frames", func() ([]byte, error) { return oursFrames(fs) }, func() ([]byte, error) { return orbFrames(fs) }},
		{"lines", func() ([]byte, error) { return oursLines(ml) }, func() ([]byte, error) { return orbLines(ml) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := decode(t, tc.ours), decode(t, tc.orb)
			if len(a.Features) == 0 || len(a.Features) != len(b.Features) {
				t.Fatalf("%d features, orb %d", len(a.Features), len(b.Features))
			}
			if a.Name != b.Name || a.Extent != b.Extent || a.Version != b.Version {
				t.Fatalf("layer %s/%d/%d, orb %s/%d/%d", a.Name, a.Extent, a.Version, b.Name, b.Extent, b.Version)
			}
			for i := range a.Features {
				fa, fb := a.Features[i], b.Features[i]
				if fa.ID != fb.ID || !reflect.DeepEqual(fa.Properties, fb.Properties) {
					t.Fatalf("feature %d: id %v %v, orb %v %v", i, fa.ID, fa.Properties, fb.ID, fb.Properties)
				}
				if ga, gb := canon(fa.Geometry), canon(fb.Geometry); ga != gb {
					t.Fatalf("feature %d (id %v): geometry\n%s\norb\n%s", i, fa.ID, ga, gb)
				}
			}
		})
	}
}

func decode(t *testing.T, enc func() ([]byte, error)) *orbmvt.Layer {
	t.Helper()
	data, err := enc()
	if err != nil {
		t.Fatal(err)
	}
	ls, err := orbmvt.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 1 {
		t.Fatalf("%d layers", len(ls))
	}
	return ls[0]
}

// canon writes a decoded geometry with each ring from its least point,
// turning the way that visits the lesser neighbour first; lines without
// repeated points.
func canon(g orb.Geometry) string {
	ring := func(r orb.Ring) string {
		ps := []orb.Point(r)
		if len(ps) > 1 && ps[0] == ps[len(ps)-1] {
			ps = ps[:len(ps)-1]
		}
		less := func(p, q orb.Point) int { return cmp.Or(cmp.Compare(p[0], q[0]), cmp.Compare(p[1], q[1])) }
		lo := 0
		for i := range ps {
			if less(ps[i], ps[lo]) < 0 {
				lo = i
			}
		}
		ps = append(slices.Clone(ps[lo:]), ps[:lo]...)
		if len(ps) > 2 && less(ps[len(ps)-1], ps[1]) < 0 {
			slices.Reverse(ps[1:])
		}
		return fmt.Sprint(ps)
	}
	switch g := g.(type) {
	case orb.Polygon:
		s := "polygon"
		for _, r := range g {
			s += " " + ring(r)
		}
		return s
	case orb.MultiPolygon:
		s := "multipolygon"
		for _, p := range g {
			s += " " + canon(p)
		}
		return s
	case orb.MultiLineString:
		// orb writes the steps of (0, 0) that flooring leaves, and lines
		// of one point, which the specification (4.3.3.2) forbids and
		// this package leaves out.
		var ml orb.MultiLineString
		for _, l := range g {
			l = slices.Compact(slices.Clone(l))
			if len(l) >= 2 {
				ml = append(ml, l)
			}
		}
		return fmt.Sprint(ml)
	}
	return fmt.Sprintf("%T %v", g, g)
}

// BenchmarkEncode encodes the same tiles with this package's encoder and
// with orb's encoding/mvt (GeoJSON features, ProjectToTile, Clip,
// Marshal), from the boxes or lines in degrees to the protocol buffer.
func BenchmarkEncode(b *testing.B) {
	fs, ml := benchFrames(), benchLines()
	for _, bc := range []struct {
		name string
		enc  func() ([]byte, error)
	}{
		{"frames/ours", func() ([]byte, error) { return oursFrames(fs) }},
		{"frames/orb", func() ([]byte, error) { return orbFrames(fs) }},
		{"lines/ours", func() ([]byte, error) { return oursLines(ml) }},
		{"lines/orb", func() ([]byte, error) { return orbLines(ml) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.enc(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
