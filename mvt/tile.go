package mvt

import (
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/encoding/mvt/vectortile"
)

// Tile builds one layer of a Mapbox Vector Tile (specification 2.1) of
// WebMercatorQuad tile z/x/y, extent 4096. A feature is begun by Rect or
// Geometry, given properties by the Tag methods, and ended by Done.
// Geometries are projected and clipped to the tile and Buffer units
// beyond it; coordinates are floored world coordinates at the tile's
// zoom, so that a shared edge lands on the same integer in every tile.
// Not safe for concurrent use; each tile is built by one goroutine.
type Tile struct {
	name    string
	z, x, y int
	scale   float64 // extent * 2^z: world size in tile units
	buf     float64 // tile units drawn beyond each edge

	keys      []string
	keyIdx    map[string]uint32
	vals      []*vectortile.Tile_Value
	valArena  []vectortile.Tile_Value
	uintArena []uint64
	fltArena  []float64
	floatIdx  map[float64]uint32
	uintIdx   map[uint64]uint32
	stringIdx map[string]uint32
	boolIdx   [2]uint32 // index+1 of false and true, 0 when not yet used

	// Features, their geometry commands and tags, in arenas; a feature's
	// slices are cut at marshal time from the offsets.
	types    []vectortile.Tile_GeomType
	ids      []uint64
	hasID    []bool
	geomEnd  []int
	tagEnd   []int
	geoms    []uint32
	tags     []uint32
	pts      []orb.Point // scratch
	cursorX  int32       // the encoder's cursor within the current feature
	cursorY  int32
	features int
}

// New starts tile z/x/y with one layer named name. z, x and y are not
// checked: the caller keeps them within WebMercatorQuad.
func New(name string, z, x, y int) *Tile {
	return &Tile{
		name: name, z: z, x: x, y: y,
		scale:     Extent * math.Exp2(float64(z)),
		buf:       Buffer,
		keyIdx:    make(map[string]uint32, 8),
		floatIdx:  make(map[float64]uint32, 256),
		uintIdx:   make(map[uint64]uint32, 256),
		stringIdx: make(map[string]uint32, 16),
	}
}

// px and py are a longitude's and latitude's tile coordinates.
func (t *Tile) px(lon float64) float64 {
	return math.Floor((lon+180)/360*t.scale) - float64(t.x)*Extent
}

func (t *Tile) py(lat float64) float64 {
	lat = max(-MaxLat, min(lat, MaxLat)) * math.Pi / 180
	y := (1 - math.Log(math.Tan(lat)+1/math.Cos(lat))/math.Pi) / 2
	return math.Floor(y*t.scale) - float64(t.y)*Extent
}

// Len returns the number of features ended by Done.
func (t *Tile) Len() int { return t.features }

// begin starts a feature, with an id when hasID.
func (t *Tile) begin(typ vectortile.Tile_GeomType, id uint64, hasID bool) {
	t.types = append(t.types, typ)
	t.ids = append(t.ids, id)
	t.hasID = append(t.hasID, hasID)
	t.cursorX, t.cursorY = 0, 0
}

// drop discards the feature begun last, which drew nothing.
func (t *Tile) drop(geomStart, tagStart int) {
	t.types, t.ids, t.hasID = t.types[:t.features], t.ids[:t.features], t.hasID[:t.features]
	t.geoms, t.tags = t.geoms[:geomStart], t.tags[:tagStart]
}

// Tag adds a property to the feature being built. Values are float64,
// string, bool, uint64 or int (a negative int as 0); others are ignored.
func (t *Tile) Tag(key string, v any) {
	switch x := v.(type) {
	case int:
		t.TagUint(key, uint64(max(x, 0)))
	case uint64:
		t.TagUint(key, x)
	case float64:
		t.TagFloat(key, x)
	case string:
		t.TagString(key, x)
	case bool:
		t.TagBool(key, x)
	}
}

// key returns the index of a property name in the layer's keys.
func (t *Tile) key(k string) uint32 {
	ki, ok := t.keyIdx[k]
	if !ok {
		ki = uint32(len(t.keys))
		t.keys = append(t.keys, k)
		t.keyIdx[k] = ki
	}
	return ki
}

