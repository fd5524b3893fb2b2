package ogc

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/paulmach/orb"

	"frameindex/access"
	"frameindex/grid"
	"frameindex/internal/jsonscan"
	"frameindex/mvt"
	"frameindex/state"
)

// Vector tiles (OGC API - Tiles, Mapbox Vector Tiles) in WebMercatorQuad.
//
// What a tile holds depends on its zoom. A frame is 1/120 degree, about
// 256*2^z/43200 pixels of a 256-pixel tile at zoom z: 5.9 pixels at 10,
// 1.5 at 8, 0.4 at 6.
//
//   - Zoom 9 to 16: every frame as it is (the grid's, or the frames a
//     dataset records something on, with their values), and every feature.
//   - Zoom 6 to 8, lattice grids: frames merged into square cells of 2, 4
//     and 8 frames a side (zoom 8, 7, 6), aligned on the lattice so a cell
//     is the same in every tile; each cell carries "frames" (how many of
//     its frames the collection holds) and "size" (frames a side), and a
//     dataset's attributes aggregated as declared: sum, mean, or the most
//     common value (mode). Imported polygon grids draw their frames as
//     they are. Features are drawn as they are.
//   - Below zoom 6 and above 16 there are no tiles (404): at zoom 5 a tile
//     spans a third of the country, and clients overzoom beyond 16.
//
// A tile holds at most maxTileBytes of MVT (before gzip). A tile of frames
// that would be larger (a dataset of many attributes) is drawn again with
// cells twice as large, up to maxBlock frames a side; a features tile, or
// one of an imported polygon grid, keeps the features that fit, in frame
// order. A tile with nothing in it is 204 No Content.
const (
	tmsID         = "WebMercatorQuad"
	tmsURI        = "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad"
	crs3857       = "http://www.opengis.net/def/crs/EPSG/0/3857"
	maxTileMatrix = 24 // the deepest level of WebMercatorQuad
	minZoom       = 6
	maxZoom       = 16
	frameZoom     = 9 // from here on, frames are drawn one by one
	maxTileBytes  = 500 << 10
	// featureMargin widens the box of frames whose features a tile reads:
	// a feature is stored on the frame of its representative point, and
	// its geometry may reach beyond that frame.
	featureMargin = 2.0 / grid.CellsPerDegree
	// maxTileFeatures bounds the features a tile reads before encoding.
	maxTileFeatures = 100_000
)

// blockSize is the number of frames a side of the cells a tile at zoom z
// draws (1: frames as they are).
func blockSize(z int) int {
	if z >= frameZoom {
		return 1
	}
	return 1 << (frameZoom - z)
}

// tileBox is the box of tile t in degrees, widened by the tile's buffer.
func tileBox(t *mvt.Tile) grid.Box {
	b := t.Bounds(mvt.Buffer)
	return grid.Box{MinLon: b.Min[0], MinLat: b.Min[1], MaxLon: b.Max[0], MaxLat: b.Max[1]}
}

