package state

import (
	"errors"
	"fmt"
)

// Errors of the shared state, always wrapped with a one-line message that
// names what was wrong (Errorf); test for them with errors.Is. Both stores
// return them, so a caller never needs to know which one it holds.
var (
	ErrNotFound = errors.New("not found")
	ErrExists   = errors.New("already exists")
	ErrInvalid  = errors.New("invalid")
	ErrCorrupt  = errors.New("data file is corrupt")

	// ErrNoAllowance is returned by ReserveAnswer when the organisation
	// may not have another worded answer: today's daily ceiling is
	// reached, or this month's allowance and its credits are spent. The
	// answer is then given without wording.
	ErrNoAllowance = errors.New("no worded answers left")

	// ErrTermsChanged is returned by LicenseOffer when the offer's terms
	// are not those the buyer saw: nothing is licensed or charged.
	ErrTermsChanged = errors.New("the terms changed")
)

// Errors of a presented secret (Keyring.Lookup, Key.Active). Their messages
// never hold the secret.
var (
	ErrUnknownKey = errors.New("unknown API key")
	ErrExpiredKey = errors.New("API key has expired")
	ErrRevokedKey = errors.New("API key has been revoked")
)

// Errors of signing in, changing passwords and sessions. Their messages
// never hold a password, and ErrBadSignIn never says whether the account
// exists.
var (
	// ErrBadSignIn: the user name, e-mail address or password is wrong.
	ErrBadSignIn = errors.New("wrong user name, e-mail address or password")
	// ErrPasswordExpired: a one-time password was right but is older than
	// OneTimePasswordTTL; an administrator must issue a new one.
	ErrPasswordExpired = errors.New("one-time password has expired")
	// ErrSessionExpired: the session was idle too long or reached its
	// absolute lifetime. Sign in again.
	ErrSessionExpired = errors.New("session has expired")
)

// kindError is an error of one of the sentinel kinds with its own one-line
// message. It unwraps to the sentinel and, when there is one, to the
// underlying cause, so errors.Is works for both.
type kindError struct {
	kind  error
	msg   string
	cause error
}

func (e *kindError) Error() string { return e.msg }

func (e *kindError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// Errorf returns an error of kind (ErrInvalid, ErrNotFound, ... or a
// store's own kind) with its own one-line message; errors.Is finds kind.
func Errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// Wrapf is Errorf with an underlying cause, which errors.Is and errors.As
// find too. The cause's text is not added to the message: say it in format
// if it helps.
func Wrapf(kind, cause error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...), cause: cause}
}

// HasKind reports whether err is, or wraps, an error made by Errorf or
// Wrapf: one already worded for a person.
func HasKind(err error) bool {
	var ke *kindError
	return errors.As(err, &ke)
}
