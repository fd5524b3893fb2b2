package bolt

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
	"golang.org/x/crypto/argon2"
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

// userRow is a person as stored: the User and the argon2id hash of their
// password (PHC string format), which never leaves this package.
type userRow struct {
	state.User
	hash string
}

// userRecord is a userRow as stored (JSON) in the users bucket under its name.
type userRecord struct {
	Name        string             `json:"name"`
	Email       string             `json:"email,omitempty"`
	Orgs        []state.Membership `json:"orgs"`
	Hash        string             `json:"hash"`
	MustChange  bool               `json:"mustChange,omitempty"`
	TempExpires *time.Time         `json:"tempExpires,omitempty"`
	Created     time.Time          `json:"created"`
	PasswordSet time.Time          `json:"passwordSet"`
}

func (u userRow) record() userRecord {
	r := userRecord{Name: u.Name, Email: u.Email, Orgs: u.Orgs, Hash: u.hash, MustChange: u.MustChange,
		Created: u.Created, PasswordSet: u.PasswordSet}
	if !u.TempExpires.IsZero() {
		t := u.TempExpires
		r.TempExpires = &t
	}
	return r
}

func (s *Store) decodeUser(name string, v []byte) (userRow, error) {
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
		if err == nil && state.CheckRole(m.Role) != nil {
			err = fmt.Errorf("unknown role %q", m.Role)
		}
	}
	if err != nil {
		return userRow{}, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: user %q: %v", s.path, name, err)
	}
	u := userRow{User: state.User{Name: r.Name, Email: r.Email, Orgs: r.Orgs, MustChange: r.MustChange,
		Created: r.Created, PasswordSet: r.PasswordSet}, hash: r.Hash}
	if r.TempExpires != nil {
		u.TempExpires = *r.TempExpires
	}
	return u, nil
}

