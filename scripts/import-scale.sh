#!/usr/bin/env bash
# Import at national scale: builds the binary and a national grid, generates
# 1 M and 4 M synthetic features (scripts/genfeatures), imports each with
# --count and --take, and prints time, features per second and peak
# resident memory (GNU time) of every import.
#   scripts/import-scale.sh [point|polygon] [COUNTS...]   (default: polygon 1000000 4000000)
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-polygon}; shift || true
counts=("$@"); [ ${#counts[@]} -gt 0 ] || counts=(1000000 4000000)
[ -x /usr/bin/time ] || (apt-get update -qq && apt-get install -y -qq time) >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/frameindex" .
go build -o "$work/genfeatures" ./scripts/genfeatures
db="$work/frames.db"
"$work/frameindex" grid build --boundary testdata/nigeria-outline.geojson --data "$db" >/dev/null
"$work/frameindex" org add agency --data "$db" >/dev/null
for n in "${counts[@]}"; do
  in="$work/f-$n.geojsonl"
  "$work/genfeatures" -n "$n" -kind "$kind" > "$in"
  size=$(du -m "$in" | cut -f1)
  /usr/bin/time -f "%e %M" -o "$work/time" "$work/frameindex" import --data "$db" --dataset "b$n" --owner agency \
    --features "$in" --outside skip --count building_count --take area_in_meters:footprint_area,use:use \
    --attr building_count:number:sum:buildings --attr footprint_area:number:sum:m² --attr use:category >/dev/null
  read -r secs kb < "$work/time"
  awk -v n="$n" -v s="$secs" -v kb="$kb" -v mb="$size" -v k="$kind" \
    'BEGIN { printf "%s features %d (%d MB): %.1f s, %.0f features/s, peak RSS %.0f MiB\n", k, n, mb, s, n/s, kb/1024 }'
  rm -f "$in"
done
ls -l "$db" | awk '{ printf "data file %.0f MiB\n", $5/1048576 }'
