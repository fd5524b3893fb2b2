package pgstate

import (
	"context"
	"errors"
	"time"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
)

func noSession() error { return state.Errorf(state.ErrNotFound, "no such session") }

// CreateSession is bolt.Store.CreateSession.
func (s *Store) CreateSession(user, org, addr string, now time.Time) (string, state.Session, error) {
	token, se, err := state.NewSession(nil, user, org, addr, s.nowOr(now))
	if err != nil {
		return "", state.Session{}, err
	}
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO sessions (digest, name, org, csrf, addr, created, seen)
			SELECT $1, name, org, $4, $5, $6, $6 FROM memberships WHERE name = $2 AND org = $3`,
			state.TokenDigest(token), user, org, se.CSRF, se.Addr, se.Created)
		if err != nil || tag.RowsAffected() == 1 {
			return err
		}
		if _, err := getUser(ctx, tx, user, false); err != nil {
			return err
		}
		return notMember(user, org)
	})
	if err != nil {
		return "", state.Session{}, err
	}
	return token, se, nil
}

// Session is bolt.Store.Session, read in one statement: it is read on
// every request of the web application.
func (s *Store) Session(token string, now time.Time, lim state.SessionLimits) (state.Session, state.User, error) {
	if !state.ValidToken(token) {
		return state.Session{}, state.User{}, noSession()
	}
	var se state.Session
	var u state.StoredUser
	err := s.read(func(ctx context.Context) error {
		var err error
		u, err = scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+`, s.org, s.csrf, s.addr, s.created, s.seen
			FROM sessions s JOIN users u ON u.name = s.name WHERE s.digest = $1`, state.TokenDigest(token)),
			&se.Org, &se.CSRF, &se.Addr, &se.Created, &se.Seen)
		return err
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return state.Session{}, state.User{}, noSession()
	case err != nil:
		return state.Session{}, state.User{}, err
	}
	se.User, se.Created, se.Seen = u.Name, se.Created.UTC(), se.Seen.UTC()
	if se.Expired(now, lim) {
		return state.Session{}, state.User{}, state.ErrSessionExpired
	}
	if _, ok := u.Role(se.Org); !ok {
		return state.Session{}, state.User{}, noSession()
	}
	return se, u.User, nil
}

// TouchSession is bolt.Store.TouchSession.
func (s *Store) TouchSession(token string, now time.Time) error {
	if !state.ValidToken(token) {
		return nil
	}
	return s.read(func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, "UPDATE sessions SET seen = $2 WHERE digest = $1 AND seen < $2", state.TokenDigest(token), ts(now))
		return err
	})
}

// SetSessionOrg is bolt.Store.SetSessionOrg.
func (s *Store) SetSessionOrg(token, org string) (state.Session, error) {
	if !state.ValidToken(token) {
		return state.Session{}, noSession()
	}
	var se state.Session
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		d := state.TokenDigest(token)
		err := tx.QueryRow(ctx, "SELECT name FROM sessions WHERE digest = $1 FOR UPDATE", d).Scan(&se.User)
		if errors.Is(err, pgx.ErrNoRows) {
			return noSession()
		}
		if err != nil {
			return err
		}
		err = tx.QueryRow(ctx, `UPDATE sessions s SET org = m.org FROM memberships m
			WHERE s.digest = $1 AND m.name = s.name AND m.org = $2 RETURNING s.org, s.csrf, s.addr, s.created, s.seen`, d, org).
			Scan(&se.Org, &se.CSRF, &se.Addr, &se.Created, &se.Seen)
		if errors.Is(err, pgx.ErrNoRows) {
			return notMember(se.User, org)
		}
		return err
	})
	if err != nil {
		return state.Session{}, err
	}
	se.Created, se.Seen = se.Created.UTC(), se.Seen.UTC()
	return se, nil
}

// EndSession is bolt.Store.EndSession.
func (s *Store) EndSession(token string) error {
	if !state.ValidToken(token) {
		return nil
	}
	return s.tx(func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "DELETE FROM sessions WHERE digest = $1", state.TokenDigest(token))
		return err
	})
}

// PruneSessions is bolt.Store.PruneSessions.
func (s *Store) PruneSessions(now time.Time, lim state.SessionLimits) (int, error) {
	lim = lim.OrDefault()
	now = ts(now)
	var n int64
	err := s.read(func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, "DELETE FROM sessions WHERE created <= $1 OR seen <= $2",
			now.Add(-lim.Absolute), now.Add(-lim.Idle))
		n = tag.RowsAffected()
		return err
	})
	return int(n), err
}

// BeginSignIn is state.SignInThrottle's: one statement (a function that
// locks the account's and the address's rows, checks their waits and
// counts the attempt), whichever node it runs on.
func (s *Store) BeginSignIn(acct, addr string, now time.Time) (time.Duration, error) {
	var wait time.Duration
	err := s.read(func(ctx context.Context) error {
		for attempt := 0; ; attempt++ {
			err := s.pool.QueryRow(ctx, "SELECT frameindex_signin_begin($1, $2, $3, $4, $5, $6)",
				[]string{state.ThrottleAccountKey(acct), state.ThrottleAddrKey(addr)},
				[]int32{state.SignInAccountFree, state.SignInAddressFree}, ts(now),
				state.SignInWaitBase, state.SignInWaitMax, state.SignInForget).Scan(&wait)
			if c := pgCode(err); (c == codeDeadlockDetected || c == codeSerializationFailure) && attempt < 5 {
				continue
			}
			return err
		}
	})
	return wait, err
}

// SucceedSignIn is state.SignInThrottle's.
func (s *Store) SucceedSignIn(acct, addr string) error {
	return s.endSignIn([]string{state.ThrottleAccountKey(acct)}, []string{state.ThrottleAddrKey(addr)}, []int32{state.SignInAddressFree})
}

// CancelSignIn is state.SignInThrottle's.
func (s *Store) CancelSignIn(acct, addr string) error {
	return s.endSignIn(nil, []string{state.ThrottleAccountKey(acct), state.ThrottleAddrKey(addr)},
		[]int32{state.SignInAccountFree, state.SignInAddressFree})
}

func (s *Store) endSignIn(clear, uncount []string, frees []int32) error {
	if clear == nil {
		clear = []string{}
	}
	return s.read(func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, "SELECT frameindex_signin_end($1, $2, $3)", clear, uncount, frees)
		return err
	})
}

// PruneSignIns is state.SignInThrottle's.
func (s *Store) PruneSignIns(now time.Time) error {
	now = ts(now)
	return s.read(func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, "DELETE FROM signin_failures WHERE last <= $1 AND (until IS NULL OR until <= $2)",
			now.Add(-state.SignInForget), now)
		return err
	})
}

var _ state.SignInThrottle = (*Store)(nil)
