package console

import (
	"bytes"
	"compress/gzip"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"frameindex/access"
	"frameindex/admin"
	"frameindex/state"
)

// The Explore map: a MapLibre GL JS map (vendored, embedded) drawn from the
// server's own vector tiles, a panel that shows what datasets record on a
// frame, and questions about a selection of frames. Every call the map
// makes that reads frames or datasets (tiles, point lookup, box, data,
// question) is an API call served by the API's own handlers (Behalf) on
// behalf of the signed-in person's organisation, through a key of that
// organisation named "console: <login>": metered, limited, charged and
// logged as any API request. That key is minted, through admin.Ops (the
// code path of `frameindex key mint`, audited under the person's name),
// when the person opens Explore and holds no active one; its secret is
// dropped at once. It is listed in the Developers area, where an admin
// revokes it: the map stops on its next request, and a new one is minted
// only when the person opens Explore again.

// Behalf answers API requests on behalf of a key, skipping only the
// reading of a secret; *handlers.Server implements it (ServeAs). Wrap
// finds it on the API handler it is given.
type Behalf interface {
	ServeAs(w http.ResponseWriter, r *http.Request, key state.Key)
}

// Vendored MapLibre GL JS (scripts/vendor-maplibre.sh).
//
//go:embed assets/vendor/maplibre-gl
var vendorFS embed.FS

// explorer is the Explore map's state: the API to serve calls through,
// the country outline (GeoJSON, prepared for tiles on first use), each
// person's key id, and the place (and boundary line) and break indexes
// built from the store.
type explorer struct {
	api         Behalf
	outline     []byte
	outlineOnce sync.Once
	outlineSet  *outlineSet // outline prepared for tiles; nil when none

	mu     sync.Mutex        // guards keys
	keys   map[string]string // org + "\x00" + user -> key id
	mintMu sync.Mutex        // one search-or-mint at a time

	places *placeIndex
	breaks *breakCache
}

func newExplorer(outline []byte) *explorer {
	return &explorer{outline: outline, keys: map[string]string{}, places: newPlaceIndex(), breaks: newBreakCache()}
}

// consoleKeyName is the name of a person's Explore key.
func consoleKeyName(user string) string { return "console: " + user }

// consoleKeyTTL is the lifetime of an Explore key: the longest allowed.
const consoleKeyTTL = "366d"

// maxSelection is the number of frames a question may be about (spec,
// POST /v1/frames/insight).
const maxSelection = 50

func (s *Server) exploreRoutes() {
	m := s.mux
	m.HandleFunc("GET /console/explore", s.authed(s.handleExplore, false))
	m.HandleFunc("POST /console/explore/key", s.authed(s.handleExploreKey, false))
	m.HandleFunc("GET /console/explore/tiles/{collection}/{z}/{y}/{x}", s.authed(s.ownPage(s.handleExploreTile), false))
	m.HandleFunc("GET /console/explore/api/at", s.authed(s.ownPage(s.exploreAPI("/v1/frames/at", "lat", "lon")), false))
	m.HandleFunc("GET /console/explore/api/frames", s.authed(s.ownPage(s.exploreAPI("/v1/frames", "bbox", "limit")), false))
	m.HandleFunc("GET /console/explore/api/data", s.authed(s.ownPage(s.exploreAPI("/v1/frames/data", "ids")), false))
	m.HandleFunc("POST /console/explore/api/insight", s.authed(s.handleExploreAsk, false))
	m.HandleFunc("GET /console/explore/places", s.authed(s.ownPage(s.handlePlaces), false))
	m.HandleFunc("GET /console/explore/breaks", s.authed(s.ownPage(s.handleBreaks), false))
	m.HandleFunc("GET /console/explore/lines/{layer}/{z}/{y}/{x}", s.authed(s.ownPage(s.handleLines), false))
	m.HandleFunc("GET /console/vendor/maplibre-gl/{file}", s.handleVendor)
	s.exploreAreaRoutes()
}

