package bolt

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	pwpolicy "frameindex/password"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	bbolt "go.etcd.io/bbolt"
	"golang.org/x/crypto/argon2"
)

// Errors of signing in and changing passwords. Their messages never hold a
// password, and ErrBadSignIn never says whether the account exists.
var (
	// ErrBadSignIn: the user name, e-mail address or password is wrong.
	ErrBadSignIn = errors.New("wrong user name, e-mail address or password")
	// ErrPasswordExpired: a one-time password was right but is older than
	// OneTimePasswordTTL; an administrator must issue a new one.
	ErrPasswordExpired = errors.New("one-time password has expired")
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

// Buckets of the web application (users.go, sessions.go, audit.go,
// keyuse.go), each made by the first write that needs it; a file without
// them has no people, sessions, audit entries or recorded key uses:
//
//	users       user name -> JSON {"name","email","orgs":[{"org","role"}],"hash",
//	                          "mustChange","tempExpires","created","passwordSet"};
//	                          "hash" is argon2id in PHC string form
//	useremails  e-mail address (lowercase) -> user name
//	sessions    SHA-256 digest of the session token -> JSON {"user","org","csrf",
//	                          "addr","created","seen"}
//	audit       seq uint64 -> JSON {"seq","time","actor","org","action","target",
//	                          "detail","addr","outcome","reason"}
//	keyuse      key id -> unix seconds of its last use, uint64
var (
	bucketUsers      = []byte("users")
	bucketUserEmails = []byte("useremails")
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
// password: the stored argon2id hash stays inside this package. String and
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

	hash string // argon2id hash of the password, PHC string format
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

// userRecord is a User as stored (JSON) in the users bucket under its name.
type userRecord struct {
	Name        string       `json:"name"`
	Email       string       `json:"email,omitempty"`
	Orgs        []Membership `json:"orgs"`
	Hash        string       `json:"hash"`
	MustChange  bool         `json:"mustChange,omitempty"`
	TempExpires *time.Time   `json:"tempExpires,omitempty"`
	Created     time.Time    `json:"created"`
	PasswordSet time.Time    `json:"passwordSet"`
}

func (u User) record() userRecord {
	r := userRecord{Name: u.Name, Email: u.Email, Orgs: u.Orgs, Hash: u.hash, MustChange: u.MustChange,
		Created: u.Created, PasswordSet: u.PasswordSet}
	if !u.TempExpires.IsZero() {
		t := u.TempExpires
		r.TempExpires = &t
	}
	return r
}

func (s *Store) decodeUser(name string, v []byte) (User, error) {
	var r userRecord
	err := decodeStrict(v, &r)
	switch {
	case err != nil:
	case r.Name != name:
		err = fmt.Errorf("record holds name %q", r.Name)
	case len(r.Orgs) == 0:
		err = errors.New("no organisation")
	case !strings.HasPrefix(r.Hash, "$argon2id$"):
		err = errors.New("password hash is not argon2id")
	}
	for _, m := range r.Orgs {
		if err == nil && checkRole(m.Role) != nil {
			err = fmt.Errorf("unknown role %q", m.Role)
		}
	}
	if err != nil {
		return User{}, errorf(ErrCorrupt, err, "data file %q is corrupt: user %q: %v", s.path, name, err)
	}
	u := User{Name: r.Name, Email: r.Email, Orgs: r.Orgs, hash: r.Hash, MustChange: r.MustChange,
		Created: r.Created, PasswordSet: r.PasswordSet}
	if r.TempExpires != nil {
		u.TempExpires = *r.TempExpires
	}
	return u, nil
}

func putUser(tx *bbolt.Tx, u User) error {
	b, err := tx.CreateBucketIfNotExists(bucketUsers)
	if err != nil {
		return err
	}
	v, err := json.Marshal(u.record())
	if err != nil {
		return err
	}
	return b.Put([]byte(u.Name), v)
}

func (s *Store) getUser(tx *bbolt.Tx, name string) (User, error) {
	v := lookup(tx, bucketUsers, name)
	if v == nil {
		return User{}, errorf(ErrNotFound, nil, "user %q not found", name)
	}
	return s.decodeUser(name, v)
}

// CheckUserName checks the syntax of a user name: 1 to 64 characters of
// a-z, 0-9, '.', '_' and '-', starting with a letter or digit. Errors:
// ErrInvalid saying so.
func CheckUserName(name string) error {
	if !userPattern.MatchString(name) {
		return errorf(ErrInvalid, nil, "invalid user name %q: use 1 to 64 lowercase letters, digits, '.', '_' and '-', starting with a letter or digit", clip(name, 80))
	}
	return nil
}

// normaliseEmail lowercases an e-mail address and checks its rough shape:
// one '@' with something either side, no spaces or control characters, at
// most 254 bytes. Errors: ErrInvalid.
func normaliseEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	at := strings.IndexByte(e, '@')
	ok := utf8.ValidString(e) && len(e) <= maxEmailLen && at > 0 && at == strings.LastIndexByte(e, '@') &&
		at < len(e)-1 && !strings.ContainsFunc(e, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	if !ok {
		return "", errorf(ErrInvalid, nil, "invalid e-mail address %q: want name@domain, at most %d bytes", clip(email, 80), maxEmailLen)
	}
	return e, nil
}

// clip shortens text quoted in an error message to n bytes of valid UTF-8.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

func checkRole(role string) error {
	if slices.Contains(Roles, role) {
		return nil
	}
	return errorf(ErrInvalid, nil, "invalid role %q: must be owner, admin or member", clip(role, 40))
}

// CheckPassword checks a password a person chose: MinPasswordLen to
// MaxPasswordLen characters of UTF-8, not only one repeated character, and
// not the user name or e-mail address. Errors: ErrInvalid saying which
// rule, never quoting the password.
func CheckPassword(password, name, email string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case !utf8.ValidString(password):
		return errorf(ErrInvalid, nil, "the password is not valid UTF-8 text")
	case n < MinPasswordLen:
		return errorf(ErrInvalid, nil, "the password is too short: use at least %d characters (a few words make a good one)", MinPasswordLen)
	case n > MaxPasswordLen:
		return errorf(ErrInvalid, nil, "the password is too long: at most %d characters", MaxPasswordLen)
	case strings.Trim(password, password[:1]) == "":
		return errorf(ErrInvalid, nil, "the password repeats one character: choose another")
	case strings.EqualFold(password, name) || (email != "" && strings.EqualFold(password, email)):
		return errorf(ErrInvalid, nil, "the password must not be your user name or e-mail address")
	}
	if why := pwpolicy.Weak(password); why != "" {
		return errorf(ErrInvalid, nil, "the password is too easy to guess: %s; a few unrelated words make a good one", why)
	}
	return nil
}

// argon2id parameters of new hashes: 19 MiB, 2 passes, 1 lane (OWASP's
// password storage recommendation), 16-byte salt, 32-byte hash. A stored
// hash carries its own parameters, so these can be raised later and old
// hashes still verify.
type argonParams struct {
	memory  uint32 // KiB
	time    uint32
	threads uint8
}

var hashParams = argonParams{memory: 19 * 1024, time: 2, threads: 1}

// Bounds on the parameters of a stored hash, so that a damaged or hostile
// record cannot make a sign-in allocate gigabytes or run for minutes.
const (
	maxArgonMemory = 256 * 1024
	maxArgonTime   = 10
	maxArgonLanes  = 16
	saltLen        = 16
	hashLen        = 32
)

func (s *Store) randomBytes(b []byte) error {
	r := s.rand
	if r == nil {
		r = rand.Reader
	}
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("read random bytes: %w", err)
	}
	return nil
}

