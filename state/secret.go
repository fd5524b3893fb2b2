package state

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/argon2"
)

// Secrets of the web console's people, made and checked alike by every
// store: argon2id password hashes in the PHC string format, one-time
// passwords, and session tokens, of which a store keeps the SHA-256
// digest only.

// HashParams are the argon2id parameters of new password hashes.
type HashParams struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
}

// PasswordHashParams are the parameters of new hashes: 19 MiB, 2 passes,
// 1 lane (OWASP's password storage recommendation), with a 16-byte salt
// and a 32-byte sum. A stored hash carries its own parameters, so these
// can be raised later and old hashes still verify. Tests lower them; do
// not change them while hashing.
var PasswordHashParams = HashParams{Memory: 19 * 1024, Time: 2, Threads: 1}

// Bounds on the parameters of a stored hash, so that a damaged or hostile
// record cannot make a sign-in allocate gigabytes or run for minutes.
const (
	maxArgonMemory = 256 * 1024
	maxArgonTime   = 10
	maxArgonLanes  = 16
	saltLen        = 16
	hashLen        = 32
)

func encodeHash(p HashParams, salt, sum []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum))
}

// HashPassword returns the argon2id hash of password in the PHC string
// format, $argon2id$v=19$m=19456,t=2,p=1$<salt>$<sum> (unpadded base64),
// with a salt read from r (crypto/rand when nil).
func HashPassword(r io.Reader, password string) (string, error) {
	salt := make([]byte, saltLen)
	if err := readRandom(r, salt); err != nil {
		return "", err
	}
	p := PasswordHashParams
	return encodeHash(p, salt, argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, hashLen)), nil
}

