#!/usr/bin/env bash
# Checks a Debian package of frameindex (scripts/release.sh makes them):
#
#   scripts/check-deb.sh dist/frameindex_1.2.0_amd64.deb [DEBIAN_ROOT]
#
# Without installing anything here: the control fields, the files and
# their modes, the conffile, that the systemd unit passes
# `systemd-analyze verify` (in a scratch root holding the package and this
# machine's standard units) and scores at most 2.0 on
# `systemd-analyze security` (lower is better; 1.6 when written), and that
# the binary runs (when built for this machine).
#
# With DEBIAN_ROOT, a Debian root file system to chroot into (for example
# one made by `debootstrap --variant=minbase bookworm DIR`; run as root):
# installs the package there (the service user, the owner-only data
# directory), builds a grid as the service user, checks the file, removes
# the package and checks that the data stays.
set -euo pipefail
deb=$(realpath "$1")
root=${2:-}
fail() { echo "check-deb: $*" >&2; exit 1; }

field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = frameindex ] || fail "Package is $(field Package)"
arch=$(field Architecture)
case $(basename "$deb") in *_"$arch".deb) ;; *) fail "Architecture $arch does not match the file name" ;; esac
echo "package $(field Package) $(field Version) $arch"

contents=$(dpkg-deb --contents "$deb")
want() {
  echo "$contents" | grep -Eq "^$1 +root/root +[0-9]+ .* \./${2#/}\$" || fail "missing or wrong: $2 ($1)"
}
want -rwxr-xr-x /usr/bin/frameindex
want -rw-r--r-- /usr/lib/systemd/system/frameindex.service
want -rw-r--r-- /etc/default/frameindex
want -rw-r--r-- /usr/share/doc/frameindex/docs/api.md
dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles | grep -qx /etc/default/frameindex ||
  fail "/etc/default/frameindex is not a conffile"
for s in preinst postinst prerm postrm; do
  dpkg-deb --ctrl-tarfile "$deb" | tar -tf - "./$s" >/dev/null || fail "no $s script"
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
dpkg-deb -x "$deb" "$scratch"
unit=/usr/lib/systemd/system/frameindex.service
grep -q '^ExecStart=/usr/bin/frameindex serve --data /var/lib/frameindex/frames.db' "$scratch$unit" ||
  fail "the unit does not serve /var/lib/frameindex/frames.db"
grep -q '^User=frameindex$' "$scratch$unit" || fail "the unit does not run as frameindex"
if command -v systemd-analyze >/dev/null; then
  # verify resolves the unit's dependencies (sysinit.target, ...) in the
  # root it is given: lend it this machine's standard units.
  for d in /usr/lib/systemd/system /lib/systemd/system; do
    [ -d "$d" ] && cp -an "$d/." "$scratch/usr/lib/systemd/system/" 2>/dev/null || true
  done
  systemd-analyze verify --root="$scratch" "$unit" || fail "systemd-analyze verify failed"
  systemd-analyze security --offline=yes --root="$scratch" --threshold=20 frameindex.service >/dev/null ||
    fail "systemd-analyze security: exposure above 2.0"
  echo "unit: systemd-analyze verify passes; $(systemd-analyze security --offline=yes --root="$scratch" frameindex.service 2>/dev/null | tail -1 | sed 's/→ //')"
else
  echo "unit: systemd-analyze absent, not verified"
fi
if [ "$arch" = "$(dpkg --print-architecture)" ]; then
  "$scratch/usr/bin/frameindex" version | head -1
fi

[ -n "$root" ] || exit 0
[ "$(id -u)" = 0 ] || fail "installing into $root needs root"
[ "$arch" = "$(dpkg --print-architecture)" ] || fail "a $arch package does not run here"
cp "$deb" "$root/tmp/frameindex.deb"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
in_root dpkg -i /tmp/frameindex.deb
in_root getent passwd frameindex | grep -q ':/var/lib/frameindex:/usr/sbin/nologin$' || fail "no service user"
owner() { in_root stat -c %U:%a "$1"; }
[ "$(owner /var/lib/frameindex)" = frameindex:700 ] || fail "data directory: $(owner /var/lib/frameindex)"
cat > "$root/tmp/outline.geojson" <<'EOF'
{"type":"Polygon","coordinates":[[[7.4,9.0],[7.55,9.0],[7.55,9.1],[7.4,9.1],[7.4,9.0]]]}
EOF
chmod 644 "$root/tmp/outline.geojson"
in_root runuser -u frameindex -- frameindex grid build --boundary /tmp/outline.geojson --data /var/lib/frameindex/frames.db
in_root runuser -u frameindex -- frameindex check --data /var/lib/frameindex/frames.db
[ "$(owner /var/lib/frameindex/frames.db)" = frameindex:600 ] || fail "data file: $(owner /var/lib/frameindex/frames.db)"
in_root dpkg -r frameindex
[ ! -e "$root/usr/bin/frameindex" ] || fail "the binary stayed after removal"
[ -e "$root/var/lib/frameindex/frames.db" ] || fail "removal took the data file"
[ -e "$root/etc/default/frameindex" ] || fail "removal (not purge) took the conffile"
in_root dpkg -i /tmp/frameindex.deb >/dev/null
echo "installed, used and removed in $root"
