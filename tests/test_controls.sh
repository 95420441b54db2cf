#!/usr/bin/env bash
# The operator's controls from the command line, each against the real
# worker or scheduler and compared with the undisturbed case: a paused stage
# is not fetched (and is once resumed), a purged queue is empty and its jobs
# can be queued again, dead jobs are deleted, a held provider is not
# harvested and shows as held everywhere, a running harvest is cancelled,
# and status --watch repeats until interrupted.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis
source "$LODWASH_SOURCE_DIR/scripts/lib/servers.sh"
source "$LODWASH_SOURCE_DIR/scripts/lib/examples.sh"
bin="$LODWASH_BINARY_DIR"
prefix="lwtest:controls:$$:"
dir=$(mktemp -d)
trap 'lw_servers_stop; rm -rf "$dir"; lw_test_redis_cleanup "$prefix"' EXIT
export LODWASH_REDIS="$LODWASH_TEST_REDIS" LODWASH_PREFIX="$prefix" LODWASH_DATA="$dir/data"
export LODWASH_REGISTRY="$dir/registry.yaml"
js() { python3 -c "import json,sys; s=json.load(sys.stdin); print($1)"; }
stage_count() { "$bin/lodwash" status --json | js "s['stages'].get('$1', {}).get('$2', 0)"; }
worker() { timeout 60 "$bin/lodwash-worker" --stages noop --poll-max-ms 20 "$@" 2>> "$dir/worker.log" || true; }

# --- pause and resume
expect_eq "pause noop" "$("$bin/lodwash" stage pause noop)" "noop: paused"
expect_eq "pause again" "$("$bin/lodwash" stage pause noop)" "noop: already paused"
expect_status "pause an unknown stage: exit 2" 2 "$bin/lodwash" stage pause nope
"$bin/lodwash" jobs push noop '{"seed":"p1"}' > /dev/null
worker --exit-when-idle &
paused_worker=$!
sleep 2  # the worker polls many times meanwhile
expect_eq "paused: the job waits" "$(stage_count noop queued) $(stage_count noop done)" "1 0"
expect_match "paused shows in status" "$("$bin/lodwash" status --json | js "s['paused']")" "noop"
expect_match "paused shows in the status text" "$("$bin/lodwash" status)" "paused \(lodwash stage resume STAGE\): noop"
expect_eq "resume noop" "$("$bin/lodwash" stage resume noop)" "noop: running"
wait "$paused_worker"
expect_eq "resumed: the waiting worker ran it and went idle" "$(stage_count noop queued) $(stage_count noop done)" "0 1"

# --- purge
"$bin/lodwash" jobs push noop --count 3 '{}' > /dev/null
"$bin/lodwash" jobs push noop '{"seed":"p2","fail":"retryable"}' > /dev/null
# the failed job waits 10 minutes for its retry: the worker is stopped once
# it has done the rest (waited for, not given a fixed time: a loaded machine
# may need more than a few seconds for four jobs)
"$bin/lodwash-worker" --stages noop --max-attempts 5 --retry-base-ms 600000 \
  2>> "$dir/worker.log" &
retry_worker=$!
for _ in $(seq 600); do
  [ "$(stage_count noop queued) $(stage_count noop inflight) $(stage_count noop delayed)" = "0 0 1" ] && break
  sleep 0.1
done
lw_stop_pid "$retry_worker"
expect_eq "one job waits for its retry" "$(stage_count noop delayed)" 1
expect_eq "purge: queued and delayed dropped" "$("$bin/lodwash" queue purge noop)" "noop: 1 waiting job dropped"
expect_eq "purged: nothing waits" "$(stage_count noop queued) $(stage_count noop delayed)" "0 0"
expect_match "the purged seed can be queued again" "$("$bin/lodwash" jobs push noop '{"seed":"p2"}')" '^queued 1 noop job$'
"$bin/lodwash" queue purge noop > /dev/null

