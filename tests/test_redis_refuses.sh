#!/usr/bin/env bash
# Workers stop taking jobs while Redis refuses writes, and go on when it
# accepts them (issue 24, item 1): a Redis of the test's own is out of
# memory (maxmemory with noeviction) while a harvest of 16 dumps runs, for
# longer than a job's retries last. Before, workers kept taking jobs (the
# fetch is a script, which still runs) that failed at their first plain
# write, spending their attempts in milliseconds: dumps went dead and the
# harvest ended without them. Now a job that meets the refusal is handed
# back (no attempt spent), the worker probes until Redis takes writes again,
# and the harvest ends with the graph of an undisturbed run.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
command -v redis-server > /dev/null || lw_test_skip "no redis-server"
source "$(dirname "$0")/../scripts/lib/servers.sh"
source "$(dirname "$0")/support/harvests.sh"
rport=$(hv_port)
lw_start_redis "$rport" --maxmemory-policy noeviction
export LODWASH_TEST_REDIS="redis://127.0.0.1:$rport/0"
hv_setup refuses
trap 'hv_stop; lw_servers_stop; rm -rf "$dir"' EXIT
HV_SLOW_S=1 hv_init "$dir" # dumps under slow/ take a second each: the outage meets a running harvest
mkdir -p "$dir/www/slow"
r() { redis-cli -p "$rport" "$@"; }
names=()
for i in $(seq 16); do hv_dump "slow/d$i" 30 "d$i"; names+=("slow/d$i"); done
hv_provider "$dir/reg.yaml" prov "${names[@]}"
mkdir -p "$dir/calm" "$dir/data"

# undisturbed
hv_sched "calm:" "$dir/reg.yaml" "$dir/calm" 2> /dev/null
hv_workers "calm:" "$dir/calm" 2
expect_eq "undisturbed: done" "$(hv_harvest "calm:" prov status)" done

# disturbed: out of memory for 8 s once the harvest is under way
hv_sched "$prefix" "$dir/reg.yaml" "$dir/data" 2> /dev/null
pids=()
for i in 1 2; do
  # shellcheck disable=SC2046
  timeout 300 "$LODWASH_BINARY_DIR/lodwash-worker" $(hv_worker_args "$prefix" "$dir/data") \
    2>> "$dir/data/workers.log" &
  pids+=($!)
done
for _ in $(seq 300); do
  grep -q 'stage=download .*outcome=done' "$dir/data/workers.log" 2>/dev/null && break
  sleep 0.1
done
r CONFIG SET maxmemory 1 > /dev/null
expect_match "Redis refuses a plain write" "$(r SET probe 1 2>&1)" 'OOM'
sleep 8
r CONFIG SET maxmemory 0 > /dev/null
for p in "${pids[@]}"; do wait "$p" || lw_fail "worker exit"; done

expect_match "the workers said why they waited" "$(cat "$dir/data/workers.log")" \
  'Redis refuses writes: no job is taken until it accepts them'
expect_match "and when they went on" "$(cat "$dir/data/workers.log")" \
  'Redis accepts writes again'
expect_eq "no job went dead" \
  "$(for s in download unpack guess parse import; do r LLEN "${prefix}dead:$s"; done | paste -sd+ | bc)" 0
expect_eq "disturbed: done" "$(hv_harvest "$prefix" prov status)" done
expect_eq "no failed file" "$(hv_harvest "$prefix" prov failed_files)" "[]"
expect_eq "sixteen files" "$(hv_harvest "$prefix" prov files)" 16
expect_eq "the graph of the undisturbed run" \
  "$(hv_graph "$dir/data" prov | md5sum)" "$(hv_graph "$dir/calm" prov | md5sum)"
lw_test_done
