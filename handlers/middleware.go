package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"frameindex/logging"
	"frameindex/state"
)

// reqInfo is what the middleware and handlers learn about one request, for
// its access-log line. It is used by the request's goroutine only.
type reqInfo struct {
	id      string
	route   string    // the matched pattern, "" when none matched
	keyID   string    // public id of the authenticated key
	key     state.Key // the authenticated key, once its capability was checked
	hasKey  bool
	code    string // error code sent, "" on success
	cause   error  // cause of an internal error; logged, never sent
	aborted bool   // the response was cut off after it started
	w       statusWriter

	// Backing arrays for response header values, so that setting them costs
	// no allocation beyond this reqInfo's own on the hottest path.
	idHeader   [1]string
	rateHeader [4]string // limit, remaining, reset, retry-after
}

// infoOf returns the reqInfo of the request whose response w is, or nil
// outside the middleware. It is reached through the ResponseWriter that track
// hands down rather than the request context: a context value would cost a
// new context and a copy of the request on every request.
func infoOf(w http.ResponseWriter) *reqInfo {
	if sw, ok := w.(*statusWriter); ok {
		return sw.info
	}
	return nil
}

// statusWriter records the status and body size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	info   *reqInfo // the reqInfo this writer belongs to
	cl     [1]string
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// newRequestID returns 16 hex digits from a fast random source. Ids are for
// finding a request in the logs, not secrets.
func newRequestID() string {
	const hex = "0123456789abcdef"
	var b [16]byte
	v := rand.Uint64()
	for i := range b {
		b[i] = hex[v>>60]
		v <<= 4
	}
	return string(b[:])
}

// track gives the request an id (the X-Request-Id response header) and logs
// one line when it is done: id, method, path (never the query), route,
// status, bytes, duration, key id, error code. The line is at error level for
// an internal error (with its cause) and at info level otherwise.
func (s *Server) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &reqInfo{id: newRequestID()}
		info.idHeader[0] = info.id
		info.w.ResponseWriter, info.w.info = w, info
		w.Header()["X-Request-Id"] = info.idHeader[:]
		defer s.logAccess(r, info, start) // runs when an aborted response panics, too
		next.ServeHTTP(&info.w, r)
	})
}

// logAccess writes the access-log line of a finished request.
func (s *Server) logAccess(r *http.Request, info *reqInfo, start time.Time) {
	if s.metrics != nil {
		s.countRequest(info, start)
	}
	level := slog.LevelInfo
	if info.code == codeInternal && !errors.Is(info.cause, context.Canceled) {
		level = slog.LevelError
	}
	if probeRoute(info.route) && info.code == "" {
		level = slog.LevelDebug // a load balancer asks every few seconds
	}
	ctx := r.Context()
	if !s.logger.Enabled(ctx, level) {
		return
	}
	status := info.w.status
	if status == 0 {
		status = http.StatusOK // net/http sends 200 for a handler that wrote nothing
	}
	attrs := make([]slog.Attr, 0, 12)
	attrs = append(attrs,
		slog.String("id", info.id),
		slog.String("method", r.Method),
		slog.String("path", logPath(r.URL.Path)),
		slog.Int("status", status),
		slog.Int64("bytes", info.w.bytes),
		slog.Duration("duration", time.Since(start)),
	)
	if info.route != "" {
		attrs = append(attrs, slog.String("route", info.route))
	}
	if info.keyID != "" {
		attrs = append(attrs, slog.String("key", info.keyID))
	}
	if info.code != "" {
		attrs = append(attrs, slog.String("code", info.code))
	}
	if info.cause != nil {
		attrs = append(attrs, slog.String("error", info.cause.Error()))
	}
	if info.aborted {
		attrs = append(attrs, slog.Bool("aborted", true))
	}
	// The line is handed to the handler directly: Logger.LogAttrs would
	// also capture the caller's program counter, which no access line shows
	// and which cost a third of the line's time; the JSON handler takes the
	// attributes as they are (logging.AttrsHandler).
	if h, ok := s.logger.Handler().(logging.AttrsHandler); ok {
		h.HandleAttrs(ctx, time.Now(), level, "request", attrs)
		return
	}
	rec := slog.NewRecord(time.Now(), level, "request", 0)
	rec.AddAttrs(attrs...)
	s.logger.Handler().Handle(ctx, rec)
}

// logPath returns a request path fit for the log: cut at "svc_sk_" (a key
// pasted into a URL) and at 200 bytes.
func logPath(p string) string {
	if i := strings.Index(p, keyPrefix); i >= 0 {
		p = p[:i] + keyPrefix + "[redacted]"
	}
	if len(p) > 200 {
		p = p[:200] + "..."
	}
	return p
}

// recoverPanics turns a panic in next into a 500 internal envelope, logged
// with its stack, and the server goes on serving. When the response had
// already started, an envelope is impossible: the connection is aborted
// (http.ErrAbortHandler) so the client sees the failure instead of a
// truncated body. http.ErrAbortHandler itself passes through untouched.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			info := infoOf(w)
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("path", logPath(r.URL.Path)),
				slog.String("panic", fmt.Sprint(v)),
				slog.String("stack", string(debug.Stack())),
			}
			if info != nil {
				attrs = append(attrs, slog.String("id", info.id))
			}
			s.logger.LogAttrs(r.Context(), slog.LevelError, "panic serving request", attrs...)
			err := fmt.Errorf("panic: %v", v)
			if info != nil && info.w.status != 0 {
				info.code, info.cause, info.aborted = codeInternal, err, true
				panic(http.ErrAbortHandler)
			}
			h := w.Header()
			for k := range h {
				if k != "X-Request-Id" {
					delete(h, k)
				}
			}
			s.writeError(w, r, err)
		}()
		next.ServeHTTP(w, r)
	})
}

// errBudgetSpent is the cause of a request context whose budget ran out.
var errBudgetSpent = errors.New("the request's time budget was spent")

// deadline gives each request a context that is done after the server's
// request budget. Work checks it cooperatively; nothing is buffered, unlike
// http.TimeoutHandler.
func (s *Server) deadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeoutCause(r.Context(), s.timeout, errBudgetSpent)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
