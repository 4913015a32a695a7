#!/usr/bin/env bash
# message/send throughput with each task store: memory, SQLite (a file in a
# temp dir), PostgreSQL (a fresh database on 127.0.0.1:5432). One server at a
# time, same wrk script as bench/run.sh. Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT_BASE=${PORT_BASE:-18090}
PG_BASE=${PG_BASE:-postgres://postgres@127.0.0.1:5432}
. bench/common.sh

cargo build --release --quiet --bin order-exception-agent

DATA_DIR=$(mktemp -d)
PG_DB="oea_bench_$$"
PID=""
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
  rm -rf "$DATA_DIR"
  psql "$PG_BASE/postgres" -qc "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
psql "$PG_BASE/postgres" -qc "CREATE DATABASE $PG_DB" >/dev/null

# run NAME PORT ENV...: start the service with ENV, warm up, load, stop.
run() {
  local name=$1 port=$2; shift 2
  env RUST_LOG=${RUST_LOG:-info} PORT="$port" AGENT__SERVER__HOST=127.0.0.1 "$@" \
    ./target/release/order-exception-agent 2>/dev/null &
  PID=$!
  wait_for_port "$port"
  local measured
  measured=$(load "store-$name" "$port" "$PID")
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  echo "$name $measured"
}

memory=$(run memory $PORT_BASE AGENT__STORE__BACKEND=memory)
sqlite=$(run sqlite $((PORT_BASE + 1)) AGENT__STORE__BACKEND=sqlite AGENT__STORE__DATA_DIR="$DATA_DIR")
postgres=$(run postgres $((PORT_BASE + 2)) AGENT__STORE__DATABASE_URL="$PG_BASE/$PG_DB")

m=$(field "$memory" rps)
{
  echo "# message/send by task store ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk -t$THREADS -c$CONNECTIONS -d$DURATION)"
  echo
  echo "| store | req/s | of memory | p50 ms | p99 ms | errors | peak RSS MB |"
  echo "|---|---|---|---|---|---|---|"
  for line in "$memory" "$sqlite" "$postgres"; do
    printf '| %s | %s | %s | %s | %s | %s | %.1f |\n' "${line%% *}" "$(field "$line" rps)" \
      "$(awk -v r="$(field "$line" rps)" -v m="$m" 'BEGIN { printf "%.2f", r / m }')" \
      "$(field "$line" p50_ms)" "$(field "$line" p99_ms)" "$(field "$line" errors)" \
      "$(awk -v k="$(field "$line" peak_rss_kb)" 'BEGIN { print k / 1024 }')"
  done
  echo
  echo "targets: SQLite >= 0.40 and PostgreSQL >= 0.25 of memory"
} | tee "$OUT/stores.md"
