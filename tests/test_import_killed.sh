#!/usr/bin/env bash
# A worker killed (SIGKILL) in the middle of an import: its heartbeat
# expires, another worker runs the import again, and the graph is exactly
# what one clean run gives; no half graph file is ever in place.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis

prefix="lwtest:killimport:$$:"
data=$(mktemp -d)
victim=""
trap '[ -n "$victim" ] && kill -9 "$victim" 2>/dev/null; rm -rf "$data"; lw_test_redis_cleanup "$prefix"' EXIT
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }

# an existing graph of 400k triples and a harvest of 400k, half overlapping
mkdir -p "$data/graphs" "$data/clean"
g='<http://lodwash.test/graph/geo>'
awk -v g="$g" 'BEGIN { for (s = 0; s < 40000; s++) for (p = 0; p < 10; p++)
  printf "<http://x/%07d> <http://p/%02d> \"old %d\" %s .\n", s, p, s, g }' | gzip -1 > "$data/graphs/geo.nq.gz"
awk 'BEGIN { for (s = 20000; s < 60000; s++) for (p = 0; p < 10; p++)
  printf "<http://x/%07d> <http://p/%02d> \"new %d\" .\n", s, p, s }' | gzip -1 > "$data/clean/c1.nq.gz"
cp "$data/graphs/geo.nq.gz" "$data/old.nq.gz"
r HSET "${prefix}seed:d1" status parsed clean k1 > /dev/null
r HSET "${prefix}seed:k1" status cleaned file clean/c1.nq.gz > /dev/null
r HSET "${prefix}harvest:h1" provider geo status running pending 0 seeds '["d1"]' > /dev/null
lw "$prefix" jobs push import '{"seed":"h1","harvest":"h1"}' > /dev/null

worker=("$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix"
  --data "$data" --graph-base http://lodwash.test/graph --heartbeat-ttl 1 --stages import)
"${worker[@]}" 2> "$data/victim.log" &
victim=$!
# kill it once the import has begun writing its temporary graph
for _ in $(seq 200); do
  ls "$data"/graphs/*.importing.* > /dev/null 2>&1 && break
  sleep 0.02
done
kill -9 "$victim"
wait "$victim" 2>/dev/null || true
victim=""
expect_eq "the killed import left the old graph in place" \
  "$(zcat "$data/graphs/geo.nq.gz" | md5sum)" "$(zcat "$data/old.nq.gz" | md5sum)"
expect_eq "the harvest is not done" "$(r HGET "${prefix}harvest:h1" status)" running

timeout 120 "${worker[@]}" --exit-when-idle 2> "$data/rescuer.log" || { cat "$data/rescuer.log"; exit 1; }
expect_match "the rescuer reaped the job" "$(cat "$data/rescuer.log")" 'gave back jobs of dead workers'
expect_eq "harvest done" "$(r HGET "${prefix}harvest:h1" status)" done
expect_eq "graph: 20k old subjects kept, 40k from the harvest" "$(zcat "$data/graphs/geo.nq.gz" | wc -l)" 600000
expect_eq "no old triple about a harvest subject" \
  "$(zcat "$data/graphs/geo.nq.gz" | grep -c '^<http://x/00[2-5][0-9]\{4\}> .* "old' || true)" 0
expect_eq "changeset: removed" "$(r HGET "${prefix}harvest:h1" removed)" 200000
expect_eq "changeset: added" "$(r HGET "${prefix}harvest:h1" added)" 400000
expect_eq "the killed import's temporary graph is gone" \
  "$(ls "$data"/graphs/ | grep -c importing || true)" 0
lw_test_done
