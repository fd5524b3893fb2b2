package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Takes are sent to Redis in batches: a worker takes the calls waiting in
// the queue (up to maxBatch) and sends them as one script call (script.go),
// which decides them in order, each take atomically, and replies with every
// take's outcome at once: one command, one write and one read for all of
// them, on one connection. The calls that arrive meanwhile make the next
// batch. A batch costs Redis one command dispatch, one TIME and one GET and
// at most one SET per distinct bucket, however many takes spend from it,
// and the node one command to encode and one reply to parse; takes with
// the same buckets and limits (one key's requests) share their numbers, so
// that each such take adds one argument. A lone call is sent as soon as the
// worker is free: batching adds no timer.
const maxBatch = 64 // takes in one script call

// workers is the number of batches in flight at once. Fewer workers make
// larger batches (2 cores, wrk -c16 on /v1/frames/at: 1 worker, 6.3 takes a
// batch; 2, 3.9; 4, 2.3) and cost less CPU a take on both sides (1 worker
// against 2, medians of 4 runs: node 28.6 against 31.4 µs, Redis 13.9
// against 14.7 µs a request). A take waits for at most the batch in flight
// and its own; at maxBatch takes a round trip, one worker carries far more
// than a node serves. (Measured when each take was its own script in one
// pipeline; with one script call a batch, a batch costs the server less
// the more takes it holds.)
const workers = 1

// call is one take waiting for its reply.
type call struct {
	n       int                // buckets
	keys    [maxTake]string    // their keys
	nums    [4 * maxTake]int64 // a bucket's cost and span as seconds, nanoseconds
	ts, tn  int64              // the caller's clock, when used
	queued  int64              // Unix nanoseconds
	reply   []int64
	err     error
	skipped bool // not sent: the server failed after it was queued; err is that failure
	done    chan struct{}
}

// sameShape reports whether a and b spend from the same keys at the same
// costs and spans.
func sameShape(a, b *call) bool {
	return a.n == b.n && a.keys == b.keys && a.nums == b.nums
}

// sender holds a worker's buffers, reused from batch to batch.
type sender struct {
	args   []any
	keyAt  map[string]int // a key's index in KEYS, from 1
	keys   []any
	shapes []*call // the first call of each shape
	shape  []int   // each call's shape, from 1
}

// do queues c and waits for its reply, or for Close. skipped reports that
// the call was not sent because the server failed while it waited; err is
// then that failure, already recorded.
func (s *Store) do(c *call) (reply []int64, skipped bool, err error) {
	c.done = make(chan struct{})
	c.queued = time.Now().UnixNano()
	select {
	case s.queue <- c:
	case <-s.closed:
		return nil, false, redis.ErrClosed
	}
	select {
	case <-c.done:
		return c.reply, c.skipped, c.err
	case <-s.closed:
		return nil, false, redis.ErrClosed
	}
}

// work runs one worker until Close.
func (s *Store) work() {
	defer s.wg.Done()
	batch := make([]*call, 0, maxBatch)
	sd := newSender()
	for {
		select {
		case <-s.closed:
			return
		case c := <-s.queue:
			batch = append(batch[:0], c)
		}
	fill:
		for len(batch) < maxBatch {
			select {
			case c := <-s.queue:
				batch = append(batch, c)
			default:
				break fill
			}
		}
		// Takes queued before the latest failure are not sent: behind a
		// hung server each batch would wait a full timeout again.
		live := batch[:0]
		failedAt, failure := s.failedAt.Load(), s.failure.Load()
		for _, c := range batch {
			if failure != nil && c.queued < failedAt {
				c.err, c.skipped = *failure, true
				close(c.done)
				continue
			}
			live = append(live, c)
		}
		if len(live) > 0 {
			s.send(live, sd)
		}
		for _, c := range live {
			close(c.done)
		}
		clear(batch)
	}
}

// newSender returns a worker's empty buffers.
func newSender() *sender { return &sender{keyAt: make(map[string]int)} }

// send runs the script once for every call of batch and fills in their
// replies. It lists each distinct key once in KEYS and each distinct shape
// (keys, costs and spans) once in ARGV; a take then names its shape.
func (s *Store) send(batch []*call, sd *sender) {
	ctx := context.Background()
	clear(sd.keyAt)
	sd.keys, sd.shapes, sd.shape = sd.keys[:0], sd.shapes[:0], sd.shape[:0]
	want := 0
	for _, c := range batch {
		want += 1 + 2*c.n
		h := 0
		for i, d := range sd.shapes {
			if sameShape(c, d) {
				h = i + 1
				break
			}
		}
		if h == 0 {
			sd.shapes = append(sd.shapes, c)
			h = len(sd.shapes)
			for _, k := range c.keys[:c.n] {
				if _, ok := sd.keyAt[k]; !ok {
					sd.keys = append(sd.keys, k)
					sd.keyAt[k] = len(sd.keys)
				}
			}
		}
		sd.shape = append(sd.shape, h)
	}
	args := append(sd.args[:0], "evalsha", s.script.Hash(), len(sd.keys))
	args = append(args, sd.keys...)
	args = append(args, s.margin, s.clock, len(sd.shapes))
	for _, c := range sd.shapes {
		args = append(args, c.n)
		for _, k := range c.keys[:c.n] {
			args = append(args, sd.keyAt[k])
		}
		for _, v := range c.nums[:4*c.n] {
			args = append(args, v)
		}
	}
	for i, c := range batch {
		args = append(args, sd.shape[i])
		if s.caller {
			args = append(args, c.ts, c.tn)
		}
	}
	cmd := redis.NewIntSliceCmd(ctx, args...)
	err := s.client.Process(ctx, cmd)
	// A server that lost its scripts (restarted, SCRIPT FLUSH) refuses
	// EVALSHA, running nothing: send the script itself, which also loads
	// it for the next EVALSHA.
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		args[0], args[1] = "eval", takeScript
		cmd = redis.NewIntSliceCmd(ctx, args...)
		err = s.client.Process(ctx, cmd)
	}
	clear(args) // drop the references to this batch's keys
	sd.args = args
	clear(sd.shapes)
	reply := cmd.Val()
	if err == nil && len(reply) != want {
		err = fmt.Errorf("the take script replied %d numbers for %d takes, want %d", len(reply), len(batch), want)
	}
	off := 0
	for _, c := range batch {
		if err != nil {
			c.err = err
			continue
		}
		n := 1 + 2*c.n
		c.reply = reply[off : off+n : off+n]
		off += n
	}
}
