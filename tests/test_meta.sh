#!/usr/bin/env bash
# The metadata graph (docs/metadata.md) after real harvests: the scheduler
# and workers over loopback HTTP, then export/meta.nq.gz read with rapper
# and queried with roqet (the documented queries, taken from the doc), and
# every number compared with the records: `lodwash providers --json`,
# `lodwash seed show --json`, the harvest records and the graph files
# (tests/support/meta_check.py). The harvests: geo in full (a dump with
# syntax and literal errors, an archive of two files), then partial (its
# VoID declares PartialDump and a new version), then a reclean; broken, one
# dump in and one 404 (a failed harvest). With the suite's Virtuoso
# (LODWASH_TEST_SPARQL) the harvests go to the SPARQL store too: the
# metadata graph is there as a graph of its own, and the documented query
# that joins a provider's graph with it is run there. Then the scheduler's page
# /providers/geo/void.ttl, the export's void.ttl, an unchanged export that
# writes nothing, and retention: after `gc` the harvests no longer kept and
# their documents leave the graph.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis
command -v roqet > /dev/null || lw_test_skip "no roqet (Debian's rasqal-utils)"
command -v rapper > /dev/null || lw_test_skip "no rapper (Debian's raptor2-utils)"

hv_setup meta
if [ -n "${LW_META_KEEP:-}" ]; then trap 'hv_stop' EXIT; echo "kept: $dir $prefix"; fi
data="$dir/data"
mkdir -p "$data" "$dir/q"
gbase="http://lodwash.test/meta$$"
common=(--graph-base "$gbase" --host-interval-ms 0 --robots-ttl 0 --allow-net 127.0.0.1)
sparql_query() { # QUERY: CSV from the store's query endpoint
  curl -sf -H 'Accept: text/csv' "${LODWASH_TEST_SPARQL%/*}/sparql" --data-urlencode "query=$1"
}
if [ -n "${LODWASH_TEST_SPARQL:-}" ]; then
  common+=(--store "$LODWASH_TEST_SPARQL" --store-user "$LODWASH_TEST_SPARQL_USER"
           --store-password "$LODWASH_TEST_SPARQL_PASSWORD")
  trap 'for g in geo broken lodwash-meta; do
          curl -sf --digest -u "$LODWASH_TEST_SPARQL_USER:$LODWASH_TEST_SPARQL_PASSWORD" \
            "$LODWASH_TEST_SPARQL" --data-urlencode "query=DROP SILENT GRAPH <$gbase/$g>" > /dev/null || true
        done; hv_stop; rm -rf "$dir"; lw_test_redis_cleanup "$prefix"' EXIT
else
  echo "no Virtuoso (LODWASH_TEST_SPARQL unset; run scripts/test): the SPARQL store part is skipped"
fi
cycle() { hv_sched "$prefix" "$dir/registry.yaml" "$data" "${common[@]}" 2>> "$dir/sched.log"; }
work() { hv_workers "$prefix" "$data" 2 "${common[@]}"; }
tool() { lw "$prefix" --registry "$dir/registry.yaml" --data "$data" "${common[@]}" "$@"; }
triples_of() { rapper -i "$1" -c "$2" 2>&1 | grep -o 'returned [0-9]*' | grep -o '[0-9]*'; }

hv_init "$dir"
www="$dir/www"
# geo: a VoID written here (its version and dump kind change)
geo_void() { # VERSION FEATURE DUMP...
  local version=$1 feature=$2; shift 2
  {
    echo '@prefix void: <http://rdfs.org/ns/void#> .'
    echo '@prefix dcterms: <http://purl.org/dc/terms/> .'
    echo '@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .'
    echo "<#ds> a void:Dataset ; dcterms:modified \"$version\"^^xsd:date"
    [ -n "$feature" ] && echo "  ; void:feature <http://lod.dataone.org/glharvest#$feature>"
    local d
    for d in "$@"; do echo "  ; void:dataDump <$HV_BASE/$d.nt>"; done
    echo '  .'
  } > "$www/geo-void.ttl"
}
hv_dump plain 12
printf '%s\n' '<http://example.org/x> <http://example.org/p> "bad\Z" .' \
  '<http://example.org/y> <http://example.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .' \
  '<http://example.org/y> <http://example.org/p> "zz"^^<http://www.w3.org/2001/XMLSchema#integer> .' \
  '<http://example.org/y> <http://example.org/p> "zz"^^<http://www.w3.org/2001/XMLSchema#integer> .' \
  > "$www/errs.nt"
