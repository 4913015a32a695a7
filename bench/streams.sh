#!/usr/bin/env bash
# Open streams, a connection burst and a burst of sends against /health
# (issue 51, item 4): STREAMS A2A 1.0 SubscribeToTask streams on waiting tasks
# (four each), then BURST connections that send nothing, then SENDS
# message/send calls at once; reports the streams' answers, /health's answer
# times (worst, median) meanwhile, the sends answered and shed (503, 429),
# that every answered task reads back, the streams still open after the
# client closed them, and RSS.
# BIN=path runs another build (e.g. an older one, for the figure before).
# Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT_STREAMS:-18093}
STREAMS=${STREAMS:-500}
BURST=${BURST:-1000}
SENDS=${SENDS:-1000}
HOLD=${HOLD:-5}
STORE=${STORE:-memory}
PROFILE=${PROFILE:-release}
if [ -z "${BIN:-}" ]; then
  if [ "$PROFILE" = release ]; then flags=(--release); else flags=(); fi
  cargo build "${flags[@]}" --quiet --bin order-exception-agent
  BIN=target/$([ "$PROFILE" = release ] && echo release || echo debug)/order-exception-agent
fi
DATA=$(mktemp -d)
RUST_LOG=${RUST_LOG:-error} PORT=$PORT AGENT__SERVER__HOST=127.0.0.1 AGENT__SERVER__WORKERS=2 \
  AGENT__STORE__BACKEND=$STORE AGENT__STORE__DATA_DIR="$DATA" "$BIN" 2>/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
echo "# streams: $STREAMS streams, $BURST idle connections, $SENDS sends, $STORE store, $BIN, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
python3 bench/streams.py "$PORT" "$PID" "$STREAMS" "$BURST" "$SENDS" "$HOLD"
