package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"frameindex/limiter"
)

// Defaults of Options left at zero.
const (
	DefaultPrefix    = "frameindex:rl:"
	DefaultTimeout   = 200 * time.Millisecond
	DefaultMargin    = time.Second
	DefaultRetryWait = time.Second
)

// Options tune a Store. The zero Options are the production settings.
type Options struct {
	// Prefix starts every key the store writes (default DefaultPrefix), so
	// that several installations can share one Redis database.
	Prefix string
	// Timeout bounds each network step: dialling, writing a command,
	// reading its reply, waiting for a pooled connection (default
	// DefaultTimeout). A take that fails waits no longer than about twice
	// this.
	Timeout time.Duration
	// Margin is how long a bucket's key outlives the instant its bucket is
	// full again (default DefaultMargin), so that clocks a little apart do
	// not drop a bucket early. Rounded up to whole milliseconds.
	Margin time.Duration
	// RetryWait is how long after a failure every take fails at once,
	// without a network round trip, before one take tries the server again
	// (default DefaultRetryWait). It keeps a dead or hung server from
	// adding Timeout to every request.
	RetryWait time.Duration
	// CallerClock makes a take use the time passed to Take instead of the
	// server's TIME. With the server's clock (the default) every node
	// agrees on time; the caller's clock is for tests, which step time
	// themselves.
	CallerClock bool
	// PoolSize is the most connections held open to the server (default:
	// go-redis's, 10 per CPU).
	PoolSize int
	// Logger receives go-redis's own messages (a failed dial, a pool
	// event) at Debug level; nil discards them. The failures that matter
	// reach the caller as errors of Take. go-redis has one logger per
	// process: the Logger of the latest New wins.
	Logger *slog.Logger
}

// redisLog turns go-redis's Printf into Debug records of a slog.Logger.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	if l.log != nil && l.log.Enabled(ctx, slog.LevelDebug) {
		l.log.DebugContext(ctx, "redis: "+strings.TrimSpace(fmt.Sprintf(format, v...)))
	}
}

// Store is a limiter.Store whose buckets live in Redis (or Valkey), shared
// by every node that names the same server, database and prefix. Safe for
// concurrent use.
type Store struct {
	client   *redis.Client
	script   *redis.Script
	prefix   string
	margin   int64 // milliseconds
	retry    int64 // nanoseconds
	caller   bool
	clock    string                // ARGV[2] of the script: "" for the server's clock, "c" for the caller's
	where    string                // the URL without its password, for errors and logs
	downTil  atomic.Int64          // Unix nanoseconds until which takes fail at once; 0: up
	failure  atomic.Pointer[error] // the last failure, repeated while down
	failedAt atomic.Int64          // Unix nanoseconds of the last failure

	queue     chan *call // takes waiting for a worker (batch.go)
	closed    chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// New returns a Store for the server at rawURL:
// redis://[user:password@]host:port/db, rediss://… (TLS) or
// unix://[user:password@]/path/to/socket?db=N. It does not connect: the
// first Take (or Ping) does, so a server that is down at start-up is not an
// error. It returns an error naming the URL (without its password) when the
// URL cannot be parsed. Close releases the connections.
func New(rawURL string, o Options) (*Store, error) {
	where := Redact(rawURL)
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("rate limit store %s: %w", where, redactErr(err))
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Margin <= 0 {
		o.Margin = DefaultMargin
	}
	if o.RetryWait <= 0 {
		o.RetryWait = DefaultRetryWait
	}
	opt.DialTimeout = o.Timeout
	opt.ReadTimeout = o.Timeout
	opt.WriteTimeout = o.Timeout
	opt.PoolTimeout = o.Timeout
	opt.DialerRetries = 1 // one attempt: a take must not wait for retries
	opt.MaxRetries = -1   // nor re-send: the caller passes the request unmetered instead
	if o.PoolSize > 0 {
		opt.PoolSize = o.PoolSize
	}
	// RESP2 and no CLIENT SETINFO: a connection is ready after AUTH and
	// SELECT alone, on any Redis or Valkey version.
	opt.Protocol = 2
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	redis.SetLogger(redisLog{o.Logger})
	s := &Store{
		queue:  make(chan *call, 4*maxBatch),
		closed: make(chan struct{}),
		client: redis.NewClient(opt),
		script: redis.NewScript(takeScript),
		prefix: o.Prefix,
		margin: (int64(o.Margin) + int64(time.Millisecond) - 1) / int64(time.Millisecond),
		retry:  int64(o.RetryWait),
		caller: o.CallerClock,
		where:  where,
	}
	if o.CallerClock {
		s.clock = "c"
	}
	s.wg.Add(workers)
	for range workers {
		go s.work()
	}
	return s, nil
}

// Redact returns rawURL with its password replaced by "xxxxx", for logs.
// A string that is not a URL comes back as a placeholder, since it might
// hold a password in a form url.Parse does not recognise.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// redactErr keeps a parse error from repeating the URL, password included.
func redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// String returns the server's URL without its password.
func (s *Store) String() string { return s.where }

// Ping checks that the server answers within ctx, for a report at start-up.
// The error wraps limiter.ErrUnavailable.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("%w: %s: %w", limiter.ErrUnavailable, s.where, err)
	}
	return nil
}

