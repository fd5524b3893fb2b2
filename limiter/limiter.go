package limiter

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Limit is a token bucket's shape: it holds Burst tokens and refills
// continuously at PerMinute tokens a minute.
//
// Burst <= 0 switches the bucket off: requests are not metered by it and it
// holds no memory. With Burst > 0, PerMinute must be a positive finite
// number within bounds (see Config.Validate); Memory given anything else
// does not fail but clamps it, and a rate that is not positive refills
// practically never (one token every MaxInterval).
type Limit struct {
	PerMinute float64
	Burst     int
}

// Config is the four buckets of the spec and the memory bounds.
type Config struct {
	Key, Org, Insight, Invalid Limit
	MaxBuckets                 int           // hard cap on buckets held per kind (key, org, insight, invalid); 0 = 100_000
	IdleAfter                  time.Duration // a bucket untouched this long AND full again is dropped; 0 = 10 minutes
}

// Defaults for the memory bounds of a Config left at zero.
const (
	DefaultMaxBuckets = 100_000
	DefaultIdleAfter  = 10 * time.Minute
)

// Bounds of a valid Limit (Config.Validate). Outside them a Store clamps:
// the refill interval of one token is kept between one nanosecond and
// MaxInterval, and the burst at MaxBurst.
const (
	MaxBurst    = 1_000_000_000
	MaxInterval = time.Duration(1 << 53) // about 104 days for one token
)

// DefaultConfig returns the spec's limits: key 60/min burst 120; org 600/min
// burst 900; insight 20/min burst 30 (per key, in addition); invalid keys
// 5/min burst 5 (per presented secret). MaxBuckets and IdleAfter are set to
// their defaults, 100,000 and 10 minutes.
func DefaultConfig() Config {
	return Config{
		Key:        Limit{PerMinute: 60, Burst: 120},
		Org:        Limit{PerMinute: 600, Burst: 900},
		Insight:    Limit{PerMinute: 20, Burst: 30},
		Invalid:    Limit{PerMinute: 5, Burst: 5},
		MaxBuckets: DefaultMaxBuckets,
		IdleAfter:  DefaultIdleAfter,
	}
}

// Validate reports the first setting of c that is out of range, naming it:
// a metered bucket (Burst > 0) needs a finite PerMinute whose interval for
// one token lies between one nanosecond and MaxInterval, and a Burst of at
// most MaxBurst; MaxBuckets and IdleAfter must not be negative. A Burst of
// zero or less is valid and switches that bucket off.
func (c Config) Validate() error {
	for _, l := range []struct {
		name string
		l    Limit
	}{{"key", c.Key}, {"org", c.Org}, {"insight", c.Insight}, {"invalid", c.Invalid}} {
		if err := l.l.validate(); err != nil {
			return fmt.Errorf("limiter: %s bucket: %w", l.name, err)
		}
	}
	if c.MaxBuckets < 0 {
		return fmt.Errorf("limiter: max buckets must be 0 (default %d) or more, got %d", DefaultMaxBuckets, c.MaxBuckets)
	}
	if c.IdleAfter < 0 {
		return fmt.Errorf("limiter: idle-after must be 0 (default %s) or more, got %s", DefaultIdleAfter, c.IdleAfter)
	}
	return nil
}

// minPerMinute and maxPerMinute bound the rates whose interval for one
// token lies within [1ns, MaxInterval].
const (
	minPerMinute = float64(time.Minute) / float64(MaxInterval)
	maxPerMinute = float64(time.Minute)
)

func (l Limit) validate() error {
	if l.Burst <= 0 {
		return nil // switched off
	}
	if l.Burst > MaxBurst {
		return fmt.Errorf("burst must be at most %d, got %d", MaxBurst, l.Burst)
	}
	switch {
	case math.IsNaN(l.PerMinute) || l.PerMinute <= 0:
		return fmt.Errorf("rate must be a positive number of requests a minute, got %g", l.PerMinute)
	case l.PerMinute > maxPerMinute:
		return fmt.Errorf("rate must be at most %g a minute (one request a nanosecond), got %g", maxPerMinute, l.PerMinute)
	case l.PerMinute < minPerMinute:
		return fmt.Errorf("rate must be at least %.3g a minute (one request every 104 days), got %g", minPerMinute, l.PerMinute)
	}
	return nil
}

