package pgstate

import (
	"context"
	"fmt"
	"time"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
)

// ImportCounts says what Import copied.
type ImportCounts struct {
	Orgs, Keys, KeyUses, Licences, Prices, Offers, Ledger, Usage, Audit, Pending, Users int
}

// String says what was copied, for the command line.
func (c ImportCounts) String() string {
	return fmt.Sprintf("%d organisations, %d keys (%d with a last use), %d licences, %d prices, %d offers, %d ledger entries, %d usage counters, %d audit entries, %d pending worded answers, %d people",
		c.Orgs, c.Keys, c.KeyUses, c.Licences, c.Prices, c.Offers, c.Ledger, c.Usage, c.Audit, c.Pending, c.Users)
}

// sharedTables are the tables Import requires empty.
var sharedTables = []string{"orgs", "keys", "key_uses", "licences", "prices", "offers", "ledger", "usage", "reservations", "audit", "users"}

// Source is a store to copy shared state from: a data file
// (*bolt.Store) implements it.
type Source interface {
	state.Store
	Datasets() ([]state.Dataset, error)
	// UsageCounters returns every usage counter of the organisation, in
	// name order.
	UsageCounters(orgID string) ([]state.UsageCounter, error)
	// PendingAnswers returns the reservations neither committed nor
	// refunded and the highest reservation id made so far.
	PendingAnswers() (pending []state.Reservation, lastID uint64, err error)
	// StoredUsers returns every person with their password hash.
	StoredUsers() ([]state.StoredUser, error)
}

