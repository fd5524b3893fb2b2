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
// A caller may learn its write's outcome before the group is durable
// (commitEarly): the committer tells each caller what its check decided
// once every write of the group is applied, then commits. The caller can
// prepare its response (encode it, call the model) while the fsync runs,
// and must wait for durability before it sends anything that reports the
// write; if the commit fails, the decision is void and the wait says so.
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
	op      ledgerOp
	decided chan error // buffered: the check's outcome, before the commit
	done    chan error // buffered: the committer never waits for the caller
}

// newOp queues nothing yet: it is op with its answer channels.
func newOp(op ledgerOp) *queuedOp {
	return &queuedOp{op: op, decided: make(chan error, 1), done: make(chan error, 1)}
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
	durable, err := s.commitEarly(op)
	if err != nil {
		return err
	}
	return durable()
}

// commitEarly applies op through the committer and returns as soon as
// its group's writes are applied, before the group commits: err is op's
// refusal (or the group's failure, when it came first), and otherwise
// durable waits for the commit and returns its error. What op decided
// (the variables it set) may be read once commitEarly returns without
// error; nothing that reports it may leave the process before durable
// returns nil. durable must be called (it may be called once).
func (s *Store) commitEarly(op ledgerOp) (durable func() error, err error) {
	s = s.unaudited()
	q := newOp(op)
	c := &s.group
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		// Closing: run it alone; bbolt says the file is closed.
		s.applyGroup([]*queuedOp{q})
		return q.wait()
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

	select {
	case queue <- q:
	case <-quit:
		s.applyGroup([]*queuedOp{q})
	}
	return q.wait()
}

// wait returns once q is decided: its refusal, or the function that waits
// for its group's commit. A group that failed before deciding (a panic on
// a corrupt page) answers on done alone.
func (q *queuedOp) wait() (durable func() error, err error) {
	select {
	case err := <-q.decided:
		if err != nil {
			return nil, err
		}
		return func() error { return <-q.done }, nil
	case err := <-q.done:
		if err != nil {
			return nil, err
		}
		return func() error { return nil }, nil
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
		// Every write is in: tell each caller its outcome while the
		// transaction commits.
		for i, q := range group {
			select {
			case q.decided <- results[i]:
			default: // decided already (cannot happen: fn runs once)
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
