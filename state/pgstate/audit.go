package pgstate

import (
	"context"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
)

// AppendAudit is bolt.Store.AppendAudit. Entries are numbered by a
// PostgreSQL sequence: increasing across all nodes, with a gap where an
// insert failed.
func (s *Store) AppendAudit(e state.AuditEntry) (state.AuditEntry, error) {
	e, err := state.CleanAudit(e, s.clock())
	if err != nil {
		return state.AuditEntry{}, err
	}
	// inTx, not tx: on a handle of Audited, tx would write its entry too.
	err = s.inTx(pgx.TxOptions{}, func(ctx context.Context, tx pgx.Tx) error { return insertAudit(ctx, tx, &e) })
	if err != nil {
		return state.AuditEntry{}, err
	}
	return e, nil
}

// insertAudit inserts the cleaned entry e in tx and sets its Seq.
func insertAudit(ctx context.Context, tx pgx.Tx, e *state.AuditEntry) error {
	e.Time = ts(e.Time)
	var seq int64
	err := tx.QueryRow(ctx, `INSERT INTO audit (time, actor, org, action, target, detail, addr, outcome, reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING seq`,
		e.Time, e.Actor, e.Org, e.Action, e.Target, e.Detail, e.Addr, e.Outcome, e.Reason).Scan(&seq)
	e.Seq = uint64(seq)
	return err
}

// AuditLog is bolt.Store.AuditLog.
func (s *Store) AuditLog(org string, limit int) ([]state.AuditEntry, error) {
	var out []state.AuditEntry
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		q := `SELECT seq, time, actor, org, action, target, detail, addr, outcome, reason FROM audit
			WHERE $1 = '' OR org = $1 ORDER BY seq DESC`
		args := []any{org}
		if limit > 0 {
			q += " LIMIT $2"
			args = append(args, limit)
		}
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (state.AuditEntry, error) {
			var e state.AuditEntry
			var seq int64
			err := r.Scan(&seq, &e.Time, &e.Actor, &e.Org, &e.Action, &e.Target, &e.Detail, &e.Addr, &e.Outcome, &e.Reason)
			e.Seq, e.Time = uint64(seq), e.Time.UTC()
			return e, err
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		out = nil
	}
	return out, nil
}
