package pgstate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"frameindex/bolt"

	"github.com/jackc/pgx/v5"
)

// Charge is bolt.Store.Charge. The charges of concurrent requests on this
// node are applied together, in one transaction under their
// organisations' row locks (SELECT … FOR UPDATE), so that charges on any
// number of nodes run one after another against the balance the last one
// left; Charge returns once its transaction has committed (committer.go).
func (s *Store) Charge(orgID, keyID, requestID string, ds []bolt.DatasetPrice, now time.Time) (charged, leftOut []string, err error) {
	if len(ds) == 0 {
		return nil, nil, nil
	}
	sorted, err := bolt.CheckCharge(keyID, requestID, ds)
	if err != nil {
		return nil, nil, err
	}
	r := &chargeReq{orgID: orgID, keyID: keyID, requestID: requestID, sorted: sorted, at: s.nowOr(now)}
	s.commitCharge(r)
	if r.err != nil {
		return nil, nil, r.err
	}
	return nilIfEmpty(r.charged), nilIfEmpty(r.leftOut), nil
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
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
func (s *Store) ReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (bolt.Reservation, error) {
	if err := bolt.CheckRef("key id", keyID); err != nil {
		return bolt.Reservation{}, err
	}
	if err := bolt.CheckRef("request id", requestID); err != nil {
		return bolt.Reservation{}, err
	}
	if creditCost <= 0 {
		creditCost = 1
	}
	at := s.nowOr(now)
	var r bolt.Reservation
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		r = bolt.Reservation{OrgID: orgID, KeyID: keyID, RequestID: requestID, Month: bolt.MonthOf(at), Day: bolt.DayOf(at), Time: at}
		o, err := lockOrg(ctx, tx, orgID)
		if err != nil {
			return err
		}
		day, _, err := counterOf(ctx, tx, o.ID, bolt.AnswersCounter(r.Day))
		if err != nil {
			return err
		}
		if day >= bolt.DailyCeiling {
			return bolt.Errorf(bolt.ErrNoAllowance, "organisation %s has reached the daily ceiling of %s worded answers (UTC day %s)", o.ID, bolt.GroupDigits(bolt.DailyCeiling), r.Day)
		}
		month, _, err := counterOf(ctx, tx, o.ID, bolt.AnswersCounter(r.Month))
		if err != nil {
			return err
		}
		allowance := int64(bolt.PlanAllowance[o.Plan])
		switch {
		case month < allowance:
			r.Source = bolt.SourceAllowance
		case o.Credits >= creditCost:
			r.Source, r.Credits = bolt.SourceCredits, creditCost
		default:
			return bolt.Errorf(bolt.ErrNoAllowance, "organisation %s: the monthly allowance of %s worded answers and credits are spent (UTC month %s; %s left, a worded answer costs %s)",
				o.ID, bolt.GroupDigits(allowance), r.Month, bolt.CreditsText(o.Credits), bolt.CreditsText(creditCost))
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO reservations (org, key_id, request_id, source, credits, month, day, time)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
			o.ID, keyID, requestID, r.Source, r.Credits, r.Month, r.Day, r.Time).Scan(&id); err != nil {
			return err
		}
		r.ID = uint64(id)
		var b pgx.Batch
		if r.Source == bolt.SourceCredits {
			o.Credits -= r.Credits
			e := bolt.LedgerEntry{
				Time: at, Kind: bolt.LedgerAnswer, Credits: -r.Credits, Balance: o.Credits,
				Note: bolt.NoteAnswer, KeyID: keyID, RequestID: requestID,
			}
			o.appendLedger(&b, &e)
			o.save(&b)
		}
		for _, period := range []string{r.Month, r.Day} {
			addCounter(&b, o.ID, bolt.AnswersCounter(period), 1, r.Credits)
		}
		return run(ctx, tx, &b)
	})
	if err != nil {
		return bolt.Reservation{}, err
	}
	return r, nil
}

const reservationColumns = "id, org, key_id, request_id, source, credits, month, day, time, state"

func scanReservation(row pgx.Row) (bolt.Reservation, string, error) {
	var r bolt.Reservation
	var id int64
	var st string
	err := row.Scan(&id, &r.OrgID, &r.KeyID, &r.RequestID, &r.Source, &r.Credits, &r.Month, &r.Day, &r.Time, &st)
	r.ID, r.Time = uint64(id), r.Time.UTC()
	return r, st, err
}

