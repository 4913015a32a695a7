#!/usr/bin/env bash
# What forged tokens cost (issue 51, item 1): unsigned tokens with the
# trusted issuer, our audience and tenant, and a new azp each, against the
# service with authentication on and a static key server (python3 -m
# http.server, its access log counting the "IAS" calls). Reports RSS and
# key-server calls before and after the flood, how it was answered, and
# whether a real user's new token then needed the key server.
# BIN=path runs another build (e.g. an older one, for the figure before).
# Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT_FORGED:-18098}
KEYS_PORT=${KEYS_PORT_FORGED:-18099}
COUNT=${COUNT:-800}
AZP_BYTES=${AZP_BYTES:-36}
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin order-exception-agent --example bench_token
  BIN=./target/release/order-exception-agent
fi
TOKEN_BIN=${TOKEN_BIN:-$(dirname "$BIN")/examples/bench_token}
PIDS=()
DATA=$(mktemp -d)
KEYS_DIR=$(mktemp -d)
KEYS_LOG=$(mktemp)
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DATA" "$KEYS_DIR" "$KEYS_LOG"; }
trap cleanup EXIT
# Two user tokens (two jti): one before the flood, one after.
mapfile -t TOKENS < <("$TOKEN_BIN" "$KEYS_DIR" "http://127.0.0.1:$KEYS_PORT" 2)
python3 -m http.server "$KEYS_PORT" --bind 127.0.0.1 --directory "$KEYS_DIR" 2>"$KEYS_LOG" >/dev/null &
PIDS+=($!)
RUST_LOG=error PORT=$PORT AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__BACKEND=memory \
  AGENT__STORE__DATA_DIR="$DATA" \
  AGENT__AUTH__CLIENT_ID=bench-client AGENT__AUTH__DOMAINS=accounts.test \
  AGENT__AUTH__APP_TID=bench-tenant AGENT__AUTH__TEST_KEY_SERVER="http://127.0.0.1:$KEYS_PORT" \
  "$BIN" 2>/dev/null &
PID=$!; PIDS+=($PID)
for port in "$PORT" "$KEYS_PORT"; do
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
done
echo "# forged tokens: $COUNT, azp of $AZP_BYTES bytes, $BIN, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
python3 bench/forged.py "$PORT" "$PID" "$KEYS_LOG" "${TOKENS[0]}" "${TOKENS[1]}" "$COUNT" "$AZP_BYTES"
