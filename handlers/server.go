package handlers

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"frameindex/access"
	"frameindex/area"
	"frameindex/grid"
	"frameindex/insight"
	"frameindex/plan"
)

// FrameIndex answers the frame queries. *index.Index implements it. All
// methods must be safe for concurrent use; the handlers never modify the
// shapes they are given.
type FrameIndex interface {
	// At returns the frame holding the point (east/south rule), if any.
	At(lat, lon float64) (grid.Shape, bool)
	// Shape returns the frame with the given id, if the grid has it.
	Shape(id uint64) (grid.Shape, bool)
	// Box calls fn for the frames touching the closed box b in ascending id
	// order, at most limit of them; truncated reports that more touch it.
	// fn returning false stops the walk.
	Box(b grid.Box, limit int, fn func(grid.Shape) bool) (truncated bool)
}

// Config configures a Server.
type Config struct {
	// Frames returns the current grid snapshot; main swaps it after admin
	// changes. It is called once per request and must be safe for
	// concurrent use.
	Frames func() FrameIndex
	// Keys returns the current key snapshot, as Frames does for the grid.
	Keys func() KeyLookup
	// Logger receives the access log and internal errors; nil discards them.
	Logger *slog.Logger
	// Now is the clock for key expiry; nil means time.Now.
	Now func() time.Time
	// RequestTimeout is the per-request budget; 0 means 30 s.
	RequestTimeout time.Duration
	// Limiter meters every call that needs a key (spec Limits); nil means
	// unmetered, with no rate-limit headers.
	Limiter RateLimiter
	// Data reads datasets and charges per-query ones for GET
	// /v1/frames/data; *bolt.Store implements it. nil makes that call
	// answer 500 internal (logged).
	Data DataStore
	// Narrator words computed answers (a local model); nil means every
	// answer is deterministic. Allowance must be set with it.
	Narrator Narrator
	// Allowance reserves, commits and refunds worded answers;
	// *bolt.Store implements it.
	Allowance Allowance
	// AnswerCredits is what a worded answer beyond the plan's allowance
	// costs; 0 means 1.
	AnswerCredits int64
	// Places returns every state, LGA and ward name the service knows, so
	// that wording naming a place outside the figures is discarded; nil or
	// an empty list skips that check.
	Places func() []string
	// Embedder embeds texts for hybrid retrieval of measures (an embedding
	// model such as nomic-embed-text); nil means lexical retrieval only.
	// *narrate.Client implements it.
	Embedder Embedder
	// OGC serves the OGC API under /ogc (see OGC); nil serves none.
	OGC OGC
	// Metrics counts requests, rate-limit decisions, charges and wording
	// for monitoring (package metrics); nil counts nothing.
	Metrics Metrics
	// Health configures /livez, /readyz and /healthz (see Health).
	Health Health
	// Areas finds places and resolves the areas of questions (package
	// area); nil makes one over Scanner.
	Areas *area.Places
	// Scanner reads whole datasets for questions about an area (the
	// column cache and the nearest-feature indexes); nil means Data when
	// it scans (*bolt.Store), else such questions answer 500 internal.
	Scanner DatasetScanner
	// Columns and Reach are the caches of decoded datasets and of
	// nearest-feature indexes questions read; nil makes new ones.
	// Servers over one file (the API and the operator's) share them.
	Columns *access.Columns
	Reach   *access.Reach
}

// DatasetScanner reads a dataset's records and features in frame order;
// *bolt.Store implements it.
type DatasetScanner interface {
	access.RecordScanner
	access.FeatureScanner
}

// DefaultRequestTimeout is the per-request budget of the spec.
const DefaultRequestTimeout = 30 * time.Second

// Server is the HTTP API: an http.Handler that routes, authenticates,
// answers, logs and recovers. It is safe for concurrent use and holds no
// per-request state.
type Server struct {
	frames  func() FrameIndex
	keys    func() KeyLookup
	logger  *slog.Logger
	now     func() time.Time
	timeout time.Duration
	limiter RateLimiter
	data    DataStore

	narrator      Narrator
	allowance     Allowance
	answerCredits int64
	places        func() []string
	embedder      Embedder
	embeddings    *embedCache
	ogc           OGC
	metrics       Metrics
	health        health
	areas         *area.Places
	scanner       DatasetScanner

	// compute computes a question's answer from its plan: insight.Compute,
	// replaced in tests to check what the handler gives it and does with
	// its answer.
	compute func(*plan.Plan, *insight.Input) *insight.Answer
	// plans holds the caches questions share.
	plans *planner

	// limiterDown is set while the limiter's store is unreachable, so the
	// change is logged once rather than on every request.
	limiterDown atomic.Bool

	mux     *http.ServeMux
	handler http.Handler // mux behind the middleware chain
}