// handleTile answers GET /ogc/collections/{collectionId}/tiles/
// WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}: a Mapbox Vector Tile,
// gzipped when the client accepts it; 204 when it holds nothing.
func (s *Server) handleTile(rq *request) error {
	g, c, err := s.gridCollection(rq)
	if err != nil {
		return err
	}
	if err := checkTileMatrixSet(rq); err != nil {
		return err
	}
	z, y, x, err := tileCoords(rq.vars["tileMatrix"], rq.vars["tileRow"], rq.vars["tileCol"])
	if err != nil {
		return err
	}
	if z < minZoom || z > maxZoom {
		return notFound("there are tiles from zoom %d to %d: below %d a frame is smaller than half a pixel and a tile spans a large part of the country, and clients draw deeper zooms from zoom %d's tiles", minZoom, maxZoom, minZoom, maxZoom)
	}
	// A tile of frames or cells that would exceed maxTileBytes (a dataset
	// of many attributes) is drawn again with cells twice as large; on a
	// polygon grid, and for features, the features that fit are kept.
	lattice := isLattice(g)
	tl := tiling{lattice: lattice, f: blockSize(z)}
	if !lattice {
		tl.f = 1
	}
	var data []byte
	for {
		t := mvt.New(c.id, z, x, y)
		switch c.kind {
		case kindFrames:
			s.frameTile(g, t, tl)
		case kindAttrs:
			err = s.attrTile(rq, g, c, t, &tl)
		default:
			err = s.featureTile(rq, g, c, t)
		}
		if err != nil {
			return err
		}
		if t.Len() == 0 {
			rq.w.WriteHeader(http.StatusNoContent)
			return nil
		}
		var all bool
		data, all, err = t.EncodeWithin(maxTileBytes, c.kind == kindFeatures || !lattice)
		if err != nil {
			return err
		}
		if all || c.kind == kindFeatures || !lattice {
			break
		}
		if tl.f >= maxBlock {
			return fmt.Errorf("tile %d/%d/%d of %s: %d bytes with cells of %d frames, more than %d", z, y, x, c.id, len(data), tl.f, maxTileBytes)
		}
		tl.f *= 2
	}
	h := rq.w.Header()
	h.Set("Vary", "Accept-Encoding")
	if acceptsGzip(rq.r) {
		if data, err = gzipped(data); err != nil {
			return err
		}
		h.Set("Content-Encoding", "gzip")
	}
	write(rq.w, typeMVT, data)
	return nil
}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.TrimSpace(name)
			if !strings.EqualFold(name, "gzip") && name != "*" {
				continue
			}
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return !strings.HasPrefix(q, "q=0") || strings.Trim(q[3:], ".0") != ""
		}
	}
	return false
}

var gzipPool = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

