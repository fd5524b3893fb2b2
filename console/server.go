package console

import (
	"context"
	"errors"
	"frameindex/origin"
	"frameindex/state"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"frameindex/admin"
	"frameindex/bolt"
	"frameindex/report"
)

// Prefix is the path the web application is served under.
const Prefix = "/console/"

// Config configures a Server.
type Config struct {
	// Ops runs every change (the operations of the command line, one code
	// path) and, through Ops.State (Ops.Store without one), reads sessions,
	// people and usage; sign-ins are throttled in Ops.State when it keeps
	// a throttle (state.SignInThrottle), in this node's memory otherwise. Its
	// Changed function must refresh the API's key snapshot, so that a key
	// minted or revoked here works or fails on its very next request.
	// Required.
	Ops *admin.Ops
	// Logger receives one line per request (never a body, a password, a
	// secret or a token) and errors; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Sessions bound a session's idle and absolute life; zero values take
	// state.DefaultSessionLimits (30 minutes, 12 hours).
	Sessions state.SessionLimits
	// SecureCookies marks cookies Secure on plain HTTP too, for a server
	// behind a TLS-terminating proxy. Requests that arrive over TLS always
	// get Secure cookies.
	SecureCookies bool
	// Origin names this server in links (the keys page's example calls);
	// an https public URL makes cookies Secure. nil allows loopback hosts
	// only (see package origin).
	Origin *origin.Base
	// FlushEvery is how often key uses are written to the file and expired
	// sessions pruned; 0 means a minute.
	FlushEvery time.Duration
	// Outline is the country's outline as GeoJSON, drawn by the Explore
	// map; nil draws none.
	Outline []byte
	// Reports makes place reports (GET /console/report); nil shows the
	// report page's form with a notice that this server makes none.
	Reports *report.Engine
	// Enrich builds the engines of the enrichment jobs (enrich.go); nil
	// leaves the page saying enrichment is not available.
	Enrich Enricher
}

// Server is the web application: an http.Handler for Prefix. Safe for
// concurrent use. New starts a background goroutine that Close stops.
type Server struct {
	ops        *admin.Ops
	store      *bolt.Store // datasets: the node's file
	state      state.Store // organisations, keys' last uses, usage, what a key reads, people and sessions: Ops.State, or store
	log        *slog.Logger
	now        func() time.Time
	limits     state.SessionLimits
	secure     bool
	origin     *origin.Base
	uses       *state.KeyUses
	throttle   signInThrottle // sharedThrottle when the shared state keeps one, else *throttle
	hashes     *hashGate
	mux        *http.ServeMux
	pages      *pages
	explore    *explorer // the Explore map (explore.go)
	reports    *report.Engine
	enricher   Enricher   // enrich.go
	enrichJobs enrichJobs // enrich.go

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New returns the web application for cfg and starts its background work:
// every cfg.FlushEvery it writes the last uses of keys (recorded in memory
// by the KeyLookup that Keys returns) and deletes expired sessions and
// forgotten sign-in failures. It
// panics when cfg.Ops or its Store is nil, a programming error.
func New(cfg Config) *Server {
	if cfg.Ops == nil || cfg.Ops.Store == nil {
		panic("console: Config.Ops with a Store is required")
	}
	s := &Server{
		ops:      cfg.Ops,
		store:    cfg.Ops.Store,
		state:    cfg.Ops.Store,
		log:      cfg.Logger,
		now:      cfg.Now,
		limits:   cfg.Sessions,
		secure:   cfg.SecureCookies || cfg.Origin.Secure(),
		origin:   cfg.Origin,
		uses:     state.NewKeyUses(),
		throttle: newThrottle(),
		hashes:   newHashGate(hashSlots, hashQueue),
		mux:      http.NewServeMux(),
		pages:    mustParsePages(),
		explore:  newExplorer(cfg.Outline),
		reports:  cfg.Reports,
		enricher: cfg.Enrich,
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if cfg.Ops.State != nil {
		s.state = cfg.Ops.State
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if st, ok := s.state.(state.SignInThrottle); ok {
		s.throttle = sharedThrottle{st: st, log: s.log}
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.limits.Idle <= 0 {
		s.limits.Idle = state.DefaultSessionLimits.Idle
	}
	if s.limits.Absolute <= 0 {
		s.limits.Absolute = state.DefaultSessionLimits.Absolute
	}
	every := cfg.FlushEvery
	if every <= 0 {
		every = time.Minute
	}
	s.routes()
	go s.background(every)
	return s
}

// Keys returns the API's request-time key lookup over the keyrings load
// returns, recording the last use of each key in memory (no write per
// request); the Server writes them to the file every FlushEvery and at
// Close, and shows them in the Developers area.
func (s *Server) Keys(load func() *state.Keyring) *state.TrackedKeys {
	return &state.TrackedKeys{Keys: load, Uses: s.uses}
}

func (s *Server) background(every time.Duration) {
	defer close(s.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.flush()
			if _, err := s.state.PruneSessions(s.now(), s.limits); err != nil {
				s.log.Error("console: pruning expired sessions failed", "err", err)
			}
			s.throttle.prune(s.now())
		}
	}
}

func (s *Server) flush() {
	if _, err := s.state.FlushKeyUses(s.uses); err != nil {
		s.log.Error("console: writing the last uses of keys failed; retrying at the next flush", "err", err)
	}
}

// Close stops the background work and writes the last uses of keys. Call
// it before the store is closed. Calling it again does nothing.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.done
		s.enrichJobs.clear() // the jobs' files: a restart forgets the jobs
		if _, err = s.state.FlushKeyUses(s.uses); err != nil {
			s.log.Error("console: writing the last uses of keys at shutdown failed", "err", err)
		}
	})
	return err
}

