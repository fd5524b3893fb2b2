package bolt

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// Group commit of the ledger. Every bbolt write transaction ends in an
// fsync, and bbolt runs one writer at a time, so with one transaction per
// request charged traffic is bounded by the disk's sync rate. Charge,
// ReserveAnswer, CommitAnswer and RefundAnswer instead hand their write to
// one committer goroutine, which applies the writes that are waiting as
// one group (one sync) and answers each caller only after the group is
// durable: a caller that is told "charged" can report the charge, as its
// ledger entry is on disk. A group is made durable by a record in the
// ledger's journal (journal.go) while the transaction stays open for the
// next groups, and the transaction is committed into the data file every
// foldEvery or when asked (an epoch, applyOpen); without a journal each
// group is committed.
//
// bbolt's own DB.Batch is not used: it may run a function more than once
// (when another in its batch fails), which suits idempotent work only.
// Here each write runs exactly once, in the order it arrived, against the
// balances and counters the writes before it in the group left: the
// balance is never overspent, as with one transaction each.
//
// A caller learns its write's outcome before the group is durable
// (commitEarly): the committer applies each write as it arrives, in the
// group's open transaction, and tells its caller what the check decided at
// once. The caller prepares its response (encodes it, calls the model)
// and must wait for durability before it sends anything that reports the
// write; if the commit fails, the decision is void and the wait says so.
//
// When a group commits decides what a charge costs. It commits when one
// of its callers starts waiting for durability and either no other
// request has said a charge of its own is coming (ExpectCharge) or the
// group holds minGroup writes; when it is full (maxGroup); or
// maxCommitDelay after it opened; whichever comes first.
//   - Committing as soon as the committer is free gives every charge its
//     own commit: this disk syncs in a tenth of a millisecond, far less
//     than the time between two charges, so groups stay of one (measured:
//     0.13 ms of CPU a charged data call, a quarter of its cost).
//   - Waiting for the first caller that needs the commit is not enough: a
//     data call reads its frames before it knows what to charge and
//     writes its answer in microseconds after. The requests still reading
//     are what a group should wait for, and they say so (PostgreSQL's
//     commit_delay with commit_siblings, made exact).
//   - A lone caller is never held: it pays the commit's latency instead of
//     overlapping it with its response.
//
// While an epoch is open it holds bbolt's one write transaction: another
// writer asks it to fold (update pokes the committer) and waits for that
// commit, and the group being gathered is committed with it.
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

// maxCommitDelay bounds how long a group stays open for later writes when
// none of its callers waits for it yet (a reservation's caller calls the
// model first): other writers wait at most this long for bbolt's lock.
var maxCommitDelay = 2 * time.Millisecond

// minGroup is the group a waiting caller commits without waiting for the
// charges still expected: three writes per core. Waiting for every
// expected charge gathers the whole concurrency into one group, which then
// waits for the disk with no request left reading, and the cores idle
// (measured at 8 connections on 2 cores: 14 % idle, 0.77 of the uncharged
// call's throughput where committing at 4 gives 0.84); committing at once
// keeps groups of one or two, whose commits cost more CPU than the idling.
// Two per core was best while a record took a write and an fdatasync;
// with direct writes (journal.go), which block for less, three per core
// serves 1.4 % more charged calls (medians of 9 runs each, 4 and 8 fewer).
var minGroup = 3 * runtime.GOMAXPROCS(0)

// ExpectCharge says a charge or reservation of the caller's is probably
// coming (state.ChargeExpecter): a group that would commit waits for it,
// as long as maxCommitDelay allows. The caller calls arrived once its
// write has been decided (StartCharge returned) or will not come; arrived
// may be called more than once. Every expectation must end in arrived,
// or groups wait their full maxCommitDelay.
func (s *Store) ExpectCharge() (arrived func()) {
	s = s.unaudited()
	c := s.group.start(s)
	c.expected.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			if c.expected.Add(-1) == 0 {
				select {
				case c.expectGone <- struct{}{}:
				default:
				}
			}
		})
	}
}

// queuedOp is a ledgerOp waiting for the committer, and where its result
// goes.
type queuedOp struct {
	op      ledgerOp
	decided chan error // buffered: the check's outcome, before the commit
	done    chan error // buffered: the committer never waits for the caller
	group   *openGroup // the group it was applied in; set before decided
}

// openGroup is a group the committer keeps open for more writes; a caller
// that needs its write durable asks for the commit (commitNow).
type openGroup struct {
	once sync.Once
	want chan struct{} // closed by the first caller that waits for durability
}

func (g *openGroup) commitNow() { g.once.Do(func() { close(g.want) }) }

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

	expected   atomic.Int64  // requests whose charge is coming (ExpectCharge)
	expectGone chan struct{} // buffered: expected fell to 0

	foldReq chan struct{} // buffered: a writer or a reader wants the epoch folded
	// dirty says the journal holds writes the data file does not: a
	// reader of the ledger asks for a fold first (settled).
	dirty     atomic.Bool
	epochDone chan struct{} // under mu: closed when the running epoch ends; nil between epochs

	stats struct { // LedgerStats
		groups, writes, writeNanos, folds atomic.Uint64
	}
}