// Close stops the store's workers and closes its connections. Takes after
// Close, and takes still waiting, fail with an error wrapping
// limiter.ErrUnavailable. Safe to call more than once.
func (s *Store) Close() error {
	err := redis.ErrClosed
	s.closeOnce.Do(func() {
		close(s.closed)
		s.wg.Wait()
		err = s.client.Close()
	})
	return err
}

// maxTake is limiter.Memory's bound on the buckets of one take.
const maxTake = 8

// Take spends one token from every bucket in bs whose limit is metered
// (Burst > 0), atomically across all nodes: one script decides and writes
// every bucket, or none. The Decision is the one limiter.Memory gives for
// the same bucket states, limits and time (Memory's per-kind cap and
// overflow bucket aside: Redis holds every bucket until it expires). The
// time is the server's (now is ignored) unless Options.CallerClock is set.
//
// Take returns an error, and spends nothing, when len(bs) != len(limits),
// when bs holds more than 8 buckets or a Kind other than the four (as
// Memory does), and an error wrapping limiter.ErrUnavailable when the
// server cannot be reached, does not answer within Options.Timeout, or
// refuses the script (out of memory, a read-only replica). After such a
// failure, takes fail at once for Options.RetryWait, then one tries again.
// Safe for concurrent use.
func (s *Store) Take(now time.Time, bs []limiter.Bucket, limits []limiter.Limit) (limiter.Decision, error) {
	var buf [maxTake]slot
	slots, err := slotsOf(&buf, bs, limits)
	if err != nil {
		return limiter.Decision{}, err
	}
	if len(slots) == 0 {
		return limiter.Decision{Allowed: true}, nil
	}
	if err := s.waiting(); err != nil {
		return limiter.Decision{}, err
	}
	reply, skipped, err := s.do(s.newCall(now, slots))
	if skipped {
		return limiter.Decision{}, err
	}
	if err != nil {
		return limiter.Decision{}, s.failed(err)
	}
	return s.decision(slots, reply)
}

// slotsOf returns the distinct metered buckets of a take, in buf, or an
// error for input that Memory refuses too.
func slotsOf(buf *[maxTake]slot, bs []limiter.Bucket, limits []limiter.Limit) ([]slot, error) {
	if len(bs) != len(limits) {
		return nil, fmt.Errorf("limiter: %d buckets but %d limits", len(bs), len(limits))
	}
	if len(bs) > maxTake {
		return nil, fmt.Errorf("limiter: %d buckets in one take, at most %d", len(bs), maxTake)
	}
	slots := buf[:0]
	for i, b := range bs {
		if b.Kind > limiter.KindInvalid {
			return nil, fmt.Errorf("limiter: unknown bucket kind %d", uint8(b.Kind))
		}
		l := limits[i]
		if l.Burst <= 0 {
			continue // switched off
		}
		if j := find(slots, b); j >= 0 {
			slots[j].cell.Count++ // listed twice: spent twice, at its first listing's limit
			continue
		}
		slots = append(slots, slot{
			kind: b.Kind,
			id:   b.ID,
			cell: limiter.Cell{Interval: limiter.Interval(l.PerMinute), Burst: int64(min(l.Burst, limiter.MaxBurst)), Count: 1},
		})
	}
	return slots, nil
}

