#!/usr/bin/env bash
# One table in one run: the lighter ceiling (bench/ceiling.rs: parse +
# a fixed task-sized answer), the service with the memory store, SQLite (the
# default), PostgreSQL, the memory store with a valid IAS token, and the
# official Rust A2A SDK answering the same requests (bench/sdk_peer/), loaded
# in turn for ROUNDS short rounds (medians), so that every ratio comes from
# the same minutes of a shared machine. Then the first call of a new token, cold
# start to a healthy /health with SQLite, and (SUSTAINED=1) RSS at 1, 3 and 5
# minutes of sustained load. Loopback only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
WARMUP=${WARMUP:-1s}
CONNECTIONS=${CONNECTIONS:-16}
PORT_BASE=${PORT_BASE:-18180}
PG_BASE=${PG_BASE:-postgres://postgres@127.0.0.1:5432}
. bench/common.sh

cargo build --release --quiet --bin order-exception-agent --example bench_ceiling --example bench_token
# The SDK's peer: its own crate and lock file, built beside the service's target.
cargo build --release --quiet --manifest-path bench/sdk_peer/Cargo.toml --target-dir target/sdk_peer
# BIN=path/to/an/older/build measures that binary against the same ceiling
# (the "before" column of a before/after table).
BIN=${BIN:-./target/release/order-exception-agent}

TMP=$(mktemp -d)
PG_DB="oea_perf_$$"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$TMP" "${SQLITE_DATA:-}"
  psql "$PG_BASE/postgres" -qc "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
psql "$PG_BASE/postgres" -qc "CREATE DATABASE $PG_DB" >/dev/null

# service PORT ENV...: start the service on PORT with ENV (RUST_LOG=info, its default log).
service() {
  local port=$1; shift
  env RUST_LOG=${RUST_LOG:-info} PORT="$port" AGENT__SERVER__HOST=127.0.0.1 "$@" "$BIN" 2>/dev/null >/dev/null &
  PIDS+=($!)
}

KEYS_PORT=$((PORT_BASE + 9))
TOKENS=$(./target/release/examples/bench_token "$TMP/keys" "http://127.0.0.1:$KEYS_PORT" 21)
TOKEN=$(echo "$TOKENS" | head -1)
python3 -m http.server "$KEYS_PORT" --bind 127.0.0.1 --directory "$TMP/keys" >/dev/null 2>&1 &
PIDS+=($!)
AUTH=(AGENT__AUTH__CLIENT_ID=bench-client AGENT__AUTH__DOMAINS=accounts.test
  AGENT__AUTH__APP_TID=bench-tenant AGENT__AUTH__TEST_KEY_SERVER="http://127.0.0.1:$KEYS_PORT"
  # One user at full speed: its request-rate quotas raised, still checked.
  AGENT__SERVER__QUOTA__CALLER_PER_SEC=10000000 AGENT__SERVER__QUOTA__CALLER_BURST=10000000
  AGENT__SERVER__QUOTA__TENANT_PER_SEC=10000000 AGENT__SERVER__QUOTA__TENANT_BURST=10000000)

NAMES=(ceiling memory sqlite postgres memory+token rust-sdk)
./target/release/examples/bench_ceiling $PORT_BASE 2>/dev/null &
PIDS+=($!)
service $((PORT_BASE + 1)) AGENT__STORE__BACKEND=memory
# SQLITE_DIR puts the SQLite store's file elsewhere (/dev/shm: without the
# disk's syncs and stalls, bench/README.md).
SQLITE_DATA=$(mktemp -d "${SQLITE_DIR:-$TMP}/sqlite.XXXXXX")
service $((PORT_BASE + 2)) AGENT__STORE__BACKEND=sqlite AGENT__STORE__DATA_DIR="$SQLITE_DATA"
service $((PORT_BASE + 3)) AGENT__STORE__DATABASE_URL="$PG_BASE/$PG_DB"
service $((PORT_BASE + 4)) AGENT__STORE__BACKEND=memory "${AUTH[@]}"
./target/sdk_peer/release/bench-sdk-peer $((PORT_BASE + 5)) &
PIDS+=($!)
SERVER_PIDS=("${PIDS[@]:1}")
for i in "${!NAMES[@]}"; do wait_for_port $((PORT_BASE + i)); done
wait_for_port "$KEYS_PORT"
# The peer must complete a walkthrough task (a JSON-RPC error is a 200 too,
# and wrk would count it as an answer).
curl -s -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \
  -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"check","parts":[{"text":"why is order 4711 blocked by credit"}]}}}' \
  "http://127.0.0.1:$((PORT_BASE + 5))/" | grep -q '"state":"TASK_STATE_COMPLETED"' \
  || { echo "the Rust SDK peer does not complete a walkthrough task" >&2; exit 1; }

