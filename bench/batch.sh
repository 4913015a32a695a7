#!/usr/bin/env bash
# Several orders in one request: the time for a 20-order batch against a
# backend with 200 ms latency per read (the embedded source, the 20 blocked
# orders of bench/batch_data/), and the service's peak RSS. Two requests:
# "show me all blocked orders" (one list read, then each order's
# specialist read) and the 20 numbers named (each order read, then its
# specialist read). In parallel the time is about the sequential reads per
# order times 200 ms, not twenty times it. Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-18095}
LATENCY_MS=${LATENCY_MS:-200}
RUNS=${RUNS:-5}
# BIN=target/debug/order-exception-agent to reuse a debug build.
BIN=${BIN:-target/release/order-exception-agent}
OUT=bench/results
mkdir -p "$OUT"

# wait_for_port PORT: until something accepts on 127.0.0.1:PORT (10 s at most).
wait_for_port() {
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on port $1" >&2
  return 1
}

if [ "$BIN" = target/release/order-exception-agent ]; then
  cargo build --release --quiet --bin order-exception-agent
fi

env RUST_LOG=${RUST_LOG:-warn} PORT="$PORT" AGENT__SERVER__HOST=127.0.0.1 \
  AGENT__STORE__BACKEND=memory \
  AGENT__BACKEND__DATA_DIR=bench/batch_data AGENT__BACKEND__LATENCY_MS="$LATENCY_MS" \
  AGENT__BATCH__MAX_ORDERS=20 AGENT__BATCH__MAX_IN_FLIGHT=20 \
  "$BIN" 2>/dev/null &
PID=$!
trap 'kill "$PID" 2>/dev/null || true' EXIT
wait_for_port "$PORT"

named="why are $(seq -s ', ' 4801 4820) stuck?"

# ask TEXT: seconds for one blocking message/send, and the items it answered.
ask() {
  local body
  body=$(jq -nc --arg text "$1" '{jsonrpc: "2.0", id: 1, method: "message/send",
    params: {message: {kind: "message", role: "user", messageId: "m",
      parts: [{kind: "text", text: $text}]}}}')
  curl -s -o "$OUT/batch.answer.json" -w '%{time_total}' -H 'Content-Type: application/json' \
    -H 'X-Agent-Role: ar_clerk' --data "$body" "http://127.0.0.1:$PORT/"
  echo " $(jq '[.result.artifacts[] | select(.name == "orders") | .parts[0].data.orders[]] | length' "$OUT/batch.answer.json")"
}

# series TEXT: RUNS times; prints "min median max items".
series() {
  local times=() items=0 line
  for _ in $(seq 1 "$RUNS"); do
    line=$(ask "$1")
    times+=("${line%% *}")
    items=${line##* }
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v items="$items" \
    '{ t[NR] = $1 } END { printf "%.3f %.3f %.3f %s", t[1], t[int((NR + 1) / 2)], t[NR], items }'
}

listed=$(series "show me all blocked orders")
by_number=$(series "$named")
rss=$(awk '/VmHWM/ { print $2 }' "/proc/$PID/status")
{
  echo "# 20-order batch, ${LATENCY_MS} ms per read ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $RUNS runs, $BIN)"
  echo
  echo "| request | items | min s | median s | max s |"
  echo "|---|---|---|---|---|"
  set -- $listed; echo "| show me all blocked orders | $4 | $1 | $2 | $3 |"
  set -- $by_number; echo "| the 20 numbers named | $4 | $1 | $2 | $3 |"
  echo
  echo "peak RSS: $(awk -v kb="$rss" 'BEGIN { printf "%.1f", kb / 1024 }') MB"
} | tee "$OUT/batch.md"
