#!/usr/bin/env bash
# What tracing costs: message/send throughput, latency and peak RSS of the
# service (memory store) with no OTLP export, with export over gRPC to a
# loopback collector (bench/otlp_sink.rs), and with the collector down (the
# bounded queue drops and counts). Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-15s}
SERVICE_PORT=${SERVICE_PORT:-18090}
SINK_PORT=${SINK_PORT:-18091}
DOWN_PORT=${DOWN_PORT:-18092}
. bench/common.sh

cargo build --release --quiet --bin order-exception-agent --example bench_otlp_sink

PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

./target/release/examples/bench_otlp_sink "$SINK_PORT" >"$OUT/otlp_sink.txt" &
SINK_PID=$!; PIDS+=("$SINK_PID")
wait_for_port "$SINK_PORT"

# run NAME [ENV=VALUE...]: start the service with the extra environment,
# warm up, load, read peak RSS and the dropped-span counter, stop it.
run() {
  local name=$1; shift
  env "$@" RUST_LOG=info PORT=$SERVICE_PORT AGENT__SERVER__HOST=127.0.0.1 \
    AGENT__STORE__BACKEND=memory AGENT__AUTH__MODE=off AGENT__TELEMETRY__METRICS_ENDPOINT=true \
    ./target/release/order-exception-agent 2>/dev/null &
  local pid=$!
  wait_for_port "$SERVICE_PORT"
  local measured dropped
  measured=$(load "telemetry-$name" "$SERVICE_PORT" "$pid")
  dropped=$(curl -s "http://127.0.0.1:$SERVICE_PORT/metrics" \
    | awk '/^a2a_telemetry_spans_dropped_total/ { sum += $2 } END { print sum + 0 }')
  kill -TERM "$pid"; wait "$pid" || true
  echo "$name $measured spans_dropped=$dropped"
}

none=$(run no-export)
grpc=$(run grpc-collector OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$SINK_PORT" OTEL_EXPORTER_OTLP_PROTOCOL=grpc)
down=$(run collector-down OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$DOWN_PORT" OTEL_EXPORTER_OTLP_PROTOCOL=grpc)
kill -TERM "$SINK_PID"; wait "$SINK_PID" || true

n_rps=$(field "$none" rps)
{
  echo "# telemetry cost ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk -t$THREADS -c$CONNECTIONS -d$DURATION)"
  echo
  echo "| export | req/s | of no export | p50 ms | p99 ms | errors | peak RSS MB | spans dropped |"
  echo "|---|---|---|---|---|---|---|---|"
  for line in "$none" "$grpc" "$down"; do
    printf '| %s | %s | %.2f | %s | %s | %s | %.1f | %s |\n' "${line%% *}" \
      "$(field "$line" rps)" "$(awk -v r="$(field "$line" rps)" -v n="$n_rps" 'BEGIN { print r / n }')" \
      "$(field "$line" p50_ms)" "$(field "$line" p99_ms)" "$(field "$line" errors)" \
      "$(awk -v k="$(field "$line" peak_rss_kb)" 'BEGIN { print k / 1024 }')" "$(field "$line" spans_dropped)"
  done
  echo
  echo "collector: $(cat "$OUT/otlp_sink.txt")"
} | tee "$OUT/telemetry.md"