# Rounds: every server in turn, ROUNDS times; one result line per server and round.
: >"$TMP/rounds"
for round in $(seq 1 "$ROUNDS"); do
  for i in "${!NAMES[@]}"; do
    export BENCH_TOKEN=""
    [ "${NAMES[$i]}" = memory+token ] && export BENCH_TOKEN=$TOKEN
    also=""
    [ "${NAMES[$i]}" = postgres ] && also=postgres
    # The SDK speaks A2A 1.0 only: the same texts as SendMessage (bench/README.md).
    export LOAD_SCRIPT=bench/message_send.lua
    [ "${NAMES[$i]}" = rust-sdk ] && export LOAD_SCRIPT=bench/message_send_v1.lua
    line=$(load "perf-${NAMES[$i]}-$round" $((PORT_BASE + i)) "${SERVER_PIDS[$i]}" $also)
    echo "${NAMES[$i]} $line" | tee -a "$TMP/rounds" >&2
  done
done

# median NAME KEY: the median of KEY over NAME's rounds.
median() {
  awk -v n="$1" '$1 == n' "$TMP/rounds" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }' \
    | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# round_shares NAME [OF]: NAME's req/s over OF's (the ceiling's) in each
# round, in order (each against OF's run of the same round): how far one
# run's ratio moves.
round_shares() {
  awk -v n="$1" -v of="${2:-ceiling}" '{ split($2, kv, "="); r[$1]++; v[$1, r[$1]] = kv[2] }
    END { for (i = 1; i <= r[n]; i++) if (v[of, i] > 0) { printf "%s%.2f", sep, v[n, i] / v[of, i]; sep = " " } }' "$TMP/rounds"
}
# ratio A B: the median req/s of A over that of B.
ratio() { awk -v a="$(median "$1" rps)" -v b="$(median "$2" rps)" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# peak NAME: the highest VmHWM of NAME's rounds in MB.
peak() { awk -v n="$1" '$1 == n' "$TMP/rounds" | tr ' ' '\n' | awk -F= '$1 == "peak_rss_kb" && $2 > m { m = $2 } END { printf "%.1f", m / 1024 }'; }

# First call of a new token (one RS256 verification) against a token already seen, on
# the authenticated service: curl's total time of one message/send each, medians of 20.
BODY='{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"first-call","parts":[{"kind":"text","text":"why is order 4711 blocked by credit"}]}}}'
one_call() {
  curl -s -o /dev/null -w '%{time_total}\n' -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $1" -d "$BODY" "http://127.0.0.1:$((PORT_BASE + 4))/"
}
mid() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] * 1000 }'; }
first_ms=$(echo "$TOKENS" | tail -n +2 | while read -r t; do one_call "$t"; done | mid)
known_ms=$(for _ in $(seq 1 20); do one_call "$TOKEN"; done | mid)

# Cold start with SQLite: from exec to the first 200 from /health, a fresh data dir each time.
cold=()
for n in 1 2 3; do
  mkdir -p "$TMP/cold$n"
  start=$(date +%s%N)
  env RUST_LOG=info PORT=$((PORT_BASE + 7)) AGENT__SERVER__HOST=127.0.0.1 AGENT__STORE__DATA_DIR="$TMP/cold$n" \
    "$BIN" >/dev/null 2>&1 &
  pid=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$((PORT_BASE + 7))/health"; do :; done
  cold+=($((($(date +%s%N) - start) / 1000000)))
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
cold_ms=$(printf '%s\n' "${cold[@]}" | sort -n | sed -n 2p)

