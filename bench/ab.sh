#!/usr/bin/env bash
# Two builds of the service against each other in alternating pairs: each
# pair starts A and B in turn (a fresh server, a fresh SQLite file), loads
# each with bench/message_send.lua, and prints req/s, the server's CPU
# microseconds per request and p99; the order swaps every pair, so a
# machine that speeds up or slows down within the run favours neither.
# On these shared VMs a change worth a few percent shows in the CPU column
# and in how many pairs it wins, not in one run's req/s (bench/README.md).
# Loopback only.
#
#   bash bench/ab.sh /tmp/before/order-exception-agent target/release/order-exception-agent
#   STORE=memory PAIRS=10 bash bench/ab.sh A B
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 2 ]; then
  echo "usage: bench/ab.sh BINARY_A BINARY_B (STORE=sqlite|memory, PAIRS=6)" >&2
  exit 2
fi
A=$1
B=$2
STORE=${STORE:-sqlite}
PAIRS=${PAIRS:-6}
DURATION=${DURATION:-5s}
WARMUP=${WARMUP:-1s}
CONNECTIONS=${CONNECTIONS:-16}
PORT=${PORT:-18480}
. bench/common.sh

PID=""
DATA=""
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; fi
  if [ -n "$DATA" ]; then rm -rf "$DATA"; fi
}
trap cleanup EXIT

# measure BINARY: one server of BINARY, loaded once; prints "req/s cpu_us p99_ms".
measure() {
  DATA=$(mktemp -d)
  env RUST_LOG=${RUST_LOG:-info} PORT="$PORT" AGENT__SERVER__HOST=127.0.0.1 \
    AGENT__STORE__BACKEND="$STORE" AGENT__STORE__DATA_DIR="$DATA" "$1" >/dev/null 2>&1 &
  PID=$!
  wait_for_port "$PORT"
  local line
  line=$(load "ab-$STORE" "$PORT" "$PID")
  kill "$PID"
  wait "$PID" 2>/dev/null || true
  PID=""
  rm -rf "$DATA"
  DATA=""
  echo "$(field "$line" rps) $(field "$line" cpu_us) $(field "$line" p99_ms)"
}

echo "store=$STORE, $PAIRS pairs of $DURATION runs; each run: req/s, CPU µs per request, p99 ms"
wins=0
for pair in $(seq 1 "$PAIRS"); do
  if [ $((pair % 2)) = 1 ]; then
    a=$(measure "$A")
    b=$(measure "$B")
  else
    b=$(measure "$B")
    a=$(measure "$A")
  fi
  # B wins a pair when it took less CPU per request.
  if [ "$(echo "$b" | cut -d' ' -f2)" -lt "$(echo "$a" | cut -d' ' -f2)" ]; then wins=$((wins + 1)); fi
  echo "pair $pair  A: $a  B: $b"
done
echo "B took less CPU per request in $wins of $PAIRS pairs"
