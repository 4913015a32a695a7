#!/usr/bin/env bash
# Writes answers.json, the peer's answers: the service's own answers to the
# four walkthrough requests of bench/message_send.lua, asked over A2A 1.0 so
# that they are in the shape the SDK speaks. Per request: the order number of
# its text (the peer matches on it), the status message's parts and metadata,
# the artifacts and the task's metadata. Rerun when the service's answers
# change (BIN=path/to/order-exception-agent, the release build by default).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-./target/release/order-exception-agent}
PORT=${PORT:-18199}
. bench/common.sh

PORT="$PORT" AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__BACKEND=memory RUST_LOG=warn "$BIN" >/dev/null 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
wait_for_port "$PORT"

# The texts, as bench/message_send.lua lists them.
sed -n '/^walkthrough_texts = {/,/^}/p' bench/message_send.lua | sed -n 's/^  "\(.*\)",$/\1/p' |
  while read -r text; do
    jq -n --arg text "$text" \
      '{jsonrpc: "2.0", id: 1, method: "SendMessage", params: {message: {role: "ROLE_USER", messageId: "capture", parts: [{text: $text}]}}}' |
      curl -sf -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' -d @- "http://127.0.0.1:$PORT/" |
      jq --arg order "$(echo "$text" | grep -o '[0-9]\{4,\}')" \
        '.result.task | if .status.state != "TASK_STATE_COMPLETED" then error("not completed: \(.status.state)") else . end
          | {order: $order, message: (.status.message | {parts, metadata}), artifacts, metadata}'
  done | jq -s . >bench/sdk_peer/answers.json
echo "bench/sdk_peer/answers.json: $(jq length bench/sdk_peer/answers.json) answers" >&2