// value appends a new value to the layer's values and returns its index.
func (t *Tile) value(v vectortile.Tile_Value) uint32 {
	t.vals = append(t.vals, inArena(&t.valArena, v))
	return uint32(len(t.vals) - 1)
}

// inArena stores v in *arena and returns a pointer to the copy, taking a
// new block of 256 when the arena is full: the values of a tile cost a few
// allocations, not one each, and a pointer stays valid as the arena grows.
func inArena[T any](arena *[]T, v T) *T {
	if len(*arena) == cap(*arena) {
		*arena = make([]T, 0, 256)
	}
	*arena = append(*arena, v)
	return &(*arena)[len(*arena)-1]
}

// TagFloat adds a number property; NaN and infinities are left out.
func (t *Tile) TagFloat(key string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	vi, ok := t.floatIdx[v]
	if !ok {
		vi = t.value(vectortile.Tile_Value{DoubleValue: inArena(&t.fltArena, v)})
		t.floatIdx[v] = vi
	}
	t.tags = append(t.tags, t.key(key), vi)
}

// TagUint adds an unsigned integer property.
func (t *Tile) TagUint(key string, v uint64) {
	vi, ok := t.uintIdx[v]
	if !ok {
		vi = t.value(vectortile.Tile_Value{UintValue: inArena(&t.uintArena, v)})
		t.uintIdx[v] = vi
	}
	t.tags = append(t.tags, t.key(key), vi)
}

// TagString adds a string property.
func (t *Tile) TagString(key string, v string) {
	vi, ok := t.stringIdx[v]
	if !ok {
		p := new(string)
		*p = v
		vi = t.value(vectortile.Tile_Value{StringValue: p})
		t.stringIdx[v] = vi
	}
	t.tags = append(t.tags, t.key(key), vi)
}

// TagBytes is TagString for the bytes of a string, allocating only for a
// value not seen before in the tile.
func (t *Tile) TagBytes(key string, v []byte) {
	if vi, ok := t.stringIdx[string(v)]; ok {
		t.tags = append(t.tags, t.key(key), vi)
		return
	}
	t.TagString(key, string(v))
}

// TagBool adds a boolean property.
func (t *Tile) TagBool(key string, v bool) {
	i := 0
	if v {
		i = 1
	}
	if t.boolIdx[i] == 0 {
		t.boolIdx[i] = t.value(vectortile.Tile_Value{BoolValue: &[]bool{v}[0]}) + 1
	}
	t.tags = append(t.tags, t.key(key), t.boolIdx[i]-1)
}

// Geometry commands (specification 4.3).
const (
	cmdMoveTo    = 1
	cmdLineTo    = 2
	cmdClosePath = 7
)

func command(id, count int) uint32 { return uint32(id&7) | uint32(count)<<3 }
func zigzag(v int32) uint32        { return uint32((v << 1) ^ (v >> 31)) }

// point appends one parameter pair, relative to the cursor.
func (t *Tile) point(p orb.Point) {
	x, y := int32(p[0]), int32(p[1])
	t.geoms = append(t.geoms, zigzag(x-t.cursorX), zigzag(y-t.cursorY))
	t.cursorX, t.cursorY = x, y
}

// Rect begins a polygon feature of id: box b (in degrees) as a rectangle
// in tile coordinates, clipped to the tile and its buffer (a rectangle
// clipped by a rectangle is their overlap). It returns false, adding
// nothing, when nothing of it is left. Tags follow, then Done.
func (t *Tile) Rect(b orb.Bound, id uint64) bool {
	lo, hi := -t.buf, Extent+t.buf
	x0, x1 := max(t.px(b.Min[0]), lo), min(t.px(b.Max[0]), hi)
	y0, y1 := max(t.py(b.Max[1]), lo), min(t.py(b.Min[1]), hi)
	if x0 >= x1 || y0 >= y1 {
		return false
	}
	t.begin(vectortile.Tile_POLYGON, id, true)
	// Clockwise on the y-down tile: north-west, north-east, south-east,
	// south-west (a positive area by the surveyor's formula).
	t.geoms = append(t.geoms, command(cmdMoveTo, 1))
	t.point(orb.Point{x0, y0})
	t.geoms = append(t.geoms, command(cmdLineTo, 3))
	t.point(orb.Point{x1, y0})
	t.point(orb.Point{x1, y1})
	t.point(orb.Point{x0, y1})
	t.geoms = append(t.geoms, command(cmdClosePath, 1))
	return true
}

