package bolt

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// ErrSessionExpired: the session was idle too long or reached its absolute
// lifetime. Sign in again.
var ErrSessionExpired = errors.New("session has expired")

// bucketSessions holds the web application's sessions; see bucketUsers for the
// layout.
var bucketSessions = []byte("sessions")

// tokenBytes is the randomness of a session token and of its CSRF token.
const tokenBytes = 32

// SessionLimits bound a session's life: Idle since it was last seen,
// Absolute since it began. Zero values mean DefaultSessionLimits's.
type SessionLimits struct {
	Idle     time.Duration
	Absolute time.Duration
}

// DefaultSessionLimits: 30 minutes idle, 12 hours in all.
var DefaultSessionLimits = SessionLimits{Idle: 30 * time.Minute, Absolute: 12 * time.Hour}

func (l SessionLimits) orDefault() SessionLimits {
	if l.Idle <= 0 {
		l.Idle = DefaultSessionLimits.Idle
	}
	if l.Absolute <= 0 {
		l.Absolute = DefaultSessionLimits.Absolute
	}
	return l
}

// Session is a signed-in person's session. The token that names it lives
// only in the person's cookie: the file holds its SHA-256 digest. CSRF is
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
	lim = lim.orDefault()
	return !now.Before(se.Created.Add(lim.Absolute)) || !now.Before(se.Seen.Add(lim.Idle))
}

func sessionKey(token string) []byte {
	d := sha256.Sum256([]byte(token))
	return d[:]
}

// validToken reports whether a presented token has the form of one this
// package makes (43 characters of unpadded base64url), before any lookup.
func validToken(token string) bool {
	if len(token) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

func (s *Store) newToken() (string, error) {
	var b [tokenBytes]byte
	if err := s.randomBytes(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

func (s *Store) decodeSession(k, v []byte) (Session, error) {
	var se Session
	err := decodeStrict(v, &se)
	switch {
	case err != nil:
	case len(k) != sha256.Size:
		err = fmt.Errorf("key of %d bytes", len(k))
	case se.User == "" || se.Org == "" || se.CSRF == "":
		err = errors.New("no user, organisation or CSRF token")
	}
	if err != nil {
		return Session{}, errorf(ErrCorrupt, err, "data file %q is corrupt: session %x: %v", s.path, k[:min(len(k), 4)], err)
	}
	return se, nil
}

// CreateSession starts a session for the person in org, which they must
// belong to, and returns its token (for the cookie; never stored) and the
// session. addr says where it was started from. Errors: ErrNotFound (no
// such person, or not a member of org); ErrCorrupt.
func (s *Store) CreateSession(user, org, addr string, now time.Time) (string, Session, error) {
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	token, err := s.newToken()
	if err != nil {
		return "", Session{}, err
	}
	csrf, err := s.newToken()
	if err != nil {
		return "", Session{}, err
	}
	se := Session{User: user, Org: org, CSRF: csrf, Addr: clip(addr, 100), Created: now, Seen: now}
	err = s.update(func(tx *bbolt.Tx) error {
		u, err := s.getUser(tx, user)
		if err != nil {
			return err
		}
		if _, ok := u.Role(org); !ok {
			return errorf(ErrNotFound, nil, "user %q does not belong to organisation %q", user, org)
		}
		return putSession(tx, sessionKey(token), se)
	})
	if err != nil {
		return "", Session{}, err
	}
	return token, se, nil
}

func putSession(tx *bbolt.Tx, key []byte, se Session) error {
	b, err := tx.CreateBucketIfNotExists(bucketSessions)
	if err != nil {
		return err
	}
	v, err := json.Marshal(se)
	if err != nil {
		return err
	}
	return b.Put(key, v)
}

// Session returns the session a token names and its person, read in one
// transaction, when it is alive at now under lim and the person still
// belongs to its organisation. Errors: ErrNotFound (no such session, a
// malformed token, or a person removed from the organisation);
// ErrSessionExpired; ErrCorrupt.
func (s *Store) Session(token string, now time.Time, lim SessionLimits) (Session, User, error) {
	if !validToken(token) {
		return Session{}, User{}, errorf(ErrNotFound, nil, "no such session")
	}
	var se Session
	var u User
	err := s.view(func(tx *bbolt.Tx) error {
		k := sessionKey(token)
		b := tx.Bucket(bucketSessions)
		var v []byte
		if b != nil {
			v = b.Get(k)
		}
		if v == nil {
			return errorf(ErrNotFound, nil, "no such session")
		}
		var err error
		if se, err = s.decodeSession(k, v); err != nil {
			return err
		}
		if se.Expired(now, lim) {
			return ErrSessionExpired
		}
		if u, err = s.getUser(tx, se.User); err != nil {
			return err
		}
		if _, ok := u.Role(se.Org); !ok {
			return errorf(ErrNotFound, nil, "no such session")
		}
		return nil
	})
	if err != nil {
		return Session{}, User{}, err
	}
	return se, u, nil
}

// TouchSession records that the session was seen at now, restarting its
// idle time. A caller touches at most once a minute or so per session, not
// on every request. A session that is gone is not an error.
func (s *Store) TouchSession(token string, now time.Time) error {
	return s.updateSession(token, func(se *Session) error {
		if now.After(se.Seen) {
			se.Seen = now.Round(0).UTC()
		}
		return nil
	})
}

// SetSessionOrg moves the session to another organisation of its person,
// and returns it. Errors: ErrNotFound (no such session, or the person does
// not belong to org); ErrCorrupt.
func (s *Store) SetSessionOrg(token, org string) (Session, error) {
	var out Session
	err := s.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSessions)
		k := sessionKey(token)
		if b == nil || !validToken(token) || b.Get(k) == nil {
			return errorf(ErrNotFound, nil, "no such session")
		}
		se, err := s.decodeSession(k, b.Get(k))
		if err != nil {
			return err
		}
		u, err := s.getUser(tx, se.User)
		if err != nil {
			return err
		}
		if _, ok := u.Role(org); !ok {
			return errorf(ErrNotFound, nil, "user %q does not belong to organisation %q", u.Name, org)
		}
		se.Org = org
		out = se
		return putSession(tx, k, se)
	})
	return out, err
}

