#!/usr/bin/env bash
# The import stage through a real lodwash-worker: a harvest of two dumps (one
# an archive of two files, one failed) is imported into its provider's graph;
# the harvest records its report; export and status write their files.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis

lw_test_scratch import

# clean files as the parse stage leaves them
mkdir -p "$data/clean"
printf '<http://x/a> <http://p> "a" .\n<http://x/b> <http://p> "b" <http://elsewhere/g> .\n' | gzip > "$data/clean/c1.nq.gz"
printf '<http://x/c> <http://p> "c" .\n' | gzip > "$data/clean/c2.nq.gz"
printf '<http://x/d> <http://p> "d" .\n' > "$data/clean/c3.nq"

# seeds: dump1 = archive with children e1, e2; dump2 = plain; dump3 failed
r HSET "${prefix}seed:dump1" status depleted children '["e1","e2"]' > /dev/null
r HSET "${prefix}seed:e1" status parsed clean k1 > /dev/null
r HSET "${prefix}seed:e2" status parsed clean k2 > /dev/null
r HSET "${prefix}seed:dump2" status parsed clean k3 > /dev/null
r HSET "${prefix}seed:dump3" status failed uri http://x/dump3 error "404 Not Found" > /dev/null
r HSET "${prefix}seed:k1" status cleaned file clean/c1.nq.gz > /dev/null
r HSET "${prefix}seed:k2" status cleaned file clean/c2.nq.gz > /dev/null
r HSET "${prefix}seed:k3" status cleaned file clean/c3.nq > /dev/null
r HSET "${prefix}harvest:h1" provider geo status running pending 0 \
  seeds '["dump1","dump2","dump3"]' > /dev/null

worker() {
  "$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
    --data "$data" --graph-base http://lodwash.test/graph --exit-when-idle "$@"
}
graph() { "$LODWASH_BINARY_DIR/lodwash" --data "$data" graph "$@"; }
lw "$prefix" jobs push import '{"seed":"h1","harvest":"h1"}' > /dev/null
worker --stages import 2> "$data/worker.log" || { cat "$data/worker.log"; exit 1; }

expect_eq "graph" "$(graph geo)" \
'<http://x/a> <http://p> "a" <http://lodwash.test/graph/geo> .
<http://x/b> <http://p> "b" <http://lodwash.test/graph/geo> .
<http://x/c> <http://p> "c" <http://lodwash.test/graph/geo> .
<http://x/d> <http://p> "d" <http://lodwash.test/graph/geo> .'
expect_eq "harvest status" "$(r HGET "${prefix}harvest:h1" status)" failed
expect_eq "triples" "$(r HGET "${prefix}harvest:h1" triples)" 4
expect_eq "files" "$(r HGET "${prefix}harvest:h1" files)" 3
expect_eq "foreign graph quads" "$(r HGET "${prefix}harvest:h1" foreign_graph)" 1
expect_match "failed files" "$(r HGET "${prefix}harvest:h1" failed_files)" '"seed":"dump3".*404 Not Found'
expect_match "log line" "$(cat "$data/worker.log")" 'stage=import provider=geo harvest=h1 files=3 failed=1 triples=4'
expect_eq "changeset" "$(zcat "$data/changesets/geo/h1.added.nq.gz" | wc -l)" 4

# the same job again: nothing changes
lw "$prefix" jobs push import '{"seed":"h1","harvest":"h1"}' > /dev/null
worker --stages import 2> /dev/null
expect_eq "graph after a rerun" "$(graph geo | wc -l)" 4
expect_eq "what the graph says about one subject" "$(graph geo --subject http://x/c)" \
  '<http://x/c> <http://p> "c" <http://lodwash.test/graph/geo> .'
expect_eq "nothing about an unknown subject" "$(graph geo --subject http://x/zz)" ""
expect_status "no such graph: exit 3" 3 graph nope
expect_status "a subject in <>" 2 graph geo --subject '<http://x/c>'


# export (queued by the import) and status
lw "$prefix" jobs push status '{}' > /dev/null
worker --stages export,status 2> /dev/null
expect_eq "export" "$(zcat "$data/export/all.nq.gz" | wc -l)" 4
expect_eq "the export wrote the graph file view" "$(zcat "$data/graphs/geo.nq.gz")" "$(graph geo)"
expect_match "export VoID" "$(cat "$data/export/void.ttl")" 'void:triples 4'
expect_match "status.json" "$(cat "$data/status.json")" '"import": \{'
lw_test_done
