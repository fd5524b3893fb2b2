package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Health configures the health calls a load balancer and an operator use:
// GET /livez, /readyz and /healthz. None needs a key, none is metered, and
// each answers within readyBudget.
type Health struct {
	// Node names this node in /healthz (the serve command's --node,
	// the host name by default).
	Node string
	// Version and Commit are the build's, shown by /healthz.
	Version string
	Commit  string
	// Datasets lists the datasets the node serves with their versions, for
	// /healthz; it doubles as the readiness check "data" (the data file is
	// open and readable). nil lists none and skips that check. It must be
	// safe for concurrent use.
	Datasets func() ([]DatasetVersion, error)
	// Checks are further readiness checks (the shared state, the limiter's
	// store), run in order after the built-in ones on every /readyz and
	// /healthz.
	Checks []ReadyCheck
}

// ReadyCheck is one readiness condition. Check returns nil when the
// condition holds; it is given a context that ends after readyBudget and
// must return by then. Its error goes to the log only (on a change of
// state, not on every probe): the unauthenticated answer names the check
// and says it failed, so an error may carry host names or paths.
type ReadyCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// DatasetVersion is a dataset as /healthz reports it: enough to tell a
// node that serves an older version, nothing of its content.
type DatasetVersion struct {
	ID         string    `json:"id"`
	Version    int       `json:"version"`
	ImportedAt time.Time `json:"importedAt"`
}

// readyBudget bounds the readiness checks of one probe together.
const readyBudget = 2 * time.Second

// Status values of /readyz and /healthz.
const (
	statusReady    = "ready"
	statusNotReady = "not_ready"
	statusDraining = "draining"
)

// health is the server's side of the health calls.
type health struct {
	cfg      Health
	started  time.Time
	draining atomic.Bool
	// lastProbe is when /readyz was last asked, in Unix nanoseconds: a
	// server that is being probed waits before it stops (see LastReadyProbe).
	lastProbe atomic.Int64
	// failing remembers, per check name, whether it failed last time, so
	// that its error is logged when the state changes only.
	mu      sync.Mutex
	failing map[string]bool
}

// checkResult is one readiness check as the health calls report it.
type checkResult struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
}

func (s *Server) healthRoutes() {
	s.health.started = time.Now()
	s.mux.HandleFunc("GET /livez", s.handleLivez)
	s.mux.HandleFunc("GET /readyz", s.handleReadyz)
	s.mux.HandleFunc("GET /healthz", s.handleHealthz)
}

// Drain makes /readyz answer 503 "draining" from now on, so that a load
// balancer takes the node out before it stops accepting connections. The
// API itself goes on answering. Safe for concurrent use.
func (s *Server) Drain() { s.health.draining.Store(true) }

// LastReadyProbe returns when /readyz was last asked (the zero time if
// never): a server that nothing probes can stop at once on SIGTERM, one
// behind a load balancer waits for the balancer to see it draining. Safe
// for concurrent use.
func (s *Server) LastReadyProbe() time.Time {
	n := s.health.lastProbe.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// probeRoute reports whether route is one of the health calls, whose
// successful answers are logged at debug level only.
func probeRoute(route string) bool {
	switch route {
	case "GET /livez", "GET /readyz", "GET /healthz":
		return true
	}
	return false
}

// handleLivez answers GET /livez: 200 while the process answers at all.
func (s *Server) handleLivez(w http.ResponseWriter, r *http.Request) {
	writeHealth(w, http.StatusOK, map[string]string{"status": "live"})
}

// handleReadyz answers GET /readyz: 200 {"data":{"status":"ready",
// "checks":[...]}} when every check holds and the server is not draining,
// otherwise 503 with the error envelope, code not_ready or draining, and a
// message naming every failing check.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	s.health.lastProbe.Store(time.Now().UnixNano())
	if s.health.draining.Load() {
		s.writeUnavailable(w, statusDraining, "the node is stopping: send requests to another node")
		return
	}
	checks, ok := s.runChecks(r.Context())
	if !ok {
		msg := "the node is not ready:"
		for _, c := range checks {
			if !c.OK {
				msg += " " + c.Name + " (" + c.Reason + ");"
			}
		}
		s.writeUnavailable(w, statusNotReady, msg[:len(msg)-1])
		return
	}
	writeHealth(w, http.StatusOK, struct {
		Status string        `json:"status"`
		Checks []checkResult `json:"checks"`
	}{statusReady, checks})
}

// healthReport is the data of GET /healthz.
type healthReport struct {
	Node     string         `json:"node,omitempty"`
	Version  string         `json:"version,omitempty"`
	Commit   string         `json:"commit,omitempty"`
	Status   string         `json:"status"`
	Started  time.Time      `json:"started"`
	Frames   *int           `json:"frames,omitempty"`
	Datasets DatasetsDigest `json:"datasets"`
	Checks   []checkResult  `json:"checks"`
}

