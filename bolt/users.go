package bolt

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
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

func (u userRow) stored() state.StoredUser { return state.StoredUser{User: u.User, Hash: u.hash} }

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

// hashPassword returns the argon2id hash of password (state.HashPassword)
// salted from the store's source of randomness.
func (s *Store) hashPassword(password string) (string, error) {
	return state.HashPassword(s.rand, password)
}

// verifyPassword is state.VerifyPassword.
var verifyPassword = state.VerifyPassword

func (s *Store) newOneTimePassword() (string, error) { return state.NewOneTimePassword(s.rand) }

// issueOneTimePassword makes a one-time password and its hash, outside any
// transaction (hashing takes tens of milliseconds).
func (s *Store) issueOneTimePassword() (otp, hash string, err error) {
	return state.IssueOneTimePassword(s.rand)
}

// corruptHash is the error of a stored hash that cannot be read.
func (s *Store) corruptHash(name string) func(error) error {
	return func(err error) error {
		return state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: user %q: %v", s.path, name, err)
	}
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

// StoredUsers returns every person with their password hash, sorted by
// name: for copying the people into another store (pgstate's Import),
// never for showing. Errors: ErrCorrupt.
func (s *Store) StoredUsers() ([]state.StoredUser, error) {
	var out []state.StoredUser
	err := s.view(func(tx *bbolt.Tx) error {
		return s.forEachUser(tx, func(u userRow) error {
			out = append(out, u.stored())
			return nil
		})
	})
	return out, err
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
		return state.ErrLastOwner(u.Name, org)
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
	if err != nil && !errors.Is(err, state.ErrBadSignIn) {
		return state.User{}, err
	}
	return state.CheckSignIn(u.stored(), err == nil, password, now, s.corruptHash(u.Name))
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
	hash, err := state.NewPasswordHash(s.rand, u.stored(), current, next, s.corruptHash(u.Name))
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
