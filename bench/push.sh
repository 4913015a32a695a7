#!/usr/bin/env bash
# Push load: 1,000 concurrent non-blocking sends with push configs against a
# local receiver; every final notification must arrive exactly once. Reports
# the time and the service's peak RSS. Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-1000}
PORT=${PORT_PUSH:-18090}
cargo build --release --quiet --bin order-exception-agent --example bench_push_load
# The loopback receiver needs the test allowances (refused on Cloud Foundry).
RUST_LOG=${RUST_LOG:-info} PORT=$PORT AGENT__SERVER__HOST=127.0.0.1 \
  AGENT__PUSH__ALLOWED_HOSTS=127.0.0.1 AGENT__PUSH__ALLOW_LOOPBACK_HTTP=true \
  AGENT__PUSH__ALLOW_PRIVATE_ADDRESSES=true \
  ./target/release/order-exception-agent 2>/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
result=$(./target/release/examples/bench_push_load "http://127.0.0.1:$PORT/" "$COUNT")
echo "$result peak_rss_kb=$(awk '/VmHWM/ { print $2 }' "/proc/$PID/status")"
