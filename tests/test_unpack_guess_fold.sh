#!/usr/bin/env bash
# The guess folded into the unpack job (docs/design.md, round trips): a
# real lodwash-worker serving unpack and guess settles a data file's
# encoding and guesses its format in one job: the seed ends `guessed` (the
# machine's statuses passed through, the counts right), a parse job is
# queued and no guess job; an optional page that is not RDF ends `skipped`,
# a file that is not RDF fails with the reason, both counted for their
# harvest. Run again, the job changes nothing. A worker that serves unpack
# only, or while guess is paused, leaves the guess to a job of its own.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$LODWASH_SOURCE_DIR/tests/support/queue_lua.sh"
lw_test_require_redis

lw_test_scratch fold
queued() { r EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:$1"; }
md5() { printf '%s' "$1" | md5sum | cut -c1-32; }
nt=$(md5 nt) page=$(md5 page) pdf=$(md5 pdf) csv=$(md5 csv) t1=$(md5 t1) t2=$(md5 t2)
worker() {
  "$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
    --data "$data" --exit-when-idle "$@" 2>> "$data/worker.log" || { cat "$data/worker.log"; exit 1; }
}
# seed HASH CONTENT [FIELD VALUE...]: a filed seed of harvest h1 with its
# body in raw/HASH, and its unpack job
seed() {
  local name=$1; shift
  mkdir -p "$data/raw"
  printf '%b' "$1" > "$data/raw/$name"
  r HSET "${prefix}seed:$name" status filed file "raw/$name" uri "http://x/$name" \
    harvest h1 "${@:2}" > /dev/null
  r HINCRBY "${prefix}seeds" filed 1 > /dev/null # as lw_seed_add counts it
  lw "$prefix" jobs push unpack "{\"seed\":\"$name\",\"harvest\":\"h1\"}" > /dev/null
}

r HSET "${prefix}harvest:h1" provider geo status running pending 4 > /dev/null
r SADD "${prefix}harvest:h1:expected" "$nt" "$page" "$pdf" "$csv" > /dev/null
seed "$nt" '<http://example.org/a> <http://example.org/b> "c" .\n'
seed "$page" '<!DOCTYPE html>\n<html><body><p>no data here</p></body></html>\n' optional 1
seed "$pdf" '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'
# a Latin-1 CSV: recoded to UTF-8, then found not RDF
seed "$csv" 'ville;r\xe9gion;caf\xe9s\nMontr\xe9al;Qu\xe9bec;1200\nGen\xe8ve;L\xe9man;640\nLyon;Rh\xf4ne;800\n'
worker --stages unpack,guess

expect_eq "RDF: guessed in the unpack job" "$(r HGET "${prefix}seed:$nt" status)" guessed
expect_eq "its format" "$(r HGET "${prefix}seed:$nt" format)" N-Triples
expect_eq "its encoding settled too" "$(r HGET "${prefix}seed:$nt" encoding)" ASCII
expect_eq "a parse job queued" "$(queued parse)" 1
expect_eq "no guess job" "$(queued guess)" 0
expect_eq "no guess job ever ran" "$(r HGET "${prefix}stats:guess" done)" ""
expect_eq "two unpack jobs done (the PDF's failed)" "$(r HGET "${prefix}stats:unpack" done)" 2
expect_eq "optional page not RDF: skipped" "$(r HGET "${prefix}seed:$page" status)" skipped
expect_match "with the reason" "$(r HGET "${prefix}seed:$page" skipped)" '^not RDF: '
expect_eq "not RDF: failed" "$(r HGET "${prefix}seed:$pdf" status)" failed
expect_match "with the reason" "$(r HGET "${prefix}seed:$pdf" error)" 'not RDF: .*PDF'
expect_eq "the CSV: failed" "$(r HGET "${prefix}seed:$csv" status)" failed
expect_match "with the reason" "$(r HGET "${prefix}seed:$csv" error)" 'not RDF: '
expect_eq "its UTF-8 copy not left behind" "$(find "$data/utf8" -type f 2>/dev/null | wc -l)" 0
expect_eq "the harvest waits for the RDF file only" "$(r HGET "${prefix}harvest:h1" pending)" 1
expect_eq "two failed files" "$(r HGET "${prefix}harvest:h1" failed)" 2
expect_eq "the counts follow the statuses" \
  "$(r HMGET "${prefix}seeds" filed unarchiving unarchived guessing guessed skipped failed | paste -sd ' ')" \
  "0 0 0 0 1 1 2"

# the same job again: the seed is past unpack, nothing changes
lw "$prefix" jobs push unpack "{\"seed\":\"$nt\",\"harvest\":\"h1\"}" > /dev/null
worker --stages unpack,guess
expect_eq "run again: still guessed" "$(r HGET "${prefix}seed:$nt" status)" guessed
expect_eq "run again: no second parse job" "$(queued parse)" 1
expect_eq "run again: the harvest unchanged" "$(r HGET "${prefix}harvest:h1" pending)" 1

# guess paused, or not served by this worker: a job of its own, as before
r HSET "${prefix}harvest:h1" pending 3 > /dev/null
r SADD "${prefix}harvest:h1:expected" "$t1" "$t2" > /dev/null
lw "$prefix" stage pause guess > /dev/null
seed "$t1" '<http://example.org/t1> <http://example.org/b> "c" .\n'
# (a paused stage's waiting job keeps an --exit-when-idle worker running)
"$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
  --data "$data" --stages unpack,guess 2>> "$data/worker.log" &
paused_worker=$!
for _ in $(seq 100); do
  [ "$(r HGET "${prefix}seed:$t1" status)" = unarchived ] && break
  sleep 0.1
done
kill -TERM "$paused_worker"
wait "$paused_worker" || true
expect_eq "guess paused: unarchived" "$(r HGET "${prefix}seed:$t1" status)" unarchived
expect_eq "guess paused: a guess job waits" "$(queued guess)" 1
lw "$prefix" stage resume guess > /dev/null
seed "$t2" '<http://example.org/t2> <http://example.org/b> "c" .\n'
worker --stages unpack
expect_eq "unpack only: unarchived" "$(r HGET "${prefix}seed:$t2" status)" unarchived
expect_eq "unpack only: its guess job" "$(queued guess)" 2
lw_test_done