// State is what the X-RateLimit-* headers report about one bucket after a
// decision. Durations are exact to the nanosecond; rounding up to whole
// seconds is the caller's.
type State struct {
	Limit      int           // capacity (burst)
	Remaining  int           // whole tokens left after this request (floor; never negative)
	Reset      time.Duration // until the bucket is full again
	RetryAfter time.Duration // when refused: until a retry will succeed (> 0); 0 when allowed
}

// Decision is the outcome of one request against all the buckets it spends
// from.
//
// When allowed, State is the bucket closest to exhaustion: the fewest whole
// tokens left, and of those the longest Reset. When refused, State is the
// refusing bucket with the longest RetryAfter, so that after RetryAfter
// every bucket of the request holds a token again (if nothing else spends
// them meanwhile).
//
// State.Limit is 0 when no bucket was metered (every bucket involved is
// switched off): the request is allowed and there is nothing to report, so
// callers send no X-RateLimit-* headers.
type Decision struct {
	Allowed bool
	State   State
}

// ErrUnavailable means the store cannot be reached; the caller lets the
// request pass unmetered and sends no rate-limit headers (spec Limits 3).
var ErrUnavailable = errors.New("rate limit store unavailable")

// Kind is the kind of a bucket; each kind has its own Limit in Config and
// its own memory cap.
type Kind uint8

// The four kinds of bucket of the spec.
const (
	KindKey     Kind = iota // per API key (ID: the key's public id)
	KindOrg                 // per organisation, shared by its keys (ID: the organisation id)
	KindInsight             // per API key on the insight call, in addition (ID: the key's public id)
	KindInvalid             // per presented secret that did not authenticate (ID: the raw 32-byte digest)

	numKinds = 4
)

