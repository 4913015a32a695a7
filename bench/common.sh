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

# load STEM PORT PID: warm up, load 127.0.0.1:PORT with bench/message_send.lua
# (wrk output in $OUT/STEM.wrk.txt), then print the script's RESULT fields and
# the peak RSS (VmHWM) of PID.
load() {
  local stem=$1 port=$2 pid=$3
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s bench/message_send.lua "http://127.0.0.1:$port/" >/dev/null
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s bench/message_send.lua \
    "http://127.0.0.1:$port/" >"$OUT/$stem.wrk.txt"
  echo "$(grep '^RESULT' "$OUT/$stem.wrk.txt" | sed 's/^RESULT //') peak_rss_kb=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")"
}

# field "name k1=v1 k2=v2" KEY: the value of KEY in a result line.
field() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'; }
