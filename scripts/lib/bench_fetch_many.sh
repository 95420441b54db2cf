#!/usr/bin/env bash
# scripts/bench-fetch --many (see there): documents per second of one
# download worker, one transfer at a time and many, beside curl on the same
# URLs, every answer after a latency.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib/servers.sh"
latency=200 docs=300 hosts=30 transfers=16
while [ $# -gt 0 ]; do
  case "$1" in
    --latency-ms) latency=$2; shift 2;;
    --docs) docs=$2; shift 2;;
    --hosts) hosts=$2; shift 2;;
    --transfers) transfers=$2; shift 2;;
    *) echo "usage: scripts/bench-fetch --many [--latency-ms MS] [--docs N] [--hosts H] [--transfers N]" >&2
       exit 2;;
  esac
done
build=${LODWASH_BUILD:-$root/build}
if [ ! -x "$build/lodwash-worker" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j 2 >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/lodwash-bench-many-XXXXXX")
server=
cleanup() {
  [ -n "$server" ] && { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
  lw_servers_stop
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rport=$(lw_free_port)
lw_start_redis "$rport"
export LODWASH_REDIS="redis://127.0.0.1:$rport/0" LODWASH_PREFIX="benchmany:"
export LODWASH_ALLOW_NET="127.0.0.0/8" LODWASH_HOST_INTERVAL_MS=0
unset LODWASH_LOG_JSON LODWASH_DOWNLOAD_TRANSFERS
rcli() { redis-cli -p "$rport" "$@"; }

addresses=$(seq "$hosts" | sed 's/^/127.0.1./' | paste -sd,)
python3 "$root/tests/support/dribble_server.py" "$work/port" "$addresses" \
  --latency-ms "$latency" --lines 20 &
server=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
for i in $(seq "$docs"); do
  echo "http://127.0.1.$(( (i - 1) % hosts + 1 )):$port/doc-$i.nt"
done >"$work/urls"

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.1f", n / (b - a) }'; }

# one worker, --download-transfers T: documents per second
run_worker() {
  local t=$1 u
  rcli FLUSHDB >/dev/null
  rm -rf "$work/data"
  while read -r u; do "$build/lodwash" --data "$work/data" seed add "$u" >/dev/null; done <"$work/urls"
  local a b
  a=$(now)
  /usr/bin/time -f '%U %S' -o "$work/cpu.$t" \
    "$build/lodwash-worker" --data "$work/data" --stages download --exit-when-idle \
    --download-transfers "$t" --log-level warn 2>>"$work/worker.log"
  b=$(now)
  local filed
  filed=$(rcli --scan --pattern 'benchmany:seed:*' | while read -r k; do rcli HGET "$k" status; done |
    grep -c '^filed$' || true)
  [ "$filed" = "$docs" ] || { echo "only $filed of $docs filed (see $work/worker.log)" >&2; BENCH_KEEP=1; }
  rate "$docs" "$a" "$b"
}

# curl on the same URLs: one at a time (one connection reused per host
# where it can), or --parallel
run_curl() {
  sed 's/.*/url = "&"\noutput = "\/dev\/null"/' "$work/urls" >"$work/curl.cfg"
  local a b
  a=$(now)
  curl -s --no-progress-meter "$@" -K "$work/curl.cfg"
  b=$(now)
  rate "$docs" "$a" "$b"
}

echo "$docs documents on $hosts loopback hosts, every answer after $latency ms" \
     "(robots.txt too), one worker, $(nproc) cores (shared: figures of a loaded machine)"
one=$(run_worker 1)
many=$(run_worker "$transfers")
curl_one=$(run_curl)
curl_many=$(run_curl --parallel --parallel-max "$transfers")
printf '  %-52s %8s docs/s\n' \
  "lodwash, one worker, --download-transfers 1" "$one" \
  "lodwash, one worker, --download-transfers $transfers" "$many" \
  "curl, one at a time" "$curl_one" \
  "curl --parallel --parallel-max $transfers" "$curl_many"
cpu_ms() { awk -v n="$docs" '{ printf "%.2f", ($1 + $2) * 1000 / n }' "$work/cpu.$1"; }
echo "  worker CPU per document: $(cpu_ms 1) ms with one transfer, $(cpu_ms "$transfers") ms with $transfers"
awk -v a="$many" -v b="$one" -v c="$curl_many" 'BEGIN {
  printf "  many / one transfer: %.1fx; lodwash many / curl --parallel: %.2f\n", a / b, a / c }'