// writeJSONError answers a call of the map with the API's envelope.
func writeJSONError(w http.ResponseWriter, status int, code, message string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// writeJSONData answers a call of the map with data in the envelope.
func writeJSONData(w http.ResponseWriter, r *http.Request, data any) {
	b, err := json.Marshal(map[string]any{"data": data})
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "internal", "the answer could not be written")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	writeMaybeGzip(w, r, append(b, '\n'))
}

// writeMaybeGzip writes b, gzipped when the client accepts it and b is
// worth it.
func writeMaybeGzip(w http.ResponseWriter, r *http.Request, b []byte) {
	w.Header().Add("Vary", "Accept-Encoding")
	if len(b) < 1024 || !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Write(b)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	zw := gzip.NewWriter(w)
	zw.Write(b)
	zw.Close()
}

// exploreKey returns the signed-in person's active Explore key, read from
// the store now (so a revocation applies at once), minting one through
// admin.Ops when mint is set and there is none. Errors: state.ErrNotFound
// when there is none and mint is not set; errors of the store or the
// operation.
func (s *Server) exploreKey(r *http.Request, mint bool) (state.Key, error) {
	rq := requestOf(r)
	e := s.explore
	slot := rq.org + "\x00" + rq.user
	now := s.now()
	// The common case, a tile: the remembered key, read from the store
	// without holding any lock.
	e.mu.Lock()
	id := e.keys[slot]
	e.mu.Unlock()
	if id != "" {
		k, err := s.state.Key(id)
		if err == nil && k.OrgID == rq.org && k.Member == rq.user && k.Active(now) == nil {
			return k, nil
		}
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return state.Key{}, err
		}
	}
	// Find or mint one; one person at a time, so that two first requests
	// mint one key.
	e.mintMu.Lock()
	defer e.mintMu.Unlock()
	keys, err := s.state.Keys(rq.org)
	if err != nil {
		return state.Key{}, err
	}
	var found state.Key
	for _, k := range keys {
		// By the member it was minted for, never by its name: anyone who
		// mints keys can name one "console: <login>".
		if k.Member == rq.user && k.Active(now) == nil && k.Created.After(found.Created) {
			found = k
		}
	}
	if found.ID == "" && !mint {
		e.forget(slot)
		return state.Key{}, state.ErrNotFound
	}
	if found.ID == "" {
		m, err := s.ops.MintKey(s.as(r), admin.KeyMint{OrgID: rq.org, Preset: "full", Name: consoleKeyName(rq.user), TTL: consoleKeyTTL, ForMember: true})
		if err != nil {
			return state.Key{}, err
		}
		// The secret is dropped here: the web application never uses it.
		if found, err = s.state.Key(m.Key.ID); err != nil {
			return state.Key{}, err
		}
	}
	e.mu.Lock()
	e.keys[slot] = found.ID
	e.mu.Unlock()
	return found, nil
}

// forget drops the remembered key of a person.
func (e *explorer) forget(slot string) {
	e.mu.Lock()
	delete(e.keys, slot)
	e.mu.Unlock()
}

// layerAttr is a numeric attribute the choropleth can draw.
type layerAttr struct {
	Dataset string `json:"dataset"`
	Name    string `json:"name"`
	Label   string `json:"label"`
	Unit    string `json:"unit,omitempty"`
	Year    int    `json:"year,omitempty"`
	Sum     bool   `json:"sum,omitempty"` // aggregated by sum: drawn per frame
	Charged bool   `json:"charged,omitempty"`
}

// exploreConfig is what the page's script is given (as JSON in the page).
type exploreConfig struct {
	Attrs      []layerAttr `json:"attrs"`
	Boundaries []string    `json:"boundaries"` // levels: "state", "lga"
	Max        int         `json:"max"`
	Center     [2]float64  `json:"center"`
	Zoom       float64     `json:"zoom"`
}

// exploreData is what the Explore page shows.
type exploreData struct {
	Config   string // exploreConfig as JSON
	Vendor   string // MapLibre version, for the links
	Max      int    // frames a question may be about
	Attrs    []layerAttr
	Datasets []string
	KeyName  string
	NeedKey  bool // no Explore key yet: the page is the form that mints one
}

