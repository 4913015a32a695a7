#!/usr/bin/env bash
# Load benchmark: message/send throughput, latency percentiles and peak RSS of
# the service against a bare actix-web baseline (bench/baseline.rs), driven by
# the same wrk script in the same run. Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh

SERVICE_PORT=${SERVICE_PORT:-18080}
BASELINE_PORT=${BASELINE_PORT:-18081}
AUTH_PORT=${AUTH_PORT:-18082}
KEYS_PORT=${KEYS_PORT:-18083}

cargo build --release --quiet --bin order-exception-agent --example bench_baseline --example bench_token

PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# measure NAME PORT PID [TOKEN]: load (bench/common.sh) with TOKEN as bearer.
measure() {
  export BENCH_TOKEN=${4:-}
  echo "$1 $(load "$1" "$2" "$3")"
}

RUST_LOG=${RUST_LOG:-info} PORT=$SERVICE_PORT AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__BACKEND=memory \
  ./target/release/order-exception-agent 2>/dev/null &
PIDS+=($!); SERVICE_PID=$!
./target/release/examples/bench_baseline "$BASELINE_PORT" 2>/dev/null &
PIDS+=($!); BASELINE_PID=$!
# The authenticated service: a static key server (discovery + JWKS) on
# loopback through the documented test hook, and a signed user token; one
# user at full speed, so its request-rate quotas are raised (still checked).
KEYS_DIR=$(mktemp -d)
TOKEN=$(./target/release/examples/bench_token "$KEYS_DIR" "http://127.0.0.1:$KEYS_PORT")
python3 -m http.server "$KEYS_PORT" --bind 127.0.0.1 --directory "$KEYS_DIR" >/dev/null 2>&1 &
PIDS+=($!)
RUST_LOG=${RUST_LOG:-info} PORT=$AUTH_PORT AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__BACKEND=memory \
  AGENT__AUTH__CLIENT_ID=bench-client AGENT__AUTH__DOMAINS=accounts.test \
  AGENT__AUTH__APP_TID=bench-tenant AGENT__AUTH__TEST_KEY_SERVER="http://127.0.0.1:$KEYS_PORT" \
  AGENT__SERVER__QUOTA__CALLER_PER_SEC=10000000 AGENT__SERVER__QUOTA__CALLER_BURST=10000000 \
  AGENT__SERVER__QUOTA__TENANT_PER_SEC=10000000 AGENT__SERVER__QUOTA__TENANT_BURST=10000000 \
  ./target/release/order-exception-agent 2>/dev/null &
PIDS+=($!); AUTH_PID=$!
wait_for_port "$SERVICE_PORT"; wait_for_port "$BASELINE_PORT"; wait_for_port "$AUTH_PORT"; wait_for_port "$KEYS_PORT"

# Baseline first, then the service, so neither profits from a warmer machine.
baseline=$(measure baseline "$BASELINE_PORT" "$BASELINE_PID")
service=$(measure service "$SERVICE_PORT" "$SERVICE_PID")
authenticated=$(measure service+token "$AUTH_PORT" "$AUTH_PID" "$TOKEN")

b_rps=$(field "$baseline" rps); s_rps=$(field "$service" rps)
ratio=$(awk -v s="$s_rps" -v b="$b_rps" 'BEGIN { printf "%.2f", s / b }')
a_rps=$(field "$authenticated" rps)
auth_ratio=$(awk -v a="$a_rps" -v s="$s_rps" 'BEGIN { printf "%.2f", a / s }')
s_rss_mb=$(awk -v k="$(field "$service" peak_rss_kb)" 'BEGIN { printf "%.1f", k / 1024 }')

{
  echo "# message/send load benchmark ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk -t$THREADS -c$CONNECTIONS -d$DURATION)"
  echo
  echo "| server | req/s | p50 ms | p90 ms | p99 ms | max ms | errors | peak RSS MB |"
  echo "|---|---|---|---|---|---|---|---|"
  for line in "$baseline" "$service" "$authenticated"; do
    name=${line%% *}
    printf '| %s | %s | %s | %s | %s | %s | %s | %.1f |\n' "$name" \
      "$(field "$line" rps)" "$(field "$line" p50_ms)" "$(field "$line" p90_ms)" \
      "$(field "$line" p99_ms)" "$(field "$line" max_ms)" "$(field "$line" errors)" \
      "$(awk -v k="$(field "$line" peak_rss_kb)" 'BEGIN { print k / 1024 }')"
  done
  echo
  echo "service/baseline throughput: $ratio (target >= 0.50); service peak RSS: $s_rss_mb MB (target < 30)"
  echo "with a valid IAS token / without: $auth_ratio (target >= 0.80)"
} | tee "$OUT/latest.md"
