package pgstate

import (
	"context"
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
// per Store, which applies the charges that are waiting in one
// transaction of two round trips: BEGIN with the row locks of their
// organisations (in id order, as RecoverPending takes them, so that nodes
// never deadlock), then every ledger entry, usage counter and balance
// with COMMIT, pipelined. Each charge is decided in the order it arrived
// against the balance the charges before it left, by the same rule as
// alone, and each caller is answered after COMMIT returns: a charge that
// is reported is durable. One alone takes two round trips; n waiting
// together take two.
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
	var err error
	for attempt := 0; ; attempt++ {
		err = s.chargeGroup(ctx, group)
		if pgCode(err) == codeDeadlockDetected && attempt < 5 {
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