// pending returns where the current feature's geometry and tags start.
func (t *Tile) pending() (geomStart, tagStart int) {
	if t.features == 0 {
		return 0, 0
	}
	return t.geomEnd[t.features-1], t.tagEnd[t.features-1]
}

// Done ends the feature begun by Rect or Geometry, with its tags.
func (t *Tile) Done() {
	t.geomEnd = append(t.geomEnd, len(t.geoms))
	t.tagEnd = append(t.tagEnd, len(t.tags))
	t.features++
}

// project returns g (in degrees) in tile coordinates, clipped to the tile
// and its buffer; nil when nothing is left.
func (t *Tile) project(g orb.Geometry) orb.Geometry {
	pt := func(p orb.Point) orb.Point { return orb.Point{t.px(p[0]), t.py(p[1])} }
	ring := func(r orb.Ring) orb.Ring {
		out := make(orb.Ring, len(r))
		for i, p := range r {
			out[i] = pt(p)
		}
		return out
	}
	line := func(l orb.LineString) orb.LineString { return orb.LineString(ring(orb.Ring(l))) }
	var pg orb.Geometry
	switch g := g.(type) {
	case orb.Point:
		pg = pt(g)
	case orb.MultiPoint:
		pg = orb.MultiPoint(ring(orb.Ring(g)))
	case orb.LineString:
		pg = line(g)
	case orb.MultiLineString:
		m := make(orb.MultiLineString, len(g))
		for i, l := range g {
			m[i] = line(l)
		}
		pg = m
	case orb.Polygon:
		p := make(orb.Polygon, len(g))
		for i, r := range g {
			p[i] = ring(r)
		}
		pg = p
	case orb.MultiPolygon:
		m := make(orb.MultiPolygon, len(g))
		for i, poly := range g {
			p := make(orb.Polygon, len(poly))
			for j, r := range poly {
				p[j] = ring(r)
			}
			m[i] = p
		}
		pg = m
	default:
		return nil
	}
	lo, hi := -t.buf, Extent+t.buf
	return clip.Geometry(orb.Bound{Min: orb.Point{lo, lo}, Max: orb.Point{hi, hi}}, pg)
}

// Geometry begins a feature of g (in degrees: a (Multi)Point,
// (Multi)LineString or (Multi)Polygon), with an id when hasID; it returns
// false, adding nothing, when nothing of it is left in the tile. Tags
// follow, then Done.
func (t *Tile) Geometry(g orb.Geometry, id uint64, hasID bool) bool {
	g = t.project(g)
	if g == nil {
		return false
	}
	gs, ts := t.pending()
	switch g := g.(type) {
	case orb.Point:
		t.begin(vectortile.Tile_POINT, id, hasID)
		t.geoms = append(t.geoms, command(cmdMoveTo, 1))
		t.point(g)
	case orb.MultiPoint:
		t.begin(vectortile.Tile_POINT, id, hasID)
		t.geoms = append(t.geoms, command(cmdMoveTo, len(g)))
		for _, p := range g {
			t.point(p)
		}
		if len(g) == 0 {
			t.geoms = t.geoms[:gs]
		}
	case orb.LineString:
		t.begin(vectortile.Tile_LINESTRING, id, hasID)
		t.line(g)
	case orb.MultiLineString:
		t.begin(vectortile.Tile_LINESTRING, id, hasID)
		for _, l := range g {
			t.line(l)
		}
	case orb.Polygon:
		t.begin(vectortile.Tile_POLYGON, id, hasID)
		t.polygon(g)
	case orb.MultiPolygon:
		t.begin(vectortile.Tile_POLYGON, id, hasID)
		for _, p := range g {
			t.polygon(p)
		}
	default:
		return false
	}
	if len(t.geoms) == gs {
		t.drop(gs, ts)
		return false
	}
	return true
}

// distinct returns the points of a path without repeats of the point
// before (a line or ring may not step by (0, 0)).
func (t *Tile) distinct(ps []orb.Point) []orb.Point {
	t.pts = t.pts[:0]
	for _, p := range ps {
		if n := len(t.pts); n == 0 || t.pts[n-1] != p {
			t.pts = append(t.pts, p)
		}
	}
	return t.pts
}

