#!/usr/bin/env bash
# Nothing harvested as done with data missing (issue 24, items 1 and 2 of
# "what to build"). Three of a provider's four dumps are missing when it is
# harvested: their download jobs go dead, the fan-in counts them failed and
# queues the import. The dumps come back and the documented
# `lodwash jobs retry --all` queues the downloads again; the import runs
# first (a worker of the import stage alone), then the rest. Before, the
# import finished the harvest with one file of four and the provider's
# version advanced, never harvested again. Now the retry reopens the
# harvest (the files are awaited again, the import queued once more when
# they are in) and an import never finishes a harvest whose files are not
# finished: the graph, the report and the changeset are those of an
# undisturbed run.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$LODWASH_SOURCE_DIR/tests/support/queue_lua.sh"
lw_test_require_redis
source "$(dirname "$0")/support/harvests.sh"
hv_setup retry
hv_init "$dir"
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }
for d in a b c d; do hv_dump "$d" 40; done
mkdir -p "$dir/gone" "$dir/calm" "$dir/data"
hv_provider "$dir/reg.yaml" prov a b c d
hv_provider "$dir/reg-calm.yaml" prov a b c d

# undisturbed: every dump there
hv_sched "${prefix}calm:" "$dir/reg-calm.yaml" "$dir/calm" 2> /dev/null
hv_workers "${prefix}calm:" "$dir/calm" 2
expect_eq "undisturbed: done" "$(hv_harvest "${prefix}calm:" prov status)" done

# disturbed: b, c and d missing at first (404: dead at once)
mv "$dir/www/b.nt" "$dir/www/c.nt" "$dir/www/d.nt" "$dir/gone/"
hv_sched "$prefix" "$dir/reg.yaml" "$dir/data" 2> /dev/null
hv_workers "$prefix" "$dir/data" 2 --stages download,unpack,guess,parse
expect_eq "three downloads dead" "$(r LLEN "${prefix}dead:download")" 3
expect_eq "the import is queued" "$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:import")" 1
mv "$dir/gone/"*.nt "$dir/www/"
lw "$prefix" jobs retry --all > /dev/null
expect_eq "the retry reopened the harvest: three files awaited" \
  "$(hv_harvest "$prefix" prov pending)" 3
# the import first, alone: it must not finish the harvest, even were its
# count of pending files wrong (the files themselves are not finished)
r HSET "${prefix}harvest:$(r HGET "${prefix}provider:prov" harvest)" pending 0 > /dev/null
hv_workers "$prefix" "$dir/data" 1 --stages import
expect_match "the import said why it waited" "$(cat "$dir/data/workers.log")" \
  'stage=import .*outcome=waiting unfinished=3'
r HSET "${prefix}harvest:$(r HGET "${prefix}provider:prov" harvest)" pending 3 > /dev/null
expect_eq "the early import left the harvest running" "$(hv_harvest "$prefix" prov status)" \
  running
hv_workers "$prefix" "$dir/data" 2
expect_eq "disturbed: done" "$(hv_harvest "$prefix" prov status)" done
expect_eq "no failed file" "$(hv_harvest "$prefix" prov failed_files)" "[]"
expect_eq "four files imported" "$(hv_harvest "$prefix" prov files)" 4
expect_eq "as many triples added as undisturbed" "$(hv_harvest "$prefix" prov added)" \
  "$(hv_harvest "${prefix}calm:" prov added)"
expect_eq "the graph of the undisturbed run" \
  "$(hv_graph "$dir/data" prov | md5sum)" "$(hv_graph "$dir/calm" prov | md5sum)"
hv_sched "$prefix" "$dir/reg.yaml" "$dir/data" 2> /dev/null # settles the provider
expect_eq "the provider is idle, its version harvested" \
  "$(r HGET "${prefix}provider:prov" state)" idle

lw_test_done