c_rps=$(median ceiling rps); m_rps=$(median memory rps)
{
  echo "# bench/perf.sh ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk -t$THREADS -c$CONNECTIONS, $ROUNDS rounds of $DURATION, medians)"
  echo
  echo "| server | req/s | share of the ceiling | share in each round | p50 ms | p99 ms | errors | peak RSS MB | CPU µs per request |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for name in "${NAMES[@]}"; do
    cpu=$(median "$name" cpu_us)
    [ "$name" = postgres ] && cpu="$cpu + $(median "$name" other_cpu_us) in PostgreSQL"
    shares="–"
    [ "$name" = ceiling ] || shares=$(round_shares "$name")
    printf '| %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$(median "$name" rps)" \
      "$(awk -v r="$(median "$name" rps)" -v c="$c_rps" 'BEGIN { printf "%.2f", r / c }')" "$shares" \
      "$(median "$name" p50_ms)" "$(median "$name" p99_ms)" "$(median "$name" errors)" "$(peak "$name")" "$cpu"
  done
  echo
  echo "against the official Rust SDK's in-memory server (req/s over its req/s, median; each round):"
  echo "sqlite ÷ rust-sdk $(ratio sqlite rust-sdk) ($(round_shares sqlite rust-sdk); target ≥ 1.5, sqlite p99 $(median sqlite p99_ms) ms, target ≤ 5),"
  echo "postgres ÷ rust-sdk $(ratio postgres rust-sdk) ($(round_shares postgres rust-sdk); target ≥ 1.2),"
  echo "memory ÷ rust-sdk $(ratio memory rust-sdk) ($(round_shares memory rust-sdk)); memory ÷ ceiling $(ratio memory ceiling) (target ≥ 0.5)"
  echo "with a token / without (memory): $(awk -v a="$(median memory+token rps)" -v m="$m_rps" 'BEGIN { printf "%.2f", a / m }')"
  echo "one message/send, curl total: first call of a new token $first_ms ms, a token already seen $known_ms ms (medians of 20)"
  echo "cold start to a healthy /health, SQLite, fresh data dir: ${cold_ms} ms (median of 3: ${cold[*]})"
} | tee "$OUT/perf.md"

[ "${SUSTAINED:-0}" = 1 ] || exit 0
# Sustained: memory and SQLite loaded at once for 5 minutes (each its own wrk),
# VmRSS read at 1, 3 and 5 minutes.
echo >&2 "sustained run: 5 minutes"
unset BENCH_TOKEN
WRKS=()
for i in 1 2; do
  wrk -t1 -c"$CONNECTIONS" -d300s -s bench/message_send.lua "http://127.0.0.1:$((PORT_BASE + i))/" >"$TMP/sustained$i" &
  WRKS+=($!)
done
rss() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
declare -A at
for minute in 1 3 5; do
  case $minute in 1) sleep 60 ;; 3) sleep 120 ;; 5) sleep 118 ;; esac
  at[memory$minute]=$(rss "${SERVER_PIDS[1]}"); at[sqlite$minute]=$(rss "${SERVER_PIDS[2]}")
done
wait "${WRKS[@]}"
{
  echo
  echo "| sustained (both loaded at once) | RSS 1 min MB | 3 min MB | 5 min MB | req/s |"
  echo "|---|---|---|---|---|"
  echo "| memory | ${at[memory1]} | ${at[memory3]} | ${at[memory5]} | $(grep '^RESULT' "$TMP/sustained1" | sed 's/.*rps=\([0-9.]*\).*/\1/') |"
  echo "| sqlite | ${at[sqlite1]} | ${at[sqlite3]} | ${at[sqlite5]} | $(grep '^RESULT' "$TMP/sustained2" | sed 's/.*rps=\([0-9.]*\).*/\1/') |"
} | tee -a "$OUT/perf.md"
