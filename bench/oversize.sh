#!/usr/bin/env bash
# Oversized values a caller may send (issue 51, items 2 and 5): push
# configs with ~950 kB tokens set on one task, and JSON-RPC calls whose
# `id` or `method` is 1 MB. Reports the answers, RSS (before, peak, after),
# the bytes a config listing answers, the data folder's growth, and the
# bytes of log the calls wrote. Authentication off (the findings used a
# viewer's token; no bound depends on it), default store (SQLite file), log
# format json at info, as on Cloud Foundry.
# BIN=path runs another build (e.g. an older one, for the figure before).
# Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT_OVERSIZE:-18101}
CONFIGS=${CONFIGS:-200}
TOKEN_BYTES=${TOKEN_BYTES:-950000}
CALLS=${CALLS:-50}
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin order-exception-agent
  BIN=./target/release/order-exception-agent
fi
DATA=$(mktemp -d)
LOG=$(mktemp)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DATA" "$LOG"; }
trap cleanup EXIT
RUST_LOG=info PORT=$PORT AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__DATA_DIR="$DATA" \
  AGENT__PUSH__ALLOWED_HOSTS=127.0.0.1 AGENT__PUSH__ALLOW_LOOPBACK_HTTP=true AGENT__PUSH__ALLOW_PRIVATE_ADDRESSES=true \
  AGENT__TELEMETRY__LOG_FORMAT=json "$BIN" >"$LOG" 2>&1 &
PID=$!
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
echo "# oversized values: $CONFIGS configs with tokens of $TOKEN_BYTES bytes, $CALLS calls of 1 MB id/method; $BIN, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
python3 bench/oversize.py "$PORT" "$PID" "$LOG" "$DATA" "$CONFIGS" "$TOKEN_BYTES" "$CALLS"
