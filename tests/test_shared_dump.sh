#!/usr/bin/env bash
# A dump listed by two providers (a mirror, a shared vocabulary): each
# provider's harvest finishes and each provider's graph gets the dump's
# data, with blank nodes named after its own seed. The real scheduler and
# workers, dumps and VoID files over loopback HTTP; the graphs are compared
# with those of runs that harvest each provider alone.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis

prefix="lwtest:shared:$$"
dir=$(mktemp -d)
cleanup() {
  hv_stop
  rm -rf "$dir"
  for p in a b both; do lw_test_redis_cleanup "$prefix:$p:"; done
}
trap cleanup EXIT
mkdir -p "$dir/a" "$dir/b" "$dir/both"
hv_init "$dir"
hv_dump shared 40
hv_dump a-own 10
hv_dump b-own 10
hv_provider "$dir/a.yaml" a shared a-own
hv_provider "$dir/b.yaml" b shared b-own
cat "$dir/a.yaml" "$dir/b.yaml" > "$dir/both.yaml"

# alone: the undisturbed graphs
for p in a b; do
  hv_sched "$prefix:$p:" "$dir/$p.yaml" "$dir/$p" 2>> "$dir/sched.log"
  hv_workers "$prefix:$p:" "$dir/$p" 2
  expect_eq "$p alone: harvest done" "$(hv_harvest "$prefix:$p:" "$p" status)" done
done
# together
hv_sched "$prefix:both:" "$dir/both.yaml" "$dir/both" 2>> "$dir/sched.log"
hv_workers "$prefix:both:" "$dir/both" 2
for p in a b; do
  expect_eq "$p with the other: harvest done" "$(hv_harvest "$prefix:both:" "$p" status)" done
  expect_eq "$p: no file pending" "$(hv_harvest "$prefix:both:" "$p" pending)" 0
  expect_eq "$p: the graph of its harvest alone" \
    "$(hv_graph "$dir/both" "$p" | md5sum)" "$(hv_graph "$dir/$p" "$p" | md5sum)"
  expect_match "$p: the shared dump's data" "$(hv_graph "$dir/both" "$p")" '"shared 39"'
done
genids() { hv_graph "$dir/both" "$1" | grep -o 'genid/[0-9a-f]*/' | sort -u; }
expect_eq "blank nodes of a and b are named after different seeds" \
  "$(comm -12 <(genids a) <(genids b) | wc -l)" 0
expect_match "a's graph has blank nodes" "$(genids a | wc -l)" '^[1-9]'
# the next cycle settles both providers
hv_sched "$prefix:both:" "$dir/both.yaml" "$dir/both" 2>> "$dir/sched.log"
for p in a b; do
  expect_eq "$p: idle again" "$(redis-cli -u "$LODWASH_TEST_REDIS" HGET "$prefix:both:provider:$p" state)" idle
done
lw_test_done
