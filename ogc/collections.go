package ogc

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/state"
)

// The collections: the grid, and per readable dataset one of attributes
// (id: the dataset's id) and one of features (id: the dataset's id and
// featuresSuffix).
const (
	framesID       = "frames"
	featuresSuffix = "-features"
	frameIDProp    = "frame_id" // the property that carries the frame id
)

// CRS84 is the only coordinate reference system served.
const crs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"

type kind int

const (
	kindFrames   kind = iota // the grid
	kindAttrs                // a dataset's attributes, one item per frame it records something on
	kindFeatures             // a dataset's features, one item per feature
)

// collection is one collection a key may read.
type collection struct {
	id   string
	kind kind
	acc  state.Access // the dataset (not for frames)
}

// dataset returns the collection's dataset.
func (c *collection) dataset() *state.Dataset { return &c.acc.Dataset }

// collectionsOf lists the collections of the datasets acc (sorted by id):
// the grid first, then per dataset its attributes collection when it
// declares attributes and its features collection when it holds features
// (only with withFeatures). An id taken by an earlier collection is not
// offered again: a dataset named "frames" has no attributes collection,
// and "x-features" is dataset x-features's when both could claim it.
func collectionsOf(acc []state.Access, withFeatures bool) []collection {
	out := make([]collection, 0, 1+2*len(acc))
	out = append(out, collection{id: framesID, kind: kindFrames})
	taken := func(id string) bool {
		for i := range out {
			if out[i].id == id {
				return true
			}
		}
		for i := range acc {
			if acc[i].Dataset.ID == id && len(acc[i].Dataset.Attributes) > 0 {
				return true // the dataset of that id claims it
			}
		}
		return false
	}
	for _, a := range acc {
		if len(a.Dataset.Attributes) > 0 && a.Dataset.ID != framesID {
			out = append(out, collection{id: a.Dataset.ID, kind: kindAttrs, acc: a})
		}
	}
	for _, a := range acc {
		if id := a.Dataset.ID + featuresSuffix; withFeatures && a.Dataset.Features > 0 && !taken(id) {
			out = append(out, collection{id: id, kind: kindFeatures, acc: a})
		}
	}
	// The grid, then attributes and features collections by id.
	rest := out[1:]
	for i := 1; i < len(rest); i++ {
		for j := i; j > 0 && rest[j].id < rest[j-1].id; j-- {
			rest[j], rest[j-1] = rest[j-1], rest[j]
		}
	}
	return out
}

// readable returns the datasets the request's key may read.
func (s *Server) readable(rq *request) ([]state.Access, error) {
	if s.store == nil {
		return nil, errNoStore
	}
	acc, err := s.store.Readable(rq.key)
	if err != nil {
		return nil, fmt.Errorf("reading the datasets key %s may read: %w", rq.key.ID, err)
	}
	return acc, nil
}

// collection finds the collection of the request's {collectionId}: 404
// when the key may not read it (or it does not exist: a key of another
// organisation cannot tell the two apart), 403 for a features collection
// the key could read with feature.read.
func (s *Server) collection(rq *request) (collection, error) {
	id := rq.vars["collectionId"]
	if id == framesID {
		return collection{id: framesID, kind: kindFrames}, nil
	}
	acc, err := s.readable(rq)
	if err != nil {
		return collection{}, err
	}
	canFeatures := rq.key.Has(state.CapFeatureRead)
	for _, c := range collectionsOf(acc, true) {
		if c.id != id {
			continue
		}
		if c.kind == kindFeatures && !canFeatures {
			return collection{}, newError(http.StatusForbidden, codeInsufficientScope,
				"collection %s holds features: this key lacks the %s capability; mint a key whose preset grants it (locality or full)", quote(id), state.CapFeatureRead)
		}
		return c, nil
	}
	return collection{}, notFound("there is no collection %s for this key; GET %s/collections lists the ones it may read", quote(id), Prefix)
}