func gzipped(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(data)/3 + 64)
	zw := gzipPool.Get().(*gzip.Writer)
	defer gzipPool.Put(zw)
	zw.Reset(&buf)
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tiling is how a tile draws frames: f frames a side per cell (1: frames
// as they are), on a lattice grid or not, and whether the tile's dataset
// was charged already (a tile drawn again is charged once).
type tiling struct {
	lattice bool
	f       int
	charged bool
}

// maxBlock is the largest cell a tile falls back to, in frames a side.
const maxBlock = 64

// frameTile draws the grid's frames, or cells of frames.
func (s *Server) frameTile(g Grid, t *mvt.Tile, tl tiling) {
	box := tileBox(t)
	if tl.f > 1 && tl.lattice {
		cells := newBlocks(box, tl.f, nil)
		walkFrames(g, true, box, 0, func(sh grid.Shape) bool {
			cells.at(sh.ID).frames++
			return true
		})
		cells.draw(t)
		return
	}
	walkFrames(g, tl.lattice, box, 0, func(sh grid.Shape) bool {
		if drawFrame(t, sh) {
			t.TagUint(frameIDProp, sh.ID)
			t.Done()
		}
		return true
	})
}

// drawFrame begins a feature of a frame's shape with its id; tags
// follow, then Done. It returns false when nothing of it is in the tile.
func drawFrame(t *mvt.Tile, sh grid.Shape) bool {
	if sh.Geom == nil {
		return t.Rect(bound(sh.Box), sh.ID)
	}
	mp := make(orb.MultiPolygon, 0, len(sh.Geom))
	for _, p := range sh.Geom {
		op := make(orb.Polygon, 0, len(p))
		for _, r := range p {
			or := make(orb.Ring, len(r))
			for i, pt := range r {
				or[i] = orb.Point(pt)
			}
			op = append(op, or)
		}
		mp = append(mp, op)
	}
	return t.Geometry(mp, sh.ID, true)
}

// attrTile draws the frames a dataset records something on, with its
// attributes, read through package access; below frameZoom, on a lattice
// grid, cells of merged frames with aggregated values. A per-query dataset
// is charged by package access's price rule for the frames whose values
// the tile reads (merged: the frames its cells summarise).
func (s *Server) attrTile(rq *request, g Grid, c collection, t *mvt.Tile, tl *tiling) error {
	d := c.dataset()
	box := tileBox(t)
	layout := newTileAttrs(d)
	if tl.f > 1 && tl.lattice {
		return s.mergedTile(rq, g, c, t, box, tl, layout)
	}
	ids, _, err := s.pageFrames(g, d, itemsQuery{box: box, limit: math.MaxInt - 1})
	if err != nil || len(ids) == 0 {
		return err
	}
	ans, err := access.Read(s.store, g, narrowed(rq.key, d.ID), ids, false)
	if err != nil {
		return err
	}
	if !tl.charged {
		if err := s.charge(rq, ans, "tile"); err != nil {
			return err
		}
		tl.charged = true
	}
	for i := range ans.Frames {
		fr := &ans.Frames[i]
		if !fr.Known || len(fr.Entries) == 0 || !drawFrame(t, fr.Shape) {
			continue
		}
		t.TagUint(frameIDProp, fr.ID)
		layout.values(fr.Entries[0].Attrs,
			func(i int, v float64) { t.TagFloat(d.Attributes[i].Name, v) },
			func(i int, v []byte) { t.TagBytes(d.Attributes[i].Name, v) })
		t.Done()
	}
	return nil
}

// mergedTile draws cells of f x f frames with a dataset's values
// aggregated. A tile at zoom 6 spans up to 450,000 frames, so the values
// are read with one scan of the dataset's records over the tile's rows
// rather than through access.Read (about ten times faster, and it holds no
// frame's record beyond the scan); the dataset was found readable through
// the same store call access.Read makes, and the charge goes through
// package access like every other.
func (s *Server) mergedTile(rq *request, g Grid, c collection, t *mvt.Tile, box grid.Box, tl *tiling, layout tileAttrs) error {
	d := c.dataset()
	ranges, _ := recordRanges(g, true, box, 0)
	cells := newBlocks(box, tl.f, &layout)
	n := 0
	err := s.store.ScanRecords(d.ID, ranges, func(frame uint64, _ int, attrs []byte) bool {
		if _, ok := g.Shape(frame); !ok {
			return true
		}
		cells.at(frame).addAttrs(layout, attrs)
		n++
		return true
	})
	if err != nil || n == 0 {
		return err
	}
	if !tl.charged {
		if err := s.chargeDataset(rq, c.acc, n, "tile"); err != nil {
			return err
		}
		tl.charged = true
	}
	cells.draw(t)
	return nil
}

// featureTile draws a dataset's features held on frames in and around the
// tile; a per-query dataset is charged for the frames holding them.
func (s *Server) featureTile(rq *request, g Grid, c collection, t *mvt.Tile) error {
	box := tileBox(t)
	box.MinLon -= featureMargin
	box.MaxLon += featureMargin
	box.MinLat -= featureMargin
	box.MaxLat += featureMargin
	fs, _, err := s.pageFeatures(g, c.dataset(), itemsQuery{box: box, limit: maxTileFeatures})
	if err != nil {
		return err
	}
	for _, f := range fs {
		geom, props := tileFeature(f)
		if geom == nil || !t.Geometry(geom, 0, false) {
			continue
		}
		t.Tag(frameIDProp, f.key.Frame)
		t.Tag("id", string(appendFeatureID(nil, f.key)))
		for _, p := range props {
			t.Tag(p.name, p.value)
		}
		t.Done()
	}
	if t.Len() == 0 {
		return nil
	}
	return s.chargeDataset(rq, c.acc, featureFrames(fs), "tile")
}

// prop is one scalar property of a feature.
type prop struct {
	name  string
	value any
}

// tileFeature decodes a stored feature for a tile: its geometry (nil when
// it has none the tile can draw: empty, or a collection) and its scalar
// properties other than frame_id and id.
func tileFeature(f storedFeature) (orb.Geometry, []prop) {
	var geomRaw, propsRaw []byte
	jsonscan.EachMember(f.body, func(name, value []byte) bool {
		switch {
		case jsonscan.NameIs(name, "geometry"):
			geomRaw = value
		case jsonscan.NameIs(name, "properties"):
			propsRaw = value
		}
		return true
	})
	geom := decodeGeometry(geomRaw)
	if geom == nil {
		return nil, nil
	}
	var props []prop
	if len(propsRaw) > 0 && propsRaw[0] == '{' {
		jsonscan.EachMember(propsRaw, func(name, value []byte) bool {
			if v, ok := jsonscan.Scalar(value); ok && !jsonscan.NameIs(name, frameIDProp) && !jsonscan.NameIs(name, "id") {
				props = append(props, prop{memberName(name), v})
			}
			return true
		})
	}
	return geom, props
}

// decodeGeometry decodes a GeoJSON geometry into orb's types (positions
// keep longitude and latitude); nil for null, a collection, or what does
// not decode.
func decodeGeometry(raw []byte) orb.Geometry {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var gj struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	}
	if json.Unmarshal(raw, &gj) != nil {
		return nil
	}
	pt := func(p []float64) (orb.Point, bool) {
		if len(p) < 2 {
			return orb.Point{}, false
		}
		return orb.Point{p[0], p[1]}, true
	}
	pts := func(ps [][]float64) []orb.Point {
		out := make([]orb.Point, 0, len(ps))
		for _, p := range ps {
			if q, ok := pt(p); ok {
				out = append(out, q)
			}
		}
		return out
	}
	rings := func(rs [][][]float64) orb.Polygon {
		p := make(orb.Polygon, 0, len(rs))
		for _, r := range rs {
			p = append(p, orb.Ring(pts(r)))
		}
		return p
	}
	switch gj.Type {
	case "Point":
		var c []float64
		if json.Unmarshal(gj.Coordinates, &c) == nil {
			if p, ok := pt(c); ok {
				return p
			}
		}
	case "MultiPoint":
		var c [][]float64
		if json.Unmarshal(gj.Coordinates, &c) == nil && len(c) > 0 {
			return orb.MultiPoint(pts(c))
		}
	case "LineString":
		var c [][]float64
		if json.Unmarshal(gj.Coordinates, &c) == nil {
			return orb.LineString(pts(c))
		}
	case "MultiLineString":
		var c [][][]float64
		if json.Unmarshal(gj.Coordinates, &c) == nil {
			m := make(orb.MultiLineString, 0, len(c))
			for _, l := range c {
				m = append(m, orb.LineString(pts(l)))
			}
			return m
		}
	case "Polygon":
		var c [][][]float64
		if json.Unmarshal(gj.Coordinates, &c) == nil && len(c) > 0 {
			return rings(c)
		}
	case "MultiPolygon":
		var c [][][][]float64
		if json.Unmarshal(gj.Coordinates, &c) == nil {
			m := make(orb.MultiPolygon, 0, len(c))
			for _, p := range c {
				if len(p) > 0 {
					m = append(m, rings(p))
				}
			}
			return m
		}
	}
	return nil
}