// hashPassword returns the argon2id hash of password in the PHC string
// format: $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash> (unpadded base64).
func (s *Store) hashPassword(password string) (string, error) {
	salt := make([]byte, saltLen)
	if err := s.randomBytes(salt); err != nil {
		return "", err
	}
	p := hashParams
	sum := argon2.IDKey([]byte(password), salt, p.time, p.memory, p.threads, hashLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.memory, p.time, p.threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum)), nil
}

// verifyPassword reports whether password matches the PHC-format argon2id
// hash encoded, comparing in constant time. A hash it cannot read, or whose
// parameters are out of bounds, is an error.
func verifyPassword(encoded, password string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return false, errors.New("password hash is not argon2id version 19")
	}
	var p argonParams
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
	p = argonParams{memory: uint32(m), time: uint32(t), threads: uint8(l)}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(want) < 16 || len(want) > 64 {
		return false, errors.New("password hash salt or sum unreadable")
	}
	got := argon2.IDKey([]byte(password), salt, p.time, p.memory, p.threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash is verified against when the sign-in name is unknown, so that
// an unknown name costs the same time as a wrong password.
var dummyHash = sync.OnceValue(func() string {
	salt := make([]byte, saltLen)
	p := hashParams
	sum := argon2.IDKey([]byte("not a password"), salt, p.time, p.memory, p.threads, hashLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.memory, p.time, p.threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum))
})