// gridCollection returns the current grid and the collection of the
// request: errNoGrid before a grid is built, else as collection.
func (s *Server) gridCollection(rq *request) (Grid, collection, error) {
	g, err := s.gridOf()
	if err != nil {
		return nil, collection{}, err
	}
	c, err := s.collection(rq)
	return g, c, err
}

// extent is what a collection covers on the current grid: the box of its
// frames, how many frames hold something, and how many features they hold.
type extent struct {
	grid     Grid
	version  int
	box      grid.Box
	frames   int
	features int
}

// extentOf returns the extent of c on g. A dataset's is computed by one
// scan of its records (about 0.1 s for a national dataset) and kept until
// its version or the grid changes; the grid's is its own bounds.
func (s *Server) extentOf(g Grid, c collection) (*extent, error) {
	if c.kind == kindFrames {
		return &extent{grid: g, box: g.Bounds(), frames: g.Len()}, nil
	}
	d := c.dataset()
	if v, ok := s.extents.Load(d.ID); ok {
		e := v.(*extent)
		if e.version == d.Version && sameGrid(e.grid, g) {
			return e, nil
		}
	}
	e := &extent{grid: g, version: d.Version}
	first := true
	err := s.store.ScanRecords(d.ID, []bolt.IDRange{bolt.AllFrames}, func(frame uint64, features int, _ []byte) bool {
		sh, ok := g.Shape(frame)
		if !ok {
			return true
		}
		if first {
			e.box, first = sh.Box, false
		} else {
			e.box = e.box.Union(sh.Box)
		}
		e.frames++
		e.features += features
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("measuring the extent of dataset %s: %w", d.ID, err)
	}
	if comparable(g) {
		s.extents.Store(d.ID, e)
	}
	return e, nil
}

// sameGrid compares two grid snapshots by identity.
func sameGrid(a, b Grid) bool { return comparable(a) && comparable(b) && a == b }

func comparable(g Grid) bool { return g != nil && reflect.TypeOf(g).Comparable() }

// count is what numberMatched reports for the whole collection.
func (e *extent) count(k kind) int {
	if k == kindFeatures {
		return e.features
	}
	return e.frames
}

// title and description of a collection.
func (c *collection) title() string {
	switch c.kind {
	case kindFrames:
		return "Frames"
	case kindFeatures:
		return c.dataset().Name + " (features)"
	}
	return c.dataset().Name
}

func (c *collection) description() string {
	switch c.kind {
	case kindFrames:
		return "The grid: every frame (about 1 km square), its id as the feature id and in frame_id."
	case kindFeatures:
		return "The features of dataset " + c.dataset().ID + ", each with the frame holding it (frame_id)." + sentence(c.dataset().Description)
	}
	var names []string
	for _, a := range c.dataset().Attributes {
		names = append(names, a.Name)
	}
	return "The frames dataset " + c.dataset().ID + " records something on, with its attributes (" +
		strings.Join(names, ", ") + ")." + sentence(c.dataset().Description)
}

func sentence(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

// link appends one link object.
func appendLink(b []byte, href, rel, typ, title string) []byte {
	b = append(b, `{"href":`...)
	b = grid.AppendJSONString(b, href)
	b = append(b, `,"rel":`...)
	b = grid.AppendJSONString(b, rel)
	b = append(b, `,"type":`...)
	b = grid.AppendJSONString(b, typ)
	if title != "" {
		b = append(b, `,"title":`...)
		b = grid.AppendJSONString(b, title)
	}
	return append(b, '}')
}

// Link relations of the OGC APIs not registered with IANA.
const (
	relQueryables     = "http://www.opengis.net/def/rel/ogc/1.0/queryables"
	relTilesetsVector = "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector"
	relTilingScheme   = "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme"
	relTilingSchemes  = "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes"
	relConformance    = "http://www.opengis.net/def/rel/ogc/1.0/conformance"
	relData           = "http://www.opengis.net/def/rel/ogc/1.0/data"
)

// appendCollection appends a collection's description.
func appendCollection(b []byte, base string, c collection, e *extent) []byte {
	href := base + "/collections/" + c.id
	b = append(b, `{"id":`...)
	b = grid.AppendJSONString(b, c.id)
	b = append(b, `,"title":`...)
	b = grid.AppendJSONString(b, c.title())
	b = append(b, `,"description":`...)
	b = grid.AppendJSONString(b, c.description())
	b = append(b, `,"itemType":"feature"`...)
	if e != nil && e.frames > 0 {
		b = append(b, `,"extent":{"spatial":{"bbox":[`...)
		b = appendBox(b, e.box)
		b = append(b, `],"crs":"`+crs84+`"}}`...)
	}
	b = append(b, `,"crs":["`+crs84+`"],"storageCrs":"`+crs84+`","links":[`...)
	b = appendLink(b, href, "self", typeJSON, "This collection")
	b = append(b, ',')
	b = appendLink(b, href+"/items", "items", typeGeoJSON, "Its items")
	b = append(b, ',')
	b = appendLink(b, href+"/schema", "describedby", typeSchema, "The schema of its items")
	b = append(b, ',')
	// The same link as GDAL's OAPIF driver spells it (it compares rel
	// values case-sensitively, and link relations are case-insensitive).
	b = appendLink(b, href+"/schema", "describedBy", typeSchema, "The schema of its items")
	b = append(b, ',')
	b = appendLink(b, href+"/queryables", relQueryables, typeSchema, "Its properties")
	b = append(b, ',')
	b = appendLink(b, href+"/tiles", relTilesetsVector, typeJSON, "Vector tiles of it")
	return append(b, "]}"...)
}

// appendBox appends [minLon,minLat,maxLon,maxLat].
func appendBox(b []byte, box grid.Box) []byte {
	b = append(b, '[')
	b = grid.AppendCoord(b, box.MinLon)
	b = append(b, ',')
	b = grid.AppendCoord(b, box.MinLat)
	b = append(b, ',')
	b = grid.AppendCoord(b, box.MaxLon)
	b = append(b, ',')
	b = grid.AppendCoord(b, box.MaxLat)
	return append(b, ']')
}

// handleCollections answers GET /ogc/collections: every collection the key
// may read, with extents.
func (s *Server) handleCollections(rq *request) error {
	g, err := s.gridOf()
	if err != nil {
		return err
	}
	acc, err := s.readable(rq)
	if err != nil {
		return err
	}
	cs := collectionsOf(acc, rq.key.Has(state.CapFeatureRead))
	exts := make([]*extent, len(cs))
	for i, c := range cs {
		if exts[i], err = s.extentOf(g, c); err != nil {
			return err
		}
	}
	bp := getBuf()
	defer putBuf(bp)
	b := append(*bp, `{"collections":[`...)
	for i, c := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCollection(b, rq.base, c, exts[i])
	}
	b = append(b, `],"links":[`...)
	b = appendLink(b, rq.base+"/collections", "self", typeJSON, "The collections")
	b = append(b, "]}\n"...)
	*bp = b
	write(rq.w, typeJSON, b)
	return nil
}

// handleCollection answers GET /ogc/collections/{collectionId}.
func (s *Server) handleCollection(rq *request) error {
	g, c, err := s.gridCollection(rq)
	if err != nil {
		return err
	}
	e, err := s.extentOf(g, c)
	if err != nil {
		return err
	}
	b := appendCollection(nil, rq.base, c, e)
	write(rq.w, typeJSON, append(b, '\n'))
	return nil
}

// property is one property of a collection's items.
type property struct {
	name, typ, title, description string
}

// properties lists the properties of c's items, in the order items carry
// them: frame_id first, then a dataset's declared attributes (numbers as
// "number", categories and texts as "string").
func properties(c collection) []property {
	ps := []property{{name: frameIDProp, typ: "integer", title: "Frame id", description: "The id of the frame (the grid's 30-arc-second cell)"}}
	if c.kind == kindFeatures {
		ps[0].description = "The id of the frame holding the feature (its representative point)"
		return ps
	}
	if c.kind != kindAttrs {
		return ps
	}
	for _, a := range c.dataset().Attributes {
		if a.Name == frameIDProp {
			ps = ps[1:] // the dataset's own frame_id wins
		}
	}
	for _, a := range c.dataset().Attributes {
		p := property{name: a.Name, typ: "string", title: a.Label}
		if a.Type == state.TypeNumber {
			p.typ = "number"
		}
		var notes []string
		if a.Unit != "" {
			notes = append(notes, a.Unit)
		}
		if a.Year != 0 {
			notes = append(notes, strconv.Itoa(a.Year))
		}
		notes = append(notes, a.Type+", aggregated by "+a.Aggregation)
		p.description = strings.Join(notes, ", ")
		ps = append(ps, p)
	}
	return ps
}

// appendProperties appends {"name":{"type","title","description"},...}.
func appendProperties(b []byte, ps []property) []byte {
	b = append(b, '{')
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = grid.AppendJSONString(b, p.name)
		b = append(b, `:{"type":`...)
		b = grid.AppendJSONString(b, p.typ)
		b = append(b, `,"title":`...)
		b = grid.AppendJSONString(b, p.title)
		b = append(b, `,"description":`...)
		b = grid.AppendJSONString(b, p.description)
		b = append(b, '}')
	}
	return append(b, '}')
}

