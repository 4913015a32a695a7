#!/usr/bin/env bash
# Memory under abuse: one authenticated caller sends the largest
# accepted messages as fast as it can (bench/abuse.py: new waiting tasks,
# follow-ups into them, finished questions) against the service with its
# default settings and store (SQLite file), authentication on. Reports RSS
# and the data folder's size over time and their peaks, to hold against
# the manifest's memory and disk limits. KINDS=finishing sends only
# questions that finish (the store's growth), KINDS=finishing-random
# those padded with random words (as large on disk as in the request);
# BIN= another build (e.g. the
# commit before a change); AGENT__… variables set around it reach the
# service. Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT_ABUSE:-18096}
KEYS_PORT=${KEYS_PORT_ABUSE:-18097}
SECONDS_RUN=${SECONDS_RUN:-60}
THREADS_RUN=${THREADS_RUN:-8}
KINDS=${KINDS:-mixed}
BIN=${BIN:-./target/release/order-exception-agent}
cargo build --release --quiet --bin order-exception-agent --example bench_token
PIDS=()
DATA=$(mktemp -d)
KEYS_DIR=$(mktemp -d)
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DATA" "$KEYS_DIR"; }
trap cleanup EXIT
TOKEN=$(./target/release/examples/bench_token "$KEYS_DIR" "http://127.0.0.1:$KEYS_PORT" | head -n1)
python3 -m http.server "$KEYS_PORT" --bind 127.0.0.1 --directory "$KEYS_DIR" >/dev/null 2>&1 &
PIDS+=($!)
RUST_LOG=warn PORT=$PORT AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__DATA_DIR="$DATA" \
  AGENT__AUTH__CLIENT_ID=bench-client AGENT__AUTH__DOMAINS=accounts.test \
  AGENT__AUTH__APP_TID=bench-tenant AGENT__AUTH__TEST_KEY_SERVER="http://127.0.0.1:$KEYS_PORT" \
  "$BIN" 2>/dev/null &
PID=$!; PIDS+=($PID)
for port in "$PORT" "$KEYS_PORT"; do
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
done
echo "# abuse: one caller, $THREADS_RUN connections, ${SECONDS_RUN}s, $KINDS, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
python3 bench/abuse.py "$PORT" "$PID" "$TOKEN" "$SECONDS_RUN" "$THREADS_RUN" "$DATA" "$KINDS"
echo "data folder after the run: $(du -sm "$DATA" | cut -f1) MB"
