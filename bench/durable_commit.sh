#!/usr/bin/env bash
# What waiting for PostgreSQL's WAL flush costs the task writes (issue 54):
# message/send on PostgreSQL with store.postgres_async_task_commit false (the
# default: durable) and true, in interleaved rounds (durable, async, durable,
# async, …) so that a busy spell of the machine hits both alike; prints each
# round and the medians. A fresh database on 127.0.0.1:5432, TCP; loopback
# only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-18095}
ROUNDS=${ROUNDS:-5}
PG_BASE=${PG_BASE:-postgres://postgres@127.0.0.1:5432}
. bench/common.sh

cargo build --release --quiet --bin order-exception-agent

PG_DB="oea_durable_$$"
PID=""
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
  psql "$PG_BASE/postgres" -qc "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
psql "$PG_BASE/postgres" -qc "CREATE DATABASE $PG_DB" >/dev/null

# run ASYNC: start the service with that setting, warm up, load, stop; print
# the result line.
run() {
  env RUST_LOG=${RUST_LOG:-info} PORT="$PORT" AGENT__SERVER__HOST=127.0.0.1 \
    AGENT__STORE__DATABASE_URL="$PG_BASE/$PG_DB" AGENT__STORE__POSTGRES_ASYNC_TASK_COMMIT="$1" \
    ./target/release/order-exception-agent 2>/dev/null &
  PID=$!
  wait_for_port "$PORT"
  load "durable-commit-$1" "$PORT" "$PID" postgres
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
}

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

declare -a durable=() async=()
for round in $(seq 1 "$ROUNDS"); do
  durable+=("$(run false)")
  async+=("$(run true)")
  echo "round $round: durable ${durable[-1]}" >&2
  echo "round $round: async   ${async[-1]}" >&2
done

{
  echo "# PostgreSQL task writes: durable against asynchronous commit ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $ROUNDS interleaved rounds)"
  echo
  echo "| commit | req/s (median) | p50 ms | p99 ms | service CPU µs/request | PostgreSQL CPU µs/request | errors | rounds' req/s |"
  echo "|---|---|---|---|---|---|---|---|"
  for kind in durable async; do
    declare -n lines=$kind
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$kind" \
      "$(for l in "${lines[@]}"; do field "$l" rps; done | median)" \
      "$(for l in "${lines[@]}"; do field "$l" p50_ms; done | median)" \
      "$(for l in "${lines[@]}"; do field "$l" p99_ms; done | median)" \
      "$(for l in "${lines[@]}"; do field "$l" cpu_us; done | median)" \
      "$(for l in "${lines[@]}"; do field "$l" other_cpu_us; done | median)" \
      "$(for l in "${lines[@]}"; do field "$l" errors; done | awk '{ s += $1 } END { print s }')" \
      "$(for l in "${lines[@]}"; do field "$l" rps; done | tr '\n' ' ' | sed 's/ $//')"
    unset -n lines
  done
} | tee "$OUT/durable_commit.md"
