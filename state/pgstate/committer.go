package pgstate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
)

// Group commit of per-query charges, worded-answer reservations and their
// refunds. One of them in its own transaction takes four round trips
// (BEGIN, the row lock, the writes, COMMIT) and a WAL flush. Charge,
// ReserveAnswer and RefundAnswer instead hand their request to one
// committer goroutine per Store, which applies the requests that are
// waiting together, and answers each caller after its transaction has
// committed: a charge or reservation that is reported is durable.
//
// When the charges of a group are all one organisation's (a lone charge
// always is), they are first tried as one statement, one round trip: a
// conditional debit of their total (WHERE credits >= total) with their
// ledger entries and usage counters inserted from its RETURNING row, in
// data-modifying CTEs; PostgreSQL runs it as one transaction, under the
// row lock the UPDATE takes. A balance that covers the total charges
// every dataset, which is what the rule decides then. When the row is
// not updated (the balance does not cover it all, or no such
// organisation), nothing was written and the group takes the general way.
//
// The general way is one transaction of two round trips: BEGIN with the
// row locks of the reservations to refund and of the group's
// organisations (each in id order, as RecoverPending takes them, so that
// nodes never deadlock) and the worded-answer counters the group reads;
// then every reservation row, ledger entry, usage counter and balance with
// COMMIT, pipelined. Each request is decided in the order it arrived
// against the balances and counters the ones before it left, by the same
// rule as alone.
//
// A request refused (an unknown organisation, no allowance left, a
// reservation not pending) is refused alone. An error of the
// transaction (the database's, or the deadline) fails the whole group:
// PostgreSQL rolls it back and every caller in it gets the error. A
// deadlock (with another node's transaction) starts the group again from
// nothing: no caller had been answered.

// maxMeterGroup bounds the requests applied in one transaction.
const maxMeterGroup = 256

// Kinds of meterReq.
const (
	opCharge  = iota // Charge
	opReserve        // ReserveAnswer
	opRefund         // RefundAnswer
)

// meterReq is one Charge, ReserveAnswer or RefundAnswer waiting for the
// committer, and its outcome.
type meterReq struct {
	kind                    int
	orgID, keyID, requestID string
	sorted                  []state.DatasetPrice // a charge's, in CheckCharge's order
	cost                    int64                // a reservation's, as CheckReserve returned it
	rsv                     state.Reservation    // the reservation made, or to refund (as passed)
	at                      time.Time

	charged, leftOut []string
	err              error
	done             chan struct{}
}

// meterCommitter is a Store's group committer; it starts with the first
// request and stops when the Store closes.
type meterCommitter struct {
	mu      sync.Mutex
	started bool
	closed  bool
	queue   chan *meterReq // unbuffered: a request waits in the channel's queue
	quit    chan struct{}
	stopped chan struct{}
}

// commitMeter applies r through the committer and returns when its group
// has committed (or failed); r holds the outcome.
func (s *Store) commitMeter(r *meterReq) {
	r.done = make(chan struct{})
	c := s.meters
	if c == nil { // a Store of Migrate's, which charges nothing
		s.applyMeters([]*meterReq{r})
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		s.applyMeters([]*meterReq{r}) // the closed pool says so
		return
	}
	if !c.started {
		c.started = true
		c.queue = make(chan *meterReq)
		c.quit = make(chan struct{})
		c.stopped = make(chan struct{})
		go state.RunGroups(c.queue, maxMeterGroup, c.quit, c.stopped, s.applyMeters)
	}
	queue, quit := c.queue, c.quit
	c.mu.Unlock()
	select {
	case queue <- r:
		<-r.done
	case <-quit:
		s.applyMeters([]*meterReq{r})
	}
}

// stopMeterCommitter stops the committer after the group it is applying;
// later requests run alone.
func (s *Store) stopMeterCommitter() {
	c := s.meters
	if c == nil {
		return
	}
	c.mu.Lock()
	started, closed := c.started, c.closed
	c.closed = true
	c.mu.Unlock()
	if started && !closed {
		close(c.quit)
		<-c.stopped
	}
}

