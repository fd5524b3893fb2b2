package ogc

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"frameindex/access"
	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/internal/jsonscan"
	"frameindex/state"
)

func itoa(n int) string { return strconv.Itoa(n) }

// page is an items answer being written: a GeoJSON FeatureCollection.
type page struct {
	b []byte
	n int // features written
}

func (p *page) open() { p.b = append(p.b, `{"type":"FeatureCollection","features":[`...) }

// feature starts a feature with a numeric id and the frame's geometry.
func (p *page) next() {
	if p.n > 0 {
		p.b = append(p.b, ',')
	}
	p.n++
}

// close ends the collection with its counts and links: self, next (when
// nextCursor is set) and the collection.
func (p *page) close(rq *request, q url.Values, c collection, matched int, nextCursor string, now time.Time) {
	p.b = append(p.b, `],"numberReturned":`...)
	p.b = strconv.AppendInt(p.b, int64(p.n), 10)
	if matched >= 0 {
		p.b = append(p.b, `,"numberMatched":`...)
		p.b = strconv.AppendInt(p.b, int64(matched), 10)
	}
	p.b = append(p.b, `,"timeStamp":"`...)
	p.b = now.UTC().AppendFormat(p.b, time.RFC3339)
	p.b = append(p.b, `","links":[`...)
	items := rq.base + "/collections/" + c.id + "/items"
	self := items
	if rq.r.URL.RawQuery != "" {
		self += "?" + rq.r.URL.RawQuery
	}
	p.b = appendLink(p.b, self, "self", typeGeoJSON, "This page")
	if nextCursor != "" {
		nq := make(url.Values, len(q)+1)
		for k, v := range q {
			nq[k] = v
		}
		nq.Set("cursor", nextCursor)
		p.b = append(p.b, ',')
		p.b = appendLink(p.b, items+"?"+nq.Encode(), "next", typeGeoJSON, "The next page")
	}
	p.b = append(p.b, ',')
	p.b = appendLink(p.b, rq.base+"/collections/"+c.id, "collection", typeJSON, "The collection")
	p.b = append(p.b, "]}\n"...)
}

// appendFrameFeature appends a frame as a Feature with properties
// frame_id and, when decl is set, the dataset's attributes (see
// appendAttrs).
func appendFrameFeature(b []byte, sh grid.Shape, decl *attrLayout, attrs []byte) []byte {
	b = append(b, `{"type":"Feature","id":`...)
	start := len(b)
	b = strconv.AppendUint(b, sh.ID, 10)
	end := len(b)
	b = append(b, `,"geometry":`...)
	b = sh.AppendGeometry(b)
	b = append(b, `,"properties":{`...)
	if decl == nil || !decl.ownFrameID {
		b = append(b, `"`+frameIDProp+`":`...)
		b = append(b, b[start:end]...)
		if decl != nil && len(decl.attrs) > 0 {
			b = append(b, ',')
		}
	}
	if decl != nil {
		b = decl.appendAttrs(b, attrs)
	}
	return append(b, "}}"...)
}

// attrLayout writes a dataset's attributes as feature properties: every
// declared attribute in declared order, null where the frame records none,
// and a number of a declared number attribute written with a decimal point
// ("1200.0" for 1200) so that GIS clients, which type a field from the
// first values they see, make every number attribute a real field.
type attrLayout struct {
	attrs      []state.Attribute
	index      map[string]int // name -> position, for many attributes
	ownFrameID bool           // the dataset declares frame_id itself
	vals       [][]byte       // scratch: each attribute's value in one object
}

func newAttrLayout(d *state.Dataset) *attrLayout {
	l := &attrLayout{attrs: d.Attributes, vals: make([][]byte, len(d.Attributes))}
	if len(d.Attributes) > 8 {
		l.index = make(map[string]int, len(d.Attributes))
	}
	for i, a := range d.Attributes {
		if l.index != nil {
			l.index[a.Name] = i
		}
		if a.Name == frameIDProp {
			l.ownFrameID = true
		}
	}
	return l
}

// find returns the position of the attribute named raw (as written).
func (l *attrLayout) find(raw []byte) int {
	if l.index != nil {
		if i, ok := l.index[string(raw)]; ok {
			return i
		}
	} else {
		for i := range l.attrs {
			if string(raw) == l.attrs[i].Name {
				return i
			}
		}
	}
	for i := range l.attrs { // an escaped name
		if jsonscan.NameIs(raw, l.attrs[i].Name) {
			return i
		}
	}
	return -1
}