// LedgerStats counts the group committer's work since the store opened,
// for the metrics: how many ledger writes (charges, answer reservations,
// refunds) a journal record carried on average, what the disk took to
// write one, and how often the journal was folded into the data file.
type LedgerStats struct {
	Groups    uint64        // journal records written, one a group
	Writes    uint64        // ledger writes in those groups
	WriteTime time.Duration // time spent writing those records, syncs included
	Folds     uint64        // epochs committed into the data file
}

// LedgerStats returns the committer's counts so far.
func (s *Store) LedgerStats() LedgerStats {
	c := &s.unaudited().group.stats
	return LedgerStats{Groups: c.groups.Load(), Writes: c.writes.Load(),
		WriteTime: time.Duration(c.writeNanos.Load()), Folds: c.folds.Load()}
}

// foldEvery bounds how long an epoch's journaled writes stay out of the
// data file, so that readers that do not ask for a fold (the data call's
// licence checks, an organisation's record) see them soon; foldIdle folds
// an epoch no write has joined for that long. Each fold is one bbolt
// commit: two fdatasyncs and the pages of the ledger's buckets. Folding
// every 200 ms rather than every 50 serves 2 % more charged calls under
// steady load (8 connections, 2 cores; every 20 ms, 3 % fewer); the
// journal then holds at most 200 ms of writes, some 300 KB at 4,000
// charges a second, against its bound of maxJournal.
var (
	foldEvery = 200 * time.Millisecond
	foldIdle  = 5 * time.Millisecond
)

// beginEpoch records that an epoch runs and returns the channel endEpoch
// closes.
func (c *committer) beginEpoch() chan struct{} {
	done := make(chan struct{})
	c.mu.Lock()
	c.epochDone = done
	c.mu.Unlock()
	return done
}

// endEpoch records that the epoch of done is over; dirty says whether the
// journal still holds writes the file lacks (the fold failed).
func (c *committer) endEpoch(done chan struct{}, dirty bool) {
	c.dirty.Store(dirty)
	c.mu.Lock()
	c.epochDone = nil
	c.mu.Unlock()
	close(done)
}

// poke asks the running epoch, if any, to fold.
func (c *committer) poke() {
	c.mu.Lock()
	req := c.foldReq
	c.mu.Unlock()
	if req != nil {
		select {
		case req <- struct{}{}:
		default:
		}
	}
}

// settled returns once the ledger's acknowledged writes are in the data
// file, folding the running epoch if it holds journaled ones: a reader of
// balances, ledgers, usage counters or reservations calls it before it
// reads, so that it sees every write it was told of.
func (s *Store) settled() {
	c := &s.group
	if !c.dirty.Load() {
		return
	}
	c.mu.Lock()
	done := c.epochDone
	c.mu.Unlock()
	if done == nil {
		return // between epochs: folded, or a failed fold waiting for the next
	}
	c.poke()
	<-done
}

// start starts the committer goroutine of s, once, and returns c.
func (c *committer) start(s *Store) *committer {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started && !c.closed {
		c.started = true
		c.queue = make(chan *queuedOp)
		c.quit = make(chan struct{})
		c.stopped = make(chan struct{})
		c.expectGone = make(chan struct{}, 1)
		c.foldReq = make(chan struct{}, 1)
		// The committer goroutine: while one group is being synced, the
		// next one gathers.
		go s.runCommitter(c)
	}
	return c
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
	c := s.group.start(s)
	c.mu.Lock()
	closed, queue, quit := c.closed, c.queue, c.quit
	c.mu.Unlock()
	if closed {
		// Closing: run it alone; bbolt says the file is closed.
		s.applyGroup([]*queuedOp{q})
		return q.wait()
	}

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
		return func() error {
			select {
			case err := <-q.done:
				return err
			default:
			}
			if q.group != nil {
				q.group.commitNow()
			}
			return <-q.done
		}, nil
	case err := <-q.done:
		if err != nil {
			return nil, err
		}
		return func() error { return nil }, nil
	}
}

// runCommitter is the committer goroutine: it opens a group with the
// first write that arrives and applies the writes that follow to it until
// the group commits (applyOpen), then waits for the next.
func (s *Store) runCommitter(c *committer) {
	defer close(c.stopped)
	defer s.recoverEpoch(c) // a failed fold's last chance before Close
	for {
		select {
		case <-c.quit:
			return
		case q := <-c.queue:
			s.applyOpen(q, c)
			s.recoverEpoch(c)
		}
	}
}

