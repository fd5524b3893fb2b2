package ogc

import (
	"fmt"
	"net/http"
)

// Exception codes. They are the API's own codes (spec, Errors) where one
// fits, so a client branches on the same strings under /v1 and /ogc.
const (
	codeInvalid             = "invalid"
	codeInvalidBBox         = "invalid_bbox"
	codeNotFound            = "not_found"
	codeInsufficientScope   = "insufficient_scope"
	codeInsufficientCredits = "insufficient_credits"
)

// Error is a request the OGC API refuses, reported as an OGC exception
// {"code", "description"} with Status. The mounting server writes it (see
// Server.ServeKeyed); its description tells a person what to change and
// never holds a secret.
type Error struct {
	Status      int
	Code        string
	Description string
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

// ErrorCode returns the exception's code. With ErrorStatus and
// ErrorMessage it lets the mounting server write e with its own code and
// status rather than as a server failure.
func (e *Error) ErrorCode() string { return e.Code }

// ErrorStatus returns the HTTP status of the exception.
func (e *Error) ErrorStatus() int { return e.Status }

// ErrorMessage returns the exception's description.
func (e *Error) ErrorMessage() string { return e.Description }

func newError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Description: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) *Error {
	return newError(http.StatusBadRequest, codeInvalid, format, args...)
}

func notFound(format string, args ...any) *Error {
	return newError(http.StatusNotFound, codeNotFound, format, args...)
}