# --- dead jobs deleted
"$bin/lodwash" jobs push noop '{"seed":"d1","fail":"permanent"}' > /dev/null
"$bin/lodwash" jobs push noop '{"seed":"d2","fail":"permanent"}' > /dev/null
worker --exit-when-idle
expect_eq "two dead" "$(stage_count noop dead)" 2
id=$("$bin/lodwash" jobs dead --json | js "[j['id'] for j in s if j['seed']=='d1'][0]")
expect_eq "jobs delete ID" "$("$bin/lodwash" jobs delete "$id")" "1 job deleted"
expect_eq "the other stays" "$("$bin/lodwash" jobs dead --json | js "[j['seed'] for j in s]")" "['d2']"
expect_status "jobs delete ID again: no such dead job, exit 3" 3 "$bin/lodwash" jobs delete "$id"
expect_eq "jobs delete --all" "$("$bin/lodwash" jobs delete --all)" "1 job deleted"
expect_eq "no dead left" "$(stage_count noop dead)" 0

# --- hold and release, cancel: a provider served over loopback
port=$(lw_free_port)
lw_publish_examples "$dir/web"
lw_start_http "$port" "$dir/web"
lw_example_registry "$dir/registry.yaml" "http://127.0.0.1:$port"
export LODWASH_ALLOW_NET="127.0.0.1:$port"
expect_status "hold a provider not in the registry: exit 3" 3 "$bin/lodwash" provider hold nope
expect_eq "hold library" "$("$bin/lodwash" provider hold library)" "library: held (not harvested until released)"
state() { "$bin/lodwash" providers --json | js "[p['state'] for p in s if p['name']=='$1'][0]"; }
expect_eq "held shows in providers" "$(state library)" held
expect_match "held shows in the providers table" "$("$bin/lodwash" providers | grep '^library')" '^library +held '
expect_status "harvest a held provider: exit 1" 1 "$bin/lodwash" harvest library
"$bin/lodwash-scheduler" --once 2> "$dir/scheduler.log"
expect_match "the scheduler passes a held provider by" "$(cat "$dir/scheduler.log")" 'cycle=done providers=3 started=2 .* skipped=1'
expect_eq "held: no harvest" "$("$bin/lodwash" providers --json | js "[p['harvest'] for p in s if p['name']=='library'][0]")" None
expect_eq "the others harvest: downloads queued" "$(stage_count download queued)" 2

# cancel museum's harvest (no worker ran it)
expect_match "harvest cancel museum" "$("$bin/lodwash" harvest cancel museum)" '^museum: harvest cancelled, 1 waiting job dropped$'
expect_eq "cancelled: its download left the queue" "$(stage_count download queued)" 1
expect_eq "cancelled: the harvest failed" "$("$bin/lodwash" providers --json | js "[p['harvest']['status'] for p in s if p['name']=='museum'][0]")" failed
expect_eq "cancelled: the provider says why" "$("$bin/lodwash" providers --json | js "[p['error'] for p in s if p['name']=='museum'][0]")" "cancelled by the operator"
expect_status "cancel again: nothing runs, exit 1" 1 "$bin/lodwash" harvest cancel museum

expect_eq "release library" "$("$bin/lodwash" provider release library)" "library: released"
expect_eq "released: idle again" "$(state library)" idle
expect_match "released: harvest works" "$("$bin/lodwash" harvest library)" 'harvest .* started with 2 dumps'

# --- status --watch
"$bin/lodwash" status --watch --every 1 > "$dir/watch.out" 2>&1 &
watcher=$!
# interrupted once it has shown the status twice (or after 30 s: then it
# did not repeat), not after a fixed time a loaded machine may not keep
for _ in $(seq 300); do
  [ "$(grep -c '^lodwash status, ' "$dir/watch.out")" -ge 2 ] && break
  sleep 0.1
done
kill -INT "$watcher"
code=0
wait "$watcher" || code=$?
expect_eq "status --watch stops on Ctrl-C with 0" "$code" 0
expect_match "status --watch repeats" "$(grep -c '^lodwash status, ' "$dir/watch.out")" '^[2-9]$'
expect_match "status --watch shows the stages" "$(cat "$dir/watch.out")" 'stage +queued'
lw_test_done
