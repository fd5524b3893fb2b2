package bolt

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// bucketSessions holds the web application's sessions; see bucketUsers for the
// layout.
var bucketSessions = []byte("sessions")

func sessionKey(token string) []byte { return state.TokenDigest(token) }

var validToken = state.ValidToken

func (s *Store) decodeSession(k, v []byte) (state.Session, error) {
	var se state.Session
	err := decodeStrict(v, &se)
	switch {
	case err != nil:
	case len(k) != sha256.Size:
		err = fmt.Errorf("key of %d bytes", len(k))
	case se.User == "" || se.Org == "" || se.CSRF == "":
		err = errors.New("no user, organisation or CSRF token")
	}
	if err != nil {
		return state.Session{}, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: session %x: %v", s.path, k[:min(len(k), 4)], err)
	}
	return se, nil
}

// CreateSession starts a session for the person in org, which they must
// belong to, and returns its token (for the cookie; never stored) and the
// session. addr says where it was started from. Errors: ErrNotFound (no
// such person, or not a member of org); ErrCorrupt.
func (s *Store) CreateSession(user, org, addr string, now time.Time) (string, state.Session, error) {
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	token, se, err := state.NewSession(s.rand, user, org, addr, now)
	if err != nil {
		return "", state.Session{}, err
	}
	err = s.update(func(tx *bbolt.Tx) error {
		u, err := s.getUser(tx, user)
		if err != nil {
			return err
		}
		if _, ok := u.Role(org); !ok {
			return state.Errorf(state.ErrNotFound, "user %q does not belong to organisation %q", user, org)
		}
		return putSession(tx, sessionKey(token), se)
	})
	if err != nil {
		return "", state.Session{}, err
	}
	return token, se, nil
}

func putSession(tx *bbolt.Tx, key []byte, se state.Session) error {
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
func (s *Store) Session(token string, now time.Time, lim state.SessionLimits) (state.Session, state.User, error) {
	if !validToken(token) {
		return state.Session{}, state.User{}, state.Errorf(state.ErrNotFound, "no such session")
	}
	var se state.Session
	var u userRow
	err := s.view(func(tx *bbolt.Tx) error {
		k := sessionKey(token)
		b := tx.Bucket(bucketSessions)
		var v []byte
		if b != nil {
			v = b.Get(k)
		}
		if v == nil {
			return state.Errorf(state.ErrNotFound, "no such session")
		}
		var err error
		if se, err = s.decodeSession(k, v); err != nil {
			return err
		}
		if se.Expired(now, lim) {
			return state.ErrSessionExpired
		}
		if u, err = s.getUser(tx, se.User); err != nil {
			return err
		}
		if _, ok := u.Role(se.Org); !ok {
			return state.Errorf(state.ErrNotFound, "no such session")
		}
		return nil
	})
	if err != nil {
		return state.Session{}, state.User{}, err
	}
	return se, u.User, nil
}

// TouchSession records that the session was seen at now, restarting its
// idle time. A caller touches at most once a minute or so per session, not
// on every request. A session that is gone is not an error.
func (s *Store) TouchSession(token string, now time.Time) error {
	return s.updateSession(token, func(se *state.Session) error {
		if now.After(se.Seen) {
			se.Seen = now.Round(0).UTC()
		}
		return nil
	})
}

// SetSessionOrg moves the session to another organisation of its person,
// and returns it. Errors: ErrNotFound (no such session, or the person does
// not belong to org); ErrCorrupt.
func (s *Store) SetSessionOrg(token, org string) (state.Session, error) {
	var out state.Session
	err := s.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSessions)
		k := sessionKey(token)
		if b == nil || !validToken(token) || b.Get(k) == nil {
			return state.Errorf(state.ErrNotFound, "no such session")
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
			return state.Errorf(state.ErrNotFound, "user %q does not belong to organisation %q", u.Name, org)
		}
		se.Org = org
		out = se
		return putSession(tx, k, se)
	})
	return out, err
}

func (s *Store) updateSession(token string, fn func(*state.Session) error) error {
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
func (s *Store) PruneSessions(now time.Time, lim state.SessionLimits) (int, error) {
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
