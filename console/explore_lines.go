package console

import (
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/paulmach/orb"
	orbclip "github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/simplify"
	"github.com/tidwall/rtree"

	"frameindex/grid"
	"frameindex/mvt"
)

// The map's country outline and state and LGA boundary lines as Mapbox
// Vector Tiles: GET /console/explore/lines/{outline|state|lga}/{z}/{y}/{x}
// (WebMercatorQuad, as the API's tiles). The geometry is prepared once
// (the outline when first asked for, the boundary lines with the place
// index, per dataset version): per zoom, simplified by Douglas-Peucker to
// half a pixel of a 512-pixel tile, cut into pieces of at most
// linePieceMax points in an R-tree. A tile then costs a search of the
// tree and package mvt's projection, clipping and encoding of the
// pieces found (20 to 450 microseconds; BenchmarkExploreLinesTile), once:
// the tiles that hold something are kept, encoded and gzipped.
// Tiles go up to zoom linesMaxZoom, where the boundary lines are drawn on
// the same floored tile coordinates as the frames of the API's zoom 9
// tiles; the map draws deeper zooms from them (overzoom), so the lines
// stay on the frames' edges.

const (
	// linesMaxZoom is the deepest zoom of the line tiles: the frames'
	// zoom in the map (the API's frameZoom).
	linesMaxZoom = 9
	// lineTolerance is the simplification tolerance, in tile units (4096
	// a tile): half a pixel of a 512-pixel tile.
	lineTolerance = 4.0
	// linePieceMax is the most points of a piece in the R-tree: long
	// lines are cut so that a tile reads little beyond itself.
	linePieceMax = 64
)

// lineMinZoom is the first zoom of each line layer: the outline at every
// zoom, states from 4 (the map's least zoom), LGAs from 7, where 774 of
// them stop being a tangle.
var lineMinZoom = map[string]int{"outline": 0, "state": 4, "lga": 7}

// lineTile is the address of a tile of a line layer.
type lineTile struct {
	layer   string
	z, x, y int
}

// parseLineTile reads a line tile's address, or returns false when the
// layer is not one of lineMinZoom's, the numbers are not whole decimal
// numbers, the zoom is outside the layer's range, or x or y are outside
// the zoom's matrix.
func parseLineTile(layer, z, y, x string) (lineTile, bool) {
	minZ, ok := lineMinZoom[layer]
	if !ok || !isSmallInt(z) || !isSmallInt(y) || !isSmallInt(x) {
		return lineTile{}, false
	}
	zi, _ := strconv.Atoi(z)
	yi, _ := strconv.Atoi(y)
	xi, _ := strconv.Atoi(x)
	if zi < minZ || zi > linesMaxZoom || xi >= 1<<zi || yi >= 1<<zi {
		return lineTile{}, false
	}
	return lineTile{layer: layer, z: zi, x: xi, y: yi}, true
}

// tileBytes is an encoded tile, and the same gzipped when it is worth it
// (1 KB or more).
type tileBytes struct{ data, gz []byte }

// tileCache keeps the encoded tiles that hold something. There are a few
// hundred per layer up to zoom 9 over a country (the lines they are cut
// from never change), so it needs no bound; empty tiles, which anyone can
// ask for anywhere, are not kept (they cost a search of the R-tree).
// Safe for concurrent use.
type tileCache struct{ m sync.Map } // lineTile -> *tileBytes

// get returns tile t, encoding it with enc on first use; nil when it
// holds nothing. Errors: enc's.
func (c *tileCache) get(t lineTile, enc func(lineTile) ([]byte, error)) (*tileBytes, error) {
	if v, ok := c.m.Load(t); ok {
		return v.(*tileBytes), nil
	}
	data, err := enc(t)
	if err != nil || len(data) == 0 {
		return nil, err
	}
	tb := &tileBytes{data: data}
	if len(data) >= 1024 {
		tb.gz = gzipBytes(data)
	}
	v, _ := c.m.LoadOrStore(t, tb)
	return v.(*tileBytes), nil
}

