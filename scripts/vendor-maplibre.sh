#!/usr/bin/env bash
# Vendors MapLibre GL JS for the web application's Explore map into
# console/assets/vendor/maplibre-gl/ (embedded with go:embed: no CDN, no
# internet at run time). Run it to update; the copied files are committed.
#
#   scripts/vendor-maplibre.sh
#
# Fetches the pinned version with `npm pack` (the npm registry is the only
# network use), checks the tarball's sha512 against the integrity pinned
# here (which is what `npm view maplibre-gl@VERSION dist.integrity`
# reports), and copies the CSP build (maplibre-gl-csp.js and its worker
# maplibre-gl-csp-worker.js: the default build starts its worker from a
# blob: URL, which the console's Content-Security-Policy refuses), the
# stylesheet and the licence, with a VERSION file.
#
# To move to another version: set VERSION, run
#   npm view maplibre-gl@VERSION dist.integrity
# paste it into INTEGRITY, and run this script.
# Needs: npm, tar, sha512sum, xxd, base64.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=5.24.1 # the newest 5.x on 2026-11-24
INTEGRITY=sha512-HyiYBwtsbk3L1n1EPLJHWqdoyMiF80n7tEYXFZyu2m1TjvaNx6KMLiFeDdmszt1/mq2zvsR1TJuX/NMu5BonXQ==
DEST=console/assets/vendor/maplibre-gl

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "maplibre-gl@$VERSION" >/dev/null)
tgz="$tmp/maplibre-gl-$VERSION.tgz"
[ -f "$tgz" ] || { echo "npm pack gave no $tgz" >&2; exit 1; }

got="sha512-$(sha512sum "$tgz" | cut -d' ' -f1 | xxd -r -p | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
  echo "maplibre-gl@$VERSION: tarball integrity $got differs from the pinned $INTEGRITY" >&2
  exit 1
fi

tar -xzf "$tgz" -C "$tmp"
pkg="$tmp/package"
for f in dist/maplibre-gl-csp.js dist/maplibre-gl-csp-worker.js dist/maplibre-gl.css LICENSE.txt; do
  [ -f "$pkg/$f" ] || { echo "maplibre-gl@$VERSION has no $f" >&2; exit 1; }
done
rm -rf "$DEST"
mkdir -p "$DEST"
cp "$pkg/dist/maplibre-gl-csp.js" "$pkg/dist/maplibre-gl-csp-worker.js" "$pkg/dist/maplibre-gl.css" "$pkg/LICENSE.txt" "$DEST/"
printf 'maplibre-gl %s\n%s\n' "$VERSION" "$INTEGRITY" >"$DEST/VERSION"
echo "vendored maplibre-gl $VERSION into $DEST"
ls -l "$DEST"
