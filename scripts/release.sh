#!/usr/bin/env bash
# Release build of frameindex, reproducible: the same commit gives the same
# bytes on any machine with the same Go version.
#
#   scripts/release.sh             # into dist/
#   OUT=/tmp/rel scripts/release.sh
#   VERSION=v1.2.0 scripts/release.sh
#
# Writes, for linux/amd64, linux/arm64, windows/amd64 and darwin/arm64:
#   frameindex_VERSION_OS_ARCH.tar.gz (.zip for Windows)  the binary, README.md, docs/
#   frameindex_VERSION_OS_ARCH.cdx.json                   CycloneDX SBOM of its Go modules
# and for Linux the Debian packages frameindex_DEBVERSION_ARCH.deb (binary,
# systemd unit, /etc/default/frameindex), then SHA256SUMS over all of them.
#
# Reproducible: CGO off, -trimpath, an empty build id, no VCS stamping
# (version, commit and date go in by -X), and every time stamp (archives,
# packages, SBOM) is SOURCE_DATE_EPOCH, by default the commit's time.
# Needs: go, git, tar, gzip, zip; nfpm and cyclonedx-gomod are Go modules
# run with `go run` (fetched through the Go module proxy on first use).
set -euo pipefail
cd "$(dirname "$0")/.."

NFPM=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.44.1
CYCLONEDX=github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0
TARGETS=${TARGETS:-"linux/amd64 linux/arm64 windows/amd64 darwin/arm64"}
OUT=${OUT:-dist}

COMMIT=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  COMMIT="$COMMIT+dirty"
fi
VERSION=${VERSION:-$(git describe --tags --match 'v*' --always 2>/dev/null || echo v0.0.0)}
case $VERSION in v*) ;; *) VERSION=v0.0.0-$VERSION ;; esac
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
DATE=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
# Debian versions start with a digit and sort "~" before anything: v1.2.0
# is 1.2.0, v1.2.0-3-gabc1234 (3 commits past the tag) is 1.2.0+3.gabc1234.
DEBVERSION=${VERSION#v}
DEBVERSION=${DEBVERSION//-/+}
DEBVERSION=${DEBVERSION//+g/.g}
case $DEBVERSION in [0-9]*) ;; *) DEBVERSION=0.0.0+$DEBVERSION ;; esac

export CGO_ENABLED=0 GOFLAGS=-buildvcs=false TZ=UTC LC_ALL=C
LDFLAGS="-s -w -buildid= -X frameindex/cli.version=$VERSION -X frameindex/cli.commit=$COMMIT -X frameindex/cli.date=$DATE"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT"/frameindex_* "$OUT/SHA256SUMS"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "frameindex $VERSION (commit $COMMIT, $DATE), $(go version)"
for t in $TARGETS; do
  os=${t%/*} arch=${t#*/}
  name=frameindex_${VERSION}_${os}_${arch}
  dir=$work/$name
  mkdir -p "$dir"
  exe=frameindex
  [ "$os" = windows ] && exe=frameindex.exe
  echo "build $t"
  GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$dir/$exe" .
  cp README.md "$dir/README.md"
  mkdir "$dir/docs" && cp docs/*.md "$dir/docs/"
  touch -d "@$SOURCE_DATE_EPOCH" "$dir" "$dir"/* "$dir"/docs/*
  if [ "$os" = windows ]; then
    (cd "$work" && find "$name" -print | sort | zip -q -X -D -@ "$OUT/$name.zip")
  else
    tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
      -C "$work" -cf - "$name" | gzip -n -9 > "$OUT/$name.tar.gz"
  fi
  # The SBOM of the binary: the Go modules it was built from, as its build
  # information records them.
  go run "$CYCLONEDX" bin -json -noserial -notimestamp -version "$VERSION" \
    -output "$OUT/$name.cdx.json" "$dir/$exe"
  if [ "$os" = linux ]; then
    echo "package $t"
    sed -e "s|\${VERSION}|$DEBVERSION|g" -e "s|\${ARCH}|$arch|g" -e "s|\${BINARY}|$dir/$exe|g" \
      packaging/nfpm.yaml > "$work/nfpm-$arch.yaml"
    go run "$NFPM" package --config "$work/nfpm-$arch.yaml" --packager deb \
      --target "$OUT/frameindex_${DEBVERSION}_${arch}.deb" >/dev/null
  fi
done

(cd "$OUT" && sha256sum -- * > SHA256SUMS)
echo "wrote $OUT:"
(cd "$OUT" && ls -l)
