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

// Charge is bolt.Store.Charge. The charges of concurrent requests on this
// node are applied together, in one transaction under their
// organisations' row locks (SELECT … FOR UPDATE), so that charges on any
// number of nodes run one after another against the balance the last one
// left; Charge returns once its transaction has committed (committer.go).
func (s *Store) Charge(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) (charged, leftOut []string, err error) {
	if len(ds) == 0 {
		return nil, nil, nil
	}
	sorted, err := state.CheckCharge(keyID, requestID, ds)
	if err != nil {
		return nil, nil, err
	}
	r := &meterReq{orgID: orgID, keyID: keyID, requestID: requestID, sorted: sorted, at: s.nowOr(now)}
	s.commitMeter(r)
	if r.err != nil {
		return nil, nil, r.err
	}
	return r.charged, r.leftOut, nil
}

// counterOf reads a usage counter in tx; one that does not exist is zero.
func counterOf(ctx context.Context, tx pgx.Tx, org, name string) (count, credits int64, err error) {
	err = tx.QueryRow(ctx, "SELECT count, credits FROM usage WHERE org = $1 AND name = $2", org, name).Scan(&count, &credits)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, nil
	}
	return count, credits, err
}

// ReserveAnswer is bolt.Store.ReserveAnswer: the reservations, refunds
// and charges of concurrent requests on this node are applied together,
// in one transaction under their organisations' row locks, of two round
// trips (committer.go); the reservation is a row in state pending.
func (s *Store) ReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (state.Reservation, error) {
	cost, err := state.CheckReserve(keyID, requestID, creditCost)
	if err != nil {
		return state.Reservation{}, err
	}
	r := &meterReq{kind: opReserve, orgID: orgID, keyID: keyID, requestID: requestID, cost: cost, at: s.nowOr(now)}
	s.commitMeter(r)
	if r.err != nil {
		return state.Reservation{}, r.err
	}
	return r.rsv, nil
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

// CommitAnswer is bolt.Store.CommitAnswer: one statement, one round trip,
// when the reservation is pending; one more to say why when it is not.
func (s *Store) CommitAnswer(r state.Reservation) error {
	lookup := func() error {
		return s.tx(func(ctx context.Context, tx pgx.Tx) error {
			_, _, err := lockReservation(ctx, tx, r)
			return err
		})
	}
	if r.ID == 0 || r.ID > 1<<63-1 {
		return lookup()
	}
	ctx, cancel := s.ctx()
	defer cancel()
	tag, err := s.pool.Exec(ctx, "UPDATE reservations SET state = 'committed', settled = $3 WHERE id = $1 AND org = $2 AND state = 'pending'",
		int64(r.ID), r.OrgID, ts(s.clock()))
	if err != nil {
		return s.wrap(err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	// Not pending: committed already (nothing to do), refunded, never
	// made, or another organisation's.
	return lookup()
}

// RefundAnswer is bolt.Store.RefundAnswer, applied with the other
// requests' ledger writes as ReserveAnswer is.
func (s *Store) RefundAnswer(r state.Reservation, now time.Time) error {
	q := &meterReq{kind: opRefund, orgID: r.OrgID, rsv: r, at: s.nowOr(now)}
	s.commitMeter(q)
	return q.err
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
