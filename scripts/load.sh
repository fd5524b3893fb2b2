#!/usr/bin/env bash
# Load test: frameindex against a bare net/http floor, in one run, on
# loopback only. Starts the real binary on a national grid, runs wrk
# (-t1 -c16, DURATION seconds each; wrk is installed from Debian if missing)
# and prints requests/s and the ratios the performance targets name.
# The four runs (floor, /at, fixed body, /frames) are taken in turn, RUNS
# times, so that a slow spell of a shared machine falls on both sides of a
# ratio; it prints every round and the medians of the rounds' ratios.
#   scripts/load.sh [DURATION] [RUNS]        (defaults 10, 3)
#   SERVE_FLAGS='--gc-floor-mib 0' scripts/load.sh ...   extra flags of serve
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-10}
RUNS=${2:-3}
if ! command -v wrk >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq wrk) >/dev/null
fi
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/frameindex" .
go build -o "$work/baseline" ./scripts/baseline
db="$work/frames.db"
"$work/frameindex" grid build --boundary testdata/nigeria-outline.geojson --data "$db" >/dev/null
"$work/frameindex" org add load --data "$db" >/dev/null
key=$("$work/frameindex" key mint --org load --preset full --data "$db" --json | sed -n 's/.*"secret": "\(svc_sk_[0-9A-Za-z]*\)".*/\1/p')

# start_server CMD... : starts it, waits for its "http://" line, sets $url.
start_server() {
  local out="$work/out.$RANDOM"
  "$@" >"$out" 2>"$out.err" &
  pids+=($!)
  for _ in $(seq 100); do
    url=$(grep -o 'http://[0-9.:]*' "$out" | head -1 || true)
    [ -n "$url" ] && return 0
    sleep 0.1
  done
  echo "server did not start: $*"; cat "$out.err"; exit 1
}
# The spec's limits would refuse all but the first 120 requests of one key;
# raise them so that the limiter's cost is measured, not its refusals.
start_server "$work/frameindex" serve --data "$db" --addr 127.0.0.1:0 \
  --limit-key-rate 6e10 --limit-key-burst 1000000000 --limit-org-rate 6e10 --limit-org-burst 1000000000 ${SERVE_FLAGS:-}
fi_url=$url
fi_pid=${pids[-1]}
sleep 0.5 # the log is flushed every 200 ms
echo "frameindex: startup $(grep -ho '"startup_ms":[0-9.]*' "$work"/out.*.err | head -1 | cut -d: -f2) ms, RSS $(awk '/VmRSS/{print $2, $3}' /proc/$fi_pid/status)"

box="bbox=7.0,9.0,7.7,9.6"   # about 5,000 frames around Abuja (70 x 72 cells)
curl -s -H "Authorization: Bearer $key" "$fi_url/v1/frames?$box" >"$work/big.json"
echo "box response: $(wc -c <"$work/big.json") bytes, $(grep -o '"type":"Feature"' "$work/big.json" | wc -l) features"
start_server "$work/baseline" -big "$work/big.json"
base_url=$url

# Points spread over central Nigeria, all inside the grid.
cat >"$work/points.lua" <<LUA
math.randomseed(42)
local key = "$key"
request = function()
  local lat = 8.0 + math.random() * 3.0
  local lon = 6.0 + math.random() * 4.0
  return wrk.format("GET", string.format("/v1/frames/at?lat=%.5f&lon=%.5f", lat, lon), {["Authorization"] = "Bearer " .. key})
end
LUA

rps() { wrk -t1 -c16 -d"${DUR}s" --latency "$@" | tee -a "$work/wrk.log" | awk '/Requests\/sec/{print $2}'; }
echo "running wrk -t1 -c16 -d${DUR}s, the four runs in turn, ${RUNS} rounds ..."
ra=() rf=()
for i in $(seq "$RUNS"); do
  small=$(rps -s "$work/points.lua" "$base_url")
  at=$(rps -s "$work/points.lua" "$fi_url")
  big=$(rps "$base_url/big")
  frames=$(rps -H "Authorization: Bearer $key" "$fi_url/v1/frames?$box")
  ra+=("$(awk -v a="$at" -v s="$small" 'BEGIN{print 100*a/s}')")
  rf+=("$(awk -v f="$frames" -v b="$big" 'BEGIN{print 100*f/b}')")
  printf 'round %d: floor %9s  /at %9s  (%.0f%%)   fixed body %8s  /frames %8s  (%.0f%%)\n' \
    "$i" "$small" "$at" "${ra[-1]}" "$big" "$frames" "${rf[-1]}"
done
if grep -q "Non-2xx" "$work/wrk.log"; then echo "WARNING: some responses were not 2xx:"; grep -B8 "Non-2xx" "$work/wrk.log" | grep -E "Running|Non-2xx"; fi
echo "frameindex after the runs: RSS $(awk '/VmRSS/{print $2, $3}' /proc/$fi_pid/status), peak $(awk '/VmHWM/{print $2, $3}' /proc/$fi_pid/status)"
. scripts/median.sh
printf 'ratio /at to bare handler:      %.0f%% median of %d rounds (target >= 70%%)\n' "$(median "${ra[@]}")" "$RUNS"
printf 'ratio /frames to fixed body:   %.0f%% median of %d rounds (target >= 40%%)\n' "$(median "${rf[@]}")" "$RUNS"