// DatasetsDigest is what /healthz, which needs no key, says of the
// datasets a node serves: how many, and a digest of their ids, versions
// and import times, so that two nodes can be compared without telling
// anyone which organisation holds which dataset. The list itself is on
// the metrics listener (frameindex_dataset_info) and the admin socket.
type DatasetsDigest struct {
	Count  int    `json:"count"`
	Digest string `json:"digest"` // "sha256:" and 64 hex digits
}

// digestDatasets digests ds in id order.
func digestDatasets(ds []DatasetVersion) DatasetsDigest {
	ds = slices.Clone(ds)
	slices.SortFunc(ds, func(a, b DatasetVersion) int { return strings.Compare(a.ID, b.ID) })
	h := sha256.New()
	for _, d := range ds {
		fmt.Fprintf(h, "%s\x00%d\x00%s\n", d.ID, d.Version, d.ImportedAt.UTC().Format(time.RFC3339Nano))
	}
	return DatasetsDigest{Count: len(ds), Digest: "sha256:" + hex.EncodeToString(h.Sum(nil))}
}

// handleHealthz answers GET /healthz, always 200 while the process
// answers: the node's name, build, state (ready, not_ready or draining),
// grid frames, the count and digest of the dataset versions it serves,
// and each readiness check. A load balancer decides on /readyz; /healthz is for
// comparing nodes.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	h := &s.health
	rep := healthReport{Node: h.cfg.Node, Version: h.cfg.Version, Commit: h.cfg.Commit,
		Started: h.started.UTC().Truncate(time.Second), Datasets: digestDatasets(nil)}
	checks, ok := s.runChecks(r.Context())
	rep.Checks = checks
	switch {
	case h.draining.Load():
		rep.Status = statusDraining
	case ok:
		rep.Status = statusReady
	default:
		rep.Status = statusNotReady
	}
	if n, ok := gridLen(s.frames()); ok {
		rep.Frames = &n
	}
	if h.cfg.Datasets != nil {
		if ds, err := h.cfg.Datasets(); err == nil && ds != nil {
			rep.Datasets = digestDatasets(ds)
		}
	}
	writeHealth(w, http.StatusOK, rep)
}

// gridLen is the number of frames of ix when it can tell (*index.Index
// can).
func gridLen(ix FrameIndex) (int, bool) {
	if l, ok := ix.(interface{ Len() int }); ok && ix != nil {
		return l.Len(), true
	}
	return 0, false
}

// runChecks runs the built-in checks (grid loaded; data file readable) and
// the configured ones within readyBudget, and reports whether all hold.
func (s *Server) runChecks(ctx context.Context) ([]checkResult, bool) {
	ctx, cancel := context.WithTimeout(ctx, readyBudget)
	defer cancel()
	var out []checkResult
	all := true
	add := func(name string, err error, reason string) {
		s.noteCheck(ctx, name, err)
		c := checkResult{Name: name, OK: err == nil}
		if err != nil {
			all = false
			c.Reason = reason
		}
		out = append(out, c)
	}

	ix := s.frames()
	switch n, ok := gridLen(ix); {
	case ix == nil:
		add("grid", errNoGrid, "no grid is loaded")
	case ok && n == 0:
		add("grid", errNoGrid, "the grid holds no frames")
	default:
		add("grid", nil, "")
	}
	if ds := s.health.cfg.Datasets; ds != nil {
		_, err := ds()
		add("data", err, "the data file cannot be read")
	}
	for _, c := range s.health.cfg.Checks {
		err := ctx.Err()
		if err == nil {
			err = c.Check(ctx)
		}
		reason := "failed; the node's log says why"
		if ctx.Err() != nil {
			reason = "no answer within " + readyBudget.String()
		}
		add(c.Name, err, reason)
	}
	return out, all
}

// noteCheck logs a check's error when the check starts failing and a line
// when it holds again, never on every probe.
func (s *Server) noteCheck(ctx context.Context, name string, err error) {
	h := &s.health
	h.mu.Lock()
	was := h.failing[name]
	if (err != nil) != was {
		if h.failing == nil {
			h.failing = map[string]bool{}
		}
		h.failing[name] = err != nil
	}
	h.mu.Unlock()
	switch {
	case err != nil && !was:
		s.logger.LogAttrs(ctx, slog.LevelWarn, "readiness check failing: the node answers /readyz with 503",
			slog.String("check", name), slog.String("error", err.Error()))
	case err == nil && was:
		s.logger.LogAttrs(ctx, slog.LevelInfo, "readiness check holds again", slog.String("check", name))
	}
}

// writeUnavailable answers 503 with the error envelope.
func (s *Server) writeUnavailable(w http.ResponseWriter, code, message string) {
	if info := infoOf(w); info != nil {
		info.code = code
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}})
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Retry-After", "5")
	writeJSON(w, http.StatusServiceUnavailable, append(b, '\n'))
}

// writeHealth answers with the success envelope around v.
func writeHealth(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(map[string]any{"data": v})
	if err != nil {
		b = []byte(`{"error":{"code":"internal","message":"the health report could not be encoded"}}`)
		status = http.StatusInternalServerError
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, append(b, '\n'))
}