// otpAlphabet has no characters that are easily confused (0/o, 1/l/i).
const otpAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// newOneTimePassword returns 16 random characters of otpAlphabet in four
// groups ("k7dq-3mfw-x2ha-9rtp"): about 79 bits.
func (s *Store) newOneTimePassword() (string, error) {
	const groups, per = 4, 4
	out := make([]byte, 0, groups*(per+1)-1)
	var b [1]byte
	for len(out) < cap(out) {
		if len(out)%(per+1) == per {
			out = append(out, '-')
			continue
		}
		if err := s.randomBytes(b[:]); err != nil {
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

// issueOneTimePassword makes a one-time password and its hash, outside any
// transaction (hashing takes tens of milliseconds).
func (s *Store) issueOneTimePassword() (otp, hash string, err error) {
	if otp, err = s.newOneTimePassword(); err != nil {
		return "", "", err
	}
	if hash, err = s.hashPassword(otp); err != nil {
		return "", "", err
	}
	return otp, hash, nil
}

// NewUser asks AddUser for a person in an organisation.
type NewUser struct {
	Name  string    // user name (CheckUserName)
	Email string    // optional e-mail address, a second sign-in name
	Org   string    // organisation; must exist
	Role  string    // owner, admin or member
	Now   time.Time // zero means now
}

// AddUser adds a person to an organisation with a role. A new person gets
// a one-time password, returned here and never again (only its argon2id
// hash is stored), that works for OneTimePasswordTTL and must be changed
// at first sign-in. A person who already exists (by name) joins the
// organisation and keeps their password: the returned password is "".
//
// Errors: ErrInvalid for a bad name, e-mail address or role, or an e-mail
// address given for an existing person that is not theirs; ErrNotFound for
// an unknown organisation; ErrExists when the person already belongs to
// the organisation or the e-mail address is another person's; ErrCorrupt.
func (s *Store) AddUser(req NewUser) (User, string, error) {
	if err := CheckUserName(req.Name); err != nil {
		return User{}, "", err
	}
	if err := checkRole(req.Role); err != nil {
		return User{}, "", err
	}
	email := ""
	if strings.TrimSpace(req.Email) != "" {
		var err error
		if email, err = normaliseEmail(req.Email); err != nil {
			return User{}, "", err
		}
	}
	now := req.Now
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	otp, hash, err := s.issueOneTimePassword()
	if err != nil {
		return User{}, "", err
	}
	var u User
	joined := false
	err = s.update(func(tx *bbolt.Tx) error {
		if _, err := s.getOrg(tx, req.Org); err != nil {
			return err
		}
		existing, err := s.getUser(tx, req.Name)
		switch {
		case err == nil:
			if _, ok := existing.Role(req.Org); ok {
				return errorf(ErrExists, nil, "user %q already belongs to organisation %q", req.Name, req.Org)
			}
			if email != "" && email != existing.Email {
				return errorf(ErrInvalid, nil, "user %q exists with another e-mail address; leave the address out to add them to %q", req.Name, req.Org)
			}
			u, joined = existing, true
			u.Orgs = append(u.Orgs, Membership{Org: req.Org, Role: req.Role})
			slices.SortFunc(u.Orgs, func(a, b Membership) int { return strings.Compare(a.Org, b.Org) })
			return putUser(tx, u)
		case !errors.Is(err, ErrNotFound):
			return err
		}
		emails, err := tx.CreateBucketIfNotExists(bucketUserEmails)
		if err != nil {
			return err
		}
		if email != "" {
			if emails.Get([]byte(email)) != nil {
				return errorf(ErrExists, nil, "e-mail address %q belongs to another user", email)
			}
			if err := emails.Put([]byte(email), []byte(req.Name)); err != nil {
				return err
			}
		}
		u = User{Name: req.Name, Email: email, Orgs: []Membership{{Org: req.Org, Role: req.Role}},
			MustChange: true, TempExpires: now.Add(OneTimePasswordTTL), Created: now, PasswordSet: now, hash: hash}
		return putUser(tx, u)
	})
	if err != nil {
		return User{}, "", err
	}
	if joined {
		return u, "", nil
	}
	return u, otp, nil
}

// User returns the person with the given name. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) User(name string) (User, error) {
	return viewValue(s, func(tx *bbolt.Tx) (User, error) { return s.getUser(tx, name) })
}

// Users returns the people of one organisation, or everyone when org is
// "", sorted by name. Errors: ErrNotFound for an unknown organisation;
// ErrCorrupt.
func (s *Store) Users(org string) ([]User, error) {
	var out []User
	err := s.view(func(tx *bbolt.Tx) error {
		if org != "" {
			if _, err := s.getOrg(tx, org); err != nil {
				return err
			}
		}
		return s.forEachUser(tx, func(u User) error {
			if _, ok := u.Role(org); org == "" || ok {
				out = append(out, u)
			}
			return nil
		})
	})
	return out, err // bbolt iterates in key order, which is name order
}

func (s *Store) forEachUser(tx *bbolt.Tx, fn func(User) error) error {
	b := tx.Bucket(bucketUsers)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		u, err := s.decodeUser(string(k), v)
		if err != nil {
			return err
		}
		return fn(u)
	})
}

