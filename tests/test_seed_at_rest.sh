#!/usr/bin/env bash
# Redis memory per seed at rest (issue 27, docs/retention.md): a real
# harvest (the scheduler, a worker, loopback HTTP whose answers carry
# Last-Modified, Server and Date headers) leaves each finished dump seed at
# 1 KB or less of MEMORY USAGE, as scripts/bench-scale measures it, holding
# what its readers need: `lodwash seed show` (its file, the HTTP status),
# the metadata graph (final URL, status, media type, checksums), and the
# validators with which a re-harvest asks conditionally and gets a 304. A
# record written the way lodwash wrote it before (every hop with its
# headers, fields that say nothing) reads the same and is re-harvested too.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis

hv_setup rest
data="$dir/data"
mkdir -p "$data"
hv_init "$dir"
hv_dump fresh 20
hv_dump older 20
hv_provider "$dir/reg.yaml" p fresh older
redis() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }
cycle() { hv_sched "$prefix" "$dir/reg.yaml" "$data" 2>> "$dir/sched.log"; }
tool() { lw "$prefix" --data "$data" --registry "$dir/reg.yaml" "$@"; }
key_of() { echo "${prefix}seed:$(tool seed show --json "$HV_BASE/$1.nt" | python3 -c \
  'import json, sys; print(json.load(sys.stdin)["hash"])')"; }
usage() { redis MEMORY USAGE "$1" SAMPLES 0; }
# expect_at_most WHAT ACTUAL LIMIT
expect_at_most() {
  if [ "$2" -le "$3" ]; then lw_pass; else lw_fail "$1: got $2, more than $3"; fi
}

cycle
hv_workers "$prefix" "$data" 1
expect_eq "the harvest is done" "$(hv_harvest "$prefix" p status)" done
fresh=$(key_of fresh)
older=$(key_of older)
expect_eq "the dump seed is parsed" "$(redis HGET "$fresh" status)" parsed

# MEMORY USAGE as a listpack: the setting lodwash's own servers have
# (scripts/lib/servers.sh); a Redis that keeps less makes hash tables
listpack=$(redis CONFIG GET hash-max-listpack-value | tail -n 1)
bytes=$(usage "$fresh")
echo "a finished dump seed: $bytes B of MEMORY USAGE, $(redis HLEN "$fresh") fields" \
  "(hash-max-listpack-value $listpack)"
if [ "$listpack" -ge 1024 ]; then
  expect_at_most "a finished dump seed's MEMORY USAGE (B)" "$bytes" 1024
else
  echo "SKIP the memory bound: this Redis has hash-max-listpack-value $listpack, not 1024"
fi
# one index entry a seed: the dump seed in the re-check index (the
# collection walks it too), its clean record in the collection's
hash_of() { echo "${1##*seed:}"; }
clean_hash=$(redis HGET "$fresh" clean)
expect_eq "the dump seed: in the re-check index" \
  "$(redis ZSCORE "${prefix}rechecks" "$(hash_of "$fresh")" | sed 's/.\+/yes/')" yes
expect_eq "the dump seed: not in the collection's index" \
  "$(redis ZSCORE "${prefix}seeds:index" "$(hash_of "$fresh")")" ""
expect_eq "the clean record: in the collection's index" \
  "$(redis ZSCORE "${prefix}seeds:index" "$clean_hash" | sed 's/.\+/yes/')" yes
for f in relative optional skipped resumed_from unchanged encoding_replaced errors file; do
  expect_eq "no field $f that says nothing" "$(redis HEXISTS "$fresh" "$f")" 0
done
expect_eq "the hops: status only (the URI is the seed's)" "$(redis HGET "$fresh" http)" \
  '[{"status":200}]'
expect_match "the validator for the next visit" "$(redis HGET "$fresh" last_modified)" 'GMT$'

# what lodwash seed show prints
show=$(tool seed show "$HV_BASE/fresh.nt")
expect_match "seed show: the file, derived" "$show" \
  $'\n''file +raw/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{32}'$'\n'
expect_match "seed show: the HTTP status" "$show" $'\n''http +\[\{"status":200\}\]'
expect_match "seed show: the media type" "$show" $'\n''content_type +[a-z]'
expect_match "seed show: the counts" "$show" $'\n''syntax_errors +0'$'\n'
rel=$(tool seed show --json "$HV_BASE/fresh.nt" | python3 -c \
  'import json, sys; print(json.load(sys.stdin)["file"])')