// memberName decodes a member name as written.
func memberName(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	if v, ok := jsonscan.Scalar(append(append([]byte{'"'}, raw...), '"')); ok {
		if s, ok := v.(string); ok {
			return s
		}
	}
	return string(raw)
}

// tileAttrs decodes a dataset's attributes for tiles.
type tileAttrs struct {
	*attrLayout
}

func newTileAttrs(d *state.Dataset) tileAttrs { return tileAttrs{newAttrLayout(d)} }

// values calls num with each declared number attribute's value in attrs
// and str with each string value (as written, between the quotes; escaped
// strings decoded); values that do not decode are skipped.
func (l tileAttrs) values(attrs []byte, num func(i int, v float64), str func(i int, v []byte)) {
	if len(attrs) == 0 {
		return
	}
	jsonscan.EachMember(attrs, func(name, value []byte) bool {
		i := l.find(name)
		if i < 0 || len(value) == 0 {
			return true
		}
		switch value[0] {
		case '"':
			if bytes.IndexByte(value, '\\') < 0 && len(value) >= 2 {
				str(i, value[1:len(value)-1])
			} else if v, ok := jsonscan.Scalar(value); ok {
				if s, ok := v.(string); ok {
					str(i, []byte(s))
				}
			}
		case 't', 'f', 'n', '{', '[':
		default:
			if f, err := strconv.ParseFloat(string(value), 64); err == nil {
				num(i, f)
			}
		}
		return true
	})
}

// blocks accumulates the cells of a tile below frameZoom: cells of f x f
// frames aligned on the lattice, over the rows and columns of box.
type blocks struct {
	f              int
	r0, c0, nr, nc int // first cell row and column, cells down and across
	cells          []cell
	layout         *tileAttrs
}

// cell is one merged cell: how many frames it holds, and per attribute a
// sum and count (numbers) or counts per value (categories, texts).
type cell struct {
	frames int
	sums   []float64
	counts []int
	modes  []map[string]int
}