// applyMeters applies group in one transaction and answers each request
// (closes its done) after the commit, or with the group's error.
func (s *Store) applyMeters(group []*meterReq) {
	ctx, cancel := s.ctx()
	defer cancel()
	applied, err := s.chargeOneStatement(ctx, group)
	for attempt := 0; err == nil && !applied; attempt++ {
		err = s.meterGroup(ctx, group)
		if pgCode(err) == codeDeadlockDetected && attempt < 5 {
			err = nil
			continue
		}
		break
	}
	for _, r := range group {
		if err != nil {
			r.charged, r.leftOut, r.rsv, r.err = nil, nil, state.Reservation{}, s.wrap(err)
		}
		close(r.done)
	}
}

// meterGroup is one attempt of applyMeters: the transaction, with each
// request's outcome in it.
func (s *Store) meterGroup(ctx context.Context, group []*meterReq) (err error) {
	var ids, counterOrgs, counterNames []string
	var refunds []int64
	for _, r := range group {
		r.charged, r.leftOut, r.err = nil, nil, nil
		switch r.kind {
		case opReserve:
			r.rsv = state.Reservation{}
			for _, period := range []string{state.DayOf(r.at), state.MonthOf(r.at)} {
				counterOrgs, counterNames = append(counterOrgs, r.orgID), append(counterNames, state.AnswersCounter(period))
			}
		case opRefund:
			if r.rsv.ID > 0 && r.rsv.ID <= math.MaxInt64 {
				refunds = append(refunds, int64(r.rsv.ID))
			}
		}
		ids = append(ids, r.orgID)
	}
	slices.SortFunc(ids, strings.Compare)
	ids = slices.Compact(ids)
	slices.Sort(refunds)
	refunds = slices.Compact(refunds)

	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	open := false
	defer func() {
		if err != nil && open {
			// The transaction failed: end it, or the pool would hand
			// out a connection inside an aborted transaction.
			if _, rerr := conn.Exec(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
				conn.Conn().Close(context.WithoutCancel(ctx))
			}
		}
	}()

	// Round trip 1: BEGIN, the row locks (the reservations to refund
	// first, as RecoverPending takes them, then the organisations, each
	// in id order, so that nodes never deadlock), and the worded-answer
	// counters the requests read, once the organisations are locked.
	var lock pgx.Batch
	lock.Queue("BEGIN")
	stored := map[uint64]*storedReservation{}
	if len(refunds) > 0 {
		lock.Queue("SELECT "+reservationColumns+" FROM reservations WHERE id = ANY($1) ORDER BY id FOR UPDATE", refunds).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				r, st, err := scanReservation(rows)
				if err != nil {
					return err
				}
				stored[r.ID] = &storedReservation{r, st}
			}
			return rows.Err()
		})
	}
	orgs := map[string]*lockedOrg{}
	lock.Queue("SELECT "+orgColumns+", ledger_seq FROM orgs WHERE id = ANY($1) ORDER BY id FOR UPDATE", ids).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var l lockedOrg
			var err error
			if l.Org, err = scanOrg(rows, &l.seq); err != nil {
				return err
			}
			orgs[l.ID] = &l
		}
		return rows.Err()
	})
	type counterKey struct{ org, name string }
	have := map[counterKey][2]int64{} // the counters read, as the group changes them
	if len(counterNames) > 0 || len(refunds) > 0 {
		lock.Queue(`SELECT org, name, count, credits FROM usage
			WHERE (org, name) IN (SELECT * FROM unnest($1::text[], $2::text[]))
			OR (org, name) IN (SELECT r.org, $3 || p FROM reservations r, unnest(ARRAY[r.month, r.day]) AS p WHERE r.id = ANY($4))`,
			counterOrgs, counterNames, state.AnswersCounter(""), refunds).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var k counterKey
				var c [2]int64
				if err := rows.Scan(&k.org, &k.name, &c[0], &c[1]); err != nil {
					return err
				}
				have[k] = c
			}
			return rows.Err()
		})
	}
	open = true
	if err = conn.SendBatch(ctx, &lock).Close(); err != nil {
		return err
	}

	// Round trip 2: every request's writes, and COMMIT. Each is decided
	// in the order it arrived, against what the ones before it left.
	var b pgx.Batch
	var order []counterKey
	counters := map[counterKey][2]int64{} // the changes, summed: one statement each
	count := func(org string, changes []state.CounterChange) {
		for _, ch := range changes {
			k := counterKey{org, ch.Name}
			sum, seen := counters[k]
			if !seen {
				order = append(order, k)
			}
			counters[k] = [2]int64{sum[0] + ch.Count, sum[1] + ch.Credits}
			h := have[k]
			have[k] = [2]int64{h[0] + ch.Count, h[1] + ch.Credits}
		}
	}
	for _, r := range group {
		o := orgs[r.orgID]
		switch r.kind {
		case opCharge:
			if o == nil {
				r.err = notFoundOrg(r.orgID)
				continue
			}
			c := state.DecideCharge(o.Org, r.keyID, r.requestID, r.sorted, r.at)
			r.charged, r.leftOut = c.Charged, c.LeftOut
			o.settle(&b, c.Org, c.Entries, nil)
			count(o.ID, c.Counters)
		case opReserve:
			if o == nil {
				r.err = notFoundOrg(r.orgID)
				continue
			}
			day := have[counterKey{o.ID, state.AnswersCounter(state.DayOf(r.at))}][0]
			month := have[counterKey{o.ID, state.AnswersCounter(state.MonthOf(r.at))}][0]
			a, err := state.DecideAnswer(o.Org, r.keyID, r.requestID, r.cost, r.at, day, month)
			if err != nil {
				r.err = err
				continue
			}
			r.rsv = a.Reservation
			b.Queue(`INSERT INTO reservations (org, key_id, request_id, source, credits, month, day, time)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
				o.ID, r.keyID, r.requestID, r.rsv.Source, r.rsv.Credits, r.rsv.Month, r.rsv.Day, r.rsv.Time).QueryRow(func(row pgx.Row) error {
				var id int64
				err := row.Scan(&id)
				r.rsv.ID = uint64(id)
				return err
			})
			o.settle(&b, a.Org, entries(a.Entry), nil)
			count(o.ID, a.Counters)
		case opRefund:
			st, err := checkRefundable(r.rsv, stored[r.rsv.ID])
			if err != nil {
				r.err = err
				continue
			}
			if o == nil { // the reservation names it: it exists, locked
				return fmt.Errorf("organisation %q of reservation %d was not locked", r.orgID, r.rsv.ID)
			}
			for _, period := range []string{st.r.Month, st.r.Day} {
				c := have[counterKey{o.ID, state.AnswersCounter(period)}]
				if c[0] < 1 || c[1] < st.r.Credits {
					r.err = state.Errorf(state.ErrCorrupt, "shared state is corrupt: refunding worded answer %d: usage counter %q of organisation %q holds %d, %d credits", st.r.ID, state.AnswersCounter(period), o.ID, c[0], c[1])
					break
				}
			}
			if r.err != nil {
				continue
			}
			f, err := state.DecideRefund(o.Org, st.r, r.at)
			if err != nil {
				r.err = err
				continue
			}
			o.settle(&b, f.Org, entries(f.Entry), nil)
			count(o.ID, f.Counters)
			st.state = "refunded"
			b.Queue("UPDATE reservations SET state = 'refunded', settled = $2 WHERE id = $1", int64(st.r.ID), r.at)
		}
	}
	for _, k := range order {
		c := counters[k]
		addCounter(&b, k.org, k.name, c[0], c[1])
	}
	for _, id := range ids {
		if o := orgs[id]; o != nil {
			o.save(&b)
		}
	}
	b.Queue("COMMIT")
	if err = conn.SendBatch(ctx, &b).Close(); err != nil {
		return err
	}
	open = false
	return nil
}

// storedReservation is a reservation as stored, with its state, under its
// row lock.
type storedReservation struct {
	r     state.Reservation
	state string
}

// checkRefundable is RefundAnswer's check of reservation r (as passed)
// against st, the row of its id (nil when there is none): ErrInvalid
// without an id; ErrNotFound when it was never made, made for another
// organisation, refunded or committed.
func checkRefundable(r state.Reservation, st *storedReservation) (*storedReservation, error) {
	switch {
	case r.ID == 0:
		return nil, state.Errorf(state.ErrInvalid, "invalid reservation: no id")
	case st == nil:
		return nil, state.Errorf(state.ErrNotFound, "worded answer reservation %d not found", r.ID)
	case st.state == "refunded":
		return nil, state.Errorf(state.ErrNotFound, "worded answer reservation %d was refunded", r.ID)
	case st.r.OrgID != r.OrgID:
		return nil, state.Errorf(state.ErrNotFound, "worded answer reservation %d of organisation %q not found", r.ID, r.OrgID)
	case st.state != "pending":
		return nil, state.Errorf(state.ErrNotFound, "worded answer reservation %d was committed; it cannot be refunded", r.ID)
	}
	return st, nil
}

// chargeStatement is the one-statement charge: $1 the organisation, $2
// the total debit, $3 the number of ledger entries, then the entries'
// columns and the usage counters' as arrays. It returns the organisations
// updated: 1, or 0 when nothing was written.
const chargeStatement = `WITH o AS (
	UPDATE orgs SET credits = credits - $2, ledger_seq = ledger_seq + $3
	WHERE id = $1 AND credits >= $2
	RETURNING id, credits, ledger_seq
), l AS (
	INSERT INTO ledger (org, seq, time, kind, credits, balance, note, key_id, dataset, request_id)
	SELECT o.id, o.ledger_seq - $3 + e.n, e.time, '` + state.LedgerCharge + `', e.credits, o.credits + e.after, e.note, e.key_id, e.dataset, e.request_id
	FROM o, unnest($4::timestamptz[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[])
		WITH ORDINALITY AS e(time, credits, after, note, key_id, dataset, request_id, n)
), u AS (
	INSERT INTO usage (org, name, count, credits)
	SELECT o.id, c.name, c.count, c.credits FROM o, unnest($11::text[], $12::bigint[], $13::bigint[]) AS c(name, count, credits)
	ON CONFLICT (org, name) DO UPDATE SET count = usage.count + excluded.count, credits = usage.credits + excluded.credits
)
SELECT count(*) FROM o`

// chargeOneStatement applies group in one statement when its charges are
// all one organisation's and its balance covers them all, and says
// whether it did; with false and no error nothing was written.
func (s *Store) chargeOneStatement(ctx context.Context, group []*meterReq) (bool, error) {
	org := group[0].orgID
	var total int64
	for _, r := range group {
		if r.kind != opCharge || r.orgID != org {
			return false, nil
		}
		for _, d := range r.sorted {
			if d.Price > math.MaxInt64-total {
				return false, nil // no balance covers it: the rule leaves some out
			}
			total += d.Price
		}
	}
	// The rule, against a balance of exactly the total: everything is
	// charged, and each entry's balance is what is left of the total after
	// it, to which the statement adds the balance left after them all.
	var (
		times                           []time.Time
		credits, after                  []int64
		notes, keys, datasets, requests []string
		names                           []string
		counts, counted                 []int64
		outcome                         = make([]state.Charges, len(group))
		at                              = map[string]int{}
	)
	left := state.Org{ID: org, Credits: total}
	for i, r := range group {
		c := state.DecideCharge(left, r.keyID, r.requestID, r.sorted, r.at)
		if len(c.LeftOut) > 0 {
			return false, nil // cannot happen: the total covers each
		}
		left, outcome[i] = c.Org, c
		for _, e := range c.Entries {
			times, credits, after = append(times, e.Time), append(credits, e.Credits), append(after, e.Balance)
			notes, keys, datasets, requests = append(notes, e.Note), append(keys, e.KeyID), append(datasets, e.Dataset), append(requests, e.RequestID)
		}
		// One row per counter: a statement may not update a row twice.
		for _, ch := range c.Counters {
			j, seen := at[ch.Name]
			if !seen {
				j = len(names)
				at[ch.Name] = j
				names, counts, counted = append(names, ch.Name), append(counts, 0), append(counted, 0)
			}
			counts[j] += ch.Count
			counted[j] += ch.Credits
		}
	}
	var n int
	err := s.pool.QueryRow(ctx, chargeStatement, org, total, len(times),
		times, credits, after, notes, keys, datasets, requests, names, counts, counted).Scan(&n)
	if err != nil || n == 0 {
		return false, err
	}
	for i, r := range group {
		r.charged, r.leftOut, r.err = outcome[i].Charged, nil, nil
	}
	return true, nil
}