mkdir -p "$dir/arch"
printf '<http://example.org/e1> <http://example.org/p> "e1" .\n' > "$dir/arch/e1.nt"
printf '<http://example.org/e2> <http://example.org/p> "e2" .\n' > "$dir/arch/e2.nt"
tar -czf "$www/arch.nt" -C "$dir/arch" e1.nt e2.nt
geo_void 2020-01-01 FullDump plain errs arch
printf 'geo:\n  void: %s\n' "$HV_BASE/geo-void.ttl" >> "$dir/registry.yaml"
hv_dump good 5
hv_provider "$dir/registry.yaml" broken good missing

# the documented queries, in order, and one listing every document
python3 - "$(dirname "$0")/../docs/metadata.md" "$dir/q" <<'PY'
import re, sys
for i, q in enumerate(re.findall(r"```sparql\n(.*?)```", open(sys.argv[1]).read(), re.S)):
    open(f"{sys.argv[2]}/q{i + 1}.rq", "w").write(q)
PY
expect_eq "docs/metadata.md has five queries" "$(ls "$dir/q" | wc -l)" 5
cat > "$dir/q/documents.rq" <<'Q'
PREFIX void: <http://rdfs.org/ns/void#>
PREFIX dcat: <http://www.w3.org/ns/dcat#>
PREFIX dct:  <http://purl.org/dc/terms/>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX spdx: <http://spdx.org/rdf/terms#>
PREFIX http: <http://www.w3.org/2011/http#>
PREFIX cnt:  <http://www.w3.org/2011/content#>
PREFIX lwm:  <https://lodwash.invalid/ns/meta#>
SELECT ?id ?status ?bytes ?md5 ?sha256 ?triples ?duplicates ?syntax ?literal ?format
       ?encoding ?http ?error ?url ?archive ?clean
WHERE {
  ?doc a prov:Entity ; dct:identifier ?id ; lwm:status ?status .
  OPTIONAL { ?doc dcat:byteSize ?bytes }
  OPTIONAL { ?doc spdx:checksum ?m . ?m spdx:algorithm spdx:checksumAlgorithm_md5 ;
                                        spdx:checksumValue ?md5 }
  OPTIONAL { ?doc spdx:checksum ?s . ?s spdx:algorithm spdx:checksumAlgorithm_sha256 ;
                                        spdx:checksumValue ?sha256 }
  OPTIONAL { ?doc void:triples ?triples }
  OPTIONAL { ?doc lwm:duplicates ?duplicates }
  OPTIONAL { ?doc lwm:syntaxErrors ?syntax }
  OPTIONAL { ?doc lwm:literalErrors ?literal }
  OPTIONAL { ?doc dct:format ?format }
  OPTIONAL { ?doc cnt:characterEncoding ?encoding }
  OPTIONAL { ?doc http:statusCodeValue ?http }
  OPTIONAL { ?doc lwm:error ?error }
  OPTIONAL { ?doc dcat:downloadURL ?url }
  OPTIONAL { ?doc dct:isPartOf ?archive }
  OPTIONAL { ?doc lwm:cleanFile ?clean }
}
Q