// handleSchema answers GET /ogc/collections/{collectionId}/schema: a JSON
// Schema of the collection's items as GeoJSON Features (the describedby
// link), so that GDAL types each field from it rather than from a sample.
func (s *Server) handleSchema(rq *request) error {
	c, err := s.collection(rq)
	if err != nil {
		return err
	}
	b := appendSchemaHead(nil, rq.base+"/collections/"+c.id+"/schema", c.title())
	idType := `{"type":"integer"}`
	if c.kind == kindFeatures {
		idType = `{"type":"string"}`
	}
	b = append(b, `,"type":"object","required":["type","geometry","properties"],"properties":{"type":{"type":"string","enum":["Feature"]},"id":`+idType+
		`,"geometry":{"type":"object","format":"geometry-any"},"properties":{"type":"object","properties":`...)
	b = appendProperties(b, properties(c))
	b = append(b, "}}}\n"...)
	write(rq.w, typeSchema, b)
	return nil
}

// appendSchemaHead opens a JSON Schema document: its $schema (draft
// 2020-12), its $id href and its title.
func appendSchemaHead(b []byte, href, title string) []byte {
	b = append(b, `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":`...)
	b = grid.AppendJSONString(b, href)
	b = append(b, `,"title":`...)
	return grid.AppendJSONString(b, title)
}

// handleQueryables answers GET /ogc/collections/{collectionId}/queryables:
// the properties of the items (OGC API - Features Part 3 form). The server
// filters by bbox only; the list says what each property holds and its
// type.
func (s *Server) handleQueryables(rq *request) error {
	c, err := s.collection(rq)
	if err != nil {
		return err
	}
	b := appendSchemaHead(nil, rq.base+"/collections/"+c.id+"/queryables", c.title())
	b = append(b, `,"type":"object","properties":`...)
	props := properties(c)
	b = appendProperties(b, props)
	// The geometry is queryable through bbox.
	b = b[:len(b)-1]
	b = append(b, `,"geometry":{"format":"geometry-any","title":"The frame's or feature's geometry, filtered by bbox"}}`...)
	if c.kind == kindFeatures {
		b = append(b, `,"additionalProperties":true`...)
	} else {
		b = append(b, `,"additionalProperties":false`...)
	}
	b = append(b, "}\n"...)
	write(rq.w, typeSchema, b)
	return nil
}