func (t *Tile) line(l orb.LineString) {
	ps := t.distinct(l)
	if len(ps) < 2 {
		return
	}
	t.geoms = append(t.geoms, command(cmdMoveTo, 1))
	t.point(ps[0])
	t.geoms = append(t.geoms, command(cmdLineTo, len(ps)-1))
	for _, p := range ps[1:] {
		t.point(p)
	}
}

// polygon encodes a polygon's rings, the outer ring with a positive area
// (clockwise on the y-down tile) and holes negative; rings that collapsed
// to no area are left out, and the polygon with its outer ring.
func (t *Tile) polygon(p orb.Polygon) {
	for i, r := range p {
		ps := t.distinct(r)
		if len(ps) > 1 && ps[0] == ps[len(ps)-1] {
			ps = ps[:len(ps)-1]
		}
		if len(ps) < 3 {
			if i == 0 {
				return
			}
			continue
		}
		area := 0.0
		for j := range ps {
			a, b := ps[j], ps[(j+1)%len(ps)]
			area += a[0]*b[1] - b[0]*a[1]
		}
		if area == 0 {
			if i == 0 {
				return
			}
			continue
		}
		if (area > 0) != (i == 0) {
			for a, b := 0, len(ps)-1; a < b; a, b = a+1, b-1 {
				ps[a], ps[b] = ps[b], ps[a]
			}
		}
		t.geoms = append(t.geoms, command(cmdMoveTo, 1))
		t.point(ps[0])
		t.geoms = append(t.geoms, command(cmdLineTo, len(ps)-1))
		for _, q := range ps[1:] {
			t.point(q)
		}
		t.geoms = append(t.geoms, command(cmdClosePath, 1))
	}
}

// marshal encodes the first n features.
func (t *Tile) marshal(n int) ([]byte, error) {
	version, extent := uint32(2), uint32(Extent)
	feats := make([]vectortile.Tile_Feature, n)
	ptrs := make([]*vectortile.Tile_Feature, n)
	gs, ts := 0, 0
	for i := range n {
		f := &feats[i]
		f.Type = &t.types[i]
		if t.hasID[i] {
			f.Id = &t.ids[i]
		}
		f.Geometry = t.geoms[gs:t.geomEnd[i]:t.geomEnd[i]]
		if t.tagEnd[i] > ts {
			f.Tags = t.tags[ts:t.tagEnd[i]:t.tagEnd[i]]
		}
		gs, ts = t.geomEnd[i], t.tagEnd[i]
		ptrs[i] = f
	}
	layer := &vectortile.Tile_Layer{Version: &version, Name: &t.name, Features: ptrs, Keys: t.keys, Values: t.vals, Extent: &extent}
	tile := vectortile.Tile{Layers: []*vectortile.Tile_Layer{layer}}
	return tile.Marshal()
}

// Add adds g as a feature without id or properties (Geometry, then
// Done), reporting false, adding nothing, when nothing of g is left.
func (t *Tile) Add(g orb.Geometry) bool {
	if !t.Geometry(g, 0, false) {
		return false
	}
	t.Done()
	return true
}

// Encode returns the tile's protocol buffer with every feature ended by
// Done. Errors: the protocol buffer encoder's, which do not happen for
// geometries Rect and Geometry accepted.
func (t *Tile) Encode() ([]byte, error) { return t.marshal(t.features) }

// EncodeWithin is Encode for a tile of at most limit bytes. When the tile
// would be larger, with trim the longest prefix of its features that fits
// is kept; without trim the whole tile is returned. all reports whether
// the data holds every feature within limit.
func (t *Tile) EncodeWithin(limit int, trim bool) (data []byte, all bool, err error) {
	data, err = t.marshal(t.features)
	if err != nil || len(data) <= limit {
		return data, true, err
	}
	if !trim {
		return data, false, nil
	}
	lo, hi := 0, t.features // lo features fit, hi do not
	data = nil
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		d, err := t.marshal(mid)
		if err != nil {
			return nil, false, err
		}
		if len(d) <= limit {
			lo, data = mid, d
		} else {
			hi = mid
		}
	}
	if data == nil {
		data, err = t.marshal(0)
	}
	return data, false, err
}