// String returns the kind's name as used in Config: key, org, insight,
// invalid.
func (k Kind) String() string {
	switch k {
	case KindKey:
		return "key"
	case KindOrg:
		return "org"
	case KindInsight:
		return "insight"
	case KindInvalid:
		return "invalid"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Bucket names one bucket of a kind. The ID is opaque: any string,
// including the empty one, names one bucket.
type Bucket struct {
	Kind Kind
	ID   string
}

// Store holds buckets. Take spends one token from every bucket in bs,
// atomically: if any of them holds less than one token, none is spent and
// the decision is a refusal. limits[i] is the shape of bs[i]; a bucket
// whose Limit has Burst <= 0 is not metered. Implementations must be safe
// for concurrent use, must not retain bs or limits, and report a store they
// cannot reach with an error wrapping ErrUnavailable. Memory is the local
// one, redisstore.Store the one several nodes share; both decide through
// Decide, so a Decision does not depend on where the buckets live.
type Store interface {
	Take(now time.Time, bs []Bucket, limits []Limit) (Decision, error)
}

// Limiter applies Config to requests. Safe for concurrent use.
type Limiter struct {
	cfg   Config
	store Store
	mem   *Memory // store when it is a *Memory: called directly, without allocating
	now   func() time.Time
}

// New returns a Limiter that meters requests by cfg through store, reading
// the time from now (nil: time.Now). A nil store (or nil *Memory) is a
// NewMemory(cfg). cfg is used as given; check it first with
// Config.Validate.
func New(cfg Config, store Store, now func() time.Time) *Limiter {
	cfg = cfg.withDefaults()
	if now == nil {
		now = time.Now
	}
	if store == nil {
		store = NewMemory(cfg)
	}
	l := &Limiter{cfg: cfg, store: store, now: now}
	if m, ok := store.(*Memory); ok {
		if m == nil { // a typed nil: as a nil store
			m = NewMemory(cfg)
			l.store = m
		}
		l.mem = m
	}
	return l
}

// withDefaults fills the memory bounds left at zero (or below).
func (c Config) withDefaults() Config {
	if c.MaxBuckets <= 0 {
		c.MaxBuckets = DefaultMaxBuckets
	}
	if c.IdleAfter <= 0 {
		c.IdleAfter = DefaultIdleAfter
	}
	return c
}

// Request spends from the key's bucket and the organisation's bucket at
// once, plus the key's insight bucket when insight is true: when any of them
// is empty, none is spent. Buckets switched off in the Config are left out.
//
// The error, when not nil, satisfies errors.Is(err, ErrUnavailable): the
// store could not decide, and the Decision is the zero value. With a
// *Memory store Request does not allocate once the buckets exist.
func (l *Limiter) Request(keyID, orgID string, insight bool) (Decision, error) {
	if l.mem != nil {
		// A separate pair of arrays from the one below: these do not
		// escape (Memory.Take keeps nothing of them), so stay on the stack.
		var bs [3]Bucket
		var ls [3]Limit
		n := l.requestBuckets(&bs, &ls, keyID, orgID, insight)
		if n == 0 {
			return Decision{Allowed: true}, nil
		}
		return unavailable(l.mem.Take(l.now(), bs[:n], ls[:n]))
	}
	var bs [3]Bucket
	var ls [3]Limit
	n := l.requestBuckets(&bs, &ls, keyID, orgID, insight)
	if n == 0 {
		return Decision{Allowed: true}, nil
	}
	return l.storeTake(bs[:n], ls[:n])
}

func (l *Limiter) requestBuckets(bs *[3]Bucket, ls *[3]Limit, keyID, orgID string, insight bool) int {
	n := 0
	if l.cfg.Key.Burst > 0 {
		bs[n], ls[n] = Bucket{Kind: KindKey, ID: keyID}, l.cfg.Key
		n++
	}
	if l.cfg.Org.Burst > 0 {
		bs[n], ls[n] = Bucket{Kind: KindOrg, ID: orgID}, l.cfg.Org
		n++
	}
	if insight && l.cfg.Insight.Burst > 0 {
		bs[n], ls[n] = Bucket{Kind: KindInsight, ID: keyID}, l.cfg.Insight
		n++
	}
	return n
}

// InvalidKey spends from the bucket of a presented secret that did not
// authenticate, keyed by its digest (never the secret itself). Errors as
// for Request. With a *Memory store it allocates only when the digest is
// new (its bucket is created).
func (l *Limiter) InvalidKey(digest [32]byte) (Decision, error) {
	if l.cfg.Invalid.Burst <= 0 {
		return Decision{Allowed: true}, nil
	}
	if l.mem != nil {
		// string(digest[:]) does not escape here, and 32 bytes fit the
		// compiler's stack buffer for such conversions: no allocation.
		bs := [1]Bucket{{Kind: KindInvalid, ID: string(digest[:])}}
		ls := [1]Limit{l.cfg.Invalid}
		return unavailable(l.mem.Take(l.now(), bs[:], ls[:]))
	}
	return l.storeTake([]Bucket{{Kind: KindInvalid, ID: string(digest[:])}}, []Limit{l.cfg.Invalid})
}

// storeTake asks a Store other than Memory.
func (l *Limiter) storeTake(bs []Bucket, ls []Limit) (Decision, error) {
	return unavailable(l.store.Take(l.now(), bs, ls))
}

// unavailable reports any error of a store as unavailability: the limiter
// cannot meter without a decision. The Decision that goes with an error is
// the zero value.
func unavailable(d Decision, err error) (Decision, error) {
	if err != nil {
		if !errors.Is(err, ErrUnavailable) {
			err = fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return Decision{}, err
	}
	return d, nil
}

// Config returns the configuration in use, with MaxBuckets and IdleAfter
// filled with their defaults when they were given as zero.
func (l *Limiter) Config() Config { return l.cfg }