func putUser(tx *bbolt.Tx, u userRow) error {
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

func (s *Store) getUser(tx *bbolt.Tx, name string) (userRow, error) {
	v := lookup(tx, bucketUsers, name)
	if v == nil {
		return userRow{}, state.Errorf(state.ErrNotFound, "user %q not found", name)
	}
	return s.decodeUser(name, v)
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
func (s *Store) AddUser(req state.NewUser) (state.User, string, error) {
	if err := state.CheckUserName(req.Name); err != nil {
		return state.User{}, "", err
	}
	if err := state.CheckRole(req.Role); err != nil {
		return state.User{}, "", err
	}
	email := ""
	if strings.TrimSpace(req.Email) != "" {
		var err error
		if email, err = state.NormaliseEmail(req.Email); err != nil {
			return state.User{}, "", err
		}
	}
	now := req.Now
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	otp, hash, err := s.issueOneTimePassword()
	if err != nil {
		return state.User{}, "", err
	}
	var u userRow
	joined := false
	err = s.update(func(tx *bbolt.Tx) error {
		if _, err := s.getOrg(tx, req.Org); err != nil {
			return err
		}
		existing, err := s.getUser(tx, req.Name)
		switch {
		case err == nil:
			if _, ok := existing.Role(req.Org); ok {
				return state.Errorf(state.ErrExists, "user %q already belongs to organisation %q", req.Name, req.Org)
			}
			if email != "" && email != existing.Email {
				return state.Errorf(state.ErrInvalid, "user %q exists with another e-mail address; leave the address out to add them to %q", req.Name, req.Org)
			}
			u, joined = existing, true
			u.Orgs = append(u.Orgs, state.Membership{Org: req.Org, Role: req.Role})
			slices.SortFunc(u.Orgs, func(a, b state.Membership) int { return strings.Compare(a.Org, b.Org) })
			return putUser(tx, u)
		case !errors.Is(err, state.ErrNotFound):
			return err
		}
		emails, err := tx.CreateBucketIfNotExists(bucketUserEmails)
		if err != nil {
			return err
		}
		if email != "" {
			if emails.Get([]byte(email)) != nil {
				return state.Errorf(state.ErrExists, "e-mail address %q belongs to another user", email)
			}
			if err := emails.Put([]byte(email), []byte(req.Name)); err != nil {
				return err
			}
		}
		u = userRow{User: state.User{Name: req.Name, Email: email, Orgs: []state.Membership{{Org: req.Org, Role: req.Role}},
			MustChange: true, TempExpires: now.Add(state.OneTimePasswordTTL), Created: now, PasswordSet: now}, hash: hash}
		return putUser(tx, u)
	})
	if err != nil {
		return state.User{}, "", err
	}
	if joined {
		return u.User, "", nil
	}
	return u.User, otp, nil
}

// User returns the person with the given name. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) User(name string) (state.User, error) {
	u, err := viewValue(s, func(tx *bbolt.Tx) (userRow, error) { return s.getUser(tx, name) })
	return u.User, err
}

// Users returns the people of one organisation, or everyone when org is
// "", sorted by name. Errors: ErrNotFound for an unknown organisation;
// ErrCorrupt.
func (s *Store) Users(org string) ([]state.User, error) {
	var out []state.User
	err := s.view(func(tx *bbolt.Tx) error {
		if org != "" {
			if _, err := s.getOrg(tx, org); err != nil {
				return err
			}
		}
		return s.forEachUser(tx, func(u userRow) error {
			if _, ok := u.Role(org); org == "" || ok {
				out = append(out, u.User)
			}
			return nil
		})
	})
	return out, err // bbolt iterates in key order, which is name order
}

func (s *Store) forEachUser(tx *bbolt.Tx, fn func(userRow) error) error {
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
	err := s.forEachUser(tx, func(u userRow) error {
		if r, _ := u.Role(org); r == state.RoleOwner && u.Name != skip {
			n++
		}
		return nil
	})
	return n, err
}

// keepOwner refuses a change that would leave org, which has owners, with
// none but the person named name.
func (s *Store) keepOwner(tx *bbolt.Tx, u userRow, org string) error {
	if r, _ := u.Role(org); r != state.RoleOwner {
		return nil
	}
	n, err := s.owners(tx, org, u.Name)
	if err != nil {
		return err
	}
	if n == 0 {
		return state.Errorf(state.ErrInvalid, "%q is the only owner of organisation %q: an organisation always keeps an owner; make someone else owner first", u.Name, org)
	}
	return nil
}

// SetRole changes the person's role in org and returns them. Removing the
// last owner's ownership is refused. Setting the role they hold changes
// nothing. Errors: ErrInvalid (bad role, last owner); ErrNotFound (no such
// person, or not a member of org); ErrCorrupt.
func (s *Store) SetRole(name, org, role string) (state.User, error) {
	if err := state.CheckRole(role); err != nil {
		return state.User{}, err
	}
	var u userRow
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if u, err = s.getUser(tx, name); err != nil {
			return err
		}
		cur, ok := u.Role(org)
		switch {
		case !ok:
			return state.Errorf(state.ErrNotFound, "user %q does not belong to organisation %q", name, org)
		case cur == role:
			return nil
		case role != state.RoleOwner:
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
		return state.User{}, err
	}
	return u.User, nil
}

// RemoveMember takes the person out of org, ending their sessions in it.
// A person left in no organisation is deleted, with all their sessions;
// deleted reports it. The last owner cannot be removed. Errors: ErrInvalid
// (last owner); ErrNotFound (no such person, or not a member); ErrCorrupt.
func (s *Store) RemoveMember(name, org string) (state.User, bool, error) {
	var u userRow
	deleted := false
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if u, err = s.getUser(tx, name); err != nil {
			return err
		}
		if _, ok := u.Role(org); !ok {
			return state.Errorf(state.ErrNotFound, "user %q does not belong to organisation %q", name, org)
		}
		if err := s.keepOwner(tx, u, org); err != nil {
			return err
		}
		u.Orgs = slices.DeleteFunc(u.Orgs, func(m state.Membership) bool { return m.Org == org })
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
		return state.User{}, false, err
	}
	return u.User, deleted, nil
}

// RemoveUser deletes the person from every organisation, with their
// sessions, and returns them as they were. Refused when they are the last
// owner of any organisation. Errors: ErrInvalid; ErrNotFound; ErrCorrupt.
func (s *Store) RemoveUser(name string) (state.User, error) {
	var u userRow
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
		return state.User{}, err
	}
	return u.User, nil
}