// owners counts the owners of org in tx, leaving out the person named skip.
func (s *Store) owners(tx *bbolt.Tx, org, skip string) (int, error) {
	n := 0
	err := s.forEachUser(tx, func(u User) error {
		if r, _ := u.Role(org); r == RoleOwner && u.Name != skip {
			n++
		}
		return nil
	})
	return n, err
}

// keepOwner refuses a change that would leave org, which has owners, with
// none but the person named name.
func (s *Store) keepOwner(tx *bbolt.Tx, u User, org string) error {
	if r, _ := u.Role(org); r != RoleOwner {
		return nil
	}
	n, err := s.owners(tx, org, u.Name)
	if err != nil {
		return err
	}
	if n == 0 {
		return errorf(ErrInvalid, nil, "%q is the only owner of organisation %q: an organisation always keeps an owner; make someone else owner first", u.Name, org)
	}
	return nil
}

// SetRole changes the person's role in org and returns them. Removing the
// last owner's ownership is refused. Setting the role they hold changes
// nothing. Errors: ErrInvalid (bad role, last owner); ErrNotFound (no such
// person, or not a member of org); ErrCorrupt.
func (s *Store) SetRole(name, org, role string) (User, error) {
	if err := checkRole(role); err != nil {
		return User{}, err
	}
	var u User
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if u, err = s.getUser(tx, name); err != nil {
			return err
		}
		cur, ok := u.Role(org)
		switch {
		case !ok:
			return errorf(ErrNotFound, nil, "user %q does not belong to organisation %q", name, org)
		case cur == role:
			return nil
		case role != RoleOwner:
			if err := s.keepOwner(tx, u, org); err != nil {
				return err
			}
		}
		for i := range u.Orgs {
			if u.Orgs[i].Org == org {
				u.Orgs[i].Role = role
			}
		}
		return putUser(tx, u)
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}