// ownPage wraps a GET of the map's calls, which may spend credits (a tile
// or the data of a dataset charged per query): it runs only for a request
// of this server's own page, shown by the browser's Sec-Fetch-Site
// (same-origin, or none for an address the person typed) or, from a
// browser that sends none, by the page's CSRF token in X-CSRF-Token. A
// cookie alone is no proof: SameSite does not separate the ports of one
// host, so a page on another port could make the browser send it with an
// <img>.
func (s *Server) ownPage(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("Sec-Fetch-Site") {
		case "same-origin", "none":
			h(w, r)
			return
		case "":
			if tok := r.Header.Get("X-CSRF-Token"); tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(requestOf(r).se.CSRF)) == 1 {
				h(w, r)
				return
			}
		}
		writeJSONError(w, http.StatusForbidden, "forbidden",
			"this call of the map is answered only for the map's own page; reload the Explore page")
	}
}

// handleExploreKey mints the person's Explore key (a POST with the page's
// CSRF token: a key is never minted by a GET) and returns to the map.
func (s *Server) handleExploreKey(w http.ResponseWriter, r *http.Request) {
	if _, err := s.exploreKey(r, true); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"explore", http.StatusSeeOther)
}

// handleExplore shows the map; a person who holds no active Explore key
// is shown a form that mints one (the page's script sends it at once).
// The numeric attributes of the datasets the key reads fill the
// choropleth's choice.
func (s *Server) handleExplore(w http.ResponseWriter, r *http.Request) {
	if s.explore.api == nil {
		s.errorPage(w, r, http.StatusServiceUnavailable, "The map is not available",
			"This server runs the web application without the API, so there is nothing to draw.")
		return
	}
	key, err := s.exploreKey(r, false)
	if errors.Is(err, state.ErrNotFound) {
		p := s.newPage(r, "Explore", "explore")
		p.Data = exploreData{NeedKey: true, Vendor: vendorVersion()}
		s.render(w, r, http.StatusOK, "explore", p)
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	acc, err := s.state.Readable(key)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	cfg := exploreConfig{Attrs: []layerAttr{}, Boundaries: []string{}, Max: maxSelection, Center: [2]float64{8.6753, 9.0820}, Zoom: 5.6}
	var names []string
	for _, a := range acc {
		names = append(names, a.Dataset.ID)
		for _, at := range a.Dataset.Attributes {
			if at.Type == state.TypeNumber {
				l := at.Label
				if l == "" {
					l = at.Name
				}
				cfg.Attrs = append(cfg.Attrs, layerAttr{Dataset: a.Dataset.ID, Name: at.Name, Label: l, Unit: at.Unit, Year: at.Year,
					Sum: at.Aggregation == "sum", Charged: a.PerQuery})
			}
			if (at.Name == "state" || at.Name == "lga") && !a.PerQuery && at.Type != state.TypeNumber && !slices.Contains(cfg.Boundaries, at.Name) {
				cfg.Boundaries = append(cfg.Boundaries, at.Name)
			}
		}
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.newPage(r, "Explore", "explore")
	p.Data = exploreData{Config: string(b), Vendor: vendorVersion(), Max: maxSelection, Attrs: cfg.Attrs, Datasets: names, KeyName: key.Name}
	s.render(w, r, http.StatusOK, "explore", p)
}

// collectionRe is the form of a collection id (dataset ids, "frames",
// "{dataset}-features").
var collectionRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,80}$`)

// handleExploreTile serves a vector tile of the map: the API's OGC tile
// call, GET /ogc/collections/{collection}/tiles/WebMercatorQuad/{z}/{y}/{x},
// on behalf of the person's organisation.
func (s *Server) handleExploreTile(w http.ResponseWriter, r *http.Request) {
	p, ok := tilePath(r.PathValue("collection"), r.PathValue("z"), r.PathValue("y"), r.PathValue("x"))
	if !ok {
		writeJSONError(w, http.StatusBadRequest, "invalid", "a tile address is /console/explore/tiles/{collection}/{z}/{y}/{x}: a collection id (lowercase letters, digits, '_' and '-') and whole numbers")
		return
	}
	// Tiles may be kept by this browser for a few minutes: panning back
	// costs no request (and no charge).
	w.Header().Set("Cache-Control", "private, max-age=300")
	s.serveAs(w, r, http.MethodGet, p, "", nil)
}

// tilePath returns the API path of a tile of the map, or false when the
// parts are not a collection id and three whole numbers. The API checks
// the rest (zoom range, tile of the matrix, collection readable).
func tilePath(c, z, y, x string) (string, bool) {
	if !collectionRe.MatchString(c) || !isSmallInt(z) || !isSmallInt(y) || !isSmallInt(x) {
		return "", false
	}
	return "/ogc/collections/" + c + "/tiles/WebMercatorQuad/" + z + "/" + y + "/" + x, true
}

// isSmallInt reports whether v is 1 to 8 decimal digits.
func isSmallInt(v string) bool {
	if v == "" || len(v) > 8 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// exploreAPI returns a handler that serves an API GET call at apiPath with
// the query parameters named (others are dropped: no key can be smuggled
// in).
func (s *Server) exploreAPI(apiPath string, params ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in := r.URL.Query()
		q := url.Values{}
		for _, p := range params {
			if v, ok := in[p]; ok {
				q[p] = v
			}
		}
		s.serveAs(w, r, http.MethodGet, apiPath, q.Encode(), nil)
	}
}

// maxQuestionBody bounds the body of a question from the map: 50 ids or
// an area (a drawn polygon of a few thousand corners) and 1,000
// characters; the API's own bound is 1 MiB.
const maxQuestionBody = 256 << 10

// handleExploreAsk serves a question: POST /v1/frames/insight with the
// JSON body as sent (the API decodes it strictly). The CSRF token comes in
// the X-CSRF-Token header (authed checks it).
func (s *Server) handleExploreAsk(w http.ResponseWriter, r *http.Request) {
	if body, ok := readQuestionBody(w, r); ok {
		s.serveAs(w, r, http.MethodPost, "/v1/frames/insight", "", body)
	}
}

// readQuestionBody reads the body of a question from the map, or answers
// 400 and returns false.
func readQuestionBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxQuestionBody+1))
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_body", "the question could not be read")
		return nil, false
	}
	if len(body) > maxQuestionBody {
		writeJSONError(w, http.StatusBadRequest, "invalid_body", "the question's body is over 256 KiB: draw a simpler shape")
		return nil, false
	}
	return body, true
}

// serveAs hands one API call to the API on behalf of the person's key.
// Only the method, path, query, body and Accept-Encoding reach the API:
// no cookie, no header of the browser's choosing.
func (s *Server) serveAs(w http.ResponseWriter, r *http.Request, method, apiPath, rawQuery string, body []byte) {
	if s.explore.api == nil {
		writeJSONError(w, http.StatusServiceUnavailable, "unavailable", "this server runs the web application without the API")
		return
	}
	s.serveVia(w, r, method, apiPath, rawQuery, body, s.explore.api.ServeAs)
}

// serveVia is serveAs through serve, the API's ServeAs or another call it
// answers on behalf of a key (explore_area.go).
func (s *Server) serveVia(w http.ResponseWriter, r *http.Request, method, apiPath, rawQuery string, body []byte,
	serve func(http.ResponseWriter, *http.Request, state.Key)) {
	key, err := s.exploreKey(r, false)
	if errors.Is(err, state.ErrNotFound) {
		writeJSONError(w, http.StatusUnauthorized, "invalid_key",
			"your Explore key ("+consoleKeyName(requestOf(r).user)+") was revoked or has expired; open Explore again to get a new one")
		return
	}
	if err != nil {
		s.log.Error("console: reading the Explore key failed", "err", err)
		writeJSONError(w, http.StatusInternalServerError, "internal", "the server could not read your Explore key; try again")
		return
	}
	r2, err := http.NewRequestWithContext(r.Context(), method, apiPath, bytes.NewReader(body))
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid", "the call could not be formed")
		return
	}
	r2.URL.RawQuery = rawQuery
	r2.RequestURI = r2.URL.RequestURI()
	r2.Host, r2.RemoteAddr, r2.TLS, r2.Proto, r2.ProtoMajor, r2.ProtoMinor = r.Host, r.RemoteAddr, r.TLS, r.Proto, r.ProtoMajor, r.ProtoMinor
	if ae := r.Header.Get("Accept-Encoding"); ae != "" {
		r2.Header.Set("Accept-Encoding", ae)
	}
	if body != nil {
		r2.Header.Set("Content-Type", "application/json")
		r2.ContentLength = int64(len(body))
	}
	h := w.Header()
	h.Del("Content-Security-Policy") // not a page
	s.uses.Seen(key.ID, s.now())     // shown as the key's last use under Developers
	serve(noChallenge{w}, r2, key)
}

// noChallenge drops WWW-Authenticate from the API's answers: a Basic
// challenge (as /ogc sends with 401) would make the browser ask for a
// password.
type noChallenge struct{ http.ResponseWriter }

func (n noChallenge) WriteHeader(code int) {
	n.Header().Del("Www-Authenticate")
	n.ResponseWriter.WriteHeader(code)
}

func (n noChallenge) Write(b []byte) (int, error) {
	n.Header().Del("Www-Authenticate")
	return n.ResponseWriter.Write(b)
}

func (n noChallenge) Unwrap() http.ResponseWriter { return n.ResponseWriter }

// handleVendor serves the vendored MapLibre files. Their names carry no
// version, so they are revalidated (no-cache) unless asked for with the
// version the page links.
func (s *Server) handleVendor(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := vendorFS.ReadFile("assets/vendor/maplibre-gl/" + name)
	if err != nil || strings.Contains(name, "/") {
		s.errorPage(w, r, http.StatusNotFound, "Page not found", "There is no file at this address.")
		return
	}
	h := w.Header()
	ct := contentTypes[path.Ext(name)]
	if ct == "" {
		ct = "text/plain; charset=utf-8"
	}
	h.Set("Content-Type", ct)
	if r.URL.Query().Get("v") == vendorVersion() {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	writeGzipped(w, r, b, vendorGzip(name, b))
}

// vendorGz holds the vendored files gzipped, each compressed once.
var vendorGz sync.Map // name -> []byte

func vendorGzip(name string, b []byte) []byte {
	if v, ok := vendorGz.Load(name); ok {
		return v.([]byte)
	}
	gz := gzipBytes(b)
	vendorGz.Store(name, gz)
	return gz
}

// gzipBytes returns b gzipped.
func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// writeGzipped writes gz (b gzipped) when the client accepts gzip, b
// otherwise.
func writeGzipped(w http.ResponseWriter, r *http.Request, b, gz []byte) {
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		w.Write(gz)
		return
	}
	w.Write(b)
}

var vendorVersion = sync.OnceValue(func() string {
	b, _ := vendorFS.ReadFile("assets/vendor/maplibre-gl/VERSION")
	v, _, _ := strings.Cut(strings.TrimPrefix(string(b), "maplibre-gl "), "\n")
	return v
})

// handleBreaks answers the colour steps of a numeric attribute:
// GET /console/explore/breaks?dataset=&attr=.
func (s *Server) handleBreaks(w http.ResponseWriter, r *http.Request) {
	ds, attr := r.URL.Query().Get("dataset"), r.URL.Query().Get("attr")
	a, ok := s.readableAttr(w, r, ds, attr)
	if !ok {
		return
	}
	if a.perQuery {
		// Colour steps summarise every frame of the dataset: by the price
		// rule (access.Price) they would cost the whole dataset's frames,
		// so they are refused rather than given free or charged unasked.
		writeJSONError(w, http.StatusForbidden, "forbidden", fmt.Sprintf(
			"dataset %s is licensed to your organisation per query: colour steps summarise all %s of its frames, which would be charged as %s credits, so the map does not compute them. Click frames or select an area to read its values (charged per %d frames read), or license it by subscription",
			ds, state.GroupDigits(int64(a.frames)), state.GroupDigits(access.Price(a.price, a.frames)), access.FramesPerUnit))
		return
	}
	br, err := s.explore.breaks.get(s.store, a)
	if err != nil {
		s.log.Error("console: computing colour steps failed", "dataset", ds, "attr", attr, "err", err)
		writeJSONError(w, http.StatusInternalServerError, "internal", "the colour steps could not be computed; try again")
		return
	}
	w.Header().Set("Cache-Control", "private, max-age=300")
	writeJSONData(w, r, br)
}

// readableAttr finds numeric attribute attr of dataset ds among those the
// person's Explore key reads, or answers 400/404 and returns false.
func (s *Server) readableAttr(w http.ResponseWriter, r *http.Request, ds, attr string) (attrRef, bool) {
	if ds == "" || attr == "" || len(ds) > 64 || len(attr) > 64 {
		writeJSONError(w, http.StatusBadRequest, "invalid", "give dataset and attr, each at most 64 characters")
		return attrRef{}, false
	}
	acc, ok := s.exploreReadable(w, r)
	if !ok {
		return attrRef{}, false
	}
	for _, a := range acc {
		if a.Dataset.ID != ds {
			continue
		}
		for _, at := range a.Dataset.Attributes {
			if at.Name == attr && at.Type == state.TypeNumber {
				return attrRef{dataset: ds, version: a.Dataset.Version, name: attr, sum: at.Aggregation == "sum",
					perQuery: a.PerQuery, price: a.Dataset.Price, frames: a.Dataset.Frames}, true
			}
		}
	}
	writeJSONError(w, http.StatusNotFound, "not_found", "no dataset your organisation reads has a numeric attribute "+strconv.Quote(attr)+" in "+strconv.Quote(ds))
	return attrRef{}, false
}

// exploreReadable returns the datasets the person's Explore key reads.
func (s *Server) exploreReadable(w http.ResponseWriter, r *http.Request) ([]state.Access, bool) {
	key, err := s.exploreKey(r, false)
	if errors.Is(err, state.ErrNotFound) {
		writeJSONError(w, http.StatusUnauthorized, "invalid_key", "your Explore key was revoked or has expired; open Explore again to get a new one")
		return nil, false
	}
	if err == nil {
		var acc []state.Access
		if acc, err = s.state.Readable(key); err == nil {
			return acc, true
		}
	}
	s.log.Error("console: reading the readable datasets failed", "err", err)
	writeJSONError(w, http.StatusInternalServerError, "internal", "the server could not read your datasets; try again")
	return nil, false
}

// exploreIndex answers the place index (places and boundary lines) of
// what the person's Explore key reads without charge, or writes the error
// and returns false; what names what failed to build, for the log and
// the message.
func (s *Server) exploreIndex(w http.ResponseWriter, r *http.Request, what string) (*placeData, bool) {
	acc, ok := s.exploreReadable(w, r)
	if !ok {
		return nil, false
	}
	idx, err := s.explore.places.get(s.store, acc)
	if err != nil {
		s.log.Error("console: building the "+what+" failed", "err", err)
		writeJSONError(w, http.StatusInternalServerError, "internal", "the "+what+" could not be read; try again")
		return nil, false
	}
	return idx, true
}

// handlePlaces answers a place search: GET /console/explore/places?q=
// (2 to 100 characters), the places whose names hold q, best first.
func (s *Server) handlePlaces(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if n := len([]rune(q)); n < 2 || n > 100 {
		writeJSONError(w, http.StatusBadRequest, "invalid", "type 2 to 100 characters of a place's name")
		return
	}
	idx, ok := s.exploreIndex(w, r, "places")
	if !ok {
		return
	}
	writeJSONData(w, r, idx.search(q, 12))
}