expect_eq "seed show --json: the file is the download's" "$([ -f "$data/$rel" ] && echo yes)" yes

# the metadata graph
doc="$(tool meta --provider p --triples)"
d=$(grep -F "<$HV_BASE/fresh.nt>" <<<"$doc" | grep -F downloadURL | cut -d' ' -f1)
mine=$(grep -F "$d " <<<"$doc")
expect_match "meta: the final URL" "$mine" "finalURL> <$HV_BASE/fresh.nt>"
expect_match "meta: no redirect" "$mine" 'redirects> "0"'
expect_match "meta: the HTTP status" "$mine" 'statusCodeValue> "200"'
expect_match "meta: the media type" "$mine" 'mediaType> <https://www.iana.org/assignments/media-types/'
expect_match "meta: the byte size" "$mine" 'byteSize> "[0-9]+"'
expect_eq "meta: MD5 and SHA-256" \
  "$(grep -cF "$d <http://spdx.org/rdf/terms#checksum> " <<<"$doc" || true)" 2

# the other dump's record as lodwash wrote it before: whole hops, every
# field (the upgrade reads it as it is)
uri="$HV_BASE/older.nt"
lm=$(redis HGET "$older" last_modified)
rel_older=$(tool seed show --json "$uri" | python3 -c \
  'import json, sys; print(json.load(sys.stdin)["file"])')
redis HSET "$older" relative false optional 0 skipped "" resumed_from 0 unchanged false \
  encoding_replaced 0 errors '[]' file "$rel_older" \
  http "[{\"headers\":{\"content-type\":\"application/n-triples\",\"last-modified\":\"$lm\",\"server\":\"SimpleHTTP/0.6\"},\"status\":200,\"uri\":\"$uri\",\"version\":{\"major\":1,\"minor\":1},\"walltime\":0.0012345678901234567}]" \
  timestamp '{"begin":1795801429.0680001,"end":1795801429.0700002}' > /dev/null
doc="$(tool meta --provider p --triples)"
d=$(grep -F "<$uri>" <<<"$doc" | grep -F downloadURL | cut -d' ' -f1)
mine=$(grep -F "$d " <<<"$doc")
expect_match "an old record: the final URL" "$mine" "finalURL> <$uri>"
expect_match "an old record: the HTTP status" "$mine" 'statusCodeValue> "200"'
expect_match "an old record: seed show" "$(tool seed show "$uri")" $'\n''file +raw/'

# a re-harvest (the VoID moved): both dumps asked conditionally, 304
sleep 1.1
sed -i 's/2020-01-01/2021-01-01/' "$dir/www/p-void.ttl"
mark=$(wc -l < "$dir/access.log")
cycle
hv_workers "$prefix" "$data" 1
expect_eq "the re-harvest is done" "$(hv_harvest "$prefix" p status)" done
since=$(tail -n +"$((mark + 1))" "$dir/access.log")
expect_eq "the new record: asked conditionally (304)" \
  "$(grep -c '^/fresh.nt 304$' <<<"$since" || true)" 1
expect_eq "the old record: asked conditionally (304)" \
  "$(grep -c '^/older.nt 304$' <<<"$since" || true)" 1
expect_eq "unchanged: the seed rests as filed" "$(redis HGET "$fresh" status)" filed
expect_eq "unchanged: said on the seed" "$(redis HGET "$fresh" unchanged)" true
expect_eq "the old record's hops written short" "$(redis HGET "$older" http)" \
  '[{"status":304}]'
expect_eq "the old record's optional 0 dropped" "$(redis HEXISTS "$older" optional)" 0
expect_eq "the old record still names its file" \
  "$(tool seed show --json "$uri" | python3 -c 'import json, sys; print(json.load(sys.stdin)["file"])')" \
  "$rel_older"
bytes=$(usage "$fresh")
if [ "$listpack" -ge 1024 ]; then
  expect_at_most "after the 304: MEMORY USAGE (B)" "$bytes" 1024
fi
expect_eq "the graph as it was" "$(hv_graph "$data" p | grep -c '"fresh value' || true)" 13
lw_test_done