// tileSearchBuffer is the buffer of an mvt.Tile and a little more for the
// flooring of coordinates.
const tileSearchBuffer = mvt.Buffer + 8

// zoomTolerance is lineTolerance in degrees at zoom z (longitude; near
// the equator a degree of latitude is about as long on the map).
func zoomTolerance(z int) float64 { return lineTolerance * 360 / (mvt.Extent * math.Exp2(float64(z))) }

// lineSet is lines ready to be cut into tiles: per zoom from minZoom to
// linesMaxZoom, the lines simplified for that zoom, in pieces, in an
// R-tree; and the tiles encoded so far. The geometry is read-only once
// built, and the cache safe for concurrent use.
type lineSet struct {
	minZoom int
	zooms   [linesMaxZoom + 1]lineZoom
	cache   tileCache
}

type lineZoom struct {
	pieces []orb.LineString
	tree   rtree.RTreeG[int32] // bounds of pieces -> index
}

// newLineSet prepares lines (in degrees) for tiles from zoom minZoom.
func newLineSet(lines []orb.LineString, minZoom int) *lineSet {
	ls := &lineSet{minZoom: minZoom}
	for z := minZoom; z <= linesMaxZoom; z++ {
		dp := simplify.DouglasPeucker(zoomTolerance(z))
		lz := &ls.zooms[z]
		for _, l := range lines {
			s := dp.LineString(slices.Clone(l))
			for len(s) >= 2 {
				n := min(len(s), linePieceMax)
				p := s[:n:n]
				b := p.Bound()
				lz.tree.Insert(b.Min, b.Max, int32(len(lz.pieces)))
				lz.pieces = append(lz.pieces, p)
				if n == len(s) {
					break
				}
				s = s[n-1:] // the next piece starts where this one ends
			}
		}
	}
	return ls
}

// tile encodes tile t of the lines as one feature of layer t.layer; nil
// when no line crosses the tile. Errors: the encoder's.
func (ls *lineSet) tile(t lineTile) ([]byte, error) {
	if t.z < ls.minZoom || t.z > linesMaxZoom {
		return nil, nil
	}
	lz := &ls.zooms[t.z]
	b := mvt.Bounds(t.z, t.x, t.y, tileSearchBuffer)
	var ml orb.MultiLineString
	lz.tree.Search(b.Min, b.Max, func(_, _ [2]float64, i int32) bool {
		ml = append(ml, lz.pieces[i])
		return true
	})
	if len(ml) == 0 {
		return nil, nil
	}
	vt := mvt.New(t.layer, t.z, t.x, t.y)
	if !vt.Add(ml) {
		return nil, nil
	}
	return vt.Encode()
}

// outlineSet is the country outline ready to be cut into tiles: per
// zoom, its polygons simplified for that zoom with their bounds; from
// outlineBinZoom on, also clipped to each tile of that zoom (with its
// buffer, wider than any deeper tile's), so that a deep tile projects and
// clips a piece of the outline, not all of it. The geometry is read-only
// once built, and the cache safe for concurrent use.
type outlineSet struct {
	zooms [linesMaxZoom + 1][]outlinePolygon // below outlineBinZoom
	// From outlineBinZoom on: keyed by the x and y of the tile of
	// outlineBinZoom that holds the tile.
	bins  [linesMaxZoom + 1]map[[2]int][]outlinePolygon
	cache tileCache
}

// outlineBinZoom is the zoom of the outline's bins.
const outlineBinZoom = 6

type outlinePolygon struct {
	poly  orb.Polygon
	bound orb.Bound
}

// errNoOutline is returned for an outline with no polygon.
var errNoOutline = errors.New("the country outline holds no Polygon or MultiPolygon")