func newBlocks(box grid.Box, f int, layout *tileAttrs) *blocks {
	r0, r1 := grid.RowSpan(max(box.MinLat, -90), min(box.MaxLat, 90))
	c0, c1 := grid.ColSpan(max(box.MinLon, -180), min(box.MaxLon, 180))
	b := &blocks{f: f, r0: r0 / f, c0: c0 / f, layout: layout}
	b.nr, b.nc = r1/f-b.r0+1, c1/f-b.c0+1
	b.cells = make([]cell, b.nr*b.nc)
	return b
}

// at returns the cell holding frame id (a lattice cell within the box).
func (b *blocks) at(id uint64) *cell {
	row, col, _ := grid.RowCol(id)
	br, bc := row/b.f-b.r0, col/b.f-b.c0
	br, bc = max(0, min(br, b.nr-1)), max(0, min(bc, b.nc-1))
	return &b.cells[br*b.nc+bc]
}

// addAttrs counts a frame and its attribute values into the cell.
func (c *cell) addAttrs(l tileAttrs, attrs []byte) {
	c.frames++
	if c.sums == nil {
		n := len(l.attrs)
		c.sums, c.counts, c.modes = make([]float64, n), make([]int, n), make([]map[string]int, n)
	}
	l.values(attrs, func(i int, v float64) {
		c.sums[i] += v
		c.counts[i]++
	}, func(i int, v []byte) {
		if c.modes[i] == nil {
			c.modes[i] = make(map[string]int, 4)
		}
		c.modes[i][string(v)]++
	})
}

// draw adds every cell holding a frame to the tile: its square, frames,
// size and aggregated attributes. The cell's id is its north-west frame's.
func (b *blocks) draw(t *mvt.Tile) {
	for i := range b.cells {
		c := &b.cells[i]
		if c.frames == 0 {
			continue
		}
		row, col := (b.r0+i/b.nc)*b.f, (b.c0+i%b.nc)*b.f
		box := orb.Bound{Min: orb.Point{grid.Lon(col), grid.Lat(min(row+b.f, grid.Rows))},
			Max: orb.Point{grid.Lon(min(col+b.f, grid.Cols)), grid.Lat(row)}}
		if !t.Rect(box, grid.CellID(row, col)) {
			continue
		}
		t.TagUint("frames", uint64(c.frames))
		t.TagUint("size", uint64(b.f))
		if b.layout != nil && c.sums != nil {
			for k, a := range b.layout.attrs {
				if v, ok := aggregate(a, c, k); ok {
					t.Tag(a.Name, v)
				}
			}
		}
		t.Done()
	}
}

// aggregate is attribute k of a cell as its declaration says: a sum, a
// mean, or the most common value (ties to the first in byte order).
func aggregate(a state.Attribute, c *cell, k int) (any, bool) {
	switch {
	case a.Aggregation == state.AggSum && c.counts[k] > 0:
		return c.sums[k], true
	case a.Aggregation == state.AggMean && c.counts[k] > 0:
		return c.sums[k] / float64(c.counts[k]), true
	case c.modes[k] != nil:
		best, bestN := "", 0
		for v, n := range c.modes[k] {
			if n > bestN || n == bestN && v < best {
				best, bestN = v, n
			}
		}
		return best, true
	case c.counts[k] > 0: // a number aggregated by mode: the mean stands in
		return c.sums[k] / float64(c.counts[k]), true
	}
	return nil, false
}

// handleTilesets answers GET /ogc/collections/{collectionId}/tiles: the
// one tileset of a collection.
func (s *Server) handleTilesets(rq *request) error {
	c, err := s.collection(rq)
	if err != nil {
		return err
	}
	href := rq.base + "/collections/" + c.id + "/tiles"
	b := append([]byte(nil), `{"tilesets":[{"title":`...)
	b = appendJSONString(b, c.title())
	b = append(b, `,"dataType":"vector","crs":"`+crs3857+`","tileMatrixSetURI":"`+tmsURI+`","links":[`...)
	b = appendLink(b, href+"/"+tmsID, "self", typeJSON, "The tileset")
	b = append(b, ',')
	b = appendLink(b, rq.base+"/tileMatrixSets/"+tmsID, relTilingScheme, typeJSON, "The tiling scheme")
	b = append(b, `]}],"links":[`...)
	b = appendLink(b, href, "self", typeJSON, "The tilesets of this collection")
	b = append(b, "]}\n"...)
	write(rq.w, typeJSON, b)
	return nil
}