// appendAttrs appends "name":value members for the declared attributes.
func (l *attrLayout) appendAttrs(b []byte, attrs []byte) []byte {
	clear(l.vals)
	if len(attrs) > 0 {
		jsonscan.EachMember(attrs, func(name, value []byte) bool {
			if i := l.find(name); i >= 0 {
				l.vals[i] = value
			}
			return true
		})
	}
	for i := range l.attrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, l.attrs[i].Name...)
		b = append(b, `":`...)
		v := l.vals[i]
		switch {
		case v == nil:
			b = append(b, "null"...)
		case l.attrs[i].Type == state.TypeNumber && jsonscan.IsInteger(v):
			b = append(b, v...)
			b = append(b, ".0"...)
		default:
			b = append(b, v...)
		}
	}
	return b
}

// handleItems answers GET /ogc/collections/{collectionId}/items: a page of
// at most limit items touching bbox, in ascending order after cursor, with
// a next link when more follow.
func (s *Server) handleItems(rq *request) error {
	g, c, err := s.gridCollection(rq)
	if err != nil {
		return err
	}
	q, err := parseQuery(rq.r.URL.RawQuery)
	if err != nil {
		return err
	}
	iq, err := parseItemsQuery(q, c.kind == kindFeatures)
	if err != nil {
		return err
	}
	if !iq.hasBox {
		iq.box = g.Bounds()
	}
	matched := -1
	if !iq.hasBox {
		e, err := s.extentOf(g, c)
		if err != nil {
			return err
		}
		matched = e.count(c.kind)
	}
	bp := getBuf()
	defer putBuf(bp)
	p := &page{b: *bp}
	var next string
	switch c.kind {
	case kindFrames:
		next = s.framePage(g, iq, p)
	case kindAttrs:
		next, err = s.attrPage(rq, g, c, iq, p)
	default:
		next, err = s.featurePage(rq, g, c, iq, p)
	}
	*bp = p.b
	if err != nil {
		return err
	}
	p.close(rq, q, c, matched, next, s.now())
	*bp = p.b
	write(rq.w, typeGeoJSON, p.b)
	return nil
}

// startAfter returns the first frame id of a page after cursor (0 without
// one); ok is false when nothing can follow.
func startAfter(iq itemsQuery) (uint64, bool) {
	if !iq.hasCursor {
		return 0, true
	}
	if iq.after == math.MaxUint64 {
		return 0, false
	}
	return iq.after + 1, true
}

// framePage writes a page of the grid's frames and returns the next
// cursor ("" when this is the last page).
func (s *Server) framePage(g Grid, iq itemsQuery, p *page) string {
	p.open()
	start, ok := startAfter(iq)
	if !ok {
		return ""
	}
	var last uint64
	more := false
	walkFrames(g, isLattice(g), iq.box, start, func(sh grid.Shape) bool {
		if p.n == iq.limit {
			more = true
			return false
		}
		p.next()
		p.b = appendFrameFeature(p.b, sh, nil, nil)
		last = sh.ID
		return true
	})
	if !more {
		return ""
	}
	return strconv.FormatUint(last, 10)
}

// pageFrames returns the ids of at most limit frames that dataset d
// records something on, touching the query's box, after its cursor, and
// whether more follow.
func (s *Server) pageFrames(g Grid, d *state.Dataset, iq itemsQuery) ([]uint64, bool, error) {
	start, ok := startAfter(iq)
	if !ok {
		return nil, false, nil
	}
	ranges, test := recordRanges(g, isLattice(g), iq.box, start)
	ids := make([]uint64, 0, min(iq.limit+1, 1024))
	more := false
	err := s.store.ScanRecords(d.ID, ranges, func(frame uint64, _ int, _ []byte) bool {
		sh, ok := g.Shape(frame)
		if !ok || test && !touches(sh, iq.box) {
			return true
		}
		if len(ids) == iq.limit {
			more = true
			return false
		}
		ids = append(ids, frame)
		return true
	})
	return ids, more, err
}

// narrowed returns key narrowed to dataset id alone: reading through
// package access with it reads (and charges) that dataset and no other,
// under the same rules as every other read.
func narrowed(key state.Key, id string) state.Key {
	key.Datasets = []string{id}
	return key
}

