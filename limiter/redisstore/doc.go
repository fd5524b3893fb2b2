// Package redisstore is a limiter.Store whose token buckets live in Redis
// (or Valkey), so that every node of an installation that names the same
// server, database and key prefix enforces the limits together: a key's
// burst of 120 is 120 across all nodes, not 120 on each.
//
// # One script per batch of decisions
//
// Takes are decided on the server by one Lua script (script.go), sent with
// EVALSHA (after a restart of the server, which forgets its scripts, with
// EVAL, which also loads it again). Concurrent takes go together: one
// script call decides the takes waiting at that moment (batch.go), in
// order, and each as on its own: every bucket of a take is spent or none,
// and a take sees the buckets as the takes before it left them. Redis runs
// a script to completion before any other command, so a take over several
// buckets (key, organisation, insight) is atomic across nodes. The script
// returns each take's outcome and each of its buckets' state, from which
// Take computes the Decision in Go with limiter.Memory's integer
// arithmetic (gcra.go). The property tests check that Redis, for lone takes
// and for batches, and Memory give identical Decisions on random takes
// over several buckets and limits, and that a batch leaves every key as
// its takes one by one would.
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
// By default the script reads the server's clock (TIME, once a batch: its
// takes are concurrent): one clock for all nodes, so nodes whose clocks
// disagree still meter alike. The time passed to Take is then ignored. Options.CallerClock uses the caller's time
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
// A batch is one command: one write and one read on the node, one
// dispatch, one TIME and one GET and at most one SET for each distinct
// bucket on the server, however many takes spend from it; each distinct
// list of keys with its costs and limits is sent once, and a take names it
// by number. Each metered request still waits for a round trip, and on a
// small machine that is much of a point lookup's cost: on 2 cores shared
// by the load generator, the node and redis-server, point lookups with
// buckets in Redis ran at 53-55 % of the rate with local buckets
// (scripts/load-redis.sh 8, four runs, medians of 3; about 5 takes a
// script call; 41-42 % with one script call a take). CPU a request: the
// node 26-32 µs against 17-19 µs with local buckets (this package about
// 5 µs of the difference, 2 µs of that the system calls; the rest parking
// and waking the request's goroutine), redis-server 6-8 µs (with one script
// call a take, 13 µs in the script alone).
//
// # Caveats
//
// The buckets of one take are several keys in one script, so Redis Cluster
// (which requires a script's keys to share a slot) is not supported: use one
// primary, with a replica and Sentinel or a managed failover for
// availability (a failover loses at most the latest takes: buckets refill
// early, never late). Commands used: EVALSHA, EVAL, and in the script GET,
// SET … PX and TIME, all in Redis 3.2+ and Valkey. A batch fails as one:
// when the server refuses the script or its writes (out of memory, a
// read-only replica; it refuses the first write, and the script writes
// only after deciding every take), every take of the batch gets the error
// and nothing is written. go-redis keeps one logger per process;
// Options.Logger replaces it (Debug level).
package redisstore
