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

// Charge is bolt.Store.Charge: one transaction under the organisation's
// row lock (SELECT … FOR UPDATE), so that charges on any number of nodes
// run one after another against the balance the last one left.
func (s *Store) Charge(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) (charged, leftOut []string, err error) {
	if len(ds) == 0 {
		return nil, nil, nil
	}
	sorted, err := state.CheckCharge(keyID, requestID, ds)
	if err != nil {
		return nil, nil, err
	}
	at := s.nowOr(now)
	var c state.Charges
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		o, err := lockOrg(ctx, tx, orgID)
		if err != nil {
			return err
		}
		c = state.DecideCharge(o.Org, keyID, requestID, sorted, at)
		var b pgx.Batch
		o.settle(&b, c.Org, c.Entries, c.Counters)
		o.save(&b)
		return run(ctx, tx, &b)
	})
	if err != nil {
		return nil, nil, err
	}
	return c.Charged, c.LeftOut, nil
}

// counterOf reads a usage counter in tx; one that does not exist is zero.
func counterOf(ctx context.Context, tx pgx.Tx, org, name string) (count, credits int64, err error) {
	err = tx.QueryRow(ctx, "SELECT count, credits FROM usage WHERE org = $1 AND name = $2", org, name).Scan(&count, &credits)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, nil
	}
	return count, credits, err
}

// ReserveAnswer is bolt.Store.ReserveAnswer: one transaction under the
// organisation's row lock; the reservation is a row in state pending.
func (s *Store) ReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (state.Reservation, error) {
	cost, err := state.CheckReserve(keyID, requestID, creditCost)
	if err != nil {
		return state.Reservation{}, err
	}
	at := s.nowOr(now)
	var r state.Reservation
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		o, err := lockOrg(ctx, tx, orgID)
		if err != nil {
			return err
		}
		day, _, err := counterOf(ctx, tx, o.ID, state.AnswersCounter(state.DayOf(at)))
		if err != nil {
			return err
		}
		var month int64
		if day < state.DailyCeiling {
			if month, _, err = counterOf(ctx, tx, o.ID, state.AnswersCounter(state.MonthOf(at))); err != nil {
				return err
			}
		}
		a, err := state.DecideAnswer(o.Org, keyID, requestID, cost, at, day, month)
		if err != nil {
			return err
		}
		r = a.Reservation
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO reservations (org, key_id, request_id, source, credits, month, day, time)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
			o.ID, keyID, requestID, r.Source, r.Credits, r.Month, r.Day, r.Time).Scan(&id); err != nil {
			return err
		}
		r.ID = uint64(id)
		var b pgx.Batch
		o.settle(&b, a.Org, entries(a.Entry), a.Counters)
		o.save(&b)
		return run(ctx, tx, &b)
	})
	if err != nil {
		return state.Reservation{}, err
	}
	return r, nil
}

// entries is e as a list: empty when nil.
func entries(e *state.LedgerEntry) []state.LedgerEntry {
	if e == nil {
		return nil
	}
	return []state.LedgerEntry{*e}
}

const reservationColumns = "id, org, key_id, request_id, source, credits, month, day, time, state"

func scanReservation(row pgx.Row) (state.Reservation, string, error) {
	var r state.Reservation
	var id int64
	var st string
	err := row.Scan(&id, &r.OrgID, &r.KeyID, &r.RequestID, &r.Source, &r.Credits, &r.Month, &r.Day, &r.Time, &st)
	r.ID, r.Time = uint64(id), r.Time.UTC()
	return r, st, err
}

// lockReservation reads reservation r, as stored, under its row lock:
// ErrInvalid without an id; ErrNotFound when it was never made, made for
// another organisation, or refunded.
func lockReservation(ctx context.Context, tx pgx.Tx, r state.Reservation) (state.Reservation, string, error) {
	if r.ID == 0 {
		return state.Reservation{}, "", state.Errorf(state.ErrInvalid, "invalid reservation: no id")
	}
	if r.ID > 1<<63-1 {
		return state.Reservation{}, "", state.Errorf(state.ErrNotFound, "worded answer reservation %d not found", r.ID)
	}
	stored, st, err := scanReservation(tx.QueryRow(ctx, "SELECT "+reservationColumns+" FROM reservations WHERE id = $1 FOR UPDATE", int64(r.ID)))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return state.Reservation{}, "", state.Errorf(state.ErrNotFound, "worded answer reservation %d not found", r.ID)
	case err != nil:
		return state.Reservation{}, "", err
	case st == "refunded":
		return state.Reservation{}, "", state.Errorf(state.ErrNotFound, "worded answer reservation %d was refunded", r.ID)
	case stored.OrgID != r.OrgID:
		return state.Reservation{}, "", state.Errorf(state.ErrNotFound, "worded answer reservation %d of organisation %q not found", r.ID, r.OrgID)
	}
	return stored, st, nil
}

