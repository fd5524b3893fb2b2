package pgstate

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
)

// Group commit of per-query charges. A charge in its own transaction
// takes four round trips (BEGIN, the row lock, the writes, COMMIT) and a
// WAL flush. Charge instead hands its request to one committer goroutine
// per Store, which applies the charges that are waiting together, and
// answers each caller after its transaction has committed: a charge that
// is reported is durable.
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
// row locks of the group's organisations (in id order, as RecoverPending
// takes them, so that nodes never deadlock), then every ledger entry,
// usage counter and balance with COMMIT, pipelined. Each charge is
// decided in the order it arrived against the balance the charges before
// it left, by the same rule as alone.
//
// A charge for an unknown organisation is refused alone. An error of the
// transaction (the database's, or the deadline) fails the whole group:
// PostgreSQL rolls it back and every caller in it gets the error. A
// deadlock (with another node's transaction) starts the group again from
// nothing: no caller had been answered.

// maxChargeGroup bounds the charges applied in one transaction.
const maxChargeGroup = 256

// chargeReq is one Charge waiting for the committer.
type chargeReq struct {
	orgID, keyID, requestID string
	sorted                  []state.DatasetPrice // CheckCharge's order
	at                      time.Time

	charged, leftOut []string
	err              error
	done             chan struct{}
}

// chargeCommitter is a Store's charge committer; it starts with the first
// charge and stops when the Store closes.
type chargeCommitter struct {
	mu      sync.Mutex
	started bool
	closed  bool
	queue   chan *chargeReq // unbuffered: a charge waits in the channel's queue
	quit    chan struct{}
	stopped chan struct{}
}

// commitCharge applies r through the committer and returns when its group
// has committed (or failed); r holds the outcome.
func (s *Store) commitCharge(r *chargeReq) {
	r.done = make(chan struct{})
	c := s.charges
	if c == nil { // a Store of Migrate's, which charges nothing
		s.applyCharges([]*chargeReq{r})
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		s.applyCharges([]*chargeReq{r}) // the closed pool says so
		return
	}
	if !c.started {
		c.started = true
		c.queue = make(chan *chargeReq)
		c.quit = make(chan struct{})
		c.stopped = make(chan struct{})
		go state.RunGroups(c.queue, maxChargeGroup, c.quit, c.stopped, s.applyCharges)
	}
	queue, quit := c.queue, c.quit
	c.mu.Unlock()
	select {
	case queue <- r:
		<-r.done
	case <-quit:
		s.applyCharges([]*chargeReq{r})
	}
}

// stopChargeCommitter stops the committer after the group it is applying;
// later charges run alone.
func (s *Store) stopChargeCommitter() {
	c := s.charges
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

// applyCharges applies group in one transaction and answers each charge
// (closes its done) after the commit, or with the group's error.
func (s *Store) applyCharges(group []*chargeReq) {
	ctx, cancel := s.ctx()
	defer cancel()
	applied, err := s.chargeOneStatement(ctx, group)
	for attempt := 0; err == nil && !applied; attempt++ {
		err = s.chargeGroup(ctx, group)
		if pgCode(err) == codeDeadlockDetected && attempt < 5 {
			err = nil
			continue
		}
		break
	}
	for _, r := range group {
		if err != nil {
			r.charged, r.leftOut, r.err = nil, nil, s.wrap(err)
		}
		close(r.done)
	}
}

// chargeGroup is one attempt of applyCharges: the transaction, with each
// charge's outcome in its request.
func (s *Store) chargeGroup(ctx context.Context, group []*chargeReq) (err error) {
	var ids []string
	for _, r := range group {
		r.charged, r.leftOut, r.err = nil, nil, nil
		ids = append(ids, r.orgID)
	}
	slices.SortFunc(ids, strings.Compare)
	ids = slices.Compact(ids)

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

	// Round trip 1: BEGIN and the row locks.
	var lock pgx.Batch
	lock.Queue("BEGIN")
	lock.Queue("SELECT "+orgColumns+", ledger_seq FROM orgs WHERE id = ANY($1) ORDER BY id FOR UPDATE", ids)
	br := conn.SendBatch(ctx, &lock)
	open = true
	orgs := map[string]*lockedOrg{}
	if _, err = br.Exec(); err == nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			for rows.Next() {
				var l lockedOrg
				if l.Org, err = scanOrg(rows, &l.seq); err != nil {
					break
				}
				orgs[l.ID] = &l
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}

	// Round trip 2: every charge's writes, and COMMIT.
	var b pgx.Batch
	type counterKey struct{ org, name string }
	var order []counterKey
	counters := map[counterKey][2]int64{}
	for _, r := range group {
		o := orgs[r.orgID]
		if o == nil {
			r.err = notFoundOrg(r.orgID)
			continue
		}
		c := state.DecideCharge(o.Org, r.keyID, r.requestID, r.sorted, r.at)
		r.charged, r.leftOut = c.Charged, c.LeftOut
		// The counters of the group are summed: one statement each.
		o.settle(&b, c.Org, c.Entries, nil)
		for _, ch := range c.Counters {
			k := counterKey{o.ID, ch.Name}
			sum, seen := counters[k]
			if !seen {
				order = append(order, k)
			}
			counters[k] = [2]int64{sum[0] + ch.Count, sum[1] + ch.Credits}
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
func (s *Store) chargeOneStatement(ctx context.Context, group []*chargeReq) (bool, error) {
	org := group[0].orgID
	var total int64
	for _, r := range group {
		if r.orgID != org {
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
