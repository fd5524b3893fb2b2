package redisstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Takes are sent to Redis in batches: a worker takes the calls waiting in
// the queue (up to maxBatch) and sends them as one pipeline, one write and
// one read for all of them, on one connection; the calls that arrive
// meanwhile make the next batch. Each script still runs on its own,
// atomically. Batching saves system calls and wake-ups on both sides (a
// lone EVALSHA costs the node more CPU than the script costs Redis). A
// lone call is sent as soon as the worker is free: batching adds no timer.
const maxBatch = 64 // takes in one pipeline

// workers is the number of batches in flight at once. Fewer workers make
// larger batches (2 cores, wrk -c16 on /v1/frames/at: 1 worker, 6.3 takes a
// batch; 2, 3.9; 4, 2.3) and cost less CPU a take on both sides (1 worker
// against 2, medians of 4 runs: node 28.6 against 31.4 µs, Redis 13.9
// against 14.7 µs a request). A take waits for at most the batch in flight
// and its own; at maxBatch takes a round trip, one worker carries far more
// than a node serves.
const workers = 1

// call is one take waiting for its reply.
type call struct {
	keys    []string
	args    []any
	queued  int64 // Unix nanoseconds
	reply   []int64
	err     error
	skipped bool // not sent: the server failed after it was queued; err is that failure
	done    chan struct{}
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
	cmds := make([]*redis.Cmd, 0, maxBatch)
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
			cmds = s.send(live, cmds[:0])
		}
		for _, c := range live {
			close(c.done)
		}
		clear(batch)
	}
}

// send runs the script for every call of batch and fills in their replies.
func (s *Store) send(batch []*call, cmds []*redis.Cmd) []*redis.Cmd {
	ctx := context.Background()
	if len(batch) == 1 {
		c := batch[0]
		c.reply, c.err = s.script.Run(ctx, s.client, c.keys, c.args...).Int64Slice()
		return cmds
	}
	for attempt := 0; ; attempt++ {
		pipe := s.client.Pipeline()
		cmds = cmds[:0]
		for _, c := range batch {
			cmds = append(cmds, s.script.EvalSha(ctx, pipe, c.keys, c.args...))
		}
		_, err := pipe.Exec(ctx)
		// A server that lost its scripts (restarted, SCRIPT FLUSH) refuses
		// every EVALSHA, running nothing: load the script and send again.
		if attempt == 0 && err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
			if lerr := s.script.Load(ctx, s.client).Err(); lerr == nil {
				continue
			}
		}
		for i, c := range batch {
			c.reply, c.err = cmds[i].Int64Slice()
		}
		return cmds
	}
}