// lockReservation reads reservation r, as stored, under its row lock:
// ErrInvalid without an id; ErrNotFound when it was never made, made for
// another organisation, or refunded.
func lockReservation(ctx context.Context, tx pgx.Tx, r bolt.Reservation) (bolt.Reservation, string, error) {
	if r.ID == 0 {
		return bolt.Reservation{}, "", bolt.Errorf(bolt.ErrInvalid, "invalid reservation: no id")
	}
	if r.ID > 1<<63-1 {
		return bolt.Reservation{}, "", bolt.Errorf(bolt.ErrNotFound, "worded answer reservation %d not found", r.ID)
	}
	stored, st, err := scanReservation(tx.QueryRow(ctx, "SELECT "+reservationColumns+" FROM reservations WHERE id = $1 FOR UPDATE", int64(r.ID)))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return bolt.Reservation{}, "", bolt.Errorf(bolt.ErrNotFound, "worded answer reservation %d not found", r.ID)
	case err != nil:
		return bolt.Reservation{}, "", err
	case st == "refunded":
		return bolt.Reservation{}, "", bolt.Errorf(bolt.ErrNotFound, "worded answer reservation %d was refunded", r.ID)
	case stored.OrgID != r.OrgID:
		return bolt.Reservation{}, "", bolt.Errorf(bolt.ErrNotFound, "worded answer reservation %d of organisation %q not found", r.ID, r.OrgID)
	}
	return stored, st, nil
}

// CommitAnswer is bolt.Store.CommitAnswer: one statement, one round trip,
// when the reservation is pending; one more to say why when it is not.
func (s *Store) CommitAnswer(r bolt.Reservation) error {
	if r.ID == 0 || r.ID > 1<<63-1 {
		return s.tx(func(ctx context.Context, tx pgx.Tx) error {
			_, _, err := lockReservation(ctx, tx, r)
			return err
		})
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
	return s.tx(func(ctx context.Context, tx pgx.Tx) error {
		_, _, err := lockReservation(ctx, tx, r)
		return err
	})
}

// RefundAnswer is bolt.Store.RefundAnswer.
func (s *Store) RefundAnswer(r bolt.Reservation, now time.Time) error {
	at := s.nowOr(now)
	return s.tx(func(ctx context.Context, tx pgx.Tx) error {
		stored, st, err := lockReservation(ctx, tx, r)
		switch {
		case err != nil:
			return err
		case st != "pending":
			return bolt.Errorf(bolt.ErrNotFound, "worded answer reservation %d was committed; it cannot be refunded", r.ID)
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
func refund(ctx context.Context, tx pgx.Tx, o *lockedOrg, r bolt.Reservation, at time.Time) error {
	for _, period := range []string{r.Month, r.Day} {
		c, cr, err := counterOf(ctx, tx, o.ID, bolt.AnswersCounter(period))
		if err != nil {
			return err
		}
		if c < 1 || cr < r.Credits {
			return bolt.Errorf(bolt.ErrCorrupt, "shared state is corrupt: refunding worded answer %d: usage counter %q of organisation %q holds %d, %d credits", r.ID, bolt.AnswersCounter(period), o.ID, c, cr)
		}
	}
	var b pgx.Batch
	for _, period := range []string{r.Month, r.Day} {
		addCounter(&b, o.ID, bolt.AnswersCounter(period), -1, -r.Credits)
	}
	if r.Source == bolt.SourceCredits {
		if o.Credits > 1<<63-1-r.Credits {
			return bolt.Errorf(bolt.ErrInvalid, "organisation %s has %s; refunding %d would pass the largest balance", o.ID, bolt.CreditsText(o.Credits), r.Credits)
		}
		o.Credits += r.Credits
		e := bolt.LedgerEntry{
			Time: at, Kind: bolt.LedgerRefund, Credits: r.Credits, Balance: o.Credits,
			Note: bolt.NoteRefund, KeyID: r.KeyID, RequestID: r.RequestID,
		}
		o.appendLedger(&b, &e)
		o.save(&b)
	}
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
		all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (bolt.Reservation, error) {
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
