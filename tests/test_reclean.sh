#!/usr/bin/env bash
# `lodwash reclean NAME`: the data already harvested is cleaned again by a
# cleaner that changed, without downloading it again. The real scheduler
# and workers, dumps over loopback HTTP. The provider lists a JSON-LD dump
# whose remote @context is served from a second loopback server: the first
# harvest's workers may not reach it (--allow-net names only the dumps'
# server), so the cleaner drops the document (one error, no triples); the
# reclean's workers may, so its triples appear. The dumps' server is
# stopped before the reclean: a download would fail the harvest.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis

prefix="lwtest:reclean:$$:"
dir=$(mktemp -d)
ctx_pid=
cleanup() {
  hv_stop
  if [ -n "$ctx_pid" ]; then
    kill -TERM "$ctx_pid" 2>/dev/null || true
    wait "$ctx_pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
  lw_test_redis_cleanup "$prefix"
}
trap cleanup EXIT
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }
tool() {
  "$LODWASH_BINARY_DIR/lodwash" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
    --registry "$dir/registry.yaml" --data "$dir/data" "$@"
}
mkdir -p "$dir/data" "$dir/ctx"

# the context's server
ctx_port=$(hv_port)
printf '{"@context": {"name": "http://schema.org/name"}}' > "$dir/ctx/ctx.jsonld"
python3 -m http.server --bind 127.0.0.1 --directory "$dir/ctx" "$ctx_port" > /dev/null 2>&1 &
ctx_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$ctx_port/" && break; sleep 0.05; done

# the dumps' server: one N-Triples dump, one JSON-LD dump using the context
hv_init "$dir"
dump_port=${HV_BASE##*:}
hv_dump plain 12
printf '[{"@context": "http://127.0.0.1:%s/ctx.jsonld", "@id": "http://example.org/j", "name": "J"}]\n' \
  "$ctx_port" > "$dir/www/people.nt" # a JSON-LD file under a .nt name: guess reads content
# an archive of two files (unpack reads the content, not the name)
mkdir -p "$dir/arch"
printf '<http://example.org/e1> <http://example.org/p> "e1" .\n' > "$dir/arch/e1.nt"
printf '<http://example.org/e2> <http://example.org/p> "e2" .\n' > "$dir/arch/e2.nt"
tar -czf "$dir/www/arch.nt" -C "$dir/arch" e1.nt e2.nt
hv_provider "$dir/registry.yaml" geo plain people arch
hv_sched "$prefix" "$dir/registry.yaml" "$dir/data" 2> "$dir/sched.log"
hv_workers "$prefix" "$dir/data" 2 --allow-net "127.0.0.1:$dump_port"

first=$(hv_harvest "$prefix" geo id)
expect_eq "first harvest done" "$(hv_harvest "$prefix" geo status)" done
before=$(hv_graph "$dir/data" geo)
expect_eq "the context unreachable: the JSON-LD document is dropped" \
  "$(grep -c 'example.org/j' <<< "$before" || true)" 0
people=
for seed in $(r HGET "${prefix}harvest:$first" seeds | python3 -c 'import json,sys; print(*json.load(sys.stdin))'); do
  case $(r HGET "${prefix}seed:$seed" uri) in */people.nt) people=$seed ;; esac
done
expect_eq "its error is on the seed" "$(r HGET "${prefix}seed:$people" syntax_errors)" 1
downloads=$(grep -c 'stage=download' "$dir/data/workers.log" || true)
unpacks=$(grep -c 'stage=unpack' "$dir/data/workers.log" || true)

# the dumps are gone from the web: the reclean must not need them
hv_stop
expect_status "unknown provider: exit 3" 3 tool reclean nope
expect_match "its message" "$(tool reclean nope 2>&1 || true)" "no provider 'nope'"
expect_status "--help" 0 tool reclean --help
expect_status "no argument" 2 tool reclean

tool provider hold geo > /dev/null
expect_match "a held provider is not recleaned" "$(tool reclean geo 2>&1 || true)" "geo is held"
tool provider release geo > /dev/null
out=$(tool reclean geo)
expect_match "reclean started" "$out" '^geo: reclean geo:.* started with 4 files$'
second=$(hv_harvest "$prefix" geo id)
expect_status "one harvest per provider: a second reclean is refused" 1 tool reclean geo
expect_eq "the data seeds went back to unarchived" \
  "$(r HGET "${prefix}seed:$people" status)" unarchived

# the changed cleaner: the context's server is allowed now
hv_workers "$prefix" "$dir/data" 2 --allow-net "127.0.0.1:$dump_port,127.0.0.1:$ctx_port"
expect_eq "reclean done" "$(r HGET "${prefix}harvest:$second" status)" done
expect_eq "the reclean's record is in the collection's index (its started)" \
  "$(r ZSCORE "${prefix}harvests" "$second")" "$(r HGET "${prefix}harvest:$second" started)"
expect_eq "nothing downloaded" "$(grep -c 'stage=download' "$dir/data/workers.log" || true)" \
  "$downloads"
expect_eq "nothing unpacked" "$(grep -c 'stage=unpack' "$dir/data/workers.log" || true)" \
  "$unpacks"
expect_eq "the JSON-LD seed is parsed again, without errors" \
  "$(r HGET "${prefix}seed:$people" status) $(r HGET "${prefix}seed:$people" syntax_errors)" \
  "parsed 0"
after=$(hv_graph "$dir/data" geo)
graph=$(head -1 <<< "$after" | grep -o '<[^>]*> \.$' | sed 's/ \.$//')
expected_new="<http://example.org/j> <http://schema.org/name> \"J\" $graph ."
expect_eq "the graph gained exactly the document's triple" \
  "$(comm -13 <(echo "$before") <(echo "$after"))" "$expected_new"
expect_eq "and lost nothing" "$(comm -23 <(echo "$before") <(echo "$after"))" ""
# the changeset's file name has no ':' (it breaks tar, scp and SMB shares)
expect_eq "the changeset files are named without ':'" \
  "$(ls "$dir/data/changesets/geo" | grep -c : || true)" 0
expect_eq "the changeset's additions" \
  "$(zcat "$dir/data/changesets/geo/${second//:/_}.added.nq.gz")" "$expected_new"
expect_eq "the changeset's removals" \
  "$(zcat "$dir/data/changesets/geo/${second//:/_}.removed.nq.gz" | wc -l)" 0
expect_eq "the plain dump was cleaned again too" \
  "$(grep -c "stage=parse seed=.*clean=" "$dir/data/workers.log" || true)" 8
expect_match "the archive's entries are in the graph" "$after" '"e1".*"e2"' 

# --all, with the same cleaner again: the graph stays, the changeset is empty
expect_match "--all" "$(tool reclean --all)" '^geo: reclean geo:.* started with 4 files$'
third=$(hv_harvest "$prefix" geo id)
hv_workers "$prefix" "$dir/data" 2 --allow-net "127.0.0.1:$dump_port,127.0.0.1:$ctx_port"
expect_eq "--all: done" "$(r HGET "${prefix}harvest:$third" status)" done
expect_eq "--all: the graph as it was" "$(hv_graph "$dir/data" geo)" "$after"
expect_eq "--all: an empty changeset" \
  "$(zcat "$dir/data/changesets/geo/${third//:/_}".{added,removed}.nq.gz | wc -l)" 0
lw_test_done
