#!/usr/bin/env bash
# message/send throughput and latency with backend.source = s4hana against the
# S/4HANA double (tests/api/doubles/s4hana, run as a process of its own by the
# ignored test doubles::s4hana::standalone), without and with 50 ms added per S/4
# call, next to the embedded demo data, with the same wrk script as run.sh;
# then each walkthrough question alone at STAGE_LATENCY_MS (400) per call: its
# median time and the stages (S/4 rounds one after another) that time means.
# Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-5s}
WARMUP=${WARMUP:-2s}
. bench/common.sh

EMBEDDED_PORT=${EMBEDDED_PORT:-18090}
S4_PORT=${S4_PORT:-18091}
S4_SLOW_PORT=${S4_SLOW_PORT:-18092}
LATENCY_MS=${LATENCY_MS:-50}
S4_STAGE_PORT=${S4_STAGE_PORT:-18093}
STAGE_LATENCY_MS=${STAGE_LATENCY_MS:-400}
STAGE_RUNS=${STAGE_RUNS:-5}

# PROFILE=debug measures a debug build (quicker to build, slower to run);
# BIN=path/to/an/older/build measures that binary instead (nothing is built).
PROFILE=${PROFILE:-release}
if [ -n "${BIN:-}" ]; then
  AGENT_BIN=$BIN
else
  if [ "$PROFILE" = release ]; then
    cargo build --release --quiet --bin order-exception-agent
  else
    cargo build --quiet --bin order-exception-agent
  fi
  AGENT_BIN=./target/$PROFILE/order-exception-agent
fi
DOUBLE_BIN=$(cargo test --test api --no-run 2>&1 | grep -o 'target/debug/deps/api-[0-9a-f]*' | tail -1)

PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
RUN_DIR=$(mktemp -d)

# double NAME LATENCY_MS: start the S/4 double, print its URL.
double() {
  S4_DOUBLE_URL_FILE="$RUN_DIR/$1.url" S4_DOUBLE_LATENCY_MS=$2 "$DOUBLE_BIN" --ignored --exact \
    doubles::s4hana::standalone::serve_the_s4_double_until_killed >"$RUN_DIR/$1.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do [ -s "$RUN_DIR/$1.url" ] && break; sleep 0.1; done
  cat "$RUN_DIR/$1.url"
}

# agent PORT [S4_URL]: the release service on PORT, embedded or on S4_URL
# (direct mode with the double's communication user).
agent() {
  local port=$1 url=${2:-}
  if [ -n "$url" ]; then
    env AGENT__BACKEND__SOURCE=s4hana AGENT__BACKEND__S4HANA__URL="$url" \
      AGENT__BACKEND__S4HANA__USER=COMM_USER_ORDERS AGENT__BACKEND__S4HANA__PASSWORD=comm-user-password \
      AGENT__BACKEND__S4HANA__ALLOW_LOOPBACK_HTTP=true \
      RUST_LOG=${RUST_LOG:-info} PORT="$port" AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__BACKEND=memory \
      "$AGENT_BIN" >/dev/null 2>&1 &
  else
    env RUST_LOG=${RUST_LOG:-info} PORT="$port" AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__BACKEND=memory \
      "$AGENT_BIN" >/dev/null 2>&1 &
  fi
  PIDS+=($!)
  AGENT_PID=$!
  wait_for_port "$port"
  # The answers must be real answers, not failures counted as requests.
  local answer
  answer=$(curl -s -H 'Content-Type: application/json' "http://127.0.0.1:$port/" -d \
    '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"check","parts":[{"kind":"text","text":"why is order 4711 blocked by credit"}]}}}')
  if ! echo "$answer" | grep -q '50700'; then
    echo "the service on port $port does not explain 4711: $answer" >&2
    exit 1
  fi
}

agent "$EMBEDDED_PORT"
embedded="embedded $(load s4-embedded "$EMBEDDED_PORT" "$AGENT_PID")"
kill "$AGENT_PID"

agent "$S4_PORT" "$(double fast 0)"
s4="s4hana $(load s4-double "$S4_PORT" "$AGENT_PID")"
kill "$AGENT_PID"

agent "$S4_SLOW_PORT" "$(double slow "$LATENCY_MS")"
slow="s4hana+${LATENCY_MS}ms $(load s4-double-slow "$S4_SLOW_PORT" "$AGENT_PID")"
kill "$AGENT_PID"

# stages PORT TEXT: the median seconds of STAGE_RUNS asks of TEXT one after
# another, and the stages that is at STAGE_LATENCY_MS per call (the agent's
# own work is milliseconds, so the time over the latency, rounded down, is
# the number of S/4 rounds waited for).
stages() {
  local port=$1 text=$2 times=() run out
  for run in $(seq 1 "$STAGE_RUNS"); do
    out=$(curl -s -w ' %{time_total}' -H 'Content-Type: application/json' "http://127.0.0.1:$port/" -d \
      "{\"jsonrpc\":\"2.0\",\"id\":$run,\"method\":\"message/send\",\"params\":{\"message\":{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"stage-$run\",\"parts\":[{\"kind\":\"text\",\"text\":\"$text\"}]}}}")
    if ! echo "$out" | grep -q '"result"' || echo "$out" | grep -q '"state":"failed"'; then
      echo "\"$text\" failed: $out" >&2
      exit 1
    fi
    times+=("${out##* }")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v l="$STAGE_LATENCY_MS" \
    '{ t[NR] = $1 } END { m = t[int((NR + 1) / 2)]; printf "%.3f %d\n", m, int(m * 1000 / l) }'
}

agent "$S4_STAGE_PORT" "$(double stages "$STAGE_LATENCY_MS")"
questions=(
  "why is order 4711 blocked by credit"
  "Order 4725: Pricing: customer disputes the price."
  "Order 4723: Incomplete: delivery address data missing."
  "customer wants a later delivery date on 4740"
)
staged=()
for question in "${questions[@]}"; do
  measured=$(stages "$S4_STAGE_PORT" "$question")
  staged+=("$measured")
done

{
  echo "# message/send with the S/4HANA source ($(date -u +%Y-%m-%dT%H:%MZ), ${BIN:+$BIN, }$PROFILE build, $(nproc) cores, wrk -t$THREADS -c$CONNECTIONS -d$DURATION)"
  echo
  echo "| source | req/s | p50 ms | p90 ms | p99 ms | max ms | errors | agent peak RSS MB |"
  echo "|---|---|---|---|---|---|---|---|"
  for line in "$embedded" "$s4" "$slow"; do
    name=${line%% *}
    printf '| %s | %s | %s | %s | %s | %s | %s | %.1f |\n' "$name" \
      "$(field "$line" rps)" "$(field "$line" p50_ms)" "$(field "$line" p90_ms)" \
      "$(field "$line" p99_ms)" "$(field "$line" max_ms)" "$(field "$line" errors)" \
      "$(awk -v k="$(field "$line" peak_rss_kb)" 'BEGIN { print k / 1024 }')"
  done
  echo
  echo "Each question alone, ${STAGE_LATENCY_MS} ms added per S/4 call, median of $STAGE_RUNS:"
  echo
  echo "| question | median s | stages |"
  echo "|---|---|---|"
  for i in "${!questions[@]}"; do
    printf '| %s | %s | %s |\n' "${questions[$i]}" "${staged[$i]% *}" "${staged[$i]#* }"
  done
} | tee "$OUT/s4hana.md"