// RemoveMember takes the person out of org, ending their sessions in it.
// A person left in no organisation is deleted, with all their sessions;
// deleted reports it. The last owner cannot be removed. Errors: ErrInvalid
// (last owner); ErrNotFound (no such person, or not a member); ErrCorrupt.
func (s *Store) RemoveMember(name, org string) (u User, deleted bool, err error) {
	err = s.update(func(tx *bbolt.Tx) error {
		if u, err = s.getUser(tx, name); err != nil {
			return err
		}
		if _, ok := u.Role(org); !ok {
			return errorf(ErrNotFound, nil, "user %q does not belong to organisation %q", name, org)
		}
		if err := s.keepOwner(tx, u, org); err != nil {
			return err
		}
		u.Orgs = slices.DeleteFunc(u.Orgs, func(m Membership) bool { return m.Org == org })
		if len(u.Orgs) == 0 {
			deleted = true
			return s.deleteUser(tx, u)
		}
		if err := putUser(tx, u); err != nil {
			return err
		}
		return s.endSessions(tx, name, org, nil)
	})
	if err != nil {
		return User{}, false, err
	}
	return u, deleted, nil
}

// RemoveUser deletes the person from every organisation, with their
// sessions, and returns them as they were. Refused when they are the last
// owner of any organisation. Errors: ErrInvalid; ErrNotFound; ErrCorrupt.
func (s *Store) RemoveUser(name string) (User, error) {
	var u User
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if u, err = s.getUser(tx, name); err != nil {
			return err
		}
		for _, m := range u.Orgs {
			if err := s.keepOwner(tx, u, m.Org); err != nil {
				return err
			}
		}
		return s.deleteUser(tx, u)
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}

func (s *Store) deleteUser(tx *bbolt.Tx, u User) error {
	if err := tx.Bucket(bucketUsers).Delete([]byte(u.Name)); err != nil {
		return err
	}
	if b := tx.Bucket(bucketUserEmails); b != nil && u.Email != "" {
		if err := b.Delete([]byte(u.Email)); err != nil {
			return err
		}
	}
	return s.endSessions(tx, u.Name, "", nil)
}

// ResetPassword replaces the person's password with a new one-time
// password, returned here and never again, and ends all their sessions.
// Errors: ErrNotFound; ErrCorrupt.
func (s *Store) ResetPassword(name string, now time.Time) (User, string, error) {
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	otp, hash, err := s.issueOneTimePassword()
	if err != nil {
		return User{}, "", err
	}
	var u User
	err = s.update(func(tx *bbolt.Tx) error {
		var err error
		if u, err = s.getUser(tx, name); err != nil {
			return err
		}
		u.hash, u.MustChange, u.TempExpires, u.PasswordSet = hash, true, now.Add(OneTimePasswordTTL), now
		if err := putUser(tx, u); err != nil {
			return err
		}
		return s.endSessions(tx, name, "", nil)
	})
	if err != nil {
		return User{}, "", err
	}
	return u, otp, nil
}

// findLogin returns the person a sign-in name names: an e-mail address
// when it holds '@', a user name otherwise (case-insensitively).
func (s *Store) findLogin(tx *bbolt.Tx, login string) (User, error) {
	login = strings.ToLower(strings.TrimSpace(login))
	if strings.Contains(login, "@") {
		name := lookup(tx, bucketUserEmails, login)
		if name == nil {
			return User{}, ErrBadSignIn
		}
		return s.getUser(tx, string(name))
	}
	u, err := s.getUser(tx, login)
	if errors.Is(err, ErrNotFound) {
		return User{}, ErrBadSignIn
	}
	return u, err
}