# meta_check: export, then every number of the graph against the records
meta_check() { # WHAT
  tool export > /dev/null
  zcat "$data/export/meta.nq.gz" > "$dir/meta.nq"
  local out rc=0
  out=$(python3 "$(dirname "$0")/support/meta_check.py" "$dir/meta.nq" "$prefix" "$dir/q" \
    "$data/graphs" "$gbase" -- "$LODWASH_BINARY_DIR/lodwash" --redis "$LODWASH_TEST_REDIS" \
    --prefix "$prefix" --registry "$dir/registry.yaml" --data "$data" "${common[@]}" 2>&1) || rc=$?
  grep -v '^ok' <<< "$out" >&2 || true
  expect_eq "$1: the metadata graph's numbers are the records' ($(grep -c '^ok' <<< "$out") checks)" \
    "$rc $(grep FAILED <<< "$out" || true)" "0 "
  expect_eq "$1: rapper reads the graph, every line" "$(triples_of nquads "$dir/meta.nq")" \
    "$(wc -l < "$dir/meta.nq")"
  expect_eq "$1: no line twice" "$(sort -u "$dir/meta.nq" | wc -l)" "$(wc -l < "$dir/meta.nq")"
  expect_eq "$1: the files store's graph lodwash-meta is the same graph" \
    "$(tool graph lodwash-meta | md5sum)" "$(md5sum < "$dir/meta.nq")"
  expect_eq "$1: it is not in the dump of the providers' graphs" \
    "$(zcat "$data/export/all.nq.gz" | grep -c -F "<$gbase/lodwash-meta>" || true)" 0
}

# ======== full harvests: geo done, broken failed (a 404)
cycle
work
expect_eq "geo: full harvest done" "$(hv_harvest "$prefix" geo status)" done
expect_eq "geo: a full harvest" "$(hv_harvest "$prefix" geo kind)" full
expect_eq "broken: harvest failed" "$(hv_harvest "$prefix" broken status)" failed
expect_eq "the export job wrote the metadata graph" "$(test -s "$data/export/meta.nq.gz" && echo yes)" yes
meta_check "after the full harvests"
geo_graph="<$gbase/geo>"
meta_iri="<$gbase/lodwash-meta>"
expect_eq "every statement is in the metadata graph" \
  "$(grep -c -v " $meta_iri \.$" "$dir/meta.nq" || true)" 0
expect_eq "the metadata graph is not a provider's: nothing describes it as one" \
  "$(grep -c "^$meta_iri <https://lodwash.invalid/ns/meta#sourceKind>" "$dir/meta.nq" || true)" 0
missing=$(grep -F "<http://www.w3.org/ns/dcat#downloadURL> <$HV_BASE/missing.nt>" "$dir/meta.nq" | cut -d' ' -f1)
expect_match "the 404: its status" "$(grep -F "$missing <http://www.w3.org/2011/http#statusCodeValue>" "$dir/meta.nq")" '"404"'
expect_match "the 404: failed" "$(grep -F "$missing <https://lodwash.invalid/ns/meta#status>" "$dir/meta.nq")" '"failed"'
arch=$(grep -F "<http://www.w3.org/ns/dcat#downloadURL> <$HV_BASE/arch.nt>" "$dir/meta.nq" | cut -d' ' -f1)
expect_eq "the archive's two entries are part of it" \
  "$(grep -F "<http://purl.org/dc/terms/isPartOf> $arch" "$dir/meta.nq" | wc -l)" 2
expect_eq "the entries' names" \
  "$(grep -F "<http://purl.org/dc/terms/title>" "$dir/meta.nq" | grep -o '"e[12].nt"' | sort | tr '\n' ' ')" \
  '"e1.nt" "e2.nt" '
sums=$(grep -c 'checksumAlgorithm_sha256' "$dir/meta.nq" || true)
expect_match "documents have SHA-256 checksums ($sums)" "$sums" '^[1-9]'

# the export's VoID: the metadata graph with its counts
ttl="$data/export/void.ttl"
expect_eq "void.ttl parses" "$(rapper -q -i turtle -c "$ttl" > /dev/null 2>&1 && echo yes)" yes
expect_match "void.ttl: the metadata graph's triples" "$(cat "$ttl")" \
  "void:dataDump <meta.nq.gz> ;.*void:triples $(wc -l < "$dir/meta.nq") ;"
