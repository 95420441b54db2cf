#!/usr/bin/env bash
# The import shows its progress (triples merged) in the worker's heartbeat:
# `lodwash status --json`, read while a real worker imports a harvest of three
# million triples, sees it. Not timed: the status is read until the import
# ends, and one sighting is enough (the merge's first count, at 65,536
# triples, is written at once as a new kind of note, and stays until the
# next second's; it used to be dropped within a second of the "merging"
# note, which an import this size can outrun).
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis

lw_test_scratch importprogress
worker=""
lw_test_scratch_extra() { [ -z "$worker" ] || kill "$worker" 2>/dev/null; }

mkdir -p "$data/clean"
awk 'BEGIN { for (s = 0; s < 300000; s++) for (p = 0; p < 10; p++)
  printf "<http://x/%07d> <http://p/%02d> \"value %d\" .\n", s, p, s }' | gzip -1 > "$data/clean/c0.nq.gz"
r HSET "${prefix}seed:d0" status parsed clean k0 > /dev/null
r HSET "${prefix}seed:k0" status cleaned file clean/c0.nq.gz > /dev/null
r HSET "${prefix}harvest:h0" provider geo status running pending 0 seeds '["d0"]' > /dev/null
lw "$prefix" jobs push import '{"seed":"h0","harvest":"h0"}' > /dev/null

"$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
  --data "$data" --graph-base http://lodwash.test/graph --stages import --exit-when-idle \
  2> "$data/worker.log" &
worker=$!
seen=""
while kill -0 "$worker" 2>/dev/null; do
  note=$(lw "$prefix" status --json | grep -oE '[0-9]+ triples merged' | head -n 1 || true)
  [ -n "$note" ] && seen=$note
  sleep 0.1
done
wait "$worker" || { cat "$data/worker.log"; exit 1; }

expect_match "status showed the import's progress" "$seen" '^[1-9][0-9]* triples merged$'
expect_eq "harvest done" "$(r HGET "${prefix}harvest:h0" status)" done
expect_eq "triples imported" "$(r HGET "${prefix}harvest:h0" triples)" 3000000
lw_test_done