// Import copies the shared state of a data file into this database, which
// must hold none: organisations with their balances, keys (digests only)
// and their last uses, licences, every dataset's price, offers, ledgers,
// usage counters, the audit log, the pending worded answers (which
// RecoverPending then refunds) and the web application's people with
// their password hashes and memberships. Everything is read from src
// first and written in one transaction: on any error nothing is written.
// Console sessions are not copied (people sign in again); the grid and
// the datasets are not state and stay in the file. Errors: ErrExists when the database already holds shared
// state; the file's and the database's. Run it with the data file not
// being served, so that it does not change underneath.
func (s *Store) Import(src Source) (ImportCounts, error) {
	var c ImportCounts
	orgs, err := src.Orgs()
	if err != nil {
		return c, err
	}
	keys, err := src.Keys("")
	if err != nil {
		return c, err
	}
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ID
	}
	uses, err := src.KeysLastUsed(ids)
	if err != nil {
		return c, err
	}
	licences, err := src.Licences("")
	if err != nil {
		return c, err
	}
	datasets, err := src.Datasets()
	if err != nil {
		return c, err
	}
	offers, err := src.Offers()
	if err != nil {
		return c, err
	}
	audit, err := src.AuditLog("", 0)
	if err != nil {
		return c, err
	}
	pending, lastReservation, err := src.PendingAnswers()
	if err != nil {
		return c, err
	}
	users, err := src.StoredUsers()
	if err != nil {
		return c, err
	}
	ledgers := map[string][]state.LedgerEntry{}
	usage := map[string][]state.UsageCounter{}
	for _, o := range orgs {
		if ledgers[o.ID], err = src.Ledger(o.ID, 0); err != nil {
			return c, err
		}
		if usage[o.ID], err = src.UsageCounters(o.ID); err != nil {
			return c, err
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE orgs IN EXCLUSIVE MODE"); err != nil {
			return err
		}
		for _, t := range sharedTables {
			var any bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+t+")").Scan(&any); err != nil {
				return err
			}
			if any {
				return state.Errorf(state.ErrExists, "%s already holds shared state (table %s is not empty): import only into an empty database", s.where, t)
			}
		}
		copyRows := func(table string, cols []string, rows [][]any) error {
			if len(rows) == 0 {
				return nil
			}
			_, err := tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
			if err != nil {
				return fmt.Errorf("copying %s: %w", table, err)
			}
			return nil
		}
		var rows [][]any
		for _, o := range orgs {
			var seq uint64
			if l := ledgers[o.ID]; len(l) > 0 {
				seq = l[len(l)-1].Seq
			}
			rows = append(rows, []any{o.ID, o.Name, o.Plan, o.Created, o.Credits, int64(seq)})
		}
		if err := copyRows("orgs", []string{"id", "name", "plan", "created", "credits", "ledger_seq"}, rows); err != nil {
			return err
		}
		rows = nil
		for _, o := range orgs {
			for _, e := range ledgers[o.ID] {
				rows = append(rows, []any{o.ID, int64(e.Seq), e.Time, e.Kind, e.Credits, e.Balance, e.Note, e.KeyID, e.Dataset, e.RequestID})
			}
		}
		c.Ledger = len(rows)
		if err := copyRows("ledger", []string{"org", "seq", "time", "kind", "credits", "balance", "note", "key_id", "dataset", "request_id"}, rows); err != nil {
			return err
		}
		rows = nil
		for _, o := range orgs {
			for _, u := range usage[o.ID] {
				rows = append(rows, []any{o.ID, u.Name, u.Count, u.Credits})
			}
		}
		c.Usage = len(rows)
		if err := copyRows("usage", []string{"org", "name", "count", "credits"}, rows); err != nil {
			return err
		}
		rows = nil
		for _, k := range keys {
			caps := make([]string, len(k.Caps))
			for i, cp := range k.Caps {
				caps[i] = string(cp)
			}
			ds := k.Datasets
			if ds == nil {
				ds = []string{}
			}
			var revoked *time.Time
			if !k.Revoked.IsZero() {
				revoked = &k.Revoked
			}
			rows = append(rows, []any{k.ID, k.OrgID, k.Name, k.Preset, caps, ds, k.Digest[:], k.Created, k.Expires, revoked, k.Member})
		}
		if err := copyRows("keys", []string{"id", "org", "name", "preset", "caps", "datasets", "digest", "created", "expires", "revoked", "member"}, rows); err != nil {
			return err
		}
		// COPY fires the keys' statement trigger: the key version moves.
		rows = nil
		for id, t := range uses {
			rows = append(rows, []any{id, t.Unix()})
		}
		c.KeyUses = len(rows)
		if err := copyRows("key_uses", []string{"id", "last"}, rows); err != nil {
			return err
		}
		rows = nil
		for _, l := range licences {
			var price *int64
			if l.Priced {
				price = &l.Price
			}
			rows = append(rows, []any{l.OrgID, l.Dataset, l.Mode, l.Granted, price})
		}
		if err := copyRows("licences", []string{"org", "dataset", "mode", "granted", "price"}, rows); err != nil {
			return err
		}
		rows = nil
		for _, d := range datasets {
			rows = append(rows, []any{d.ID, d.Price})
		}
		if err := copyRows("prices", []string{"dataset", "price"}, rows); err != nil {
			return err
		}
		rows = nil
		for _, o := range offers {
			rows = append(rows, []any{o.Dataset, o.Mode, o.Price, o.LicenceText, o.Updated})
		}
		if err := copyRows("offers", []string{"dataset", "mode", "price", "licence_text", "updated"}, rows); err != nil {
			return err
		}
		rows = nil
		for _, e := range audit {
			rows = append(rows, []any{int64(e.Seq), e.Time, e.Actor, e.Org, e.Action, e.Target, e.Detail, e.Addr, e.Outcome, e.Reason})
		}
		if err := copyRows("audit", []string{"seq", "time", "actor", "org", "action", "target", "detail", "addr", "outcome", "reason"}, rows); err != nil {
			return err
		}
		if len(audit) > 0 {
			if _, err := tx.Exec(ctx, "SELECT setval(pg_get_serial_sequence('audit', 'seq'), $1)", int64(audit[0].Seq)); err != nil {
				return err
			}
		}
		rows = nil
		for _, r := range pending {
			rows = append(rows, []any{int64(r.ID), r.OrgID, r.KeyID, r.RequestID, r.Source, r.Credits, r.Month, r.Day, r.Time})
		}
		if err := copyRows("reservations", []string{"id", "org", "key_id", "request_id", "source", "credits", "month", "day", "time"}, rows); err != nil {
			return err
		}
		rows = nil
		var members [][]any
		for _, u := range users {
			var temp *time.Time
			if !u.TempExpires.IsZero() {
				temp = &u.TempExpires
			}
			rows = append(rows, []any{u.Name, nullEmail(u.Email), u.Hash, u.MustChange, temp, u.Created, u.PasswordSet})
			for _, m := range u.Orgs {
				members = append(members, []any{u.Name, m.Org, m.Role})
			}
		}
		if err := copyRows("users", []string{"name", "email", "hash", "must_change", "temp_expires", "created", "password_set"}, rows); err != nil {
			return err
		}
		if err := copyRows("memberships", []string{"name", "org", "role"}, members); err != nil {
			return err
		}
		if lastReservation > 0 {
			if _, err := tx.Exec(ctx, "SELECT setval(pg_get_serial_sequence('reservations', 'id'), $1)", int64(lastReservation)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ImportCounts{}, s.wrap(err)
	}
	c.Orgs, c.Keys, c.Licences, c.Prices, c.Offers, c.Audit, c.Pending, c.Users = len(orgs), len(keys), len(licences), len(datasets), len(offers), len(audit), len(pending), len(users)
	return c, nil
}
