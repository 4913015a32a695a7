# Shared by the load benchmarks (sourced, not run): the wrk settings, the
# results folder, wrk itself, and waiting for a port on loopback.

DURATION=${DURATION:-20s}
WARMUP=${WARMUP:-3s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-1}
OUT=bench/results
mkdir -p "$OUT"

if ! command -v wrk >/dev/null; then
  echo "installing wrk (Debian package)" >&2
  apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi

# wait_for_port PORT: until something accepts on 127.0.0.1:PORT (10 s at most).
wait_for_port() {
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on port $1" >&2
  return 1
}

# cpu_ticks PID...: user + system CPU time of the processes, in clock ticks.
cpu_ticks() {
  local pid total=0
  for pid in "$@"; do
    total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

# load STEM PORT PID [NAME]: warm up, load 127.0.0.1:PORT with
# bench/message_send.lua, or the wrk script LOAD_SCRIPT names (a server that
# speaks A2A 1.0 only gets bench/message_send_v1.lua; wrk output in
# $OUT/STEM.wrk.txt), then print the
# script's RESULT fields, the peak RSS (VmHWM) of PID and the CPU time PID
# took per request during the measured run (cpu_us, from /proc: it does not
# depend on how fast the machine happens to be as much as req/s does); with
# NAME, also that of all processes of that name (other_cpu_us: the
# PostgreSQL server's backends, WAL writer and checkpointer).
load() {
  local stem=$1 port=$2 pid=$3 name=${4:-} before after others_before=0 others_after=0 requests
  local script=${LOAD_SCRIPT:-bench/message_send.lua}
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s "$script" "http://127.0.0.1:$port/" >/dev/null
  before=$(cpu_ticks "$pid")
  [ -n "$name" ] && others_before=$(cpu_ticks $(pgrep -x "$name"))
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$script" \
    "http://127.0.0.1:$port/" >"$OUT/$stem.wrk.txt"
  after=$(cpu_ticks "$pid")
  [ -n "$name" ] && others_after=$(cpu_ticks $(pgrep -x "$name"))
  local line
  line="$(grep '^RESULT' "$OUT/$stem.wrk.txt" | sed 's/^RESULT //') peak_rss_kb=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")"
  requests=$(field "$line" requests)
  line="$line cpu_us=$(micros_per_request $((after - before)) "$requests")"
  [ -n "$name" ] && line="$line other_cpu_us=$(micros_per_request $((others_after - others_before)) "$requests")"
  echo "$line"
}

# micros_per_request TICKS REQUESTS: CPU microseconds per request.
micros_per_request() {
  awk -v t="$1" -v n="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", (n > 0 ? t * 1e6 / hz / n : 0) }'
}

# field "name k1=v1 k2=v2" KEY: the value of KEY in a result line.
field() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'; }
