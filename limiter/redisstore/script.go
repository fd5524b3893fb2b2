package redisstore

// takeScript decides one take on the server, atomically: Redis runs a
// script to completion before any other command.
//
// Redis's Lua numbers are doubles, exact only below 2^53, and an instant in
// nanoseconds since 1970 is about 2^60. So every instant and duration is a
// pair (seconds, nanoseconds), the nanoseconds in [0, 1e9): sums and
// differences of such pairs are exact. Products and quotients are the
// caller's (cost, span, remaining), computed in int64 in Go.
//
// KEYS: the buckets of the take, each once.
// ARGV[1], ARGV[2]: the caller's clock as seconds and nanoseconds since
// 1970; ARGV[1] == "": the server's TIME instead (microseconds).
// ARGV[3]: milliseconds a key outlives the instant its bucket is full.
// ARGV[4i .. 4i+3]: for KEYS[i], the cost of the take (tokens x interval)
// and the span (burst x interval), each as seconds, nanoseconds.
//
// A bucket's value is "S:N", the instant it is full again; a missing key is
// a full bucket, and so is a value in any other form (it is overwritten by
// the next allowed take), so stray data cannot stop metering.
//
// Reply: {allowed (1 or 0), clock seconds, clock nanoseconds, then for each
// key its debt (the time until it is full, before the take, clamped to
// [0, MaxInt64 ns]) as seconds, nanoseconds}. When allowed, every key is set
// to its new instant with PX = time until full + margin; when refused,
// nothing is written.
const takeScript = `
if redis.replicate_commands then redis.replicate_commands() end
local G, MAXS, MAXN = 1000000000, 9223372036, 854775807
local ts, tn
if ARGV[1] == '' then
  local tm = redis.call('TIME')
  ts, tn = tonumber(tm[1]), tonumber(tm[2]) * 1000
else
  ts, tn = tonumber(ARGV[1]), tonumber(ARGV[2])
end
local out = {1, ts, tn}
local afs, afn = {}, {}
for i = 1, #KEYS do
  local ds, dn = 0, 0
  local v = redis.call('GET', KEYS[i])
  if v then
    local s, n = string.match(v, '^(%-?%d+):(%d+)$')
    if s and #s <= 15 and #n <= 9 then
      ds, dn = tonumber(s) - ts, tonumber(n) - tn
      if dn < 0 then ds, dn = ds - 1, dn + G end
      if ds < 0 then
        ds, dn = 0, 0
      elseif ds > MAXS or (ds == MAXS and dn > MAXN) then
        ds, dn = MAXS, MAXN
      end
    end
  end
  local j = 4 * i
  local as, an = ds + tonumber(ARGV[j]), dn + tonumber(ARGV[j + 1])
  if an >= G then as, an = as + 1, an - G end
  if as > MAXS or (as == MAXS and an > MAXN) then as, an = MAXS, MAXN end
  local ss = tonumber(ARGV[j + 2])
  if as > ss or (as == ss and an > tonumber(ARGV[j + 3])) then out[1] = 0 end
  afs[i], afn[i] = as, an
  out[2 * i + 2], out[2 * i + 3] = ds, dn
end
if out[1] == 1 then
  local margin = tonumber(ARGV[3])
  for i = 1, #KEYS do
    local s, n = ts + afs[i], tn + afn[i]
    if n >= G then s, n = s + 1, n - G end
    -- Lua writes a number with %.14g: exact for these integers (< 1e14).
    redis.call('SET', KEYS[i], s .. ':' .. n, 'PX', afs[i] * 1000 + math.ceil(afn[i] / 1000000) + margin)
  end
end
return out
`
