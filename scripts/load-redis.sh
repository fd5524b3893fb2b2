#!/usr/bin/env bash
# Load test of the shared rate limiter: point lookups (GET /v1/frames/at at
# random points) on a node whose buckets live in Redis against the same
# node with local buckets, in one run, on loopback only. Both nodes serve
# copies of one data file; redis-server runs beside them without
# persistence. wrk -t1 -c16, DURATION seconds a run, the two nodes in
# turn, three runs each; prints the medians and their ratio (target >= 50%).
# Also prints the CPU time a request of each node and of redis-server.
#   scripts/load-redis.sh [DURATION]        (default 10)
#   PROFILE=DIR scripts/load-redis.sh ...   also writes CPU profiles of the
#                                           nodes: DIR/memory.prof, DIR/redis.prof
# Needs redis-server (apt-get install redis-server) and wrk.
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-10}
command -v redis-server >/dev/null || { echo "redis-server is required (apt-get install redis-server)"; exit 1; }
if ! command -v wrk >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq wrk) >/dev/null
fi
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait "${pids[@]}" 2>/dev/null || true # the nodes write their profiles as they stop
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/frameindex" .
db="$work/frames.db"
"$work/frameindex" grid build --boundary testdata/nigeria-outline.geojson --data "$db" >/dev/null
"$work/frameindex" org add load --data "$db" >/dev/null
key=$("$work/frameindex" key mint --org load --preset full --data "$db" --json | sed -n 's/.*"secret": "\(svc_sk_[0-9A-Za-z]*\)".*/\1/p')
cp "$db" "$work/frames2.db"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" --loglevel warning &
pids+=($!)
redis_pid=$!
for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done

# start_server CMD... : starts it, waits for its "http://" line, sets $url.
start_server() {
  local out="$work/out.$RANDOM"
  "$@" >"$out" 2>"$out.err" &
  pids+=($!)
  pid=$!
  for _ in $(seq 100); do
    url=$(grep -o 'http://[0-9.:]*' "$out" | head -1 || true)
    [ -n "$url" ] && return 0
    sleep 0.1
  done
  echo "server did not start: $*"; cat "$out.err"; exit 1
}
# Limits raised as in load.sh: the limiter's cost is measured, not its refusals.
limits=(--limit-key-rate 6e10 --limit-key-burst 1000000000 --limit-org-rate 6e10 --limit-org-burst 1000000000)
prof_mem=(); prof_red=()
if [ -n "${PROFILE:-}" ]; then
  mkdir -p "$PROFILE"
  prof_mem=(--cpuprofile "$PROFILE/memory.prof"); prof_red=(--cpuprofile "$PROFILE/redis.prof")
fi
start_server "$work/frameindex" serve --data "$db" --addr 127.0.0.1:0 "${limits[@]}" "${prof_mem[@]}"
mem_url=$url; mem_pid=$pid
start_server "$work/frameindex" serve --data "$work/frames2.db" --addr 127.0.0.1:0 "${limits[@]}" --limiter "redis://127.0.0.1:$port/0" "${prof_red[@]}"
redis_url=$url; red_pid=$pid
sleep 0.5 # the log is flushed every 200 ms
grep -h '"rate limits' "$work"/out.*.err | sed 's/.*"msg":"\([^"]*\)".*"limiter":"\([^"]*\)".*/  \1: \2/'

cat >"$work/points.lua" <<LUA
math.randomseed(42)
local key = "$key"
request = function()
  local lat = 8.0 + math.random() * 3.0
  local lon = 6.0 + math.random() * 4.0
  return wrk.format("GET", string.format("/v1/frames/at?lat=%.5f&lon=%.5f", lat, lon), {["Authorization"] = "Bearer " .. key})
end
LUA

rps() { wrk -t1 -c16 -d"${DUR}s" --latency -s "$work/points.lua" "$1" | tee -a "$work/wrk.log" | awk '/Requests\/sec/{print $2}'; }
# ticks PID: the CPU time the process has used, in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
tck=$(getconf CLK_TCK)
# us_per PID_TICKS_BEFORE PID_TICKS_AFTER REQUESTS: microseconds of CPU a request.
us_per() { awk -v a="$1" -v b="$2" -v n="$3" -v t="$tck" 'BEGIN{printf "%.1f", (b-a)/t*1e6/n}'; }
. scripts/median.sh
echo "running wrk -t1 -c16 -d${DUR}s, memory and redis in turn, x3 ..."
mem=(); red=()
for i in 1 2 3; do
  a=$(ticks "$mem_pid")
  mem+=("$(rps "$mem_url")")
  b=$(ticks "$mem_pid"); ra=$(ticks "$red_pid"); sa=$(ticks "$redis_pid")
  red+=("$(rps "$redis_url")")
  rb=$(ticks "$red_pid"); sb=$(ticks "$redis_pid")
  n_mem=$(awk -v r="${mem[-1]}" -v d="$DUR" 'BEGIN{print r*d}'); n_red=$(awk -v r="${red[-1]}" -v d="$DUR" 'BEGIN{print r*d}')
  echo "  run $i: memory ${mem[-1]} req/s, redis ${red[-1]} req/s;" \
    "CPU a request: node $(us_per "$a" "$b" "$n_mem") us local, $(us_per "$ra" "$rb" "$n_red") us with Redis, redis-server $(us_per "$sa" "$sb" "$n_red") us"
done
if grep -q "Non-2xx" "$work/wrk.log"; then echo "WARNING: some responses were not 2xx:"; grep -B8 "Non-2xx" "$work/wrk.log" | grep -E "Running|Non-2xx"; fi
if grep -q '"rate limiting suspended' "$work"/out.*.err; then echo "WARNING: the Redis limiter was unreachable during the run (requests passed unmetered)"; fi
m=$(median "${mem[@]}"); r=$(median "${red[@]}")
printf '%-44s %10s req/s\n' "frameindex /v1/frames/at, local buckets" "$m" "frameindex /v1/frames/at, buckets in Redis" "$r"
awk -v m="$m" -v r="$r" 'BEGIN{printf "ratio redis to local (medians of 3): %.0f%% (target >= 50%%)\n", 100*r/m}'
echo "redis: $(redis-cli -p "$port" info commandstats | grep -E 'cmdstat_(evalsha|eval):' | tr -d '\r')"
