package handlers

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"frameindex/grid"
	"frameindex/state"
)

// Error codes of the API (spec, Errors). Codes are stable; messages are for
// people and may be reworded.
const (
	codeUnauthorized      = "unauthorized"
	codeInvalidKey        = "invalid_key"
	codeInsufficientScope = "insufficient_scope"
	codeInvalidPoint      = "invalid_point"
	codeInvalidBBox       = "invalid_bbox"
	codeInvalid           = "invalid"
	codeInvalidBody       = "invalid_body"
	codeTooLong           = "too_long"
	codeNotFound          = "not_found"
	codeMethodNotAllowed  = "method_not_allowed"
	codeRateLimited       = "rate_limited"
	codeInternal          = "internal"
)

// codeStatus is the only table from error code to HTTP status.
var codeStatus = map[string]int{
	codeUnauthorized:      http.StatusUnauthorized,
	codeInvalidKey:        http.StatusUnauthorized,
	codeInsufficientScope: http.StatusForbidden,
	codeInvalidPoint:      http.StatusBadRequest,
	codeInvalidBBox:       http.StatusBadRequest,
	codeInvalid:           http.StatusBadRequest,
	codeInvalidBody:       http.StatusBadRequest,
	codeTooLong:           http.StatusBadRequest,
	codeNotFound:          http.StatusNotFound,
	codeMethodNotAllowed:  http.StatusMethodNotAllowed,
	codeRateLimited:       http.StatusTooManyRequests,
	codeInternal:          http.StatusInternalServerError,
}

// internalMessage is all a client learns of a server failure.
const internalMessage = "the server failed to answer this request; retry once, and report the X-Request-Id if it fails again"

// apiError is an error the API reports as it is: a code from codeStatus and a
// message that tells a person what to fix. It never holds a secret.
type apiError struct {
	code    string
	message string
	allow   string // Allow header value, for method_not_allowed
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

// newError returns an apiError with the given code and message.
func newError(code, message string) *apiError {
	return &apiError{code: code, message: message}
}

// Key errors of the keyring are reported as invalid_key with these messages.
var keyErrors = []struct {
	err     error
	message string
}{
	{state.ErrUnknownKey, "the API key is not recognised"},
	{state.ErrExpiredKey, "the API key has expired; mint a new key in the web application"},
	{state.ErrRevokedKey, "the API key has been revoked"},
}

// classify maps any error to the code, status and message sent to the
// client. An error it does not know is internal: the client gets a vague
// message and the cause is for the log only.
func classify(err error) (code string, status int, message string) {
	var ae *apiError
	if errors.As(err, &ae) {
		if st, ok := codeStatus[ae.code]; ok {
			return ae.code, st, ae.message
		}
	}
	if code, status, message, ok := classifyCoded(err); ok {
		return code, status, message
	}
	for _, ke := range keyErrors {
		if errors.Is(err, ke.err) {
			return codeInvalidKey, http.StatusUnauthorized, ke.message
		}
	}
	return codeInternal, http.StatusInternalServerError, internalMessage
}

// writeError answers the request with the error envelope for err and notes
// the code (and, for internal errors, the cause) for the access log. Only
// internal errors are logged at error level; when the request passed through
// the access-log middleware the cause goes on its line, otherwise it is
// logged here.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code, status, message := classify(err)
	h := w.Header()
	switch code {
	case codeUnauthorized:
		h.Set("WWW-Authenticate", `Bearer`)
	case codeInvalidKey:
		h.Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	case codeMethodNotAllowed:
		var ae *apiError
		if errors.As(err, &ae) && ae.allow != "" {
			h.Set("Allow", ae.allow)
		}
	}
	info := infoOf(w)
	if info != nil {
		info.code = code
	}
	if code == codeInternal {
		if info != nil {
			info.cause = err
		} else {
			s.logger.LogAttrs(r.Context(), slog.LevelError, "internal error",
				slog.String("method", r.Method), slog.String("path", logPath(r.URL.Path)),
				slog.String("error", err.Error()))
		}
	}

	if isOGC(r) {
		writeOGCException(w, status, code, message)
		return
	}
	buf := getBuf()
	b := append(buf.b, `{"error":{"code":`...)
	b = grid.AppendJSONString(b, code)
	b = append(b, `,"message":`...)
	b = grid.AppendJSONString(b, message)
	b = append(b, "}}\n"...)
	writeJSON(w, status, b)
	buf.b = b
	putBuf(buf)
}

// The success envelope is {"data": ...}: a handler appends dataPrefix, the
// data, then dataSuffix (or calls writeData, which adds the suffix).
const (
	dataPrefix = `{"data":`
	dataSuffix = "}\n"
)

// writeData closes the success envelope that b holds (dataPrefix and the
// data) and sends it with status 200 and its length. It returns b, grown,
// so the caller can pool it.
func writeData(w http.ResponseWriter, b []byte) []byte {
	b = append(b, dataSuffix...)
	writeJSON(w, http.StatusOK, b)
	return b
}

// writeJSON sends a complete JSON body with its length.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["X-Content-Type-Options"] = nosniff
	if sw, ok := w.(*statusWriter); ok {
		sw.cl[0] = smallItoa(len(body))
		h["Content-Length"] = sw.cl[:]
	} else {
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.WriteHeader(status)
	w.Write(body) // a failed write means the client is gone; nothing to do
}

// Shared header values; net/http never modifies header slices it is given.
var (
	jsonContentType = []string{"application/json"}
	nosniff         = []string{"nosniff"}
)
