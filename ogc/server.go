package ogc

import (
	"errors"
	"frameindex/origin"
	"net/http"
	"strings"
	"sync"
	"time"

	"frameindex/access"
	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/state"
)

// Grid is the frame index the collections are drawn from; *index.Index
// implements it. All methods must be safe for concurrent use.
type Grid interface {
	// Shape returns the frame with the given id, if the grid has it.
	Shape(id uint64) (grid.Shape, bool)
	// Box calls fn for the frames touching the closed box b in ascending
	// id order, at most limit of them; fn returning false stops the walk.
	Box(b grid.Box, limit int, fn func(grid.Shape) bool) (truncated bool)
	// Bounds returns the box holding every frame.
	Bounds() grid.Box
	// Len returns the number of frames.
	Len() int
}

// Store reads datasets as package access does, and pages through one
// dataset's records and features in frame id order. *bolt.Store implements
// it; all methods must be safe for concurrent use.
type Store interface {
	access.Store
	// ScanRecords calls fn for each frame the dataset records something
	// on whose id lies in ranges, ascending; see bolt.Store.ScanRecords.
	ScanRecords(dataset string, ranges []bolt.IDRange, fn func(frame uint64, features int, attrs []byte) bool) error
	// ScanFeatures calls fn for each feature the dataset holds on frames
	// in ranges, from a feature on, ascending; see bolt.Store.ScanFeatures.
	ScanFeatures(dataset string, ranges []bolt.IDRange, from bolt.FeatureKey, fn func(k bolt.FeatureKey, feature []byte) bool) error
}

// Config configures a Server.
type Config struct {
	// Grid returns the current grid snapshot; it is called once per
	// request and must be safe for concurrent use. A nil Grid, or one
	// returning nil, makes every call that needs the grid fail (500).
	Grid func() Grid
	// Store reads and charges datasets. nil makes every call that reads a
	// dataset fail (500).
	Store Store
	// Now is the clock of charges and time stamps; nil means time.Now.
	Now func() time.Time
	// Origin names this server in absolute links; nil allows loopback
	// hosts only (see package origin).
	Origin *origin.Base
}

// Server answers the OGC API under /ogc for a key that the mounting server
// has already authenticated, metered and checked for frame.read. It is
// safe for concurrent use.
type Server struct {
	grid    func() Grid
	store   Store
	now     func() time.Time
	origin  *origin.Base
	routes  []route
	extents sync.Map // extentKey -> *extent
}

// Errors for a Config that cannot serve (500, the cause logged by the
// mounting server).
var (
	errNoGrid  = errors.New("ogc: no grid snapshot (Config.Grid is nil or returned nil)")
	errNoStore = errors.New("ogc: no dataset store (Config.Store is nil)")
)

// New returns a Server for cfg. It does not fail; see Config for what a
// missing field does.
func New(cfg Config) *Server {
	s := &Server{grid: cfg.Grid, store: cfg.Store, now: cfg.Now, origin: cfg.Origin}
	if s.grid == nil {
		s.grid = func() Grid { return nil }
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.routes = []route{
		{"", s.handleLanding},
		{"/conformance", s.handleConformance},
		{"/api", s.handleAPI},
		{"/collections", s.handleCollections},
		{"/collections/{collectionId}", s.handleCollection},
		{"/collections/{collectionId}/items", s.handleItems},
		{"/collections/{collectionId}/items/{featureId}", s.handleItem},
		{"/collections/{collectionId}/schema", s.handleSchema},
		{"/collections/{collectionId}/queryables", s.handleQueryables},
		{"/collections/{collectionId}/tiles", s.handleTilesets},
		{"/collections/{collectionId}/tiles/{tileMatrixSetId}", s.handleTileset},
		{"/collections/{collectionId}/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}", s.handleTile},
		{"/tileMatrixSets", s.handleTileMatrixSets},
		{"/tileMatrixSets/{tileMatrixSetId}", s.handleTileMatrixSet},
	}
	return s
}

// Prefix is the path under which the OGC API is served.
const Prefix = "/ogc"

// route is one call: a path below Prefix with {wildcards}, and its handler.
type route struct {
	path   string
	handle func(*request) error
}

// Patterns returns the net/http.ServeMux patterns of every call (GET,
// which also answers HEAD): the mounting server routes them to ServeKeyed,
// so that an unknown path or another method is refused before any key is
// read, as under /v1.
func (s *Server) Patterns() []string {
	out := []string{"GET " + Prefix, "GET " + Prefix + "/{$}"}
	for _, rt := range s.routes[1:] {
		out = append(out, "GET "+Prefix+rt.path)
	}
	return out
}

// request is one call being answered.
type request struct {
	w     http.ResponseWriter
	r     *http.Request
	key   state.Key
	id    string // the request id, recorded with charges
	base  string // absolute URL of Prefix, for links
	vars  map[string]string
	ctype string // media type of a successful answer
}

// ServeKeyed answers r for key, an authenticated key with frame.read;
// requestID identifies the request in the ledger. It writes a successful
// answer itself and returns an error otherwise, which the mounting server
// writes as an OGC exception: an *Error with its code and status, or any
// other error as a server failure (500, cause logged). When the answer was
// already started the mounting server can only abort the connection.
func (s *Server) ServeKeyed(w http.ResponseWriter, r *http.Request, key state.Key, requestID string) error {
	rest, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		return notFound("there is no OGC API call at %s", quote(r.URL.Path))
	}
	rq := &request{w: w, r: r, key: key, id: requestID, base: s.origin.URL(r) + Prefix}
	if rest == "" || rest == "/" {
		return s.handleLanding(rq)
	}
	for _, rt := range s.routes[1:] {
		if vars, ok := match(rt.path, rest); ok {
			rq.vars = vars
			return rt.handle(rq)
		}
	}
	return notFound("there is no OGC API call at %s; the calls are described at %s/api", quote(r.URL.Path), Prefix)
}

// match matches a path against a route path with {wildcards}, each one
// non-empty segment.
func match(pattern, path string) (map[string]string, bool) {
	var vars map[string]string
	for pattern != "" {
		if path == "" || path[0] != '/' {
			return nil, false
		}
		var ps, seg string
		ps, pattern = cut(pattern[1:])
		seg, path = cut(path[1:])
		if strings.HasPrefix(ps, "{") {
			if seg == "" {
				return nil, false
			}
			if vars == nil {
				vars = make(map[string]string, 4)
			}
			vars[ps[1:len(ps)-1]] = seg
		} else if ps != seg {
			return nil, false
		}
	}
	return vars, path == ""
}

// cut splits s at its first '/': the segment, and the rest from the '/'.
func cut(s string) (seg, rest string) {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// gridOf returns the current grid snapshot.
func (s *Server) gridOf() (Grid, error) {
	g := s.grid()
	if g == nil {
		return nil, errNoGrid
	}
	return g, nil
}

// Media types of the answers.
const (
	typeJSON    = "application/json"
	typeGeoJSON = "application/geo+json"
	typeSchema  = "application/schema+json"
	typeOpenAPI = "application/vnd.oai.openapi+json;version=3.0"
	typeMVT     = "application/vnd.mapbox-vector-tile"
)

// write sends a complete body with its length and status 200.
func write(w http.ResponseWriter, ctype string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body) // a failed write means the client is gone
}

// bufPool holds response buffers; a page of 10,000 frames is about 2 MB.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) > 4<<20 {
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}
