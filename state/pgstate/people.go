package pgstate

import (
	"context"
	"errors"
	"strings"
	"time"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
)

// userColumns read a person with their memberships, sorted by
// organisation id in byte order (as the file sorts them).
const userColumns = `u.name, coalesce(u.email, ''), u.hash, u.must_change, u.temp_expires, u.created, u.password_set,
	ARRAY(SELECT m.org FROM memberships m WHERE m.name = u.name ORDER BY m.org COLLATE "C"),
	ARRAY(SELECT m.role FROM memberships m WHERE m.name = u.name ORDER BY m.org COLLATE "C")`

func scanUser(row pgx.Row, extra ...any) (state.StoredUser, error) {
	var u state.StoredUser
	var temp *time.Time
	var orgs, roles []string
	err := row.Scan(append([]any{&u.Name, &u.Email, &u.Hash, &u.MustChange, &temp, &u.Created, &u.PasswordSet, &orgs, &roles}, extra...)...)
	if err != nil {
		return state.StoredUser{}, err
	}
	if temp != nil {
		u.TempExpires = temp.UTC()
	}
	u.Created, u.PasswordSet = u.Created.UTC(), u.PasswordSet.UTC()
	u.Orgs = make([]state.Membership, len(orgs))
	for i := range orgs {
		u.Orgs[i] = state.Membership{Org: orgs[i], Role: roles[i]}
	}
	return u, nil
}

func notFoundUser(name string) error {
	return state.Errorf(state.ErrNotFound, "user %q not found", name)
}

func notMember(name, org string) error {
	return state.Errorf(state.ErrNotFound, "user %q does not belong to organisation %q", name, org)
}

// getUser reads a person in tx; lock takes their row's lock until tx
// ends. Errors: ErrNotFound.
func getUser(ctx context.Context, tx pgx.Tx, name string, lock bool) (state.StoredUser, error) {
	q := "SELECT " + userColumns + " FROM users u WHERE u.name = $1"
	if lock {
		q += " FOR UPDATE"
	}
	u, err := scanUser(tx.QueryRow(ctx, q, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return state.StoredUser{}, notFoundUser(name)
	}
	return u, err
}

// corruptHash is the error of a stored hash that cannot be read.
func (s *Store) corruptHash(name string) func(error) error {
	return func(err error) error {
		return state.Wrapf(state.ErrCorrupt, err, "%s is corrupt: user %q: %v", s.where, name, err)
	}
}

// nullEmail is an e-mail address as the users table keeps it.
func nullEmail(email string) *string {
	if email == "" {
		return nil
	}
	return &email
}

// AddUser is bolt.Store.AddUser.
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
	now := s.nowOr(req.Now)
	otp, hash, err := state.IssueOneTimePassword(nil)
	if err != nil {
		return state.User{}, "", err
	}
	var u state.StoredUser
	joined := false
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		if _, err := getOrg(ctx, tx, req.Org); err != nil {
			return err
		}
		existing, err := getUser(ctx, tx, req.Name, true)
		switch {
		case err == nil:
			if _, ok := existing.Role(req.Org); ok {
				return state.Errorf(state.ErrExists, "user %q already belongs to organisation %q", req.Name, req.Org)
			}
			if email != "" && email != existing.Email {
				return state.Errorf(state.ErrInvalid, "user %q exists with another e-mail address; leave the address out to add them to %q", req.Name, req.Org)
			}
			u, joined = existing, true
		case !errors.Is(err, state.ErrNotFound):
			return err
		default:
			u = state.StoredUser{User: state.User{Name: req.Name, Email: email, MustChange: true,
				TempExpires: now.Add(state.OneTimePasswordTTL), Created: now, PasswordSet: now}, Hash: hash}
			_, err := tx.Exec(ctx, `INSERT INTO users (name, email, hash, must_change, temp_expires, created, password_set)
				VALUES ($1, $2, $3, true, $4, $5, $5)`, u.Name, nullEmail(email), hash, u.TempExpires, now)
			if pgCode(err) == codeUniqueViolation {
				return state.Errorf(state.ErrExists, "e-mail address %q belongs to another user", email)
			}
			if err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "INSERT INTO memberships (name, org, role) VALUES ($1, $2, $3)", req.Name, req.Org, req.Role); err != nil {
			return err
		}
		u, err = getUser(ctx, tx, req.Name, false)
		return err
	})
	if err != nil {
		return state.User{}, "", err
	}
	if joined {
		return u.User, "", nil
	}
	return u.User, otp, nil
}

