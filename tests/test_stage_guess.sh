#!/usr/bin/env bash
# The guess stage through a real lodwash-worker: content decides over a
# misleading media type and extension; a file that is not RDF fails with the
# reason, and still counts for its harvest.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$LODWASH_SOURCE_DIR/tests/support/queue_lua.sh"
lw_test_require_redis

lw_test_scratch guess

mkdir -p "$data/raw"
printf '@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n' > "$data/raw/t1"
printf '%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n' > "$data/raw/p1"
r HSET "${prefix}seed:s1" status unarchived file raw/t1 uri http://x/data.rdf harvest h1 \
  http '[{"status":200,"headers":{"Content-Type":"text/plain"}}]' > /dev/null
r HSET "${prefix}seed:s2" status unarchived file raw/p1 uri http://x/data.ttl harvest h1 > /dev/null
r HSET "${prefix}harvest:h1" provider geo status running pending 2 seeds '["s1","s2"]' > /dev/null
r SADD "${prefix}harvest:h1:expected" s1 s2 > /dev/null

lw "$prefix" jobs push guess '{"seed":"s1","harvest":"h1"}' > /dev/null
lw "$prefix" jobs push guess '{"seed":"s2","harvest":"h1"}' > /dev/null
"$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
  --data "$data" --stages guess --exit-when-idle 2> "$data/worker.log" || { cat "$data/worker.log"; exit 1; }

expect_eq "Turtle served as text/plain, named .rdf" "$(r HGET "${prefix}seed:s1" format)" Turtle
expect_eq "status" "$(r HGET "${prefix}seed:s1" status)" guessed
expect_match "parse job queued" "$(r EVAL "$LW_QUEUE_JOBS_LUA" 1 "${prefix}queue:parse")" '"seed":"s1"'
expect_eq "PDF fails" "$(r HGET "${prefix}seed:s2" status)" failed
expect_match "with the reason" "$(r HGET "${prefix}seed:s2" error)" 'not RDF: .*PDF'
expect_eq "and counts for the harvest" "$(r HGET "${prefix}harvest:h1" pending)" 1
expect_eq "as failed" "$(r HGET "${prefix}harvest:h1" failed)" 1
expect_match "log" "$(cat "$data/worker.log")" 'stage=guess seed=s2 .*outcome=dead'
lw_test_done