// applyOpen runs one epoch: it opens a write transaction, applies first
// and every write arriving after it, telling each caller its check's
// outcome at once, and closes a group when a caller asks and no other
// charge is expected, the group is full or maxCommitDelay has passed. A
// closed group is made durable in the journal (journal.go) and answered;
// the epoch's transaction goes on with the next group, and is committed
// (folded) when another writer or a reader of the ledger asks (foldReq),
// no write came for foldIdle, foldEvery has passed, the journal is full or
// the committer stops. The group open at the fold is answered with the
// commit's outcome. Without a journal every group is its own epoch.
//
// A write that fails, or a panic on a corrupt page, rolls the transaction
// back: the group being gathered gets the error, and the groups already
// answered, which are in the journal, are applied again by the next epoch
// (journal.begin), so that none of them is lost.
func (s *Store) applyOpen(first *queuedOp, c *committer) {
	j := s.journal
	g := &openGroup{want: make(chan struct{})}
	group := make([]*queuedOp, 0, 8)
	var results []error
	answer := func(err error) {
		for i, q := range group {
			if err != nil {
				results[i] = err
			}
			q.done <- results[i]
		}
		group, results = group[:0], results[:0]
	}
	groupTimer := time.NewTimer(maxCommitDelay)
	defer groupTimer.Stop()
	epochTimer := time.NewTimer(foldEvery)
	defer epochTimer.Stop()
	var idle *time.Timer
	defer func() {
		if idle != nil {
			idle.Stop()
		}
	}()
	epochDone := c.beginEpoch()
	firstApplied := false
	// epoch returns once the transaction is to commit (nil) or roll back.
	epoch := func(tx *bbolt.Tx) error {
		// updateRaw runs this again only when Compact swapped the file
		// before it began, so before any write was applied.
		group, results = group[:0], results[:0]
		if j != nil {
			if err := j.begin(tx); err != nil {
				return err
			}
		}
		apply := func(q *queuedOp) error {
			firstApplied = true
			q.group = g
			group = append(group, q)
			results = append(results, nil)
			write, err := q.op(tx)
			if err == nil {
				if err := write(); err != nil {
					return err // not decided: its caller hears it on done
				}
			}
			results[len(results)-1] = err
			q.decided <- err
			return nil
		}
		if err := apply(first); err != nil {
			return err
		}
		for {
			want, wanted, fold := g.want, false, j == nil || j.keyless()
		gather:
			for len(group) < maxGroup {
				// Writes already waiting join before a commit is
				// considered: a select among ready cases picks at random.
				select {
				case q := <-c.queue:
					if err := apply(q); err != nil {
						return err
					}
					continue
				default:
				}
				if wanted && (len(group) >= minGroup || c.expected.Load() == 0) {
					break
				}
				select {
				case q := <-c.queue:
					if err := apply(q); err != nil {
						return err
					}
				case <-want:
					wanted, want = true, nil
				case <-c.expectGone:
				case <-groupTimer.C:
					break gather
				case <-c.foldReq:
					fold = true
					break gather
				case <-epochTimer.C:
					fold = true
					break gather
				case <-c.quit:
					fold = true
					break gather
				}
			}
			if fold {
				return nil
			}
			if err := s.flushPending(tx); err != nil {
				return err
			}
			began := time.Now()
			wrote, err := j.writeGroup()
			switch {
			case errors.Is(err, errJournalFull):
				return nil // the fold makes this group durable
			case err != nil:
				return err
			}
			if wrote { // a group of refusals writes none
				c.stats.writeNanos.Add(uint64(time.Since(began)))
				c.stats.groups.Add(1)
				c.stats.writes.Add(uint64(len(group)))
			}
			// Dirty before answering: a caller told its write is
			// durable may read the ledger at once (settled).
			c.dirty.Store(true)
			answer(nil)
			// The next group, or the fold.
			g = &openGroup{want: make(chan struct{})}
			if idle == nil {
				idle = time.NewTimer(foldIdle)
			} else {
				idle.Reset(foldIdle)
			}
			select {
			case q := <-c.queue:
				idle.Stop()
				groupTimer.Reset(maxCommitDelay)
				if err := apply(q); err != nil {
					return err
				}
			case <-idle.C:
				return nil
			case <-c.foldReq:
				return nil
			case <-epochTimer.C:
				return nil
			case <-c.quit:
				return nil
			}
		}
	}
	err := s.updateRaw(func(tx *bbolt.Tx) error {
		if err := epoch(tx); err != nil {
			return err
		}
		// The balances and counters the last group left go in with it.
		return s.flushPending(tx)
	})
	if j != nil {
		j.end(err == nil)
	}
	if err == nil {
		c.stats.folds.Add(1)
	}
	if !firstApplied {
		group, results = append(group[:0], first), append(results[:0], nil)
	}
	answer(err)
	c.endEpoch(epochDone, j != nil && j.dirty())
}

// recoverEpoch folds what a failed epoch left in the journal, in an epoch
// of no new writes; what it cannot fold waits for the next epoch.
func (s *Store) recoverEpoch(c *committer) {
	j := s.journal
	if j == nil || !j.dirty() {
		return
	}
	epochDone := c.beginEpoch()
	err := s.updateRaw(j.begin)
	j.end(err == nil)
	c.endEpoch(epochDone, j.dirty())
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
