package handlers

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"unicode/utf8"

	"frameindex/bolt"
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
	{bolt.ErrUnknownKey, "the API key is not recognised"},
	{bolt.ErrExpiredKey, "the API key has expired; mint a new key in the web application"},
	{bolt.ErrRevokedKey, "the API key has been revoked"},
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

	buf := getBuf()
	b := append(buf.b, `{"error":{"code":`...)
	b = appendJSONString(b, code)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, message)
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

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// control characters and the line separators U+2028/U+2029 are escaped, so the
// result is valid JSON for any input.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