// newOutlineSet reads a GeoJSON outline (a FeatureCollection, Feature or
// geometry; its Polygons and MultiPolygons are drawn). Errors: the
// GeoJSON's, or errNoOutline.
func newOutlineSet(b []byte) (*outlineSet, error) {
	var polys []orb.Polygon
	add := func(g orb.Geometry) {
		switch g := g.(type) {
		case orb.Polygon:
			polys = append(polys, g)
		case orb.MultiPolygon:
			polys = append(polys, g...)
		}
	}
	if fc, err := geojson.UnmarshalFeatureCollection(b); err == nil && len(fc.Features) > 0 {
		for _, f := range fc.Features {
			add(f.Geometry)
		}
	} else if f, err := geojson.UnmarshalFeature(b); err == nil && f.Geometry != nil {
		add(f.Geometry)
	} else if g, err := geojson.UnmarshalGeometry(b); err == nil {
		add(g.Geometry())
	} else {
		return nil, err
	}
	polys = slices.DeleteFunc(polys, func(p orb.Polygon) bool { return len(p) == 0 || len(p[0]) < 4 })
	if len(polys) == 0 {
		return nil, errNoOutline
	}
	o := &outlineSet{}
	for z := range linesMaxZoom + 1 {
		dp := simplify.DouglasPeucker(zoomTolerance(z))
		if z >= outlineBinZoom {
			o.bins[z] = map[[2]int][]outlinePolygon{}
		}
		for _, p := range polys {
			s := dp.Polygon(p.Clone())
			if len(s) == 0 || len(s[0]) < 4 {
				continue // smaller than a pixel at this zoom
			}
			if z < outlineBinZoom {
				o.zooms[z] = append(o.zooms[z], outlinePolygon{poly: s, bound: s.Bound()})
				continue
			}
			b := s.Bound()
			x0, y0, x1, y1 := mvt.Range(b, outlineBinZoom)
			for x := x0; x <= x1; x++ {
				for y := y0; y <= y1; y++ {
					c := orbclip.Polygon(mvt.Bounds(outlineBinZoom, x, y, tileSearchBuffer), s.Clone())
					if len(c) == 0 || len(c[0]) < 4 {
						continue
					}
					k := [2]int{x, y}
					o.bins[z][k] = append(o.bins[z][k], outlinePolygon{poly: c, bound: c.Bound()})
				}
			}
		}
	}
	return o, nil
}

// tile encodes tile t of the outline as one polygon feature (filled by
// the map, its rings drawn as the outline); nil when the tile is outside
// the country.
func (o *outlineSet) tile(t lineTile) ([]byte, error) {
	if t.z > linesMaxZoom {
		return nil, nil
	}
	b := mvt.Bounds(t.z, t.x, t.y, tileSearchBuffer)
	polys := o.zooms[t.z]
	if t.z >= outlineBinZoom {
		sh := t.z - outlineBinZoom
		polys = o.bins[t.z][[2]int{t.x >> sh, t.y >> sh}]
	}
	var mp orb.MultiPolygon
	for _, p := range polys {
		if p.bound.Intersects(b) {
			mp = append(mp, p.poly)
		}
	}
	if len(mp) == 0 {
		return nil, nil
	}
	vt := mvt.New(t.layer, t.z, t.x, t.y)
	if !vt.Add(mp) {
		return nil, nil
	}
	return vt.Encode()
}

// outlineTiles returns the outline prepared for tiles, reading it on
// first use; nil when the server carries none or it cannot be read (the
// reason logged once).
func (s *Server) outlineTiles() *outlineSet {
	e := s.explore
	e.outlineOnce.Do(func() {
		if len(e.outline) == 0 {
			return
		}
		o, err := newOutlineSet(e.outline)
		if err != nil {
			s.log.Error("console: the country outline (Config.Outline) cannot be drawn", "err", err)
			return
		}
		e.outlineSet = o
	})
	return e.outlineSet
}