func (s *Store) deleteUser(tx *bbolt.Tx, u userRow) error {
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
func (s *Store) ResetPassword(name string, now time.Time) (state.User, string, error) {
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	otp, hash, err := s.issueOneTimePassword()
	if err != nil {
		return state.User{}, "", err
	}
	var u userRow
	err = s.update(func(tx *bbolt.Tx) error {
		var err error
		if u, err = s.getUser(tx, name); err != nil {
			return err
		}
		u.hash, u.MustChange, u.TempExpires, u.PasswordSet = hash, true, now.Add(state.OneTimePasswordTTL), now
		if err := putUser(tx, u); err != nil {
			return err
		}
		return s.endSessions(tx, name, "", nil)
	})
	if err != nil {
		return state.User{}, "", err
	}
	return u.User, otp, nil
}

// findLogin returns the person a sign-in name names: an e-mail address
// when it holds '@', a user name otherwise (case-insensitively).
func (s *Store) findLogin(tx *bbolt.Tx, login string) (userRow, error) {
	login = strings.ToLower(strings.TrimSpace(login))
	if strings.Contains(login, "@") {
		name := lookup(tx, bucketUserEmails, login)
		if name == nil {
			return userRow{}, state.ErrBadSignIn
		}
		return s.getUser(tx, string(name))
	}
	u, err := s.getUser(tx, login)
	if errors.Is(err, state.ErrNotFound) {
		return userRow{}, state.ErrBadSignIn
	}
	return u, err
}

// UserByLogin returns the person a sign-in name (user name or e-mail
// address, in any case) names. Errors: ErrNotFound; ErrCorrupt.
func (s *Store) UserByLogin(login string) (state.User, error) {
	u, err := viewValue(s, func(tx *bbolt.Tx) (userRow, error) { return s.findLogin(tx, login) })
	if errors.Is(err, state.ErrBadSignIn) {
		return state.User{}, state.Errorf(state.ErrNotFound, "no user signs in as %q", state.Clip(login, 80))
	}
	return u.User, err
}

// SignIn checks a sign-in name (user name or e-mail address) and password
// at now and returns the person. An unknown name costs as much time as a
// wrong password. Errors: ErrBadSignIn (unknown name or wrong password:
// the two are not told apart); ErrPasswordExpired (a right one-time
// password past its time); ErrCorrupt. Throttling is the caller's.
func (s *Store) SignIn(login, password string, now time.Time) (state.User, error) {
	if now.IsZero() {
		now = s.clock()
	}
	u, err := viewValue(s, func(tx *bbolt.Tx) (userRow, error) { return s.findLogin(tx, login) })
	if errors.Is(err, state.ErrBadSignIn) || len(password) > 4*state.MaxPasswordLen {
		verifyPassword(dummyHash(), password[:min(len(password), 4*state.MaxPasswordLen)])
		return state.User{}, state.ErrBadSignIn
	}
	if err != nil {
		return state.User{}, err
	}
	ok, err := verifyPassword(u.hash, password)
	if err != nil {
		return state.User{}, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: user %q: %v", s.path, u.Name, err)
	}
	if !ok {
		return state.User{}, state.ErrBadSignIn
	}
	if u.MustChange && !u.TempExpires.IsZero() && !now.Before(u.TempExpires) {
		return state.User{}, fmt.Errorf("%w: ask an administrator of your organisation for a new one", state.ErrPasswordExpired)
	}
	return u.User, nil
}

// ChangePassword sets the person's password to next after checking
// current (their password or one-time password), clears MustChange and
// ends all their sessions (the caller starts a fresh one). Errors:
// ErrBadSignIn (current is wrong); ErrInvalid (next breaks a rule of
// CheckPassword, or equals current); ErrNotFound; ErrCorrupt.
func (s *Store) ChangePassword(name, current, next string, now time.Time) (state.User, error) {
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	u, err := viewValue(s, func(tx *bbolt.Tx) (userRow, error) { return s.getUser(tx, name) })
	if err != nil {
		return state.User{}, err
	}
	if len(current) > 4*state.MaxPasswordLen {
		return state.User{}, state.ErrBadSignIn
	}
	ok, err := verifyPassword(u.hash, current)
	if err != nil {
		return state.User{}, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: user %q: %v", s.path, u.Name, err)
	}
	if !ok {
		return state.User{}, state.ErrBadSignIn
	}
	if err := state.CheckPassword(next, u.Name, u.Email); err != nil {
		return state.User{}, err
	}
	if next == current {
		return state.User{}, state.Errorf(state.ErrInvalid, "the new password must differ from the current one")
	}
	hash, err := s.hashPassword(next)
	if err != nil {
		return state.User{}, err
	}
	err = s.update(func(tx *bbolt.Tx) error {
		cur, err := s.getUser(tx, name)
		if err != nil {
			return err
		}
		// The password checked above must still be the stored one: a
		// reset in between wins.
		if subtle.ConstantTimeCompare([]byte(cur.hash), []byte(u.hash)) != 1 {
			return state.ErrBadSignIn
		}
		u = cur
		u.hash, u.MustChange, u.TempExpires, u.PasswordSet = hash, false, time.Time{}, now
		if err := putUser(tx, u); err != nil {
			return err
		}
		return s.endSessions(tx, name, "", nil)
	})
	if err != nil {
		return state.User{}, err
	}
	return u.User, nil
}
