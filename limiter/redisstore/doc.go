// Package redisstore is a limiter.Store whose token buckets live in Redis
// (or Valkey), so that every node of an installation that names the same
// server, database and key prefix enforces the limits together: a key's
// burst of 120 is 120 across all nodes, not 120 on each.
//
// # One script per decision
//
// Take runs one Lua script on the server (EVALSHA; after a restart of the
// server, which forgets its scripts, the script is sent again with EVAL).
// Redis runs a script to completion before any other command, so a take
// over several buckets (key, organisation, insight) is atomic across nodes:
// every bucket is spent or none. The script reads each bucket, decides, and
// when allowed writes every bucket; it returns each bucket's state, from
// which Take computes the Decision in Go with limiter.Memory's integer
// arithmetic (gcra.go). The property test checks that Redis and Memory give
// identical Decisions on random takes over several buckets and limits.
//
// A bucket is one string key, "S:N": the instant it is full again, in
// seconds and nanoseconds since 1970. Lua's numbers are doubles, exact only
// below 2^53, and nanoseconds since 1970 are about 2^60, so the script adds
// and compares (seconds, nanoseconds) pairs, which stay exact; products
// (burst x interval) and quotients (tokens left) are done in int64 in Go.
// A value in any other form (written by something else) reads as a full
// bucket and is overwritten by the next allowed take.
//
// # Clock
//
// By default the script reads the server's clock (TIME): one clock for all
// nodes, so nodes whose clocks disagree still meter alike. The time passed
// to Take is then ignored. Options.CallerClock uses the caller's time
// instead, which tests need to step time.
//
// # Keys and memory
//
// Keys are Options.Prefix (default "frameindex:rl:"), the kind, and the
// first 128 bits of the SHA-256 of the bucket's id in hex, e.g.
// frameindex:rl:key:3f…; Key computes one. An invalid secret's digest (the
// id of an invalid-key bucket) never appears raw. Every write sets an
// expiry: the time until the bucket is full again plus Options.Margin
// (default 1 s). A missing key is a full bucket, so expiry loses nothing
// and Redis holds only buckets spent from recently. Nothing needs to be
// persisted: after a restart of Redis every bucket is full. There is no
// per-kind cap as in limiter.Memory (Config.MaxBuckets is not used): a
// flood of distinct bad secrets makes one key each, about 200 bytes for 13
// seconds with the spec's invalid-key limit (12 s a token, plus the
// margin), bounded by Redis's maxmemory.
//
// # Failures
//
// Every network step is bounded by Options.Timeout (default 200 ms) and
// nothing is retried: a take that fails returns an error wrapping
// limiter.ErrUnavailable, and the caller lets the request pass unmetered
// (spec Limits 3). For Options.RetryWait (default 1 s) after a failure,
// takes fail at once, without a round trip; then one take tries the server
// again, and the first success resumes metering. So a dead or hung server
// costs a request at most about one timeout, and recovery needs no restart.
//
// # Throughput
//
// Concurrent takes are sent in batches (batch.go): one worker sends the
// takes waiting at that moment as one pipeline, one write and one read for
// all of them, while the takes arriving meanwhile queue for the next. Each
// script still runs on its own. A lone take is sent at once. Each metered
// request still makes a round trip, and on a small machine that is most of
// a point lookup's cost: on 2 cores shared by the load generator, the node
// and redis-server (and other work), point lookups with buckets in Redis ran
// at 41-42 % of the rate with local buckets (scripts/load-redis.sh, medians
// of 3). CPU a request: the node 32-33 µs against 17-19 µs with local
// buckets (go-redis about 6 µs of the difference, the rest parking and
// waking the request's goroutine), Redis 14 µs (the script about 9 µs:
// TIME, a GET and a SET a bucket, and decimal conversions).
//
// # Caveats
//
// The buckets of one take are several keys in one script, so Redis Cluster
// (which requires a script's keys to share a slot) is not supported: use one
// primary, with a replica and Sentinel or a managed failover for
// availability (a failover loses at most the latest takes: buckets refill
// early, never late). Commands used: EVALSHA, EVAL, SCRIPT LOAD, and in the
// script GET, SET … PX and TIME, all in Redis 3.2+ and Valkey. go-redis
// keeps one logger per process; Options.Logger replaces it (Debug level).
package redisstore
