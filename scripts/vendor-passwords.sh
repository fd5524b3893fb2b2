#!/usr/bin/env bash
# Vendors the list of common passwords that the password policy refuses
# (NIST SP 800-63B 5.1.1.2: "passwords obtained from previous breach
# corpuses", "dictionary words", "repetitive or sequential characters")
# into password/common.txt, embedded with go:embed: nothing is fetched at
# run time. Run it to update; the copied files are committed.
#
#   scripts/vendor-passwords.sh
#
# The list is @zxcvbn-ts/language-common's passwords.json (MIT, the
# zxcvbn project's list of the most common passwords of public breach
# corpora). Fetches the pinned version with `npm pack` (the npm registry is
# the only network use), checks the tarball's sha512 against the integrity
# pinned here (what `npm view @zxcvbn-ts/language-common@VERSION
# dist.integrity` reports), and writes the passwords of 4 characters or
# more, lower case, one a line, with the licence and a VERSION file.
# Needs: npm, tar, sha512sum, xxd, base64, python3.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=4.1.3
INTEGRITY=sha512-g2bg4skmlJG9aJqC/nWziZzgYpSe/f3rKeGobrkdFiOrfZVFqqzUgC6BUQWuX54Sua9j0Jxxt+1bf4f/Mal1Kg==
DEST=password

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@zxcvbn-ts/language-common@$VERSION" >/dev/null)
tgz="$tmp/zxcvbn-ts-language-common-$VERSION.tgz"
[ -f "$tgz" ] || { echo "npm pack gave no $tgz" >&2; exit 1; }

got="sha512-$(sha512sum "$tgz" | cut -d' ' -f1 | xxd -r -p | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
  echo "@zxcvbn-ts/language-common@$VERSION: tarball integrity $got differs from the pinned $INTEGRITY" >&2
  exit 1
fi
tar -xzf "$tgz" -C "$tmp"
pkg="$tmp/package"
for f in src/passwords.json LICENSE.txt; do
  [ -f "$pkg/$f" ] || { echo "@zxcvbn-ts/language-common@$VERSION has no $f" >&2; exit 1; }
done
python3 - "$pkg/src/passwords.json" "$DEST/common.txt" <<'PY'
import json, sys
words = json.load(open(sys.argv[1], encoding="utf-8"))
seen, out = set(), []
for w in words:
    w = w.strip().lower()
    if len(w) >= 4 and w not in seen and "\n" not in w:
        seen.add(w)
        out.append(w)
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(out) + "\n")
print(f"{len(out)} passwords of 4 characters or more")
PY
cp "$pkg/LICENSE.txt" "$DEST/LICENSE-common.txt"
printf '@zxcvbn-ts/language-common %s\n%s\n' "$VERSION" "$INTEGRITY" >"$DEST/VERSION-common"
echo "vendored @zxcvbn-ts/language-common $VERSION passwords into $DEST/common.txt"
