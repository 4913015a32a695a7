#!/usr/bin/env bash
# Put the release binary where manifest.yml's `path:` points (deploy/dist/),
# after checking that it runs on the cflinuxfs4 stack: glibc symbol versions
# up to 2.35 (Ubuntu 22.04) and no OpenSSL (the binary uses rustls).
#
#   deploy/stage.sh                 # cargo build --release --locked, check, copy
#   deploy/stage.sh path/to/binary  # check and copy a binary built elsewhere
#                                   # (an ubuntu:22.04 container, a musl target)
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_GLIBC=2.35
DIST=deploy/dist
NAME=order-exception-agent

if [ $# -ge 1 ]; then
  binary=$1
else
  cargo build --release --locked
  binary=${CARGO_TARGET_DIR:-target}/release/$NAME
fi
[ -x "$binary" ] || { echo "error: no executable at $binary" >&2; exit 1; }
command -v readelf >/dev/null || { echo "error: readelf (binutils) is needed for the checks" >&2; exit 1; }

# The glibc versions the binary asks for (.gnu.version_r); none for a static binary.
needed=$(readelf -V -W "$binary" | sed -n 's/.*Name: GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -uV)
highest=$(printf '%s\n' $needed | tail -n1)
if [ -n "$highest" ] && [ "$(printf '%s\n%s\n' "$highest" "$MAX_GLIBC" | sort -V | tail -n1)" != "$MAX_GLIBC" ]; then
  cat >&2 <<MSG
error: $binary needs GLIBC_$highest, but cflinuxfs4 has glibc $MAX_GLIBC.
Build it on Ubuntu 22.04 instead and stage that binary, for example:
  docker run --rm -v "\$PWD":/src -w /src ubuntu:22.04 bash -c \\
    'apt-get update && apt-get install -y curl build-essential && \\
     curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal && \\
     . "\$HOME/.cargo/env" && CARGO_TARGET_DIR=target/jammy cargo build --release --locked'
  deploy/stage.sh target/jammy/release/$NAME
MSG
  exit 1
fi
if readelf -d "$binary" | grep -E '\(NEEDED\).*\[(libssl|libcrypto)' >&2; then
  echo "error: $binary links OpenSSL; cflinuxfs4 apps must not depend on it (use rustls)" >&2
  exit 1
fi

rm -rf "$DIST"
mkdir -p "$DIST"
cp "$binary" "$DIST/$NAME"
chmod 755 "$DIST/$NAME"
echo "staged $DIST/$NAME (highest glibc symbol version: ${highest:-none, static}); now: cf push --var agent_route=<AGENT_ROUTE>"