// UserByLogin returns the person a sign-in name (user name or e-mail
// address, in any case) names. Errors: ErrNotFound; ErrCorrupt.
func (s *Store) UserByLogin(login string) (User, error) {
	u, err := viewValue(s, func(tx *bbolt.Tx) (User, error) { return s.findLogin(tx, login) })
	if errors.Is(err, ErrBadSignIn) {
		return User{}, errorf(ErrNotFound, nil, "no user signs in as %q", clip(login, 80))
	}
	return u, err
}

// SignIn checks a sign-in name (user name or e-mail address) and password
// at now and returns the person. An unknown name costs as much time as a
// wrong password. Errors: ErrBadSignIn (unknown name or wrong password:
// the two are not told apart); ErrPasswordExpired (a right one-time
// password past its time); ErrCorrupt. Throttling is the caller's.
func (s *Store) SignIn(login, password string, now time.Time) (User, error) {
	if now.IsZero() {
		now = s.clock()
	}
	u, err := viewValue(s, func(tx *bbolt.Tx) (User, error) { return s.findLogin(tx, login) })
	if errors.Is(err, ErrBadSignIn) || len(password) > 4*MaxPasswordLen {
		verifyPassword(dummyHash(), password[:min(len(password), 4*MaxPasswordLen)])
		return User{}, ErrBadSignIn
	}
	if err != nil {
		return User{}, err
	}
	ok, err := verifyPassword(u.hash, password)
	if err != nil {
		return User{}, errorf(ErrCorrupt, err, "data file %q is corrupt: user %q: %v", s.path, u.Name, err)
	}
	if !ok {
		return User{}, ErrBadSignIn
	}
	if u.MustChange && !u.TempExpires.IsZero() && !now.Before(u.TempExpires) {
		return User{}, fmt.Errorf("%w: ask an administrator of your organisation for a new one", ErrPasswordExpired)
	}
	return u, nil
}

// ChangePassword sets the person's password to next after checking
// current (their password or one-time password), clears MustChange and
// ends all their sessions (the caller starts a fresh one). Errors:
// ErrBadSignIn (current is wrong); ErrInvalid (next breaks a rule of
// CheckPassword, or equals current); ErrNotFound; ErrCorrupt.
func (s *Store) ChangePassword(name, current, next string, now time.Time) (User, error) {
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	u, err := s.User(name)
	if err != nil {
		return User{}, err
	}
	if len(current) > 4*MaxPasswordLen {
		return User{}, ErrBadSignIn
	}
	ok, err := verifyPassword(u.hash, current)
	if err != nil {
		return User{}, errorf(ErrCorrupt, err, "data file %q is corrupt: user %q: %v", s.path, u.Name, err)
	}
	if !ok {
		return User{}, ErrBadSignIn
	}
	if err := CheckPassword(next, u.Name, u.Email); err != nil {
		return User{}, err
	}
	if next == current {
		return User{}, errorf(ErrInvalid, nil, "the new password must differ from the current one")
	}
	hash, err := s.hashPassword(next)
	if err != nil {
		return User{}, err
	}
	err = s.update(func(tx *bbolt.Tx) error {
		cur, err := s.getUser(tx, name)
		if err != nil {
			return err
		}
		// The password checked above must still be the stored one: a
		// reset in between wins.
		if subtle.ConstantTimeCompare([]byte(cur.hash), []byte(u.hash)) != 1 {
			return ErrBadSignIn
		}
		u = cur
		u.hash, u.MustChange, u.TempExpires, u.PasswordSet = hash, false, time.Time{}, now
		if err := putUser(tx, u); err != nil {
			return err
		}
		return s.endSessions(tx, name, "", nil)
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}
