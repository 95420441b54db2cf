#!/usr/bin/env bash
# scripts/run-local as a small deployment (issue 23): its state under
# --data, Redis's AOF included, so a restart keeps the harvest history,
# the queues and the controls; --port for the dashboard, its URL printed;
# a worker that exits with 3 (a job past the time limit) started again.
# The example providers on loopback, the files store (no Virtuoso).
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$LODWASH_SOURCE_DIR/scripts/lib/servers.sh"
source "$LODWASH_SOURCE_DIR/scripts/lib/examples.sh"
bin="$LODWASH_BINARY_DIR"
dir=$(mktemp -d)
runner=""
stop_runner() {
  [ -n "$runner" ] || return 0
  kill -TERM "$runner" 2>/dev/null || true
  local code=0
  wait "$runner" || code=$?
  runner=""
  return "$code"
}
trap 'stop_runner || true; lw_servers_stop; rm -rf "$dir"' EXIT
http_port=$(lw_free_port)
lw_publish_examples "$dir/web"
lw_start_http "$http_port" "$dir/web"
lw_example_registry "$dir/registry.yaml" "http://127.0.0.1:$http_port"
state="$dir/state"

# start LOG PORT UNTIL [ENV...]: run-local in the background until its log
# has the line UNTIL ("idle"; "workers": all started)
start() {
  local log=$1 port=$2 until=$3; shift 3
  env LODWASH_BIN="$bin" "$@" timeout 600 bash "$LODWASH_SOURCE_DIR/scripts/run-local" \
    --files-only --workers 1 --interval 2 --data "$state" --port "$port" \
    --registry "$dir/registry.yaml" --allow-net "127.0.0.1:$http_port" --report-idle \
    > "$log" 2>&1 &
  runner=$!
  for _ in $(seq 600); do
    grep -q "run-local: .*$until" "$log" && return 0
    kill -0 "$runner" 2>/dev/null || break
    sleep 0.5
  done
  cat "$log"
  return 1
}
tool() { "$bin/lodwash" --redis "$(grep -o 'redis://[^ ]*' "$dir/$1.log" | head -1)" "${@:2}"; }
harvests() { tool "$1" providers --json | python3 -c '
import json, sys
print(" ".join("%s=%s" % (p["name"], (p["harvest"] or {}).get("id")) for p in json.load(sys.stdin)))'; }

# --- the first run, with a worker slow to stop: in a session of its own, it
# gets the stop's SIGTERM a second after the rest (Redis too, were Redis in
# the process group), through this wrapper
slow="$dir/slow-bin"
mkdir -p "$slow"
ln -s "$bin/lodwash" "$bin/lodwash-scheduler" "$slow/"
cat > "$slow/lodwash-worker" <<EOF
#!/usr/bin/env bash
setsid "$bin/lodwash-worker" "\$@" &
child=\$!
trap 'sleep 1; kill -TERM \$child' TERM
wait \$child; wait \$child
EOF
chmod +x "$slow/lodwash-worker"
port1=$(lw_free_port)
start "$dir/first.log" "$port1" idle LODWASH_BIN="$slow" || lw_fail "the first run did not get idle"
expect_match "the dashboard's URL is printed, on --port" "$(cat "$dir/first.log")" \
  "run-local: dashboard +http://127.0.0.1:$port1/"
expect_eq "the dashboard answers there" \
  "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port1/")" 200
before=$(harvests first)
expect_match "the three providers harvested" "$before" 'library=library:.* museum=museum:.* city=city:'
tool first stage pause noop > /dev/null
tool first jobs push noop '{"sleep_ms": 20000}' > /dev/null
expect_eq "a paused stage's job waits" \
  "$(tool first status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["stages"]["noop"]["queued"])')" 1
stop_runner || lw_fail "the first run did not stop cleanly"
expect_match "Redis's AOF is under --data" "$(ls "$state/redis")" 'appendonly'
# the stop's SIGTERM reached the whole group: Redis outlived the worker,
# which signed off (else its record would be listed for another 30 s)
first_worker=$(grep -o 'msg="worker stopped" worker=[^ ]*' "$state/worker1.log" | sed 's/.*=//')
expect_match "the first run's worker stopped" "$first_worker" '.'

# --- the second run, same --data: what survives; the job time limit 2 s
port2=$(lw_free_port)
# (never idle: the paused stage's job waits)
start "$dir/second.log" "$port2" workers LODWASH_JOB_TIME_LIMIT=2 || lw_fail "the second run did not start"
expect_eq "after a restart: the same harvest history" "$(harvests second)" "$before"
expect_eq "after a restart: the first run's worker is not listed" \
  "$(tool second status --json | python3 -c 'import json,sys; print([w["id"] for w in json.load(sys.stdin)["workers"] if w["id"] == sys.argv[1]])' "$first_worker")" "[]"
expect_eq "after a restart: the paused stage still paused" \
  "$(tool second status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["paused"])')" "['noop']"
expect_eq "after a restart: its job still queued" \
  "$(tool second status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["stages"]["noop"]["queued"])')" 1
# released, the job runs past the limit: its worker exits 3 and is started again
tool second stage resume noop > /dev/null
for _ in $(seq 120); do
  grep -q 'exited with 3' "$dir/second.log" && break
  sleep 0.5
done
expect_match "a worker that exits 3 is started again" "$(cat "$dir/second.log")" \
  'run-local: worker 1 exited with 3 \(job time limit\): starting a fresh one'
alive=0
for _ in $(seq 60); do
  alive=$(tool second status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["workers"]))')
  [ "$alive" -ge 1 ] && break
  sleep 0.5
done
expect_eq "and a worker is alive again" "$alive" 1
stop_runner || lw_fail "the second run did not stop cleanly"
lw_test_done
