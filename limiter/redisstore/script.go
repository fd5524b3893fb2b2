package redisstore

// takeScript decides a batch of takes on the server, in order and
// atomically: Redis runs a script to completion before any other command,
// and each take spends all of its buckets or none, seeing the buckets as
// the takes before it in the batch left them.
//
// Redis's Lua numbers are doubles, exact only below 2^53, and an instant in
// nanoseconds since 1970 is about 2^60. So every instant and duration is a
// pair (seconds, nanoseconds), the nanoseconds in [0, 1e9): sums and
// differences of such pairs are exact. Products and quotients are the
// caller's (cost, span, remaining), computed in int64 in Go.
//
// KEYS: the distinct buckets of the batch.
// ARGV[1]: milliseconds a key outlives the instant its bucket is full.
// ARGV[2]: "" for the server's clock (one TIME for the batch); "c" for the
// caller's clock, which each take then carries.
// ARGV[3]: the number of shapes; then each shape: its number of buckets n,
// their indices in KEYS (from 1, each once), and for each the cost of the
// take (tokens x interval) and the span (burst x interval), each as
// seconds, nanoseconds. Takes with the same buckets and limits share a
// shape, so that a batch of takes by one key sends these numbers once.
// Then each take in order: its shape's index (from 1); with the caller's
// clock, then the time as seconds and nanoseconds since 1970.
//
// A bucket's value is "S:N", the instant it is full again; a missing key is
// a full bucket, and so is a value in any other form (it is overwritten by
// the next allowed take), so stray data cannot stop metering. Each key is
// read at most once (GET), its instant kept in a table for the later takes
// of the batch, and written at most once (SET … PX), after the last take,
// when a take spent from it: its final instant, with PX = the time from the
// last allowed take on it until full, plus the margin. This is the state,
// expiry included, that the takes one script each would leave.
//
// Reply, flat: for each take, allowed (1 or 0), then for each of its keys
// its debt (the time until it is full, before the take, clamped to
// [0, MaxInt64 ns]) as seconds, nanoseconds.
const takeScript = `
if redis.replicate_commands then redis.replicate_commands() end
local G, MAXS, MAXN = 1000000000, 9223372036, 854775807
local margin, caller = tonumber(ARGV[1]), ARGV[2] ~= ''
local ts, tn
if not caller then
  local tm = redis.call('TIME')
  ts, tn = tonumber(tm[1]), tonumber(tm[2]) * 1000
end
local shapes, a = {}, 4
for h = 1, tonumber(ARGV[3]) do
  local n = tonumber(ARGV[a])
  local sh = {n}
  for i = 1, n do sh[1 + i] = KEYS[tonumber(ARGV[a + i])] end
  a = a + 1 + n
  for i = 1, 4 * n do sh[1 + n + i] = tonumber(ARGV[a + i - 1]) end
  a = a + 4 * n
  shapes[h] = sh
end
local fs, fn, px, dirty = {}, {}, {}, {}
local afs, afn = {}, {}
local out, o, na = {}, 0, #ARGV
while a <= na do
  local sh = shapes[tonumber(ARGV[a])]
  a = a + 1
  if caller then
    ts, tn = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
    a = a + 2
  end
  local n = sh[1]
  local head, allowed = o + 1, 1
  o = head
  for i = 1, n do
    local key = sh[1 + i]
    local s = fs[key]
    if s == nil then
      s = false
      local v = redis.call('GET', key)
      if v then
        local vs, vn = string.match(v, '^(%-?%d+):(%d+)$')
        if vs and #vs <= 15 and #vn <= 9 then
          s = tonumber(vs)
          fn[key] = tonumber(vn)
        end
      end
      fs[key] = s
    end
    local ds, dn = 0, 0
    if s then
      ds, dn = s - ts, fn[key] - tn
      if dn < 0 then ds, dn = ds - 1, dn + G end
      if ds < 0 then
        ds, dn = 0, 0
      elseif ds > MAXS or (ds == MAXS and dn > MAXN) then
        ds, dn = MAXS, MAXN
      end
    end
    local j = n + 4 * i - 2
    local as, an = ds + sh[j], dn + sh[j + 1]
    if an >= G then as, an = as + 1, an - G end
    if as > MAXS or (as == MAXS and an > MAXN) then as, an = MAXS, MAXN end
    local ss = sh[j + 2]
    if as > ss or (as == ss and an > sh[j + 3]) then allowed = 0 end
    afs[i], afn[i] = as, an
    out[o + 1], out[o + 2] = ds, dn
    o = o + 2
  end
  out[head] = allowed
  if allowed == 1 then
    for i = 1, n do
      local key = sh[1 + i]
      local s, m = ts + afs[i], tn + afn[i]
      if m >= G then s, m = s + 1, m - G end
      fs[key], fn[key] = s, m
      if not px[key] then dirty[#dirty + 1] = key end
      px[key] = afs[i] * 1000 + math.ceil(afn[i] / 1000000) + margin
    end
  end
end
for _, key in ipairs(dirty) do
  -- %d, not Lua's %.14g: the same digits for these integers, and cheaper.
  redis.call('SET', key, string.format('%d:%d', fs[key], fn[key]), 'PX', string.format('%d', px[key]))
end
return out
`