// Errors for a Config that cannot serve; reported as 500 internal, logged.
var (
	errNoGrid = errors.New("handlers: no grid snapshot (Config.Frames is nil or returned nil)")
	errNoKeys = errors.New("handlers: no key snapshot (Config.Keys is nil or returned nil)")
)

// New returns a Server for cfg. It does not fail: a nil Frames or Keys
// function makes the calls that need it answer 500 internal (logged), and
// zero values of the other fields take their documented defaults.
func New(cfg Config) *Server {
	s := &Server{
		logger:  cfg.Logger,
		now:     cfg.Now,
		timeout: cfg.RequestTimeout,
		limiter: cfg.Limiter,
		data:    cfg.Data,
		compute: insight.Compute,
		plans:   newPlanner(),

		narrator:      cfg.Narrator,
		allowance:     cfg.Allowance,
		answerCredits: cfg.AnswerCredits,
		places:        cfg.Places,
		embedder:      cfg.Embedder,
		embeddings:    newEmbedCache(),
		ogc:           cfg.OGC,
		metrics:       cfg.Metrics,
		areas:         cfg.Areas,
	}
	s.scanner = cfg.Scanner
	if sc, ok := cfg.Data.(DatasetScanner); ok && s.scanner == nil {
		s.scanner = sc
	}
	if s.areas == nil && s.scanner != nil {
		s.areas = area.NewPlaces(s.scanner, 0)
	}
	// Servers over one file share the caches of decoded datasets and
	// nearest-feature indexes.
	if cfg.Columns != nil {
		s.plans.cols = cfg.Columns
	}
	if cfg.Reach != nil {
		s.plans.reach = cfg.Reach
	}
	s.health.cfg = cfg.Health
	if s.places == nil {
		s.places = func() []string { return nil }
	}
	if s.allowance == nil {
		s.narrator = nil // never word an answer that cannot be counted
	}
	if s.answerCredits <= 0 {
		s.answerCredits = 1
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.timeout <= 0 {
		s.timeout = DefaultRequestTimeout
	}
	s.frames = func() FrameIndex { return nil }
	if cfg.Frames != nil {
		s.frames = cfg.Frames
	}
	s.keys = func() KeyLookup { return nil }
	if cfg.Keys != nil {
		s.keys = cfg.Keys
	}
	s.mux = http.NewServeMux()
	s.routes()
	s.handler = s.track(s.recoverPanics(http.HandlerFunc(s.dispatch)))
	return s
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

// Timeouts of NewHTTPServer. WriteTimeout is above the 30-second request
// budget so a request that spends its budget can still be answered.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second
	writeTimeout      = 40 * time.Second
	idleTimeout       = 120 * time.Second
	maxHeaderBytes    = 64 << 10
)

// NewHTTPServer returns an http.Server for h on addr with limits against
// slow or greedy clients: 5 s to send the headers, 15 s to send the whole
// request, 40 s to receive the response (longer than the 30 s request
// budget), 120 s idle between keep-alive requests, and 64 KiB of request
// line and headers. Its own errors (TLS handshakes, accept failures, panics
// it recovered) go to logger at warn level; a nil logger discards them.
func NewHTTPServer(addr string, h http.Handler, logger *slog.Logger) *http.Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// buffer is a pooled byte slice for building responses.
type buffer struct{ b []byte }

// Buffers start at chunkSize plus room for one feature and are dropped when
// something made them grow beyond maxPooled (a huge imported polygon), so
// the pool does not keep rare giants alive.
const (
	chunkSize = 48 << 10
	maxPooled = 256 << 10
)

var bufPool = sync.Pool{New: func() any { return &buffer{b: make([]byte, 0, chunkSize+16<<10)} }}

func getBuf() *buffer { return bufPool.Get().(*buffer) }

func putBuf(buf *buffer) {
	if cap(buf.b) > maxPooled {
		return
	}
	buf.b = buf.b[:0]
	bufPool.Put(buf)
}
