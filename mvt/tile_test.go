package mvt

import (
	"testing"

	"github.com/paulmach/orb"
)

func TestBoundsAndTileOf(t *testing.T) {
	b := Bounds(10, 533, 486, 0)
	if x, y := TileOf(7.3986, 9.0765, 10); x != 533 || y != 486 || !b.Contains(orb.Point{7.3986, 9.0765}) {
		t.Fatalf("Abuja is in tile %d/%d, box %+v", x, y, b)
	}
	if b.Max[0]-b.Min[0] != 360.0/1024 {
		t.Fatalf("tile width %v", b.Max[0]-b.Min[0])
	}
	wide := Bounds(10, 533, 486, Buffer)
	if !(wide.Min[0] < b.Min[0] && wide.Max[1] > b.Max[1]) {
		t.Fatal("the buffer does not widen the box")
	}
	if x, y := TileOf(180, -90, 3); x != 7 || y != 7 {
		t.Fatalf("the south-east corner is in tile %d/%d", x, y)
	}
}

// decodeCommands decodes one feature's geometry commands into rings or
// points, as a client would.
func decodeCommands(t *testing.T, cmds []uint32) [][]orb.Point {
	t.Helper()
	var out [][]orb.Point
	var x, y int32
	unzig := func(v uint32) int32 { return int32(v>>1) ^ -int32(v&1) }
	for i := 0; i < len(cmds); {
		id, n := cmds[i]&7, int(cmds[i]>>3)
		i++
		switch id {
		case cmdMoveTo:
			for range n {
				x += unzig(cmds[i])
				y += unzig(cmds[i+1])
				i += 2
				out = append(out, []orb.Point{{float64(x), float64(y)}})
			}
		case cmdLineTo:
			for range n {
				x += unzig(cmds[i])
				y += unzig(cmds[i+1])
				i += 2
				out[len(out)-1] = append(out[len(out)-1], orb.Point{float64(x), float64(y)})
			}
		case cmdClosePath:
		default:
			t.Fatalf("command %d", id)
		}
	}
	return out
}

func area(ps []orb.Point) float64 {
	a := 0.0
	for j := range ps {
		p, q := ps[j], ps[(j+1)%len(ps)]
		a += p[0]*q[1] - q[0]*p[1]
	}
	return a / 2
}

func TestTile_Geometries(t *testing.T) {
	tl := New("t", 10, 533, 486)
	b := Bounds(10, 533, 486, 0)
	// A frame in the middle: a rectangle with a positive area.
	frame := orb.Bound{Min: orb.Point{7.3917, 9.075}, Max: orb.Point{7.4, 9.0833}}
	if !tl.Rect(frame, 7) {
		t.Fatal("a frame in the tile was not drawn")
	}
	tl.Done()
	// Far outside: nothing.
	if tl.Rect(orb.Bound{Max: orb.Point{1, 1}}, 8) {
		t.Fatal("a frame outside the tile was drawn")
	}
	// A polygon with a hole, given with the wrong orientations; a line;
	// a point; a polygon collapsed to nothing.
	cx, cy := b.Center()[0], b.Center()[1]
	d := (b.Max[0] - b.Min[0]) / 8
	poly := orb.Polygon{
		{{cx - d, cy - d}, {cx - d, cy + d}, {cx + d, cy + d}, {cx + d, cy - d}, {cx - d, cy - d}},
		{{cx - d/2, cy - d/2}, {cx + d/2, cy - d/2}, {cx + d/2, cy + d/2}, {cx - d/2, cy + d/2}, {cx - d/2, cy - d/2}},
	}
	for _, g := range []orb.Geometry{poly, orb.LineString{{cx, cy}, {cx, cy}, {cx + d, cy}}, orb.Point{cx, cy}} {
		if !tl.Geometry(g, 0, false) {
			t.Fatalf("%T not drawn", g)
		}
		tl.Tag("kind", "x")
		tl.Done()
	}
	if tl.Geometry(orb.Polygon{{{cx, cy}, {cx + 1e-9, cy}, {cx, cy + 1e-9}, {cx, cy}}}, 0, false) {
		t.Fatal("a polygon smaller than a tile unit was drawn")
	}
	if tl.Len() != 4 {
		t.Fatalf("%d features", tl.Len())
	}
	data, all, err := tl.EncodeWithin(1<<20, false)
	if err != nil || !all || len(data) == 0 {
		t.Fatalf("encode: %d bytes, %v, %v", len(data), all, err)
	}
	// The rectangle and the polygon: outer rings positive, the hole negative.
	rings := decodeCommands(t, tl.geoms[:tl.geomEnd[0]])
	if len(rings) != 1 || len(rings[0]) != 4 || area(rings[0]) <= 0 {
		t.Fatalf("rectangle %v", rings)
	}
	rings = decodeCommands(t, tl.geoms[tl.geomEnd[0]:tl.geomEnd[1]])
	if len(rings) != 2 || area(rings[0]) <= 0 || area(rings[1]) >= 0 {
		t.Fatalf("polygon rings %v", rings)
	}
	line := decodeCommands(t, tl.geoms[tl.geomEnd[1]:tl.geomEnd[2]])
	if len(line) != 1 || len(line[0]) != 2 {
		t.Fatalf("line %v: a repeated point must be dropped", line)
	}
}
