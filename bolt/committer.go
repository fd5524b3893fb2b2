package bolt

import (
	"frameindex/state"
	"sync"

	bbolt "go.etcd.io/bbolt"
)

// Group commit of the ledger. Every bbolt write transaction ends in an
// fsync, and bbolt runs one writer at a time, so with one transaction per
// request charged traffic is bounded by the disk's sync rate. Charge,
// ReserveAnswer, CommitAnswer and RefundAnswer instead hand their write to
// one committer goroutine, which applies the writes that are waiting in
// one transaction (one fsync) and answers each caller only after that
// transaction has committed: a caller that is told "charged" can report
// the charge, as its ledger entry is on disk.
//
// bbolt's own DB.Batch is not used: it may run a function more than once
// (when another in its batch fails), which suits idempotent work only.
// Here each write runs exactly once, in the order it arrived, against the
// balances and counters the writes before it in the group left: the
// balance is never overspent, as with one transaction each.
//
// A write is split in two (ledgerOp): a check, which reads and decides
// and may refuse (no allowance, a reservation not found, an unknown
// organisation) without writing anything, and the write of what it
// decided. A refusal answers that caller alone; the others of its group
// are applied. An error while writing, or from the commit, fails the whole
// transaction: bbolt rolls every write of the group back and every caller
// in the group gets the error, so nothing is half-written.

// ledgerOp checks one request's ledger write inside the group's
// transaction and returns the function that writes it. It must not write
// before it returns: a refusal (err != nil) leaves tx as it found it.
type ledgerOp func(tx *bbolt.Tx) (write func() error, err error)

// maxGroup bounds the writes applied in one transaction, so that one
// group's transaction (held in memory until it commits) stays small.
const maxGroup = 256

// queuedOp is a ledgerOp waiting for the committer, and where its result
// goes.
type queuedOp struct {
	op   ledgerOp
	done chan error // buffered: the committer never waits for the caller
}

// committer is a Store's group committer. It starts with the first write
// and stops when the Store closes.
type committer struct {
	mu      sync.Mutex
	started bool
	closed  bool
	queue   chan *queuedOp // unbuffered: a write waits in the channel's queue
	quit    chan struct{}
	stopped chan struct{}
}

// commit applies op through the committer and returns when the group it
// was applied in is durable (or failed): the error of its check, of the
// group's transaction, or nil.
//
// The committer writes no audit entry: a handle of Audited hands its
// ledger writes to the same committer as every other handle, and its entry
// goes with its own change.
func (s *Store) commit(op ledgerOp) error {
	s = s.unaudited()
	c := &s.group
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		// Closing: run it alone; bbolt says the file is closed.
		return s.applyGroup([]*queuedOp{{op: op, done: make(chan error, 1)}})
	}
	if !c.started {
		c.started = true
		c.queue = make(chan *queuedOp)
		c.quit = make(chan struct{})
		c.stopped = make(chan struct{})
		// The committer goroutine: while one group is being synced, the
		// next one gathers.
		go state.RunGroups(c.queue, maxGroup, c.quit, c.stopped, func(g []*queuedOp) { s.applyGroup(g) })
	}
	queue, quit := c.queue, c.quit
	c.mu.Unlock()

	q := &queuedOp{op: op, done: make(chan error, 1)}
	select {
	case queue <- q:
		return <-q.done
	case <-quit:
		return s.applyGroup([]*queuedOp{q})
	}
}

// applyGroup applies group in one write transaction and answers each
// write on its done channel once the transaction has committed (or
// failed). It returns the first write's result, for the callers that run
// a group of one themselves.
func (s *Store) applyGroup(group []*queuedOp) error {
	results := make([]error, len(group))
	err := s.update(func(tx *bbolt.Tx) error {
		// update runs this again only when Compact swapped the file
		// before it began, so before any op ran.
		clear(results)
		for i, q := range group {
			write, err := q.op(tx)
			if err != nil {
				results[i] = err
				continue
			}
			if err := write(); err != nil {
				return err
			}
		}
		return nil
	})
	for i, q := range group {
		if err != nil {
			results[i] = err
		}
		q.done <- results[i]
	}
	return results[0]
}

// stopCommitter stops the committer goroutine, after the group it is
// applying; later writes run alone. Close calls it before closing the file.
func (s *Store) stopCommitter() {
	c := &s.group
	c.mu.Lock()
	started, closed := c.started, c.closed
	c.closed = true
	c.mu.Unlock()
	if started && !closed {
		close(c.quit)
		<-c.stopped
	}
}