// tilesDescription says what the tiles of a collection hold at each zoom.
func tilesDescription(c collection) string {
	what := "frames (properties frame_id)"
	merged := "the number of its frames (frames) and its size in frames a side (size)"
	switch c.kind {
	case kindAttrs:
		what = "the frames dataset " + c.dataset().ID + " records something on, with frame_id and its attributes"
		merged += ", and each attribute aggregated as declared (sum, mean, or the most common value)"
	case kindFeatures:
		return fmt.Sprintf("Layer %s: the features of dataset %s as they are (frame_id, id FRAME-SEQ and their own properties), zoom %d to %d; a tile holds at most %d KB, the rest of a dense area is left out. Empty tiles are 204.",
			c.id, c.dataset().ID, minZoom, maxZoom, maxTileBytes>>10)
	}
	return fmt.Sprintf("Layer %s. Zoom %d to %d: %s. Zoom %d to %d, where a frame is smaller than about 2 pixels: on the lattice grid, frames merged into cells of 8, 4 and 2 frames a side (zoom 6, 7, 8), each with %s. A tile whose frames would exceed %d KB holds cells twice as large instead (size says how large). Below zoom %d there are no tiles; empty tiles are 204.",
		c.id, frameZoom, maxZoom, what, minZoom, frameZoom-1, merged, maxTileBytes>>10, minZoom)
}

// handleTileset answers GET /ogc/collections/{collectionId}/tiles/
// WebMercatorQuad: the tileset's metadata, its limits from the
// collection's extent, and the template of its tiles.
func (s *Server) handleTileset(rq *request) error {
	g, c, err := s.gridCollection(rq)
	if err != nil {
		return err
	}
	if err := checkTileMatrixSet(rq); err != nil {
		return err
	}
	e, err := s.extentOf(g, c)
	if err != nil {
		return err
	}
	href := rq.base + "/collections/" + c.id + "/tiles/" + tmsID
	b := append([]byte(nil), `{"title":`...)
	b = appendJSONString(b, c.title())
	b = append(b, `,"description":`...)
	b = appendJSONString(b, tilesDescription(c))
	b = append(b, `,"dataType":"vector","crs":"`+crs3857+`","tileMatrixSetURI":"`+tmsURI+`"`...)
	if e.frames > 0 {
		b = append(b, `,"tileMatrixSetLimits":[`...)
		for z := minZoom; z <= maxZoom; z++ {
			if z > minZoom {
				b = append(b, ',')
			}
			// A box ending on a tile's edge does not reach into that tile.
			x0, y0, x1, y1 := mvt.Range(orb.Bound{Min: orb.Point{e.box.MinLon, math.Nextafter(e.box.MinLat, 90)},
				Max: orb.Point{math.Nextafter(e.box.MaxLon, -180), e.box.MaxLat}}, z)
			b = fmt.Appendf(b, `{"tileMatrix":"%d","minTileRow":%d,"maxTileRow":%d,"minTileCol":%d,"maxTileCol":%d}`, z, y0, y1, x0, x1)
		}
		b = append(b, `],"boundingBox":{"lowerLeft":[`...)
		b = grid.AppendCoord(b, e.box.MinLon)
		b = append(b, ',')
		b = grid.AppendCoord(b, e.box.MinLat)
		b = append(b, `],"upperRight":[`...)
		b = grid.AppendCoord(b, e.box.MaxLon)
		b = append(b, ',')
		b = grid.AppendCoord(b, e.box.MaxLat)
		b = append(b, `],"crs":"`+crs84+`"}`...)
	}
	b = append(b, `,"layers":[{"id":`...)
	b = appendJSONString(b, c.id)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, c.title())
	geomDim := "2"
	if c.kind == kindFeatures {
		geomDim = "null"
	}
	b = append(b, `,"dataType":"vector","geometryDimension":`+geomDim+`,"minTileMatrix":"`+strconv.Itoa(minZoom)+`","maxTileMatrix":"`+strconv.Itoa(maxZoom)+`","propertiesSchema":{"type":"object","properties":`...)
	ps := properties(c)
	if c.kind != kindFeatures {
		ps = append(ps, property{name: "frames", typ: "integer", title: "Frames", description: "Zoom 6 to 8: the frames merged into this cell"},
			property{name: "size", typ: "integer", title: "Cell size", description: "Zoom 6 to 8: frames a side of this cell"})
	} else {
		ps = append(ps, property{name: "id", typ: "string", title: "Item id", description: "The feature's item id in the features collection, FRAME-SEQ"})
	}
	b = appendProperties(b, ps)
	b = append(b, `}}],"links":[`...)
	b = appendLink(b, href, "self", typeJSON, "This tileset")
	b = append(b, ',')
	b = appendLink(b, rq.base+"/tileMatrixSets/"+tmsID, relTilingScheme, typeJSON, "The tiling scheme")
	b = append(b, ',')
	b = appendLink(b, href+"/{tileMatrix}/{tileRow}/{tileCol}", "item", typeMVT, "A tile")
	b = b[:len(b)-1]
	b = append(b, `,"templated":true}]}`+"\n"...)
	write(rq.w, typeJSON, b)
	return nil
}

