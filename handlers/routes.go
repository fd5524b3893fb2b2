package handlers

import (
	"net/http"

	"frameindex/state"
)

// routes registers every call. Each frame call checks its key and capability
// before it reads a parameter (see requireKey). Calls whose work grows with
// the request run under the request budget (see deadline); a point lookup
// is a few hundred nanoseconds of work, so it skips the per-request timer,
// and the server's write timeout still bounds it.
func (s *Server) routes() {
	s.mux.HandleFunc("GET /v1/frames/at", s.requireKey(state.CapFrameRead, s.handleFramesAt))
	s.mux.Handle("GET /v1/frames", s.deadline(s.requireKey(state.CapFrameRead, s.handleFrames)))
	s.mux.Handle("GET /v1/frames/data", s.deadline(s.requireKey(state.CapFrameRead, s.handleFramesData)))
	s.mux.Handle("POST /v1/frames/insight", s.deadline(s.requireKeyFor(state.CapAskQuery, true, s.handleFramesInsight)))
	s.mux.HandleFunc("GET /openapi.json", s.handleOpenAPI)
	s.healthRoutes()
	s.mountOGC()
}

// dispatch routes a request. When no pattern matches, the mux's own answer
// (404, 405 with Allow, or a redirect to a cleaned path) is learnt by running
// its handler against a recorder; 404 and 405 are then answered with the
// envelope, and anything else (redirects) is replayed as the mux sends it.
// No key is read before a route matched.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		if info := infoOf(w); info != nil {
			info.route = pattern
		}
		h.ServeHTTP(w, r)
		return
	}
	rec := headerRecorder{header: http.Header{}}
	h.ServeHTTP(&rec, r)
	switch rec.status {
	case http.StatusNotFound:
		s.writeError(w, r, newError(codeNotFound,
			"there is no call at "+quoteInput(r.URL.Path)+"; the calls are described at /openapi.json"))
	case http.StatusMethodNotAllowed:
		allow := rec.header.Get("Allow")
		e := newError(codeMethodNotAllowed, r.Method+" is not allowed on "+quoteInput(r.URL.Path)+"; allowed: "+allow)
		if len(r.Method) > 16 {
			e.message = "this method is not allowed on " + quoteInput(r.URL.Path) + "; allowed: " + allow
		}
		e.allow = allow
		s.writeError(w, r, e)
	default:
		h.ServeHTTP(w, r)
	}
}

// headerRecorder is a ResponseWriter that keeps the status and headers and
// drops the body: enough to learn what the mux would answer.
type headerRecorder struct {
	header http.Header
	status int
}

func (rec *headerRecorder) Header() http.Header { return rec.header }

func (rec *headerRecorder) WriteHeader(status int) {
	if rec.status == 0 {
		rec.status = status
	}
}

func (rec *headerRecorder) Write(p []byte) (int, error) {
	rec.WriteHeader(http.StatusOK)
	return len(p), nil
}