// Wrap returns a handler that serves the web application under Prefix
// (and /console, redirected) and everything else with api. Nothing of the
// one reaches the other: the API never sees a console request, and the web
// application reads no API key. When api implements Behalf (the API's
// *handlers.Server does), the Explore map's calls are served through it on
// behalf of the person's organisation; call Wrap before serving.
func (s *Server) Wrap(api http.Handler) http.Handler {
	if b, ok := api.(Behalf); ok {
		s.explore.api = b
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "/console" || strings.HasPrefix(p, Prefix) {
			s.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// ServeHTTP answers one request of the web application.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	rq := &request{}
	ctx := context.WithValue(r.Context(), requestKey{}, rq)
	r = r.WithContext(ctx)
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("console: panic serving request", "path", r.URL.Path, "panic", v)
			if sw.status == 0 {
				s.fail(sw, r, errors.New("internal error"))
			}
		}
		s.logRequest(r, sw, rq, start)
	}()
	securityHeaders(sw.Header())
	if r.URL.Path == "/console" {
		http.Redirect(sw, r, Prefix, http.StatusMovedPermanently)
		return
	}
	// The web application never reads an API key: one sent here is
	// refused, so that nobody mistakes it for a way in.
	if r.Header.Get("Authorization") != "" {
		s.errorPage(sw, r, http.StatusUnauthorized, "API keys do not open the web application",
			"The web application is for people: sign in with your user name and password. API keys are for the /v1 calls only.")
		return
	}
	s.mux.ServeHTTP(sw, r)
}

// securityHeaders: no other origin may frame, script or style a page;
// nothing is cached, as pages show secrets once.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin") // "no-referrer" would make browsers send "Origin: null"
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// statusWriter records the status of a response for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequest writes the request's line: method, path (never the query or
// the body), status, duration, and the person when signed in.
func (s *Server) logRequest(r *http.Request, w *statusWriter, rq *request, start time.Time) {
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("path", logPath(r.URL.Path)),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(start)),
		slog.String("addr", clientAddr(r)),
	}
	if rq.user != "" {
		attrs = append(attrs, slog.String("user", rq.user), slog.String("org", rq.org))
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "console request", attrs...)
}

// logPath cuts a path at 200 bytes and at anything that looks like an API
// key (a person may paste one into the address bar).
func logPath(p string) string {
	if i := strings.Index(p, state.SecretPrefix); i >= 0 {
		p = p[:i] + state.SecretPrefix + "[redacted]"
	}
	if len(p) > 200 {
		p = p[:200] + "..."
	}
	return p
}

// clientAddr is the address a request came from: the peer's IP. Headers
// such as X-Forwarded-For are not believed, as anyone can send them.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// requestKey is the context key of a request's *request.
type requestKey struct{}

// request is what the handlers learn of one request: who is signed in.
type request struct {
	token string
	se    state.Session
	u     state.User
	role  string
	user  string // for the log
	org   string
}

func requestOf(r *http.Request) *request {
	rq, _ := r.Context().Value(requestKey{}).(*request)
	if rq == nil {
		rq = &request{}
	}
	return rq
}
