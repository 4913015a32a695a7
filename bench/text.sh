#!/usr/bin/env bash
# Linear time in the size of a request's text: the worst texts
# (bench/text_worst.py) at the largest message the defaults accept (16 KiB),
# and at 64 KiB, 256 KiB and 1 MiB with the bound raised, so the time per
# byte can be read off: a linear pass costs the same per byte at every size.
# Memory store, authentication off, loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT_TEXT:-18095}
ROUNDS=${ROUNDS:-15}
SIZES=${SIZES:-"16384 65536 262144 1048576"}
cargo build --release --quiet --bin order-exception-agent
for size in $SIZES; do
  RUST_LOG=warn PORT=$PORT AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__BACKEND=memory \
    AGENT__TASKS__MAX_MESSAGE_BYTES=$size AGENT__SERVER__MAX_BODY_BYTES=$((size + 4096)) \
    ./target/release/order-exception-agent 2>/dev/null &
  pid=$!
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
  python3 bench/text_worst.py "$PORT" "$size" "$ROUNDS" || true
  echo
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