// handleLines serves a tile of the outline or of the state or LGA
// boundary lines: GET /console/explore/lines/{layer}/{z}/{y}/{x}. The
// boundary lines are served only to an organisation whose Explore key
// reads, without charge, a dataset that records them (as place search).
func (s *Server) handleLines(w http.ResponseWriter, r *http.Request) {
	t, ok := parseLineTile(r.PathValue("layer"), r.PathValue("z"), r.PathValue("y"), r.PathValue("x"))
	if !ok {
		writeJSONError(w, http.StatusNotFound, "not_found",
			"line tiles are /console/explore/lines/{outline|state|lga}/{z}/{y}/{x}, from zoom 0 (outline), 4 (state) or 7 (lga) to "+strconv.Itoa(linesMaxZoom)+", with y and x within the zoom's tiles")
		return
	}
	var tb *tileBytes
	var err error
	if t.layer == "outline" {
		o := s.outlineTiles()
		if o == nil {
			writeJSONError(w, http.StatusNotFound, "not_found", "this server carries no country outline")
			return
		}
		tb, err = o.cache.get(t, o.tile)
	} else {
		idx, ok := s.exploreIndex(w, r, "boundaries")
		if !ok {
			return
		}
		ls := idx.lines[t.layer]
		if ls == nil {
			writeJSONError(w, http.StatusNotFound, "not_found", "no dataset your organisation reads without charge records "+t.layer)
			return
		}
		tb, err = ls.cache.get(t, ls.tile)
	}
	if err != nil {
		s.log.Error("console: encoding a line tile failed", "layer", t.layer, "z", t.z, "x", t.x, "y", t.y, "err", err)
		writeJSONError(w, http.StatusInternalServerError, "internal", "the tile could not be drawn; try again")
		return
	}
	h := w.Header()
	h.Del("Content-Security-Policy") // not a page
	h.Set("Cache-Control", "private, max-age=300")
	if tb == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	h.Set("Content-Type", "application/vnd.mapbox-vector-tile")
	if tb.gz == nil {
		w.Write(tb.data)
		return
	}
	writeGzipped(w, r, tb.data, tb.gz)
}

// lines joins the boundary edges into lines through the lattice's
// vertices where exactly two edges meet, in degrees: a boundary between
// two areas is one line from junction to junction (or a closed loop
// around an enclave), not hundreds of two-point steps.
func (e *edges) lines() []orb.LineString {
	type seg struct{ a, b uint64 } // vertices: row<<32 | col
	vtx := func(row, col int) uint64 { return uint64(row)<<32 | uint64(uint32(col)) }
	var segs []seg
	for _, h := range e.horizontal {
		segs = append(segs, seg{vtx(h[0], h[1]), vtx(h[0], h[2]+1)})
	}
	v := slices.Clone(e.vertical)
	slices.Sort(v)
	for i := 0; i < len(v); {
		col, row := int(v[i]>>32), int(uint32(v[i]))
		j := i + 1
		for j < len(v) && v[j] == v[j-1]+1 {
			j++
		}
		segs = append(segs, seg{vtx(row, col), vtx(row+(j-i), col)})
		i = j
	}
	at := make(map[uint64][]int32, 2*len(segs))
	for i, s := range segs {
		at[s.a] = append(at[s.a], int32(i))
		at[s.b] = append(at[s.b], int32(i))
	}
	used := make([]bool, len(segs))
	point := func(p uint64) orb.Point { return orb.Point{grid.Lon(int(uint32(p))), grid.Lat(int(p >> 32))} }
	// walk follows segments from segment i, entered at vertex from, while
	// the vertex ahead joins exactly two.
	walk := func(i int32, from uint64) orb.LineString {
		l := orb.LineString{point(from)}
		for {
			used[i] = true
			s := segs[i]
			next := s.b
			if s.b == from {
				next = s.a
			}
			l = append(l, point(next))
			nb := at[next]
			if len(nb) != 2 {
				return l
			}
			j := nb[0]
			if j == i {
				j = nb[1]
			}
			if used[j] {
				return l
			}
			i, from = j, next
		}
	}
	var out []orb.LineString
	// From the ends and junctions first, then the closed loops left.
	for i, s := range segs {
		if used[i] {
			continue
		}
		switch {
		case len(at[s.a]) != 2:
			out = append(out, walk(int32(i), s.a))
		case len(at[s.b]) != 2:
			out = append(out, walk(int32(i), s.b))
		}
	}
	for i, s := range segs {
		if !used[i] {
			out = append(out, walk(int32(i), s.a))
		}
	}
	return out
}