// VerifyPassword reports whether password matches the PHC-format argon2id
// hash encoded, comparing in constant time. A hash it cannot read, or
// whose parameters are out of bounds, is an error.
func VerifyPassword(encoded, password string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return false, errors.New("password hash is not argon2id version 19")
	}
	var m, t, l uint64
	for i, f := range strings.Split(parts[3], ",") {
		name, val, _ := strings.Cut(f, "=")
		n, err := strconv.ParseUint(val, 10, 32)
		if err != nil || i > 2 || name != "mtp"[i:i+1] {
			return false, errors.New("password hash parameters unreadable")
		}
		switch i {
		case 0:
			m = n
		case 1:
			t = n
		case 2:
			l = n
		}
	}
	if m < 8 || m > maxArgonMemory || t < 1 || t > maxArgonTime || l < 1 || l > maxArgonLanes {
		return false, errors.New("password hash parameters out of bounds")
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(want) < 16 || len(want) > 64 {
		return false, errors.New("password hash salt or sum unreadable")
	}
	got := argon2.IDKey([]byte(password), salt, uint32(t), uint32(m), uint8(l), uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash is verified against when the sign-in name is unknown, so that
// an unknown name costs the same time as a wrong password.
var dummyHash = sync.OnceValue(func() string {
	salt := make([]byte, saltLen)
	p := PasswordHashParams
	return encodeHash(p, salt, argon2.IDKey([]byte("not a password"), salt, p.Time, p.Memory, p.Threads, hashLen))
})

// maxPresented bounds the bytes of a presented password that are hashed.
const maxPresented = 4 * MaxPasswordLen

// StoredUser is a person as a store keeps them: the User and the argon2id
// hash of their password. Only stores, and the import from one store
// into another, hold one.
type StoredUser struct {
	User
	Hash string
}

// CheckSignIn is the rule of SignIn over what a store found for the
// sign-in name: u (found false when no person has it), and password
// presented at now. An unknown name costs as much time as a wrong
// password. corrupt wraps the error of a stored hash that cannot be read
// as the store's ErrCorrupt. Errors: ErrBadSignIn; ErrPasswordExpired.
func CheckSignIn(u StoredUser, found bool, password string, now time.Time, corrupt func(error) error) (User, error) {
	if !found || len(password) > maxPresented {
		VerifyPassword(dummyHash(), password[:min(len(password), maxPresented)])
		return User{}, ErrBadSignIn
	}
	ok, err := VerifyPassword(u.Hash, password)
	if err != nil {
		return User{}, corrupt(err)
	}
	if !ok {
		return User{}, ErrBadSignIn
	}
	if u.MustChange && !u.TempExpires.IsZero() && !now.Before(u.TempExpires) {
		return User{}, fmt.Errorf("%w: ask an administrator of your organisation for a new one", ErrPasswordExpired)
	}
	return u.User, nil
}

// NewPasswordHash is the rule of ChangePassword before its write: current
// must verify against u's hash and next must pass CheckPassword and
// differ from it; it returns next's hash (salted from r). The store then
// writes it only if u's hash is still the stored one (a reset in between
// wins), clearing MustChange, and ends the person's sessions. Errors:
// ErrBadSignIn; ErrInvalid; corrupt's.
func NewPasswordHash(r io.Reader, u StoredUser, current, next string, corrupt func(error) error) (string, error) {
	if len(current) > maxPresented {
		return "", ErrBadSignIn
	}
	ok, err := VerifyPassword(u.Hash, current)
	if err != nil {
		return "", corrupt(err)
	}
	if !ok {
		return "", ErrBadSignIn
	}
	if err := CheckPassword(next, u.Name, u.Email); err != nil {
		return "", err
	}
	if next == current {
		return "", Errorf(ErrInvalid, "the new password must differ from the current one")
	}
	return HashPassword(r, next)
}

// otpAlphabet has no characters that are easily confused (0/o, 1/l/i).
const otpAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// NewOneTimePassword returns 16 random characters (from r, crypto/rand
// when nil) of an alphabet without look-alikes, in four groups
// ("k7dq-3mfw-x2ha-9rtp"): about 79 bits.
func NewOneTimePassword(r io.Reader) (string, error) {
	const groups, per = 4, 4
	out := make([]byte, 0, groups*(per+1)-1)
	var b [1]byte
	for len(out) < cap(out) {
		if len(out)%(per+1) == per {
			out = append(out, '-')
			continue
		}
		if err := readRandom(r, b[:]); err != nil {
			return "", err
		}
		// Rejection sampling keeps every character equally likely.
		if int(b[0]) >= 256/len(otpAlphabet)*len(otpAlphabet) {
			continue
		}
		out = append(out, otpAlphabet[int(b[0])%len(otpAlphabet)])
	}
	return string(out), nil
}

// IssueOneTimePassword makes a one-time password and its hash, outside
// any transaction (hashing takes tens of milliseconds).
func IssueOneTimePassword(r io.Reader) (otp, hash string, err error) {
	if otp, err = NewOneTimePassword(r); err != nil {
		return "", "", err
	}
	if hash, err = HashPassword(r, otp); err != nil {
		return "", "", err
	}
	return otp, hash, nil
}

// tokenBytes is the randomness of a session token and of its CSRF token.
const tokenBytes = 32

// NewToken returns 32 random bytes (from r, crypto/rand when nil) in
// unpadded base64url: a session or CSRF token.
func NewToken(r io.Reader) (string, error) {
	var b [tokenBytes]byte
	if err := readRandom(r, b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// ValidToken reports whether a presented token has the form of one
// NewToken makes (43 characters of unpadded base64url), before any
// lookup.
func ValidToken(token string) bool {
	if len(token) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

// TokenDigest is the SHA-256 digest of a session token: what a store
// keeps in its place.
func TokenDigest(token string) []byte {
	d := sha256.Sum256([]byte(token))
	return d[:]
}

// NewSession makes a session of user in org, started from addr at now
// (rounded as given), and its token, from r (crypto/rand when nil).
func NewSession(r io.Reader, user, org, addr string, now time.Time) (string, Session, error) {
	token, err := NewToken(r)
	if err != nil {
		return "", Session{}, err
	}
	csrf, err := NewToken(r)
	if err != nil {
		return "", Session{}, err
	}
	return token, Session{User: user, Org: org, CSRF: csrf, Addr: Clip(addr, 100), Created: now, Seen: now}, nil
}
