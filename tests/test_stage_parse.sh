#!/usr/bin/env bash
# The parse stage through a real lodwash-worker, then import: a dirty Turtle
# file is cleaned (bad statement skipped and located, blank nodes skolemized,
# sorted canonical N-Quads), the same content is not parsed twice, and a
# JSON-LD file's remote context is fetched over loopback HTTP once and cached
# in Redis.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$LODWASH_SOURCE_DIR/scripts/lib/servers.sh"
lw_test_require_redis

lw_test_scratch parse
web=$(mktemp -d)
lw_test_scratch_extra() { lw_servers_stop; rm -rf "$web"; }

port=$(lw_free_port)
printf '{"@context": {"name": "http://schema.org/name", "@vocab": "http://schema.org/"}}' > "$web/ctx.jsonld"
lw_start_http "$port" "$web"

mkdir -p "$data/raw"
cat > "$data/raw/t1" <<'TTL'
@prefix ex: <http://example.org/> .
ex:b ex:p "two" .
ex:a ex:p [ ex:q "blank" ] .
ex:a ex:p "bad"^^<http://www.w3.org/2001/XMLSchema#integer> .
ex:c ex:p .
ex:a ex:p "one" .
ex:a ex:p "one" .
TTL
cp "$data/raw/t1" "$data/raw/t2"
cat > "$data/raw/j1" <<JSON
{"@context": "http://127.0.0.1:$port/ctx.jsonld", "@id": "http://example.org/j", "name": "J", "knows": {"@id": "http://example.org/a"}}
JSON
cp "$data/raw/j1" "$data/raw/j2"
for s in t1 t2 j1 j2; do
  format=Turtle; [[ $s == j* ]] && format=JSON-LD
  r HSET "${prefix}seed:$s" status guessed file "raw/$s" format "$format" \
    uri "http://example.org/$s" harvest h1 content "{\"hash\":\"hash-of-$s\"}" > /dev/null
done
# t2 has the same content as t1 (the content hash says so)
r HSET "${prefix}seed:t2" content '{"hash":"hash-of-t1"}' > /dev/null
r HSET "${prefix}harvest:h1" provider geo status running pending 4 seeds '["t1","t2","j1","j2"]' > /dev/null
r SADD "${prefix}harvest:h1:expected" t1 t2 j1 j2 > /dev/null

worker() {
  "$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
    --data "$data" --graph-base http://lodwash.test/graph --allow-net "127.0.0.1:$port" \
    --exit-when-idle "$@" 2>> "$data/worker.log" || { cat "$data/worker.log"; exit 1; }
}
lw "$prefix" jobs push parse '{"seed":"t1","harvest":"h1"}' > /dev/null
worker --stages parse
for s in t2 j1 j2; do lw "$prefix" jobs push parse "{\"seed\":\"$s\",\"harvest\":\"h1\"}" > /dev/null; done
worker --stages parse,import

clean=$(r HGET "${prefix}seed:t1" clean)
expect_eq "status" "$(r HGET "${prefix}seed:t1" status)" parsed
expect_eq "clean record" "$(r HGET "${prefix}seed:$clean" status)" cleaned
expect_eq "points back" "$(r HGET "${prefix}seed:$clean" dirty)" t1
expect_eq "triples" "$(r HGET "${prefix}seed:t1" triples)" 5
expect_eq "duplicates" "$(r HGET "${prefix}seed:t1" duplicates)" 1
expect_eq "syntax errors" "$(r HGET "${prefix}seed:t1" syntax_errors)" 1
expect_eq "literal errors" "$(r HGET "${prefix}seed:t1" literal_errors)" 1
expect_match "located" "$(r HGET "${prefix}seed:t1" errors)" '"kind":"syntax","line":5'
file="$data/$(r HGET "${prefix}seed:$clean" file)"
expect_eq "named by its content" "$(zcat "$file" | md5sum | cut -d' ' -f1)" "$clean"
expect_eq "sorted" "$(zcat "$file" | LC_ALL=C sort -c && echo yes)" yes
expect_match "skolemized" "$(zcat "$file")" '<http://lodwash.test/.well-known/genid/t1/[^>]+> <http://example.org/q> "blank" \.'
expect_eq "same content not parsed again" "$(r HGET "${prefix}seed:t2" clean)" "$clean"
expect_match "and says so" "$(cat "$data/worker.log")" 'stage=parse seed=t2 .*content cleaned before'
expect_eq "JSON-LD with a remote context" "$(zcat "$data/$(r HGET "${prefix}seed:$(r HGET "${prefix}seed:j1" clean)" file)")" \
'<http://example.org/j> <http://schema.org/knows> <http://example.org/a> .
<http://example.org/j> <http://schema.org/name> "J" .'
expect_eq "the context is cached" "$(r --scan --pattern "${prefix}context:*" | wc -l)" 1
expect_eq "harvest imported" "$(r HGET "${prefix}harvest:h1" status)" done
expect_eq "graph" "$("$LODWASH_BINARY_DIR/lodwash" --data "$data" graph geo | wc -l)" 7
lw_test_done
