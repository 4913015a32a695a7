#!/usr/bin/env bash
# Stalled bodies: CONNECTIONS clients each send the headers of a ~1 MB
# request and 960 KiB of its body, then stop; reports how the service
# answered them, its RSS before and at its peak while they hold, and whether
# an ordinary request was served meanwhile. Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
CONNECTIONS=${CONNECTIONS:-100}
HOLD=${HOLD:-12}
PORT=${PORT_STALLED:-18091}
PROFILE=${PROFILE:-release}
if [ "$PROFILE" = release ]; then flags=(--release); else flags=(); fi
cargo build "${flags[@]}" --quiet --bin order-exception-agent --example bench_stalled_bodies
dir=target/$([ "$PROFILE" = release ] && echo release || echo debug)
BINARY=${BINARY:-$dir/order-exception-agent}
RUST_LOG=${RUST_LOG:-warn} PORT=$PORT AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__BACKEND=memory \
  "$BINARY" 2>/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
"$dir/examples/bench_stalled_bodies" "$PORT" "$PID" "$CONNECTIONS" "$HOLD"
