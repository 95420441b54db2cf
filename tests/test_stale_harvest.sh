#!/usr/bin/env bash
# Staleness leads to the provider's graph: a dump that changes while its
# VoID does not is re-checked after its interval (--seed-interval), which
# marks the provider and keeps the body; the next cycle starts a harvest
# through the usual decision, whose download uses that body (the server
# counts one full transfer of the changed dump, then a 304), and the graph
# gets the new triples. A dump that did not change starts nothing. The real scheduler and workers, loopback HTTP, the files
# store; each step is one scheduler cycle (--once) and workers until idle.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis

hv_setup staleharvest
data="$dir/data"
mkdir -p "$data"
hv_init "$dir"
hv_dump moving 20 before
hv_dump still 10
hv_provider "$dir/reg.yaml" p moving still
# a cycle, and one after which every seed is past its interval (1 s)
cycle() { hv_sched "$prefix" "$dir/reg.yaml" "$data" --seed-interval 3600 2>> "$dir/sched.log"; }
stale_cycle() {
  sleep 1.2
  hv_sched "$prefix" "$dir/reg.yaml" "$data" --seed-interval 1 2>> "$dir/sched.log"
}
redis() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }

# the first harvest
cycle
hv_workers "$prefix" "$data" 2
first=$(redis HGET "${prefix}provider:p" harvest)
expect_eq "first harvest done" "$(hv_harvest "$prefix" p status)" done
expect_match "graph has the first content" "$(hv_graph "$data" p)" '"before value 19"'
cycle # settles the provider

# nothing changed: the re-checks cost a 304 each and start nothing
stale_cycle
expect_match "the cycle re-checked both dumps" "$(tail -n 1 "$dir/sched.log")" 'stale=2'
hv_workers "$prefix" "$data" 2
expect_eq "unchanged: no mark on the provider" "$(redis HGET "${prefix}provider:p" dump_changed)" ""
cycle
expect_eq "unchanged: no harvest started" "$(redis HGET "${prefix}provider:p" harvest)" "$first"
expect_eq "unchanged: graph as it was" "$(hv_graph "$data" p | grep -c '"before value 19"')" 1

# the dump changes, its VoID does not
sleep 1.1 # a Last-Modified of another second
hv_dump moving 20 after
mark=$(wc -l < "$dir/access.log")
stale_cycle
expect_match "both re-checked again" "$(tail -n 1 "$dir/sched.log")" 'stale=2'
expect_match "the VoID unchanged" "$(grep 'provider=p outcome=' "$dir/sched.log" | tail -n 1)" \
  'outcome=unchanged'
hv_workers "$prefix" "$data" 2
expect_match "the re-check marked the provider" \
  "$(redis HGET "${prefix}provider:p" dump_changed)" '^[0-9]+$'
expect_eq "the re-check alone starts no harvest" "$(redis HGET "${prefix}provider:p" harvest)" \
  "$first"
expect_match "the graph not changed by the re-check" "$(hv_graph "$data" p)" '"before value 19"'
cycle
second=$(redis HGET "${prefix}provider:p" harvest)
expect_match "a harvest started" "$second" '^p:'
[ "$second" != "$first" ] && lw_pass || lw_fail "the harvest is a new one"
expect_match "started for the changed dump" "$(grep 'provider=p outcome=started' "$dir/sched.log" | tail -n 1)" \
  'staleness re-check'
expect_eq "the mark is cleared" "$(redis HGET "${prefix}provider:p" dump_changed)" ""
hv_workers "$prefix" "$data" 2
expect_eq "second harvest done" "$(hv_harvest "$prefix" p status)" done
# the changed dump crossed the network once: the re-check's body was kept
# and the harvest's download only asked whether it is still current
since=$(tail -n +"$((mark + 1))" "$dir/access.log")
expect_eq "the changed dump transferred once (HTTP 200)" \
  "$(grep -c '^/moving.nt 200$' <<<"$since" || true)" 1
expect_eq "the harvest's download asked conditionally (HTTP 304)" \
  "$(grep -c '^/moving.nt 304$' <<<"$since" || true)" 1
expect_match "it used the re-check's body" "$(grep 'prefetched=true' "$data/workers.log")" \
  'not transferred again'
expect_eq "nothing kept aside any more" "$(find "$data/prefetch" -type f 2>/dev/null | wc -l)" 0
graph=$(hv_graph "$data" p)
expect_match "the graph has the new triples" "$graph" '"after value 19"'
# the import replaces the triples of the subjects the new files describe
# (workers/import.c): a blank node of the dump is named after its seed
expect_eq "the dump's subjects replaced" "$(grep -c '"before 0"' <<<"$graph" || true)" 0
expect_match "the unchanged dump still in" "$graph" '"still 9"'
expect_eq "lodwash graph shows the new triples" \
  "$(lw "$prefix" --data "$data" graph p | grep -c '"after value 19"')" 1
cycle
expect_eq "idle again" "$(redis HGET "${prefix}provider:p" state)" idle

# re-checks queued, then the VoID moves and a harvest starts before they
# run: they give way (the harvest downloads the dumps) and it finishes
stale_cycle
sleep 1.1
sed -i 's/2020-01-01/2021-01-01/' "$dir/www/p-void.ttl"
cycle
third=$(redis HGET "${prefix}provider:p" harvest)
[ "$third" != "$second" ] && lw_pass || lw_fail "a harvest started for the VoID"
hv_workers "$prefix" "$data" 2
expect_eq "the re-checks gave way to it" "$(grep -c 'recheck=skipped' "$data/workers.log")" 2
expect_eq "that harvest finished" "$(hv_harvest "$prefix" p status)" done
lw_test_done
