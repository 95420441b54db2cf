#!/usr/bin/env bash
# /metrics tells the truth: a real harvest of the example providers (real
# scheduler with its pages on, a real worker, loopback HTTP), then the
# scrape from the running scheduler is compared with `lodwash status --json`,
# the graph files and the bytes the providers served. Every family has HELP
# and TYPE; a stopped Redis shows as lodwash_redis_up 0.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis
source "$(dirname "$0")/support/harvest.sh"

prefix="lwtest:metrics:$$:"
dir=$(mktemp -d)
trap 'lw_harvest_stop; lw_servers_stop; rm -rf "$dir"; lw_test_redis_cleanup "$prefix"' EXIT
lw_harvest_start "$dir" "$prefix" 1
lw_harvest_wait

metrics=$(curl -s "$LW_PAGES/metrics")
status=$(curl -s "$LW_PAGES/status")
echo "$metrics" > "$dir/metrics.txt"
# value METRIC{LABELS}: the sample's value in the scrape ("" if absent)
value() { grep -v "^#" "$dir/metrics.txt" | grep -F "$1 " | head -1 | awk '{print $NF}'; }
js() { echo "$status" | python3 -c "import json,sys; s=json.load(sys.stdin); print($1)"; }

for p in library museum city; do
  graph=$(zcat "$dir/data/graphs/$p.nq.gz" | wc -l)
  expect_eq "$p: provider_triples = lines of its graph file" \
    "$(value "lodwash_provider_triples{provider=\"$p\"}")" "$graph"
  expect_eq "$p: state idle is 1" "$(value "lodwash_provider_state{provider=\"$p\",state=\"idle\"}")" 1
  for s in harvesting error held; do
    expect_eq "$p: state $s is 0" "$(value "lodwash_provider_state{provider=\"$p\",state=\"$s\"}")" 0
  done
  at=$(js "[p for p in s['providers'] if p['name']=='$p'][0]['harvested_at']")
  epoch=$(python3 -c "import datetime; print('%.3f' % datetime.datetime.fromisoformat('$at'.replace('Z','+00:00')).timestamp())")
  expect_eq "$p: last harvest timestamp = status harvested_at ($at)" \
    "$(value "lodwash_provider_last_harvest_timestamp_seconds{provider=\"$p\"}")" "$epoch"
  expect_eq "$p: no harvest running" \
    "$(value "lodwash_provider_harvest_running_seconds{provider=\"$p\"}")" "0.000"
done
expect_eq "the example graphs: 27, 18, 10 triples" \
  "$(value 'lodwash_provider_triples{provider="library"}') $(value 'lodwash_provider_triples{provider="museum"}') $(value 'lodwash_provider_triples{provider="city"}')" "27 18 10"

served=$(cat "$dir/web/library/books.ttl" "$dir/web/library/authors.nt" \
  "$dir/web/museum/museum.tar.gz" "$dir/web/city/districts.trig" | wc -c)
expect_eq "bytes downloaded = bytes of the four dumps served" \
  "$(value lodwash_bytes_downloaded_total)" "$served"
expect_eq "triples imported = status counter" "$(value lodwash_triples_imported_total)" \
  "$(js "s['counters']['triples_imported']")"
expect_eq "triples imported = triples in the graphs" "$(value lodwash_triples_imported_total)" 55
expect_eq "syntax errors (city's broken statement)" "$(value 'lodwash_errors_total{kind="syntax"}')" \
  "$(js "s['counters']['errors:syntax']")"

# a worker that serves unpack and guess guesses a data file in its unpack
# job (workers/unpack.c): no guess job of its own
expect_eq "guess: done inside the unpack jobs" "$(js "s['stages'].get('guess')")" None
for stage in download unpack parse import; do
  done_=$(js "s['stages']['$stage']['done']")
  failed=$(js "s['stages']['$stage']['failed']")
  expect_eq "$stage: jobs done = status" "$(value "lodwash_jobs_done_total{stage=\"$stage\"}")" "$done_"
  expect_eq "$stage: duration histogram counts every run" \
    "$(value "lodwash_job_duration_seconds_count{stage=\"$stage\"}")" "$((done_ + failed))"
  expect_eq "$stage: +Inf bucket = count" \
    "$(value "lodwash_job_duration_seconds_bucket{stage=\"$stage\",le=\"+Inf\"}")" "$((done_ + failed))"
  expect_match "$stage: sum of seconds" "$(value "lodwash_job_duration_seconds_sum{stage=\"$stage\"}")" '^[0-9]+\.[0-9]{3}$'
  expect_eq "$stage: queued 0" "$(value "lodwash_jobs{stage=\"$stage\",state=\"queued\"}")" 0
done
expect_eq "downloads: one per dump" "$(value 'lodwash_jobs_done_total{stage="download"}')" 4
# buckets never decrease
expect_eq "histogram buckets are cumulative" "$(grep '^lodwash_job_duration_seconds_bucket{stage="download"' "$dir/metrics.txt" \
  | awk '{ if ($NF < last) bad = 1; last = $NF } END { print bad + 0 }')" 0
expect_eq "workers alive = status" "$(value lodwash_workers_alive)" "$(js "len(s['workers'])")"
expect_eq "one worker alive" "$(value lodwash_workers_alive)" 1
expect_eq "redis up" "$(value lodwash_redis_up)" 1
expect_match "redis memory" "$(value lodwash_redis_used_memory_bytes)" '^[1-9][0-9]+$'
expect_eq "the scheduler holds its lease" "$(value lodwash_scheduler_lease_held)" 1
expect_match "build info" "$(grep '^lodwash_build_info' "$dir/metrics.txt")" '^lodwash_build_info\{version="[^"]+"\} 1$'
expect_eq "seeds cleaned = status" "$(value 'lodwash_seeds{status="cleaned"}')" "$(js "s['seeds']['cleaned']")"

# Every sample's family has HELP and TYPE, and every family has samples.
missing=$(grep -v '^#' "$dir/metrics.txt" | sed -E 's/[{ ].*//; s/_(bucket|sum|count)$//' | sort -u | while read -r f; do
  grep -q "^# HELP $f " "$dir/metrics.txt" && grep -q "^# TYPE $f " "$dir/metrics.txt" || echo "$f"
done)
expect_eq "every family has HELP and TYPE" "$missing" ""
expect_eq "no family without samples" "$(grep '^# TYPE' "$dir/metrics.txt" | awk '{print $3}' | while read -r f; do
  grep -qE "^$f(_bucket|_sum|_count)?[{ ]" "$dir/metrics.txt" || echo "$f"; done)" ""
# the tool and the page read the same report
expect_eq "lodwash status --json shows the same providers" \
  "$(lw "$prefix" --registry "$dir/registry.yaml" status --json | python3 -c 'import json,sys; print([(p["name"], p["harvest"]["triples"]) for p in json.load(sys.stdin)["providers"]])')" \
  "$(js "[(p['name'], p['harvest']['triples']) for p in s['providers']]")"

# Redis gone: the scrape still answers, saying so.
lw_harvest_stop
port=$(lw_free_port)
LODWASH_REDIS=redis://127.0.0.1:1/0 "$LODWASH_BINARY_DIR/lodwash-scheduler" --interval 1 \
  --metrics-port "$port" 2> "$dir/down.log" &
LW_HARVEST_PIDS+=($!)
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
expect_match "redis down: lodwash_redis_up 0" "$(curl -s "http://127.0.0.1:$port/metrics")" $'lodwash_redis_up 0'
lw_test_done