expect_match "void.ttl: geo's properties" "$(cat "$ttl")" 'void:properties [0-9]+ ;'

# an export with nothing new writes nothing
before=$(stat -c %Y.%s "$data/export/meta.nq.gz"; md5sum < "$data/export/meta.nq.gz")
sleep 1.1
# (the lane of no harvest, queue:export:, and its place in the ring)
redis-cli -u "$LODWASH_TEST_REDIS" RPUSH "${prefix}queue:export:" \
  '{"id":"meta-unchanged","stage":"export","seed":"","attempt":0}' > /dev/null
redis-cli -u "$LODWASH_TEST_REDIS" RPUSH "${prefix}queue:export" "" > /dev/null
work
expect_eq "an export job with nothing new leaves meta.nq.gz alone" \
  "$(stat -c %Y.%s "$data/export/meta.nq.gz"; md5sum < "$data/export/meta.nq.gz")" "$before"

# ======== a partial harvest of geo: a new version, one changed dump
hv_dump plain 15 plain2
geo_void 2021-06-01 PartialDump plain
tool harvest geo > /dev/null
cycle
work
expect_eq "geo: partial harvest done" "$(hv_harvest "$prefix" geo status)" done
expect_eq "geo: a partial harvest" "$(hv_harvest "$prefix" geo kind)" partial
expect_eq "the export job that followed the import wrote it into the metadata graph" \
  "$(zcat "$data/export/meta.nq.gz" | grep -c 'harvestKind> "partial"')" 1
meta_check "after the partial harvest"

# ======== a reclean of geo
tool reclean geo > /dev/null
work
expect_eq "geo: reclean done" "$(hv_harvest "$prefix" geo status)" done
expect_eq "geo: the reclean's record" "$(hv_harvest "$prefix" geo reclean)" 1
expect_eq "the export job wrote the reclean into the metadata graph" \
  "$(zcat "$data/export/meta.nq.gz" | grep -c 'harvestKind> "reclean"')" 1
meta_check "after the reclean"
expect_eq "three activities of geo, one of broken" \
  "$(grep -c "<https://lodwash.invalid/ns/meta#target> <$gbase/[a-z]*>" "$dir/meta.nq")" 4

# ======== the SPARQL store: the metadata graph, and the join with a provider's graph
if [ -n "${LODWASH_TEST_SPARQL:-}" ]; then
  expect_eq "the store holds the metadata graph, every triple" \
    "$(sparql_query "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <$gbase/lodwash-meta> { ?s ?p ?o } }" | tail -1)" \
    "$(wc -l < "$dir/meta.nq")"
  # the documented query, about a subject of the archive's first entry
  sed "s|<http://example.org/geo/s1>|<http://example.org/e1>|" "$dir/q/q5.rq" > "$dir/q5.rq"
  answer=$(sparql_query "$(cat "$dir/q5.rq")")
  expect_eq "where e1's triples came from: geo's graph only" \
    "$(tail -n +2 <<< "$answer" | cut -d, -f1 | sort -u | tr -d '"')" "$gbase/geo"
  expect_match "... among its documents the entry e1.nt of arch.nt" "$answer" \
    "\"$HV_BASE/arch.nt\",\"e1.nt\",\"clean/"
  expect_eq "... each of geo's documents with its clean file, as the exported graph says" \
    "$(tail -n +2 <<< "$answer" | grep -o 'clean/[^"]*' | sort -u | tr '\n' ' ')" \
    "$(roqet -r csv -D "file://$dir/meta.nq" -e "SELECT DISTINCT ?file WHERE {
         ?doc <http://rdfs.org/ns/void#inDataset> <$gbase/geo> ;
              <https://lodwash.invalid/ns/meta#cleanFile> ?c .
         ?c <https://lodwash.invalid/ns/meta#file> ?file }" 2> /dev/null |
       tail -n +2 | tr -d "\r" | sort -u | tr "\n" " ")"