// handleTileMatrixSets answers GET /ogc/tileMatrixSets.
func (s *Server) handleTileMatrixSets(rq *request) error {
	b := append([]byte(nil), `{"tileMatrixSets":[{"id":"`+tmsID+`","title":"Google Maps Compatible for the World","uri":"`+tmsURI+`","links":[`...)
	b = appendLink(b, rq.base+"/tileMatrixSets/"+tmsID, "self", typeJSON, "WebMercatorQuad")
	b = append(b, `]}],"links":[`...)
	b = appendLink(b, rq.base+"/tileMatrixSets", "self", typeJSON, "The tile matrix sets")
	b = append(b, "]}\n"...)
	write(rq.w, typeJSON, b)
	return nil
}

// webMercatorQuad is the definition of WebMercatorQuad (OGC 17-083r4,
// Annex D), levels 0 to 24.
var webMercatorQuad = func() []byte {
	const origin = 20037508.3427892
	b := []byte(`{"id":"` + tmsID + `","title":"Google Maps Compatible for the World","uri":"` + tmsURI + `","crs":"` + crs3857 +
		`","orderedAxes":["X","Y"],"wellKnownScaleSet":"http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible","tileMatrices":[`)
	for z := 0; z <= maxTileMatrix; z++ {
		if z > 0 {
			b = append(b, ',')
		}
		n := 1 << z
		b = fmt.Appendf(b, `{"id":"%d","scaleDenominator":%s,"cellSize":%s,"cornerOfOrigin":"topLeft","pointOfOrigin":[-%s,%s],"tileWidth":256,"tileHeight":256,"matrixWidth":%d,"matrixHeight":%d}`,
			z, strconv.FormatFloat(559082264.028717/float64(n), 'f', -1, 64), strconv.FormatFloat(156543.033928041/float64(n), 'f', -1, 64),
			strconv.FormatFloat(origin, 'f', -1, 64), strconv.FormatFloat(origin, 'f', -1, 64), n, n)
	}
	return append(b, "]}\n"...)
}()

// checkTileMatrixSet answers 404 unless the request's {tileMatrixSetId}
// is the one tile matrix set, WebMercatorQuad.
func checkTileMatrixSet(rq *request) error {
	if tms := rq.vars["tileMatrixSetId"]; tms != tmsID {
		return notFound("there is no tile matrix set %s: the tiles are in %s", quote(tms), tmsID)
	}
	return nil
}

// handleTileMatrixSet answers GET /ogc/tileMatrixSets/{tileMatrixSetId}.
func (s *Server) handleTileMatrixSet(rq *request) error {
	if err := checkTileMatrixSet(rq); err != nil {
		return err
	}
	write(rq.w, typeJSON, webMercatorQuad)
	return nil
}

func appendJSONString(b []byte, s string) []byte { return grid.AppendJSONString(b, s) }

// bound is b as orb's.
func bound(b grid.Box) orb.Bound {
	return orb.Bound{Min: orb.Point{b.MinLon, b.MinLat}, Max: orb.Point{b.MaxLon, b.MaxLat}}
}
