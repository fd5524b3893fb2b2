package state

import (
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	pwpolicy "frameindex/password"
)

// Roles a person can hold in an organisation, from the most powerful.
const (
	RoleOwner  = "owner"  // everything an admin does, and the audit log; only owners make owners
	RoleAdmin  = "admin"  // manages members (not owners), mints and revokes keys
	RoleMember = "member" // sees keys and usage
)

// Roles lists the roles, most powerful first. Treat as read-only.
var Roles = []string{RoleOwner, RoleAdmin, RoleMember}

// OneTimePasswordTTL is how long a one-time password (from AddUser or
// ResetPassword) can be used to sign in; the person then chooses a
// password of their own.
const OneTimePasswordTTL = 7 * 24 * time.Hour

// Password rules, in characters (Unicode code points).
const (
	MinPasswordLen = 12
	MaxPasswordLen = 256
)

// userRule is the syntax of user names: like organisation ids, and '.' too.
const userRule = `^[a-z0-9][a-z0-9._-]{0,63}$`

var userPattern = regexp.MustCompile(userRule)

// maxEmailLen bounds an e-mail address, in bytes (RFC 5321's path limit).
const maxEmailLen = 254

// Membership is a person's role in one organisation.
type Membership struct {
	Org  string `json:"org"`
	Role string `json:"role"`
}

// User is a person who signs in to the web application. It never holds a
// password, nor its hash: that stays inside the store. String and
// LogValue show the name only.
type User struct {
	Name  string // sign-in name, safe to log
	Email string // optional second sign-in name, lowercase; "" when none
	// Orgs are the person's memberships, sorted by organisation id; never
	// empty for a stored user.
	Orgs []Membership
	// MustChange is set while the password is a one-time password: the
	// person must choose their own before doing anything else.
	MustChange bool
	// TempExpires is when the one-time password stops working; zero once
	// the person chose a password.
	TempExpires time.Time
	Created     time.Time
	PasswordSet time.Time // when the current password was set
}

// Role returns the person's role in org, and whether they belong to it.
func (u User) Role(org string) (string, bool) {
	for _, m := range u.Orgs {
		if m.Org == org {
			return m.Role, true
		}
	}
	return "", false
}

// String returns the user name.
func (u User) String() string { return u.Name }

// LogValue makes log/slog show a user as the name only.
func (u User) LogValue() slog.Value { return slog.StringValue(u.Name) }

// NewUser asks AddUser for a person in an organisation.
type NewUser struct {
	Name  string    // user name (CheckUserName)
	Email string    // optional e-mail address, a second sign-in name
	Org   string    // organisation; must exist
	Role  string    // owner, admin or member
	Now   time.Time // zero means now
}

// CheckUserName checks the syntax of a user name: 1 to 64 characters of
// a-z, 0-9, '.', '_' and '-', starting with a letter or digit. Errors:
// ErrInvalid saying so.
func CheckUserName(name string) error {
	if !userPattern.MatchString(name) {
		return Errorf(ErrInvalid, "invalid user name %q: use 1 to 64 lowercase letters, digits, '.', '_' and '-', starting with a letter or digit", Clip(name, 80))
	}
	return nil
}

// NormaliseEmail lowercases an e-mail address and checks its rough shape:
// one '@' with something either side, no spaces or control characters, at
// most 254 bytes. Errors: ErrInvalid.
func NormaliseEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	at := strings.IndexByte(e, '@')
	ok := utf8.ValidString(e) && len(e) <= maxEmailLen && at > 0 && at == strings.LastIndexByte(e, '@') &&
		at < len(e)-1 && !strings.ContainsFunc(e, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	if !ok {
		return "", Errorf(ErrInvalid, "invalid e-mail address %q: want name@domain, at most %d bytes", Clip(email, 80), maxEmailLen)
	}
	return e, nil
}

// ErrLastOwner is the refusal of a change that would leave organisation
// org without an owner, name being its only one (both stores give it).
func ErrLastOwner(name, org string) error {
	return Errorf(ErrInvalid, "%q is the only owner of organisation %q: an organisation always keeps an owner; make someone else owner first", name, org)
}

// CheckRole refuses a role that is not one of Roles. Errors: ErrInvalid.
func CheckRole(role string) error {
	if slices.Contains(Roles, role) {
		return nil
	}
	return Errorf(ErrInvalid, "invalid role %q: must be owner, admin or member", Clip(role, 40))
}

// CheckPassword checks a password a person chose: MinPasswordLen to
// MaxPasswordLen characters of UTF-8, not only one repeated character, not
// the user name or e-mail address, and not easy to guess (package
// password). Errors: ErrInvalid saying which rule, never quoting the
// password.
func CheckPassword(password, name, email string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case !utf8.ValidString(password):
		return Errorf(ErrInvalid, "the password is not valid UTF-8 text")
	case n < MinPasswordLen:
		return Errorf(ErrInvalid, "the password is too short: use at least %d characters (a few words make a good one)", MinPasswordLen)
	case n > MaxPasswordLen:
		return Errorf(ErrInvalid, "the password is too long: at most %d characters", MaxPasswordLen)
	case strings.Trim(password, password[:1]) == "":
		return Errorf(ErrInvalid, "the password repeats one character: choose another")
	case strings.EqualFold(password, name) || (email != "" && strings.EqualFold(password, email)):
		return Errorf(ErrInvalid, "the password must not be your user name or e-mail address")
	}
	if why := pwpolicy.Weak(password); why != "" {
		return Errorf(ErrInvalid, "the password is too easy to guess: %s; a few unrelated words make a good one", why)
	}
	return nil
}

// SessionLimits bound a session's life: Idle since it was last seen,
// Absolute since it began. Zero values mean DefaultSessionLimits's.
type SessionLimits struct {
	Idle     time.Duration
	Absolute time.Duration
}

// DefaultSessionLimits: 30 minutes idle, 12 hours in all.
var DefaultSessionLimits = SessionLimits{Idle: 30 * time.Minute, Absolute: 12 * time.Hour}

// OrDefault is l with DefaultSessionLimits's in place of zero values.
func (l SessionLimits) OrDefault() SessionLimits {
	if l.Idle <= 0 {
		l.Idle = DefaultSessionLimits.Idle
	}
	if l.Absolute <= 0 {
		l.Absolute = DefaultSessionLimits.Absolute
	}
	return l
}

// Session is a signed-in person's session. The token that names it lives
// only in the person's cookie: the store holds its SHA-256 digest. CSRF is
// the token every change must carry (in a form field or header); it is
// stored as is, since it is worthless without the session cookie.
type Session struct {
	User    string    `json:"user"`
	Org     string    `json:"org"` // the organisation the person is acting in
	CSRF    string    `json:"csrf"`
	Addr    string    `json:"addr,omitempty"` // the address it was started from
	Created time.Time `json:"created"`
	Seen    time.Time `json:"seen"` // last request, to within the caller's touch interval
}

// Expired reports whether the session has outlived lim at now.
func (se Session) Expired(now time.Time, lim SessionLimits) bool {
	lim = lim.OrDefault()
	return !now.Before(se.Created.Add(lim.Absolute)) || !now.Before(se.Seen.Add(lim.Idle))
}