// attrPage writes a page of the frames a dataset records something on,
// with its attributes, read through package access; a per-query dataset
// is charged by the price rule for the page's frames that carry its values.
func (s *Server) attrPage(rq *request, g Grid, c collection, iq itemsQuery, p *page) (string, error) {
	d := c.dataset()
	ids, more, err := s.pageFrames(g, d, iq)
	if err != nil {
		return "", err
	}
	ans, err := access.Read(s.store, g, narrowed(rq.key, d.ID), ids, false)
	if err != nil {
		return "", err
	}
	if err := s.charge(rq, ans, "page"); err != nil {
		return "", err
	}
	layout := newAttrLayout(d)
	p.open()
	for i := range ans.Frames {
		f := &ans.Frames[i]
		if !f.Known {
			continue
		}
		var attrs []byte
		if len(f.Entries) > 0 {
			attrs = f.Entries[0].Attrs
		}
		p.next()
		p.b = appendFrameFeature(p.b, f.Shape, layout, attrs)
	}
	if !more || len(ids) == 0 {
		return "", nil
	}
	return strconv.FormatUint(ids[len(ids)-1], 10), nil
}

// charge charges the per-query datasets that contributed to ans for
// what (a page, a tile, an item), by package access's price rule: the
// frames whose values ans read. When the organisation's credits do not
// cover one, nothing is answered: 402 insufficient_credits, and nothing
// was charged for it.
func (s *Server) charge(rq *request, ans *access.Answer, what string) error {
	asks := ans.PerQuery()
	if len(asks) == 0 {
		return nil
	}
	leftOut, err := ans.Charge(rq.r.Context(), s.store, rq.key, rq.id, asks, s.now())
	if err != nil {
		return err
	}
	if len(leftOut) == 0 {
		return nil
	}
	var ask state.DatasetPrice
	for _, a := range asks {
		if a.ID == leftOut[0] {
			ask = a
		}
	}
	return newError(http.StatusPaymentRequired, codeInsufficientCredits,
		"dataset %s is licensed to organisation %s per query, at %d credits for every started %d frames whose values are read; this %s reads %d frames, %d credits, and the organisation's credits do not cover it; nothing was charged. Every other collection keeps working; an administrator can add credits (frameindex org credits %s --add N)",
		leftOut[0], rq.key.OrgID, access.Price(ask.Price, 1), access.FramesPerUnit, what, ask.Frames, ask.Price, rq.key.OrgID)
}

// chargeDataset charges dataset acc for what, when it is per query and
// frames of its frames were read (a merged tile: the frames its cells
// summarise), through package access (features are read page by page
// rather than through access.Read, which caps them per request).
func (s *Server) chargeDataset(rq *request, acc state.Access, frames int, what string) error {
	ans := &access.Answer{Access: []state.Access{acc}, State: []access.State{{Contributed: frames > 0, Frames: frames}}}
	return s.charge(rq, ans, what)
}

// featureFrames counts the frames that hold fs, in frame order as pages
// list them.
func featureFrames(fs []storedFeature) int {
	n := 0
	for i := range fs {
		if i == 0 || fs[i].key.Frame != fs[i-1].key.Frame {
			n++
		}
	}
	return n
}

// storedFeature is one feature of a page, copied out of the store.
type storedFeature struct {
	key  bolt.FeatureKey
	body []byte
}

// pageFeatures returns at most limit features of dataset d from the
// query's cursor on, on frames touching its box, and the first feature of
// the next page when more follow.
func (s *Server) pageFeatures(g Grid, d *state.Dataset, iq itemsQuery) ([]storedFeature, *bolt.FeatureKey, error) {
	ranges, test := recordRanges(g, isLattice(g), iq.box, iq.from.Frame)
	var out []storedFeature
	var arena []byte
	var next *bolt.FeatureKey
	lastFrame, lastOK := uint64(math.MaxUint64), false
	err := s.store.ScanFeatures(d.ID, ranges, iq.from, func(k bolt.FeatureKey, f []byte) bool {
		if k.Frame != lastFrame {
			sh, ok := g.Shape(k.Frame)
			lastFrame, lastOK = k.Frame, ok && (!test || touches(sh, iq.box))
		}
		if !lastOK {
			return true
		}
		if len(out) == iq.limit {
			next = &k
			return false
		}
		if cap(arena)-len(arena) < len(f) {
			arena = make([]byte, 0, max(len(f), 256<<10))
		}
		at := len(arena)
		arena = append(arena, f...)
		out = append(out, storedFeature{key: k, body: arena[at:len(arena):len(arena)]})
		return true
	})
	return out, next, err
}

