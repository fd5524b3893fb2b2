package pgstate

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"frameindex/bolt"

	"github.com/jackc/pgx/v5"
)

// lockedOrg is an organisation read under its row lock (FOR UPDATE), with
// the number of its last ledger entry.
type lockedOrg struct {
	bolt.Org
	seq     int64
	debited bool // Credits or seq changed: write it back
}

func notFoundOrg(id string) error {
	return bolt.Errorf(bolt.ErrNotFound, "organisation %q not found", id)
}

const orgColumns = "id, name, plan, created, credits"

func scanOrg(row pgx.Row, extra ...any) (bolt.Org, error) {
	var o bolt.Org
	err := row.Scan(append([]any{&o.ID, &o.Name, &o.Plan, &o.Created, &o.Credits}, extra...)...)
	o.Created = o.Created.UTC()
	return o, err
}

// getOrg reads an organisation in tx. Errors: ErrNotFound.
func getOrg(ctx context.Context, tx pgx.Tx, id string) (bolt.Org, error) {
	o, err := scanOrg(tx.QueryRow(ctx, "SELECT "+orgColumns+" FROM orgs WHERE id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return bolt.Org{}, notFoundOrg(id)
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
func (o *lockedOrg) appendLedger(b *pgx.Batch, e *bolt.LedgerEntry) {
	o.seq++
	o.debited = true
	e.Seq = uint64(o.seq)
	b.Queue(`INSERT INTO ledger (org, seq, time, kind, credits, balance, note, key_id, dataset, request_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		o.ID, o.seq, e.Time, e.Kind, e.Credits, e.Balance, e.Note, e.KeyID, e.Dataset, e.RequestID)
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
func (s *Store) AddOrg(o bolt.Org) (bolt.Org, error) {
	o, err := bolt.CheckNewOrg(o, s.clock())
	if err != nil {
		return bolt.Org{}, err
	}
	o.Created = ts(o.Created)
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO orgs (id, name, plan, created) VALUES ($1, $2, $3, $4)", o.ID, o.Name, o.Plan, o.Created)
		if pgCode(err) == codeUniqueViolation {
			return bolt.Errorf(bolt.ErrExists, "organisation %q already exists", o.ID)
		}
		return err
	})
	if err != nil {
		return bolt.Org{}, err
	}
	return o, nil
}

// Orgs is bolt.Store.Orgs.
func (s *Store) Orgs() ([]bolt.Org, error) {
	var out []bolt.Org
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT "+orgColumns+" FROM orgs")
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (bolt.Org, error) { return scanOrg(r) })
		return err
	})
	if err != nil || len(out) == 0 {
		return nil, err
	}
	slices.SortFunc(out, func(a, b bolt.Org) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Org is bolt.Store.Org.
func (s *Store) Org(id string) (bolt.Org, error) {
	var o bolt.Org
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		o, err = getOrg(ctx, tx, id)
		return err
	})
	return o, err
}

// SetPlan is bolt.Store.SetPlan.
func (s *Store) SetPlan(orgID, plan string) (bolt.Org, error) {
	if err := bolt.CheckPlan(plan); err != nil {
		return bolt.Org{}, err
	}
	var o bolt.Org
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		o, err = scanOrg(tx.QueryRow(ctx, "UPDATE orgs SET plan = $2 WHERE id = $1 RETURNING "+orgColumns, orgID, plan))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFoundOrg(orgID)
		}
		return err
	})
	if err != nil {
		return bolt.Org{}, err
	}
	return o, nil
}

// AddCredits is bolt.Store.AddCredits: the balance and the ledger entry
// change in one transaction under the organisation's row lock.
func (s *Store) AddCredits(orgID string, n int64, note string, now time.Time) (bolt.Org, bolt.LedgerEntry, error) {
	kind, err := bolt.CheckCreditChange(n, note)
	if err != nil {
		return bolt.Org{}, bolt.LedgerEntry{}, err
	}
	var o bolt.Org
	var e bolt.LedgerEntry
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		e = bolt.LedgerEntry{Time: s.nowOr(now), Kind: kind, Credits: n, Note: note}
		l, err := lockOrg(ctx, tx, orgID)
		if err != nil {
			return err
		}
		switch {
		case n < 0 && n < -l.Credits:
			return bolt.Errorf(bolt.ErrInvalid, "organisation %s has %s; cannot remove %d", l.ID, bolt.CreditsText(l.Credits), absU(n))
		case n > 0 && l.Credits > math.MaxInt64-n:
			return bolt.Errorf(bolt.ErrInvalid, "organisation %s has %s; adding %d would pass the largest balance, %d", l.ID, bolt.CreditsText(l.Credits), n, int64(math.MaxInt64))
		}
		l.Credits += n
		e.Balance = l.Credits
		var b pgx.Batch
		l.appendLedger(&b, &e)
		l.save(&b)
		o = l.Org
		return run(ctx, tx, &b)
	})
	if err != nil {
		return bolt.Org{}, bolt.LedgerEntry{}, err
	}
	return o, e, nil
}

// absU returns |n|, which a uint64 holds even for math.MinInt64.
func absU(n int64) uint64 {
	if n < 0 {
		return uint64(-(n + 1)) + 1
	}
	return uint64(n)
}

const ledgerColumns = "seq, time, kind, credits, balance, note, key_id, dataset, request_id"

func scanLedger(r pgx.CollectableRow) (bolt.LedgerEntry, error) {
	var e bolt.LedgerEntry
	var seq int64
	err := r.Scan(&seq, &e.Time, &e.Kind, &e.Credits, &e.Balance, &e.Note, &e.KeyID, &e.Dataset, &e.RequestID)
	e.Seq, e.Time = uint64(seq), e.Time.UTC()
	return e, err
}

// OrgLedger is bolt.Store.OrgLedger: one snapshot.
func (s *Store) OrgLedger(orgID string, limit int) (bolt.Org, []bolt.LedgerEntry, error) {
	var o bolt.Org
	var entries []bolt.LedgerEntry
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
		return bolt.Org{}, nil, err
	}
	slices.Reverse(entries)
	if len(entries) == 0 {
		entries = nil
	}
	return o, entries, nil
}

// Ledger is bolt.Store.Ledger.
func (s *Store) Ledger(orgID string, limit int) ([]bolt.LedgerEntry, error) {
	_, entries, err := s.OrgLedger(orgID, limit)
	return entries, err
}

// Usage is bolt.Store.Usage: one snapshot.
func (s *Store) Usage(orgID string, now time.Time) (bolt.Usage, error) {
	if now.IsZero() {
		now = s.clock()
	}
	u := bolt.Usage{OrgID: orgID, Month: bolt.MonthOf(now), Day: bolt.DayOf(now), DailyCeiling: bolt.DailyCeiling}
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		o, err := getOrg(ctx, tx, orgID)
		if err != nil {
			return err
		}
		u.Plan, u.Allowance, u.Credits = o.Plan, bolt.PlanAllowance[o.Plan], o.Credits
		prefix := bolt.ChargesPrefix(u.Month)
		rows, err := tx.Query(ctx, `SELECT name, count, credits FROM usage
			WHERE org = $1 AND (name = $2 OR name = $3 OR starts_with(name, $4))`,
			orgID, bolt.AnswersCounter(u.Month), bolt.AnswersCounter(u.Day), prefix)
		if err != nil {
			return err
		}
		var name string
		var count, credits int64
		_, err = pgx.ForEachRow(rows, []any{&name, &count, &credits}, func() error {
			switch {
			case name == bolt.AnswersCounter(u.Month):
				u.AnswersThisMonth = clampInt(count)
			case name == bolt.AnswersCounter(u.Day):
				u.AnswersToday = clampInt(count)
			default:
				u.Charges = append(u.Charges, bolt.DatasetCharge{Dataset: name[len(prefix):], Requests: clampInt(count), Credits: credits})
			}
			return nil
		})
		return err
	})
	if err != nil {
		return bolt.Usage{}, err
	}
	slices.SortFunc(u.Charges, func(a, b bolt.DatasetCharge) int { return strings.Compare(a.Dataset, b.Dataset) })
	return u, nil
}

func clampInt(n int64) int {
	if n > math.MaxInt {
		return math.MaxInt
	}
	return int(n)
}
