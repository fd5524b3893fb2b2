package pgstate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
)

// lockedOrg is an organisation read under its row lock (FOR UPDATE), with
// the number of its last ledger entry.
type lockedOrg struct {
	state.Org
	seq     int64
	debited bool // Credits or seq changed: write it back
}

func notFoundOrg(id string) error {
	return state.Errorf(state.ErrNotFound, "organisation %q not found", id)
}

const orgColumns = "id, name, plan, created, credits"

func scanOrg(row pgx.Row, extra ...any) (state.Org, error) {
	var o state.Org
	err := row.Scan(append([]any{&o.ID, &o.Name, &o.Plan, &o.Created, &o.Credits}, extra...)...)
	o.Created = o.Created.UTC()
	return o, err
}

// getOrg reads an organisation in tx. Errors: ErrNotFound.
func getOrg(ctx context.Context, tx pgx.Tx, id string) (state.Org, error) {
	o, err := scanOrg(tx.QueryRow(ctx, "SELECT "+orgColumns+" FROM orgs WHERE id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return state.Org{}, notFoundOrg(id)
	}
	return o, err
}

// lockOrg reads an organisation in tx and locks its row until tx ends:
// every change to a balance, a ledger or usage counters happens under it,
// so that concurrent changes on any node run one after another.
func lockOrg(ctx context.Context, tx pgx.Tx, id string) (*lockedOrg, error) {
	var l lockedOrg
	var err error
	l.Org, err = scanOrg(tx.QueryRow(ctx, "SELECT "+orgColumns+", ledger_seq FROM orgs WHERE id = $1 FOR UPDATE", id), &l.seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFoundOrg(id)
	}
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// appendLedger numbers e as o's next entry and queues its insertion in b;
// the caller sets e.Balance and, at the end, saves o.
func (o *lockedOrg) appendLedger(b *pgx.Batch, e *state.LedgerEntry) {
	o.seq++
	o.debited = true
	e.Seq = uint64(o.seq)
	b.Queue(`INSERT INTO ledger (org, seq, time, kind, credits, balance, note, key_id, dataset, request_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		o.ID, o.seq, e.Time, e.Kind, e.Credits, e.Balance, e.Note, e.KeyID, e.Dataset, e.RequestID)
}

// settle queues what a metering rule of package state decided for o:
// its balance after (org), its ledger entries, numbered in order, and its
// usage counter changes. The caller saves o at the end.
func (o *lockedOrg) settle(b *pgx.Batch, org state.Org, entries []state.LedgerEntry, counters []state.CounterChange) {
	o.Org = org
	for _, e := range entries {
		o.appendLedger(b, &e)
	}
	for _, c := range counters {
		addCounter(b, o.ID, c.Name, c.Count, c.Credits)
	}
}

// save queues the write of o's balance and ledger number when they
// changed.
func (o *lockedOrg) save(b *pgx.Batch) {
	if o.debited {
		b.Queue("UPDATE orgs SET credits = $2, ledger_seq = $3 WHERE id = $1", o.ID, o.Credits, o.seq)
	}
}

// addCounter queues adding count and credits to a usage counter; the
// table's checks refuse a counter below zero.
func addCounter(b *pgx.Batch, org, name string, count, credits int64) {
	if count < 0 || credits < 0 {
		// Taking back: the counter exists (the caller checked), and
		// an INSERT would fail the checks on the row it proposes.
		b.Queue("UPDATE usage SET count = count + $3, credits = credits + $4 WHERE org = $1 AND name = $2", org, name, count, credits)
		return
	}
	b.Queue(`INSERT INTO usage (org, name, count, credits) VALUES ($1, $2, $3, $4)
		ON CONFLICT (org, name) DO UPDATE SET count = usage.count + excluded.count, credits = usage.credits + excluded.credits`,
		org, name, count, credits)
}

// run sends b and reads every result; the first error ends tx.
func run(ctx context.Context, tx pgx.Tx, b *pgx.Batch) error {
	if b.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, b).Close()
}

// AddOrg is bolt.Store.AddOrg.
func (s *Store) AddOrg(o state.Org) (state.Org, error) {
	o, err := state.CheckNewOrg(o, s.clock())
	if err != nil {
		return state.Org{}, err
	}
	o.Created = ts(o.Created)
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO orgs (id, name, plan, created) VALUES ($1, $2, $3, $4)", o.ID, o.Name, o.Plan, o.Created)
		if pgCode(err) == codeUniqueViolation {
			return state.Errorf(state.ErrExists, "organisation %q already exists", o.ID)
		}
		return err
	})
	if err != nil {
		return state.Org{}, err
	}
	return o, nil
}

// Orgs is bolt.Store.Orgs.
func (s *Store) Orgs() ([]state.Org, error) {
	var out []state.Org
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT "+orgColumns+" FROM orgs")
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (state.Org, error) { return scanOrg(r) })
		return err
	})
	if err != nil || len(out) == 0 {
		return nil, err
	}
	slices.SortFunc(out, func(a, b state.Org) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Org is bolt.Store.Org.
func (s *Store) Org(id string) (state.Org, error) {
	var o state.Org
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		o, err = getOrg(ctx, tx, id)
		return err
	})
	return o, err
}

// SetPlan is bolt.Store.SetPlan.
func (s *Store) SetPlan(orgID, plan string) (state.Org, error) {
	if err := state.CheckPlan(plan); err != nil {
		return state.Org{}, err
	}
	var o state.Org
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		o, err = scanOrg(tx.QueryRow(ctx, "UPDATE orgs SET plan = $2 WHERE id = $1 RETURNING "+orgColumns, orgID, plan))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFoundOrg(orgID)
		}
		return err
	})
	if err != nil {
		return state.Org{}, err
	}
	return o, nil
}

// AddCredits is bolt.Store.AddCredits: the balance and the ledger entry
// change in one transaction under the organisation's row lock.
func (s *Store) AddCredits(orgID string, n int64, note string, now time.Time) (state.Org, state.LedgerEntry, error) {
	kind, err := state.CheckCreditChange(n, note)
	if err != nil {
		return state.Org{}, state.LedgerEntry{}, err
	}
	var o state.Org
	var e state.LedgerEntry
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		l, err := lockOrg(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if o, e, err = state.ChangeCredits(l.Org, n, kind, note, s.nowOr(now)); err != nil {
			return err
		}
		var b pgx.Batch
		l.settle(&b, o, nil, nil)
		l.appendLedger(&b, &e)
		l.save(&b)
		return run(ctx, tx, &b)
	})
	if err != nil {
		return state.Org{}, state.LedgerEntry{}, err
	}
	return o, e, nil
}

const ledgerColumns = "seq, time, kind, credits, balance, note, key_id, dataset, request_id"

func scanLedger(r pgx.CollectableRow) (state.LedgerEntry, error) {
	var e state.LedgerEntry
	var seq int64
	err := r.Scan(&seq, &e.Time, &e.Kind, &e.Credits, &e.Balance, &e.Note, &e.KeyID, &e.Dataset, &e.RequestID)
	e.Seq, e.Time = uint64(seq), e.Time.UTC()
	return e, err
}

// OrgLedger is bolt.Store.OrgLedger: one snapshot.
func (s *Store) OrgLedger(orgID string, limit int) (state.Org, []state.LedgerEntry, error) {
	var o state.Org
	var entries []state.LedgerEntry
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		if o, err = getOrg(ctx, tx, orgID); err != nil {
			return err
		}
		q := "SELECT " + ledgerColumns + " FROM ledger WHERE org = $1 ORDER BY seq DESC"
		args := []any{orgID}
		if limit > 0 {
			q += " LIMIT $2"
			args = append(args, limit)
		}
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		entries, err = pgx.CollectRows(rows, scanLedger)
		return err
	})
	if err != nil {
		return state.Org{}, nil, err
	}
	slices.Reverse(entries)
	if len(entries) == 0 {
		entries = nil
	}
	return o, entries, nil
}

// Ledger is bolt.Store.Ledger.
func (s *Store) Ledger(orgID string, limit int) ([]state.LedgerEntry, error) {
	_, entries, err := s.OrgLedger(orgID, limit)
	return entries, err
}

// Usage is bolt.Store.Usage: one snapshot.
func (s *Store) Usage(orgID string, now time.Time) (state.Usage, error) {
	if now.IsZero() {
		now = s.clock()
	}
	var u state.Usage
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		o, err := getOrg(ctx, tx, orgID)
		if err != nil {
			return err
		}
		u = state.UsageOf(o, now)
		rows, err := tx.Query(ctx, `SELECT name, count, credits FROM usage
			WHERE org = $1 AND (name = $2 OR name = $3 OR starts_with(name, $4))`,
			orgID, state.AnswersCounter(u.Month), state.AnswersCounter(u.Day), state.ChargesPrefix(u.Month))
		if err != nil {
			return err
		}
		var name string
		var count, credits int64
		_, err = pgx.ForEachRow(rows, []any{&name, &count, &credits}, func() error {
			u.Count(name, count, credits)
			return nil
		})
		return err
	})
	if err != nil {
		return state.Usage{}, err
	}
	slices.SortFunc(u.Charges, func(a, b state.DatasetCharge) int { return strings.Compare(a.Dataset, b.Dataset) })
	return u, nil
}