fi

# ======== the scheduler's page: geo's part as Turtle
tool provider hold geo > /dev/null
tool provider hold broken > /dev/null
port=$(hv_port)
"$LODWASH_BINARY_DIR/lodwash-scheduler" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
  --registry "$dir/registry.yaml" --data "$data" "${common[@]}" \
  --interval 3600 --metrics-port "$port" 2>> "$dir/sched.log" &
HV_PIDS+=($!)
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
curl -s -D "$dir/headers" -o "$dir/geo.ttl" "http://127.0.0.1:$port/providers/geo/void.ttl"
expect_match "the page is Turtle" "$(cat "$dir/headers")" 'Content-Type: text/turtle'
tool meta --provider geo --triples > "$dir/geo.nt"
expect_eq "the page parses, and says what lodwash meta --provider geo says" \
  "$(triples_of turtle "$dir/geo.ttl")" "$(wc -l < "$dir/geo.nt")"
expect_eq "the page says nothing of broken" "$(grep -c 'broken' "$dir/geo.ttl" || true)" 0
expect_match "the page: geo's graph is a void:Dataset" "$(cat "$dir/geo.ttl")" \
  "<$gbase/geo>"$'\n'".*a void:Dataset"
expect_match "the provider page links it" \
  "$(curl -s "http://127.0.0.1:$port/providers/geo")" 'href="/providers/geo/void.ttl"'
expect_eq "an unknown provider's page: 404" \
  "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/providers/nope/void.ttl")" 404
hv_stop
hv_init "$dir" # the dumps' server again (hv_stop stopped both)

# ======== retention: keep one harvest per provider, no grace
tool --keep-harvests 1 --gc-grace 0 gc > "$dir/gc.log"
expect_match "gc removed geo's older harvests" "$(cat "$dir/gc.log")" 'removed harvest geo:'
meta_check "after gc"
expect_eq "one activity per provider left" \
  "$(grep -c "<https://lodwash.invalid/ns/meta#target> <$gbase/[a-z]*>" "$dir/meta.nq")" 2
expect_eq "errs.nt, which only the first harvest listed, left the graph" \
  "$(grep -c -F "<$HV_BASE/errs.nt>" "$dir/meta.nq" || true)" 0
expect_eq "so did the archive's entries" \
  "$(grep -c -F '<http://purl.org/dc/terms/isPartOf>' "$dir/meta.nq" || true)" 0

# ======== memory: the graph of 10,000 documents in about the memory of 1,000's
# (the sort's budget 1 MB; what grows is the one harvest record listing
# every dump, which the graph reads whole). The sanitizer's quarantine of
# freed memory would count as growth: kept small here.
declare -A rss lines
for n in 1000 10000; do
  python3 "$(dirname "$0")/../scripts/lib/meta_records.py" "$n" "${prefix}mem$n:" |
    redis-cli -u "$LODWASH_TEST_REDIS" --pipe > /dev/null
  mkdir -p "$dir/mem$n"
  rss[$n]=$( { ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=1" /usr/bin/time -f '%M' \
    "$LODWASH_BINARY_DIR/lodwash" --redis "$LODWASH_TEST_REDIS" --prefix "${prefix}mem$n:" \
    --data "$dir/mem$n" --sort-memory 1M meta > "$dir/mem.nq"; } 2>&1 | tail -1)
  lines[$n]=$(wc -l < "$dir/mem.nq")
done
expect_eq "10,000 documents: ten times the statements of 1,000 (${lines[1000]}, ${lines[10000]})" \
  "$(( (lines[10000] + lines[1000] / 2) / lines[1000] ))" 10
expect_eq "10,000 documents in at most 16 MB more than 1,000 (${rss[1000]} KB, ${rss[10000]} KB)" \
  "$(( rss[10000] - rss[1000] < 16384 ))" 1

lw_test_done
