#!/usr/bin/env bash
# Instructions per message/send under callgrind, the same on every run
# whatever the machine does (bench/README.md#profiling): the memory store
# (STORE=sqlite: a fresh SQLite file; STORE=postgres: DATABASE_URL),
# 200 requests before instrumentation starts, then 1 000 of the four
# walkthrough requests over one connection; also the task store calls per
# request (the service's /metrics) and, with KEEP=DIR, the profile
# (DIR/NAME.out, for callgrind_annotate --inclusive=yes).
#
#   bench/callgrind.sh BINARY [BINARY...]   one line per binary
#   STORE=sqlite KEEP=/tmp/profiles bench/callgrind.sh BINARY
#
# Build each binary with `cargo build --release --bin order-exception-agent`
# (in a worktree per commit to compare two).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
port=${PORT:-18431}
STORE=${STORE:-memory}
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

# store_calls PORT: task store calls so far (the a2a.store.duration counts).
store_calls() {
  curl -s "http://127.0.0.1:$1/metrics" |
    awk '/^a2a_store_duration_seconds_count/ { sum += $NF } END { printf "%d", sum }'
}

for binary in "$@"; do
  out="$work/callgrind.out"
  rm -rf "$work/data" && mkdir "$work/data"
  PORT=$port AGENT__STORE__BACKEND=$STORE AGENT__STORE__DATA_DIR="$work/data" RUST_LOG=warn \
    AGENT__TELEMETRY__METRICS_ENDPOINT=true \
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
    "$binary" serve >"$work/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
  done
  drive "$port" 200
  calls_before=$(store_calls "$port")
  callgrind_control -i on "$pid" >/dev/null
  drive "$port" 1000
  callgrind_control -i off "$pid" >/dev/null
  calls_after=$(store_calls "$port")
  callgrind_control -d "$pid" >/dev/null
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  total=$(callgrind_annotate "$out.1" | awk '/PROGRAM TOTALS/ && !seen { gsub(",", "", $1); print $1; seen = 1 }')
  echo "$binary ($STORE): $((total / 1000)) instructions per message/send," \
    "$(awk -v n=$((calls_after - calls_before)) 'BEGIN { printf "%.2f", n / 1000 }') task store calls"
  if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP"
    cp "$out.1" "$KEEP/$(basename "$(dirname "$binary")")-$(basename "$binary")-$STORE.out"
  fi
  rm -f "$out" "$out".*
done