// newCall returns the call for a take over slots at now (used only with
// the caller's clock).
func (s *Store) newCall(now time.Time, slots []slot) *call {
	c := &call{n: len(slots)}
	if s.caller {
		c.ts, c.tn = now.Unix(), int64(now.Nanosecond())
	}
	for i := range slots {
		sl := &slots[i]
		c.keys[i] = bucketKey(s.prefix, sl.kind, sl.id)
		cs, cn := split(sl.cell.Cost())
		ss, sn := split(sl.cell.Span())
		c.nums[4*i], c.nums[4*i+1], c.nums[4*i+2], c.nums[4*i+3] = cs, cn, ss, sn
	}
	return c
}

// decision computes a take's Decision from the script's reply for it,
// and records the server as up; a reply of the wrong length is recorded as
// a failure.
func (s *Store) decision(slots []slot, reply []int64) (limiter.Decision, error) {
	if len(reply) != 1+2*len(slots) {
		return limiter.Decision{}, s.failed(fmt.Errorf("the take script replied %d numbers, want %d", len(reply), 1+2*len(slots)))
	}
	s.recovered()
	var cells [maxTake]limiter.Cell
	for i := range slots {
		ds, dn := reply[1+2*i], reply[2+2*i]
		cells[i] = slots[i].cell
		// ds is at most 9223372036 (the script clamps): ds*1e9 cannot
		// overflow, and dn is held to what is left below MaxInt64.
		cells[i].Debt = ds*1e9 + min(dn, math.MaxInt64-ds*1e9)
	}
	d := limiter.Decide(cells[:len(slots)])
	if d.Allowed != (reply[0] == 1) {
		// The same integers compared the same way: only a script of
		// another version under this prefix could cause this.
		return limiter.Decision{}, fmt.Errorf("%w: %s: the take script and this binary disagree on a decision", limiter.ErrUnavailable, s.where)
	}
	return d, nil
}

// find returns the index of the slot of bucket b, or -1.
func find(slots []slot, b limiter.Bucket) int {
	for i := range slots {
		if slots[i].kind == b.Kind && slots[i].id == b.ID {
			return i
		}
	}
	return -1
}

// bucketKey names a bucket: the prefix, the kind, and the first 128 bits of
// the SHA-256 of the id in hex, so that an invalid secret's digest, or any
// id, never appears raw and every key has the same length.
func bucketKey(prefix string, k limiter.Kind, id string) string {
	sum := sha256.Sum256([]byte(id))
	var b [64 + 8 + 32]byte
	out := append(b[:0], prefix...)
	out = append(out, k.String()...)
	out = append(out, ':')
	out = hex.AppendEncode(out, sum[:16])
	return string(out)
}

// Key returns the Redis key of bucket (k, id) under prefix, for operators
// looking a bucket up with redis-cli. An empty prefix is DefaultPrefix.
func Key(prefix string, k limiter.Kind, id string) string {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return bucketKey(prefix, k, id)
}

// waiting returns the last failure while takes are to fail at once, and nil
// when this take may go to the server: the store is up, or the wait is
// over and this take won the right to try it.
func (s *Store) waiting() error {
	until := s.downTil.Load()
	if until == 0 {
		return nil
	}
	now := time.Now().UnixNano()
	if now >= until && s.downTil.CompareAndSwap(until, now+s.retry) {
		return nil // this take probes the server; the others keep failing at once
	}
	if p := s.failure.Load(); p != nil {
		return *p
	}
	return fmt.Errorf("%w: %s", limiter.ErrUnavailable, s.where)
}

// failed records a failure and returns it wrapped in ErrUnavailable.
func (s *Store) failed(err error) error {
	err = fmt.Errorf("%w: %s: %w", limiter.ErrUnavailable, s.where, err)
	now := time.Now().UnixNano()
	s.failure.Store(&err)
	s.failedAt.Store(now)
	s.downTil.Store(now + s.retry)
	return err
}

// recovered clears a recorded failure.
func (s *Store) recovered() {
	if s.downTil.Load() != 0 {
		s.downTil.Store(0)
	}
}

var _ limiter.Store = (*Store)(nil)
