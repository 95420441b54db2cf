#!/usr/bin/env bash
# A harvest that makes no progress (no worker runs) ends as failed after
# --harvest-timeout, with its reason; the provider backs off and is
# harvested again later, and the timed-out harvest's leftover jobs do not
# disturb the new one (they are refused: the seeds belong to the new one).
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$LODWASH_SOURCE_DIR/tests/support/queue_lua.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis

P="lwtest:timeout:$$:"
dir=$(mktemp -d)
cleanup() {
  hv_stop
  rm -rf "$dir"
  lw_test_redis_cleanup "$P"
}
trap cleanup EXIT
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }
mkdir -p "$dir/data"
hv_init "$dir"
hv_dump d1 20
hv_dump d2 5
hv_provider "$dir/reg.yaml" p d1 d2

hv_sched "$P" "$dir/reg.yaml" "$dir/data" --harvest-timeout 1 2>> "$dir/sched.log"
first=$(r HGET "${P}provider:p" harvest)
expect_eq "harvesting" "$(r HGET "${P}provider:p" state)" harvesting
# nobody works: past the timeout, the next cycle ends the harvest
sleep 1.5
hv_sched "$P" "$dir/reg.yaml" "$dir/data" --harvest-timeout 1 2>> "$dir/sched.log"
expect_eq "the harvest failed" "$(r HGET "${P}harvest:$first" status)" failed
expect_match "with its reason" "$(r HGET "${P}harvest:$first" error)" \
  'no progress for [0-9]+ s \(2 files pending\)'
expect_eq "the provider backs off" "$(r HGET "${P}provider:p" state)" error
expect_eq "one failure" "$(r HGET "${P}provider:p" failures)" 1
expect_match "a retry time" "$(r HGET "${P}provider:p" retry_at)" '^[0-9]{13}$'
expect_match "logged" "$(cat "$dir/sched.log")" 'outcome=timed-out'

# later (the backoff is over): harvested again, while the first harvest's
# download jobs are still queued
r HSET "${P}provider:p" retry_at 0 > /dev/null
hv_sched "$P" "$dir/reg.yaml" "$dir/data" --harvest-timeout 60 2>> "$dir/sched.log"
second=$(r HGET "${P}provider:p" harvest)
expect_eq "a new harvest" "$([ "$second" != "$first" ] && echo yes)" yes
expect_eq "both harvests' downloads are queued" "$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${P}queue:download")" 4
hv_workers "$P" "$dir/data" 2
expect_eq "the new harvest is done" "$(r HGET "${P}harvest:$second" status)" done
expect_eq "the old one stays failed" "$(r HGET "${P}harvest:$first" status)" failed
expect_match "its graph" "$(hv_graph "$dir/data" p | wc -l)" '^[1-9]'
hv_sched "$P" "$dir/reg.yaml" "$dir/data" 2>> "$dir/sched.log"
expect_eq "the provider is idle" "$(r HGET "${P}provider:p" state)" idle
expect_eq "no failure counted any more" "$(r HGET "${P}provider:p" failures)" 0
lw_test_done