// CommitAnswer is bolt.Store.CommitAnswer.
func (s *Store) CommitAnswer(r state.Reservation) error {
	at := ts(s.clock())
	return s.tx(func(ctx context.Context, tx pgx.Tx) error {
		_, st, err := lockReservation(ctx, tx, r)
		if err != nil || st != "pending" {
			return err
		}
		_, err = tx.Exec(ctx, "UPDATE reservations SET state = 'committed', settled = $2 WHERE id = $1", int64(r.ID), at)
		return err
	})
}

// RefundAnswer is bolt.Store.RefundAnswer.
func (s *Store) RefundAnswer(r state.Reservation, now time.Time) error {
	at := s.nowOr(now)
	return s.tx(func(ctx context.Context, tx pgx.Tx) error {
		stored, st, err := lockReservation(ctx, tx, r)
		switch {
		case err != nil:
			return err
		case st != "pending":
			return state.Errorf(state.ErrNotFound, "worded answer reservation %d was committed; it cannot be refunded", r.ID)
		}
		o, err := lockOrg(ctx, tx, stored.OrgID)
		if err != nil {
			return err
		}
		return refund(ctx, tx, o, stored, at)
	})
}

// refund reverses the pending reservation r, as stored, inside tx, with
// its organisation o locked.
func refund(ctx context.Context, tx pgx.Tx, o *lockedOrg, r state.Reservation, at time.Time) error {
	for _, period := range []string{r.Month, r.Day} {
		c, cr, err := counterOf(ctx, tx, o.ID, state.AnswersCounter(period))
		if err != nil {
			return err
		}
		if c < 1 || cr < r.Credits {
			return state.Errorf(state.ErrCorrupt, "shared state is corrupt: refunding worded answer %d: usage counter %q of organisation %q holds %d, %d credits", r.ID, state.AnswersCounter(period), o.ID, c, cr)
		}
	}
	f, err := state.DecideRefund(o.Org, r, at)
	if err != nil {
		return err
	}
	var b pgx.Batch
	o.settle(&b, f.Org, entries(f.Entry), f.Counters)
	o.save(&b)
	b.Queue("UPDATE reservations SET state = 'refunded', settled = $2 WHERE id = $1", int64(r.ID), at)
	return run(ctx, tx, &b)
}

// RecoverPending refunds, in one transaction, the pending reservations
// made more than Options.RecoverAfter before now (by whichever node: one
// that stopped never settles its own) and returns how many it refunded.
// Younger ones may still be settled by the node wording them and are left.
// Several nodes may run it at once: each takes the reservations no other
// holds (FOR UPDATE SKIP LOCKED) and locks their organisations in id
// order, so each reservation is refunded once and no two runs deadlock.
// At most 1,000 are refunded per call. Errors: ErrCorrupt, naming the
// reservation; the database's. Nothing is refunded on error.
func (s *Store) RecoverPending(now time.Time) (int, error) {
	at := s.nowOr(now)
	before := at.Add(-s.recoverAfter)
	n := 0
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		n = 0
		rows, err := tx.Query(ctx, "SELECT "+reservationColumns+` FROM reservations
			WHERE state = 'pending' AND time <= $1 ORDER BY id LIMIT 1000 FOR UPDATE SKIP LOCKED`, before)
		if err != nil {
			return err
		}
		all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (state.Reservation, error) {
			res, _, err := scanReservation(r)
			return res, err
		})
		if err != nil || len(all) == 0 {
			return err
		}
		var ids []string
		for _, r := range all {
			ids = append(ids, r.OrgID)
		}
		slices.SortFunc(ids, strings.Compare)
		ids = slices.Compact(ids)
		orgs := map[string]*lockedOrg{}
		for _, id := range ids {
			if orgs[id], err = lockOrg(ctx, tx, id); err != nil {
				return err
			}
		}
		for _, r := range all {
			o := orgs[r.OrgID]
			o.debited = false
			if err := refund(ctx, tx, o, r, at); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
