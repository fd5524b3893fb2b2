// Package limiter meters API requests with the token buckets of the spec
// (Limits > Rate limits): per key 60 a minute with a burst of 120; per
// organisation 600 a minute with a burst of 900, shared by all its keys; on
// the insight call 20 a minute with a burst of 30 per key, in addition; and
// for a presented secret that is not a valid key, 5 a minute with a burst of
// 5, keyed by the secret's SHA-256 digest.
//
// A Limiter turns a request into the buckets it spends from and asks a
// Store to spend one token from each, atomically: when any bucket is empty,
// none is spent. The Decision reports the bucket closest to exhaustion (or
// the refusing one) for the X-RateLimit-* and Retry-After headers. Memory is
// the in-process Store; package limiter/redisstore keeps the buckets in
// Redis for several nodes, with the same all-or-nothing take, and both
// decide through Decide (the generic cell rate algorithm in integers). When a store
// cannot be reached, Request and InvalidKey return an error wrapping
// ErrUnavailable, and the caller lets the request pass unmetered (spec
// Limits 3).
//
// # Arithmetic
//
// Memory keeps each bucket as one integer, the instant it is full again
// (the generic cell rate algorithm, GCRA): a bucket of capacity B refilling
// one token every T nanoseconds, full again in d nanoseconds, holds
// B - d/T tokens, and a request may spend one when d + T <= B*T. Every
// quantity is an integer number of nanoseconds, so the limiter is exact to
// the token, and RetryAfter is exact to the nanosecond: waiting RetryAfter
// makes the next request succeed, waiting a nanosecond less does not.
//
// golang.org/x/time/rate is not used. Its buckets count tokens in float64,
// and the delay it computes for the next token is truncated to the
// nanosecond, so after waiting it the bucket may hold 0.99999999995 tokens
// (a rate of 7 a minute shows it): a Retry-After that does not work. Each
// of its buckets also carries its own mutex and about 80 bytes, where one
// lock over all buckets is needed anyway to spend from several atomically.
//
// The interval T is 60 s / PerMinute rounded to the nanosecond. The
// spec's rates give whole numbers (1 s, 100 ms, 3 s, 12 s); another rate
// is off by less than half a nanosecond a token.
//
// # Configuration
//
// A Limit with Burst <= 0 switches that bucket off: it is not metered and
// holds no memory, so tests and large installs can disable a kind. When no
// bucket of a request is metered the Decision allows it with a zero State
// (State.Limit == 0), and no headers are due.
//
// Config.Validate rejects a rate that is not positive or lies beyond the
// bounds (one token a nanosecond, one every MaxInterval, about 104 days),
// and a burst above MaxBurst. Memory never fails on a Limit: it clamps to
// those bounds, and a rate that is not a positive number gets the slowest
// refill, one token every MaxInterval.
//
// # Memory bounds
//
// An absent bucket is full, so dropping a full bucket loses nothing. Each
// Take examines a couple of buckets of every kind, round-robin, and drops
// those that have been full for IdleAfter (default 10 minutes; a bucket is
// full again no sooner than one interval T after it was last spent from, so
// it is dropped no sooner than IdleAfter after its last use). No goroutine runs
// and nothing needs closing. A Go map keeps the size of its peak, so a kind
// that shrinks to an eighth of its peak is copied into a smaller one.
//
// Each kind is capped at MaxBuckets (default 100,000) buckets. At the cap,
// a new bucket first makes room by dropping full buckets however recently
// used (scanning a bounded number of them); when none is full, the new
// bucket does not get one of its own but shares the one overflow bucket of
// its kind, with that kind's limit. So a flood of distinct bad secrets is
// limited collectively to the invalid-key rate once it fills the cap, and
// memory stays at MaxBuckets per kind plus one, whatever is sent. The cost:
// while a kind overflows, its newcomers (a real key among them) share one
// bucket and may be refused for others' requests. For key and organisation
// buckets that takes more than MaxBuckets of them spent from within a few
// minutes; overflow is not logged here (the caller sees only Decisions).
//
// # Caveats
//
// Memory is one process's view: several nodes each enforce the limits on
// their own. Its buckets are lost on restart (every bucket starts full).
// All buckets share one mutex; a take is a few map lookups, well under a
// microsecond, so contention matters only far beyond the request rate the
// HTTP server can reach. Times are read by the caller (Limiter's clock):
// time.Time carries a monotonic reading, so wall-clock steps do not refill
// or drain buckets. With a *Memory store, Request and InvalidKey do not
// allocate once the buckets exist; another Store is called through the
// interface, and the slices passed to it are allocated per request.
//
// This package imports nothing of this module.
package limiter