// featurePage writes a page of a dataset's features; a per-query dataset
// is charged for the frames holding the page's features.
func (s *Server) featurePage(rq *request, g Grid, c collection, iq itemsQuery, p *page) (string, error) {
	fs, next, err := s.pageFeatures(g, c.dataset(), iq)
	if err != nil {
		return "", err
	}
	if err := s.chargeDataset(rq, c.acc, featureFrames(fs), "page"); err != nil {
		return "", err
	}
	p.open()
	for _, f := range fs {
		p.next()
		p.b = appendStoredFeature(p.b, f)
	}
	if next == nil {
		return "", nil
	}
	return string(appendFeatureID(nil, *next)), nil
}

// appendStoredFeature appends a stored feature as an item: id "FRAME-SEQ",
// its geometry as stored, and its properties with frame_id (the frame
// holding it) first and its own "id", if any, as source_id.
func appendStoredFeature(b []byte, f storedFeature) []byte {
	var geom, props, id []byte
	jsonscan.EachMember(f.body, func(name, value []byte) bool {
		switch {
		case jsonscan.NameIs(name, "geometry"):
			geom = value
		case jsonscan.NameIs(name, "properties"):
			props = value
		case jsonscan.NameIs(name, "id"):
			id = value
		}
		return true
	})
	b = append(b, `{"type":"Feature","id":"`...)
	b = appendFeatureID(b, f.key)
	b = append(b, `","geometry":`...)
	if len(geom) == 0 {
		geom = []byte("null")
	}
	b = append(b, geom...)
	b = append(b, `,"properties":{"`+frameIDProp+`":`...)
	b = strconv.AppendUint(b, f.key.Frame, 10)
	if len(id) > 0 && id[0] != 'n' {
		b = append(b, `,"source_id":`...)
		b = append(b, id...)
	}
	if len(props) > 0 && props[0] == '{' {
		jsonscan.EachMember(props, func(name, value []byte) bool {
			if jsonscan.NameIs(name, frameIDProp) || jsonscan.NameIs(name, "source_id") && len(id) > 0 {
				return true
			}
			b = append(b, ',', '"')
			b = append(b, name...)
			b = append(b, `":`...)
			b = append(b, value...)
			return true
		})
	}
	return append(b, "}}"...)
}

// handleItem answers GET /ogc/collections/{collectionId}/items/{featureId}:
// one frame (id: the frame id) or one feature (id: FRAME-SEQ).
func (s *Server) handleItem(rq *request) error {
	g, c, err := s.gridCollection(rq)
	if err != nil {
		return err
	}
	fid := rq.vars["featureId"]
	var b []byte
	switch c.kind {
	case kindFeatures:
		k, ok := parseFeatureID(fid)
		if !ok {
			return notFound("collection %s has no item %s: its item ids are FRAME-SEQ, e.g. 433102007-0", quote(c.id), quote(fid))
		}
		iq := itemsQuery{box: g.Bounds(), limit: 1, from: k}
		fs, _, err := s.pageFeatures(g, c.dataset(), iq)
		if err != nil {
			return err
		}
		if len(fs) == 0 || fs[0].key != k {
			return notFound("collection %s has no item %s", quote(c.id), quote(fid))
		}
		if err := s.chargeDataset(rq, c.acc, 1, "item"); err != nil {
			return err
		}
		b = appendStoredFeature(nil, fs[0])
	default:
		id, ok := parseID(fid)
		var sh grid.Shape
		if ok {
			sh, ok = g.Shape(id)
		}
		if !ok {
			return notFound("collection %s has no item %s: item ids are frame ids of the grid", quote(c.id), quote(fid))
		}
		if c.kind == kindFrames {
			b = appendFrameFeature(nil, sh, nil, nil)
			break
		}
		d := c.dataset()
		ans, err := access.Read(s.store, g, narrowed(rq.key, d.ID), []uint64{id}, false)
		if err != nil {
			return err
		}
		if len(ans.Frames) != 1 || len(ans.Frames[0].Entries) == 0 {
			return notFound("dataset %s records nothing on frame %s, so collection %s has no such item", d.ID, fid, quote(c.id))
		}
		if err := s.charge(rq, ans, "item"); err != nil {
			return err
		}
		b = appendFrameFeature(nil, sh, newAttrLayout(d), ans.Frames[0].Entries[0].Attrs)
	}
	// Add links to the feature: replace its closing brace.
	b = b[:len(b)-1]
	b = append(b, `,"links":[`...)
	b = appendLink(b, rq.base+"/collections/"+c.id+"/items/"+url.PathEscape(fid), "self", typeGeoJSON, "This item")
	b = append(b, ',')
	b = appendLink(b, rq.base+"/collections/"+c.id, "collection", typeJSON, "The collection")
	b = append(b, "]}\n"...)
	write(rq.w, typeGeoJSON, b)
	return nil
}