// User is bolt.Store.User.
func (s *Store) User(name string) (state.User, error) {
	var u state.StoredUser
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		u, err = getUser(ctx, tx, name, false)
		return err
	})
	return u.User, err
}

// Users is bolt.Store.Users.
func (s *Store) Users(org string) ([]state.User, error) {
	var out []state.User
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		if org != "" {
			if _, err := getOrg(ctx, tx, org); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, "SELECT "+userColumns+` FROM users u
			WHERE $1 = '' OR EXISTS (SELECT 1 FROM memberships m WHERE m.name = u.name AND m.org = $1)
			ORDER BY u.name COLLATE "C"`, org)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (state.User, error) {
			u, err := scanUser(r)
			return u.User, err
		})
		return err
	})
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return out, nil
}

// keepOwner refuses, in tx, a change that would leave org, which has
// owners, with none but u. The organisation's row lock makes concurrent
// changes of its owners run one after another.
func keepOwner(ctx context.Context, tx pgx.Tx, u state.StoredUser, org string) error {
	if r, _ := u.Role(org); r != state.RoleOwner {
		return nil
	}
	if _, err := lockOrg(ctx, tx, org); err != nil {
		return err
	}
	var others int
	err := tx.QueryRow(ctx, "SELECT count(*) FROM memberships WHERE org = $1 AND role = 'owner' AND name <> $2", org, u.Name).Scan(&others)
	if err != nil {
		return err
	}
	if others == 0 {
		return state.ErrLastOwner(u.Name, org)
	}
	return nil
}

// SetRole is bolt.Store.SetRole.
func (s *Store) SetRole(name, org, role string) (state.User, error) {
	if err := state.CheckRole(role); err != nil {
		return state.User{}, err
	}
	var u state.StoredUser
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		if u, err = getUser(ctx, tx, name, true); err != nil {
			return err
		}
		cur, ok := u.Role(org)
		switch {
		case !ok:
			return notMember(name, org)
		case cur == role:
			return nil
		case role != state.RoleOwner:
			if err := keepOwner(ctx, tx, u, org); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "UPDATE memberships SET role = $3 WHERE name = $1 AND org = $2", name, org, role); err != nil {
			return err
		}
		u, err = getUser(ctx, tx, name, false)
		return err
	})
	if err != nil {
		return state.User{}, err
	}
	return u.User, nil
}

// RemoveMember is bolt.Store.RemoveMember: the membership's sessions end
// with it (the sessions' foreign key cascades).
func (s *Store) RemoveMember(name, org string) (state.User, bool, error) {
	var u state.StoredUser
	deleted := false
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		if u, err = getUser(ctx, tx, name, true); err != nil {
			return err
		}
		if _, ok := u.Role(org); !ok {
			return notMember(name, org)
		}
		if err := keepOwner(ctx, tx, u, org); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM memberships WHERE name = $1 AND org = $2", name, org); err != nil {
			return err
		}
		u.Orgs = slicesDelete(u.Orgs, org)
		if len(u.Orgs) == 0 {
			deleted = true
			_, err = tx.Exec(ctx, "DELETE FROM users WHERE name = $1", name)
		}
		return err
	})
	if err != nil {
		return state.User{}, false, err
	}
	return u.User, deleted, nil
}

func slicesDelete(ms []state.Membership, org string) []state.Membership {
	out := ms[:0:0]
	for _, m := range ms {
		if m.Org != org {
			out = append(out, m)
		}
	}
	return out
}

