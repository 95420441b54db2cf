#!/usr/bin/env bash
# A worker killed (SIGKILL) in the middle of an import: its heartbeat
# expires, another worker runs the import again, and the graph is exactly
# what one clean run gives; the graph never shows a half import.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis

lw_test_scratch killimport
victim=""
lw_test_scratch_extra() { [ -z "$victim" ] || kill -9 "$victim" 2>/dev/null; }

graph() { "$LODWASH_BINARY_DIR/lodwash" --data "$data" graph geo; }
worker=("$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix"
  --data "$data" --graph-base http://lodwash.test/graph --heartbeat-ttl 1 --stages import)
# harvest ID of clean file FILE
harvest() {
  r HSET "${prefix}seed:d$1" status parsed clean "k$1" > /dev/null
  r HSET "${prefix}seed:k$1" status cleaned file "clean/$2" > /dev/null
  r HSET "${prefix}harvest:$1" provider geo status running pending 0 seeds "[\"d$1\"]" > /dev/null
  lw "$prefix" jobs push import "{\"seed\":\"$1\",\"harvest\":\"$1\"}" > /dev/null
}

# an existing graph of 400k triples (a first harvest) and a harvest of
# 400k, half overlapping
mkdir -p "$data/clean"
awk 'BEGIN { for (s = 0; s < 40000; s++) for (p = 0; p < 10; p++)
  printf "<http://x/%07d> <http://p/%02d> \"old %d\" .\n", s, p, s }' | gzip -1 > "$data/clean/c0.nq.gz"
awk 'BEGIN { for (s = 20000; s < 60000; s++) for (p = 0; p < 10; p++)
  printf "<http://x/%07d> <http://p/%02d> \"new %d\" .\n", s, p, s }' | gzip -1 > "$data/clean/c1.nq.gz"
harvest h0 c0.nq.gz
timeout 120 "${worker[@]}" --exit-when-idle 2> "$data/first.log" || { cat "$data/first.log"; exit 1; }
graph > "$data/old.nq"
expect_eq "the first harvest" "$(wc -l < "$data/old.nq")" 400000

harvest h1 c1.nq.gz
"${worker[@]}" 2> "$data/victim.log" &
victim=$!
# kill it once the import has begun writing its changeset
for _ in $(seq 400); do
  [ -s "$data/changesets/geo/h1.added.nq.gz" ] && break
  sleep 0.01
done
kill -9 "$victim"
wait "$victim" 2>/dev/null || true
expect_eq "the killed import left the old graph in place" \
  "$(graph | md5sum)" "$(md5sum < "$data/old.nq")"
expect_eq "the harvest is not done" "$(r HGET "${prefix}harvest:h1" status)" running

timeout 120 "${worker[@]}" --exit-when-idle 2> "$data/rescuer.log" || { cat "$data/rescuer.log"; exit 1; }
expect_match "the rescuer reaped the job" "$(cat "$data/rescuer.log")" 'gave back jobs of dead workers'
expect_eq "harvest done" "$(r HGET "${prefix}harvest:h1" status)" done
graph > "$data/new.nq"
expect_eq "graph: 20k old subjects kept, 40k from the harvest" "$(wc -l < "$data/new.nq")" 600000
expect_eq "no old triple about a harvest subject" \
  "$(grep -c '^<http://x/00[2-5][0-9]\{4\}> .* "old' "$data/new.nq" || true)" 0
expect_eq "sorted, as an undisturbed run gives it" "$(LC_ALL=C sort -c "$data/new.nq" && echo yes)" yes
expect_eq "changeset: removed" "$(r HGET "${prefix}harvest:h1" removed)" 200000
expect_eq "changeset: added" "$(r HGET "${prefix}harvest:h1" added)" 400000
expect_eq "changeset file: removed" "$(zcat "$data/changesets/geo/h1.removed.nq.gz" | wc -l)" 200000
lw_test_done