func (s *Store) updateSession(token string, fn func(*Session) error) error {
	if !validToken(token) {
		return nil
	}
	return s.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSessions)
		k := sessionKey(token)
		if b == nil {
			return nil
		}
		v := b.Get(k)
		if v == nil {
			return nil
		}
		se, err := s.decodeSession(k, v)
		if err != nil {
			return err
		}
		if err := fn(&se); err != nil {
			return err
		}
		return putSession(tx, k, se)
	})
}

// EndSession deletes the session a token names (signing out). A session
// that is gone is not an error.
func (s *Store) EndSession(token string) error {
	if !validToken(token) {
		return nil
	}
	return s.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSessions)
		if b == nil {
			return nil
		}
		return b.Delete(sessionKey(token))
	})
}

// endSessions deletes in tx the sessions of user (in org only, when org is
// not "") except the one keyed keep.
func (s *Store) endSessions(tx *bbolt.Tx, user, org string, keep []byte) error {
	b := tx.Bucket(bucketSessions)
	if b == nil {
		return nil
	}
	var doomed [][]byte
	err := b.ForEach(func(k, v []byte) error {
		se, err := s.decodeSession(k, v)
		if err != nil {
			return err
		}
		if se.User == user && (org == "" || se.Org == org) && !bytes.Equal(k, keep) {
			doomed = append(doomed, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range doomed {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// PruneSessions deletes every session expired at now under lim and
// returns how many. Errors: ErrCorrupt.
func (s *Store) PruneSessions(now time.Time, lim SessionLimits) (int, error) {
	n := 0
	err := s.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSessions)
		if b == nil {
			return nil
		}
		var doomed [][]byte
		err := b.ForEach(func(k, v []byte) error {
			se, err := s.decodeSession(k, v)
			if err != nil {
				return err
			}
			if se.Expired(now, lim) {
				doomed = append(doomed, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range doomed {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		n = len(doomed)
		return nil
	})
	return n, err
}
