package pgstate

import (
	"context"
	"errors"
	"time"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
)

const keyColumns = "id, org, name, preset, caps, datasets, digest, created, expires, revoked, member"

func scanKey(r pgx.Row) (state.Key, error) {
	var k state.Key
	var caps []string
	var digest []byte
	var revoked *time.Time
	if err := r.Scan(&k.ID, &k.OrgID, &k.Name, &k.Preset, &caps, &k.Datasets, &digest, &k.Created, &k.Expires, &revoked, &k.Member); err != nil {
		return state.Key{}, err
	}
	if len(digest) != len(k.Digest) {
		return state.Key{}, state.Errorf(state.ErrCorrupt, "shared state is corrupt: key %q has a digest of %d bytes", k.ID, len(digest))
	}
	copy(k.Digest[:], digest)
	for _, c := range caps {
		k.Caps = append(k.Caps, state.Capability(c))
	}
	if len(k.Datasets) == 0 {
		k.Datasets = nil
	}
	k.Created, k.Expires = k.Created.UTC(), k.Expires.UTC()
	if revoked != nil {
		k.Revoked = revoked.UTC()
	}
	return k, nil
}

func collectKeys(rows pgx.Rows) ([]state.Key, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (state.Key, error) { return scanKey(r) })
}

// MintKey is bolt.Store.MintKey; the database holds the secret's digest
// only.
func (s *Store) MintKey(req state.MintRequest) (state.Key, string, error) {
	if _, _, err := state.PrepareKey(req, s.clock(), nil); err != nil {
		return state.Key{}, "", err // checked before the organisation, as bolt does
	}
	var k state.Key
	var secret string
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		if _, err := getOrg(ctx, tx, req.OrgID); err != nil {
			return err
		}
		for try := 0; ; try++ {
			var err error
			if k, secret, err = state.PrepareKey(req, s.clock(), nil); err != nil {
				return err
			}
			k.Created, k.Expires = ts(k.Created), ts(k.Expires)
			caps := make([]string, len(k.Caps))
			for i, c := range k.Caps {
				caps[i] = string(c)
			}
			ds := k.Datasets
			if ds == nil {
				ds = []string{}
			}
			// A savepoint, so that an id or digest taken (60 and 256
			// random bits: never in practice) is retried, not fatal.
			_, err = tx.Exec(ctx, "SAVEPOINT mint")
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, "INSERT INTO keys ("+keyColumns+") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, $10)",
				k.ID, k.OrgID, k.Name, k.Preset, caps, ds, k.Digest[:], k.Created, k.Expires, k.Member)
			if pgCode(err) == codeUniqueViolation && try < 10 {
				if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT mint"); err != nil {
					return err
				}
				continue
			}
			if err == nil {
				s.audit.setTarget(k.ID)
			}
			return err
		}
	})
	if err != nil {
		return state.Key{}, "", err
	}
	return k, secret, nil
}

// Keys is bolt.Store.Keys.
func (s *Store) Keys(orgID string) ([]state.Key, error) {
	var out []state.Key
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		if orgID != "" {
			if _, err := getOrg(ctx, tx, orgID); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, "SELECT "+keyColumns+" FROM keys WHERE $1 = '' OR org = $1", orgID)
		if err != nil {
			return err
		}
		out, err = collectKeys(rows)
		return err
	})
	if err != nil {
		return nil, err
	}
	state.SortKeys(out)
	if len(out) == 0 {
		out = nil
	}
	return out, nil
}

// Key is bolt.Store.Key.
func (s *Store) Key(id string) (state.Key, error) {
	var k state.Key
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		k, err = scanKey(tx.QueryRow(ctx, "SELECT "+keyColumns+" FROM keys WHERE id = $1", id))
		if errors.Is(err, pgx.ErrNoRows) {
			return state.Errorf(state.ErrNotFound, "key %q not found", id)
		}
		return err
	})
	return k, err
}

// Keyring is bolt.Store.Keyring: a snapshot of every key.
func (s *Store) Keyring() (*state.Keyring, error) {
	kr, _, err := s.KeyringVersion()
	return kr, err
}

// KeyringVersion is Keyring with the key version it reflects (see
// KeyVersion), read in the same snapshot.
func (s *Store) KeyringVersion() (*state.Keyring, int64, error) {
	var keys []state.Key
	var v int64
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "SELECT version FROM key_version").Scan(&v); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "SELECT "+keyColumns+" FROM keys")
		if err != nil {
			return err
		}
		keys, err = collectKeys(rows)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return state.NewKeyring(keys), v, nil
}

// KeyVersion returns the key version: a counter that every change to the
// keys (mint, revocation, import) increases, in the same transaction.
// Errors: the database's.
func (s *Store) KeyVersion(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var v int64
	err := s.pool.QueryRow(ctx, "SELECT version FROM key_version").Scan(&v)
	return v, s.wrap(err)
}

// RevokeKey is bolt.Store.RevokeKey. Every node watching the keys
// (WatchKeys) stops accepting it within the bound WatchKeys states.
func (s *Store) RevokeKey(id string, now time.Time) (state.Key, error) {
	at := s.nowOr(now)
	var k state.Key
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		k, err = scanKey(tx.QueryRow(ctx, "SELECT "+keyColumns+" FROM keys WHERE id = $1 FOR UPDATE", id))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return state.Errorf(state.ErrNotFound, "key %q not found", id)
		case err != nil || !k.Revoked.IsZero():
			return err
		}
		k.Revoked = at
		_, err = tx.Exec(ctx, "UPDATE keys SET revoked = $2 WHERE id = $1", id, at)
		return err
	})
	if err != nil {
		return state.Key{}, err
	}
	return k, nil
}

// KeysLastUsed is bolt.Store.KeysLastUsed.
func (s *Store) KeysLastUsed(ids []string) (map[string]time.Time, error) {
	out := make(map[string]time.Time, len(ids))
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT id, last FROM key_uses WHERE id = ANY($1)", ids)
		if err != nil {
			return err
		}
		var id string
		var last int64
		_, err = pgx.ForEachRow(rows, []any{&id, &last}, func() error {
			out[id] = time.Unix(last, 0).UTC()
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FlushKeyUses is bolt.Store.FlushKeyUses: one transaction keeping, per
// key, the latest use any node recorded.
func (s *Store) FlushKeyUses(u *state.KeyUses) (int, error) {
	todo := u.Unflushed()
	if len(todo) == 0 {
		return 0, nil
	}
	ids := make([]string, 0, len(todo))
	lasts := make([]int64, 0, len(todo))
	for id, sec := range todo {
		ids = append(ids, id)
		lasts = append(lasts, sec)
	}
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO key_uses (id, last) SELECT * FROM unnest($1::text[], $2::bigint[])
			ON CONFLICT (id) DO UPDATE SET last = greatest(key_uses.last, excluded.last)`, ids, lasts)
		return err
	})
	if err != nil {
		return 0, err
	}
	u.MarkFlushed(todo)
	return len(todo), nil
}
