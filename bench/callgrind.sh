#!/usr/bin/env bash
# Instructions per message/send under callgrind, the same on every run
# whatever the machine does (bench/README.md#profiling): the memory store,
# 200 requests before instrumentation starts, then 1 000 of the four
# walkthrough requests over one connection.
#
#   bench/callgrind.sh BINARY [BINARY...]   one line per binary
#
# Build each binary with `cargo build --release --bin order-exception-agent`
# (in a worktree per commit to compare two).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
port=${PORT:-18431}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

drive() { # PORT COUNT: COUNT message/send over one keep-alive connection
  python3 - "$1" "$2" <<'PY'
import http.client, json, sys, uuid
port, count = int(sys.argv[1]), int(sys.argv[2])
texts = ["why is order 4711 blocked by credit",
         "Order 4725: Pricing: customer disputes the price.",
         "Order 4723: Incomplete: delivery address data missing.",
         "customer wants a later delivery date on 4740"]
connection = http.client.HTTPConnection("127.0.0.1", port)
for i in range(count):
    body = json.dumps({"jsonrpc": "2.0", "id": i, "method": "message/send", "params": {
        "message": {"kind": "message", "role": "user", "messageId": uuid.uuid4().hex,
                    "parts": [{"kind": "text", "text": texts[i % 4]}]}}})
    connection.request("POST", "/", body, {"Content-Type": "application/json"})
    answer = connection.getresponse()
    answer.read()
    if answer.status != 200:
        sys.exit(f"HTTP {answer.status}")
PY
}

for binary in "$@"; do
  out="$work/callgrind.out"
  PORT=$port AGENT__STORE__BACKEND=memory RUST_LOG=warn \
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
    "$binary" serve >"$work/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
  done
  drive "$port" 200
  callgrind_control -i on "$pid" >/dev/null
  drive "$port" 1000
  callgrind_control -i off "$pid" >/dev/null
  callgrind_control -d "$pid" >/dev/null
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  total=$(callgrind_annotate "$out.1" | awk '/PROGRAM TOTALS/ && !seen { gsub(",", "", $1); print $1; seen = 1 }')
  echo "$binary: $((total / 1000)) instructions per message/send"
  rm -f "$out" "$out".*
done
