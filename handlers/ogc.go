package handlers

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"frameindex/grid"
	"frameindex/state"
)

// OGC is a tree of calls mounted under /ogc (package ogc's Server: OGC
// API - Features and Tiles) behind the same middleware, key checks and
// rate limits as /v1: every call needs a key with frame.read. Under /ogc
// a key is also read from HTTP Basic credentials (the key as the password,
// any user name), since QGIS 3.22 can send a key no other way, and errors
// are written as OGC exceptions {"code","description"}.
type OGC interface {
	// Patterns returns the ServeMux patterns of the calls, each with its
	// method and beginning with /ogc. A path under /ogc that matches none
	// is 404 (405 for another method) before any key is read.
	Patterns() []string
	// ServeKeyed answers a request whose key was checked. It writes a
	// successful answer and returns any error for the server to write: an
	// error with ErrorCode, ErrorStatus and ErrorMessage methods is sent
	// with that code and status, any other is a server failure (500,
	// cause logged). It must not return an error after writing.
	ServeKeyed(w http.ResponseWriter, r *http.Request, key state.Key, requestID string) error
}

// ogcPrefix is where OGC calls are mounted.
const ogcPrefix = "/ogc"

// isOGC reports whether r is a request under /ogc.
func isOGC(r *http.Request) bool {
	p := r.URL.Path
	return p == ogcPrefix || strings.HasPrefix(p, ogcPrefix+"/")
}

// mountOGC registers the OGC calls, if any, behind the per-request budget
// and the key checks.
func (s *Server) mountOGC() {
	if s.ogc == nil {
		return
	}
	h := s.deadline(s.requireKey(state.CapFrameRead, s.serveOGC))
	for _, p := range s.ogc.Patterns() {
		s.mux.Handle(p, h)
	}
}

// serveOGC hands a checked request to the OGC calls and writes the error
// they return.
func (s *Server) serveOGC(w http.ResponseWriter, r *http.Request) {
	key, ok := principalOf(w, r)
	if !ok {
		s.writeError(w, r, errNoPrincipal)
		return
	}
	err := s.ogc.ServeKeyed(w, r, key, requestIDOf(w))
	if err == nil {
		return
	}
	if sw, ok := w.(*statusWriter); ok && sw.status != 0 {
		// The answer had started: it cannot turn into an exception.
		sw.info.code, sw.info.cause, sw.info.aborted = codeInternal, err, true
		panic(http.ErrAbortHandler)
	}
	s.writeError(w, r, err)
}

// basicKey reads the key from the credentials of an HTTP Basic
// Authorization header (base64 of "user:password"): the password, or the
// user name when the password is empty and the user name is a key.
// Malformed credentials are invalid_key; the message never echoes them.
func basicKey(token string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.Trim(token, " \t"))
	if err != nil {
		return "", newError(codeInvalidKey, `the Basic credentials are not base64 of "user:key": `+basicHint)
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", newError(codeInvalidKey, `the Basic credentials hold no ':' between user name and key: `+basicHint)
	}
	if pass == "" && strings.HasPrefix(user, keyPrefix) {
		return user, nil
	}
	if pass == "" {
		return "", newError(codeInvalidKey, "the Basic credentials hold no key: "+basicHint)
	}
	return pass, nil
}

const basicHint = `under /ogc send the API key as "Authorization: Bearer svc_sk_...", or as HTTP Basic with any user name and the key as the password`

// codedError is an error of a mounted call that carries its own code and
// status (ogc.Error).
type codedError interface {
	error
	ErrorCode() string
	ErrorStatus() int
	ErrorMessage() string
}

// classifyCoded maps a codedError in err's chain to its code, status and
// message; ok is false when there is none, or it claims a status that is
// not a client error.
func classifyCoded(err error) (code string, status int, message string, ok bool) {
	var ce codedError
	if !errors.As(err, &ce) || ce.ErrorStatus() < 400 || ce.ErrorStatus() > 499 || ce.ErrorCode() == "" {
		return "", 0, "", false
	}
	return ce.ErrorCode(), ce.ErrorStatus(), ce.ErrorMessage(), true
}

// writeOGCException writes an error under /ogc as an OGC exception
// {"code","description"} (OGC API - Common), with a Basic challenge beside
// the Bearer one on 401.
func writeOGCException(w http.ResponseWriter, status int, code, message string) {
	if status == http.StatusUnauthorized {
		w.Header().Add("WWW-Authenticate", `Basic realm="frameindex", charset="UTF-8"`)
	}
	buf := getBuf()
	b := append(buf.b, `{"code":`...)
	b = grid.AppendJSONString(b, code)
	b = append(b, `,"description":`...)
	b = grid.AppendJSONString(b, message)
	b = append(b, "}\n"...)
	writeJSON(w, status, b)
	buf.b = b
	putBuf(buf)
}