// RemoveUser is bolt.Store.RemoveUser.
func (s *Store) RemoveUser(name string) (state.User, error) {
	var u state.StoredUser
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		if u, err = getUser(ctx, tx, name, true); err != nil {
			return err
		}
		for _, m := range u.Orgs {
			if err := keepOwner(ctx, tx, u, m.Org); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, "DELETE FROM users WHERE name = $1", name)
		return err
	})
	if err != nil {
		return state.User{}, err
	}
	return u.User, nil
}

// ResetPassword is bolt.Store.ResetPassword.
func (s *Store) ResetPassword(name string, now time.Time) (state.User, string, error) {
	now = s.nowOr(now)
	otp, hash, err := state.IssueOneTimePassword(nil)
	if err != nil {
		return state.User{}, "", err
	}
	var u state.StoredUser
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `UPDATE users u SET hash = $2, must_change = true, temp_expires = $3, password_set = $4
			WHERE u.name = $1 RETURNING `+userColumns, name, hash, now.Add(state.OneTimePasswordTTL), now))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFoundUser(name)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM sessions WHERE name = $1", name)
		return err
	})
	if err != nil {
		return state.User{}, "", err
	}
	return u.User, otp, nil
}

// findLogin reads the person a sign-in name names: an e-mail address
// when it holds '@', a user name otherwise (case-insensitively); found is
// false when nobody has it.
func (s *Store) findLogin(login string) (u state.StoredUser, found bool, err error) {
	login = strings.ToLower(strings.TrimSpace(login))
	col := "u.name"
	if strings.Contains(login, "@") {
		col = "u.email"
	}
	err = s.read(func(ctx context.Context) error {
		var err error
		u, err = scanUser(s.pool.QueryRow(ctx, "SELECT "+userColumns+" FROM users u WHERE "+col+" = $1", login))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return state.StoredUser{}, false, nil
	}
	return u, err == nil, err
}

// read runs fn, one statement sent straight to the pool (no
// transaction), under the method's time bound.
func (s *Store) read(fn func(ctx context.Context) error) error {
	ctx, cancel := s.ctx()
	defer cancel()
	err := fn(ctx)
	if errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	return s.wrap(err)
}

// UserByLogin is bolt.Store.UserByLogin.
func (s *Store) UserByLogin(login string) (state.User, error) {
	u, found, err := s.findLogin(login)
	if err == nil && !found {
		return state.User{}, state.Errorf(state.ErrNotFound, "no user signs in as %q", state.Clip(login, 80))
	}
	return u.User, err
}

// SignIn is bolt.Store.SignIn.
func (s *Store) SignIn(login, password string, now time.Time) (state.User, error) {
	u, found, err := s.findLogin(login)
	if err != nil {
		return state.User{}, err
	}
	return state.CheckSignIn(u, found, password, s.nowOr(now), s.corruptHash(u.Name))
}

// ChangePassword is bolt.Store.ChangePassword.
func (s *Store) ChangePassword(name, current, next string, now time.Time) (state.User, error) {
	now = s.nowOr(now)
	var u state.StoredUser
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		u, err = getUser(ctx, tx, name, false)
		return err
	})
	if err != nil {
		return state.User{}, err
	}
	hash, err := state.NewPasswordHash(nil, u, current, next, s.corruptHash(name))
	if err != nil {
		return state.User{}, err
	}
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		// The password checked above must still be the stored one: a
		// reset in between wins.
		u, err = scanUser(tx.QueryRow(ctx, `UPDATE users u SET hash = $3, must_change = false, temp_expires = NULL, password_set = $4
			WHERE u.name = $1 AND u.hash = $2 RETURNING `+userColumns, name, u.Hash, hash, now))
		if errors.Is(err, pgx.ErrNoRows) {
			return state.ErrBadSignIn
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM sessions WHERE name = $1", name)
		return err
	})
	if err != nil {
		return state.User{}, err
	}
	return u.User, nil
}
