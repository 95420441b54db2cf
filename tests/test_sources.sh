#!/usr/bin/env bash
# Providers as the web publishes them, harvested end to end by the real
# scheduler and workers over loopback HTTP, the files store: a DCAT-AP
# example written by others (its URLs pointing at this test's server), a
# Hydra-paged DCAT catalogue whose pages loop, a CKAN site (a stand-in of
# its Action API serving real package dictionaries, two a page), a gzipped
# sitemap index with pages and a semantic sitemap, and a SPARQL endpoint
# (the suite's Virtuoso, when there is one). Each graph must hold exactly
# its RDF; distributions declared not RDF are never requested; pages without
# RDF are skipped, not failed; a second cycle over unchanged publishers
# downloads nothing; a changed dataset is downloaded alone; a dataset that
# left is reported and its triples stay.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis
testdata=${LODWASH_TESTDATA:-$LODWASH_SOURCE_DIR/../shared/testdata}
[ -d "$testdata/dcat-examples" ] ||
  lw_test_skip "no DCAT and CKAN examples in $testdata/dcat-examples (LODWASH_TESTDATA)"

hv_setup sources
data="$dir/data"
www="$dir/www"
mkdir -p "$data"
hv_init "$dir"
redis() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }
quick=(--host-interval-ms 0 --robots-ttl 0)
cycle() { hv_sched "$prefix" "$dir/registry.yaml" "$data" "${quick[@]}" "$@" 2>> "$dir/sched.log"; }
work() { hv_workers "$prefix" "$data" 2 "${quick[@]}"; }
requests() { grep -c -E "$1" "$dir/access.log" || true; }
# N-Triples of N resources under a name, one of them a blank node
nt() {
  local name=$1 n=$2 tag=${3:-v1}
  for i in $(seq "$n"); do
    echo "<http://example.org/$name/r$i> <http://example.org/p> \"$name $tag $i\" ."
  done
  echo "<http://example.org/$name/r1> <http://example.org/q> <http://example.org/$name/r2> ."
}
graph() { hv_graph "$data" "$1" | sed -E 's/ <[^ >]*> \.$/ ./'; }
provider_json() { lw "$prefix" --registry "$dir/registry.yaml" providers --json; }
datasets_of() {
  provider_json | python3 -c "
import json, sys
for p in json.load(sys.stdin):
    if p['name'] == sys.argv[1]:
        for d in p['datasets']:
            print(d['id'], d['state'], len(d['dumps']), '; '.join(s['reason'] for s in d['skipped']))
" "$1"
}

# ---- DCAT: the DCAT-AP 2.2 HVD example, a Turtle and a Shapefile distribution
sed "s#https://orgea.exampleMS.gov/#$HV_BASE/orgea/#g" \
  "$testdata/dcat-examples/dcat-ap-2.2.0-hvd/example-ms_dataset_2_distributions.ttl" \
  > "$www/bees.ttl"
mkdir -p "$www/orgea/files"
nt bees 12 > "$www/orgea/files/1T2p3o4B.ttl"
echo "not a shapefile" > "$www/orgea/files/1T2p3o4B.shp"

# ---- DCAT: a catalogue of our own, two Hydra pages that name each other
catalog_pages() {
  local d3_modified=$1 with_d2=$2
  {
    echo "@prefix dcat: <http://www.w3.org/ns/dcat#> . @prefix dct: <http://purl.org/dc/terms/> ."
    echo "@prefix hydra: <http://www.w3.org/ns/hydra/core#> ."
    echo "<cat> a dcat:Catalog ; dcat:dataset <d1> ."
    echo "<d1> a dcat:Dataset ; dct:modified \"2024-01-01\" ;"
    echo "  dcat:distribution [ dcat:downloadURL <d1.nt> ; dcat:mediaType \"application/n-triples\" ] ,"
    echo "    [ dcat:downloadURL <d1.csv> ; dct:format <http://publications.europa.eu/resource/authority/file-type/CSV> ] ."
    if [ "$with_d2" = yes ]; then
      echo "<cat> dcat:dataset <d2> ."
      echo "<d2> a dcat:Dataset ; dct:modified \"2024-01-01\" ;"
      echo "  dcat:distribution [ dcat:downloadURL <d2.nt> ] , [ dcat:downloadURL <d2-page.html> ] ."
    fi
    echo "<catalog-1.ttl> hydra:next <catalog-2.ttl> ."
  } > "$www/catalog-1.ttl"
  {
    echo "@prefix dcat: <http://www.w3.org/ns/dcat#> . @prefix dct: <http://purl.org/dc/terms/> ."
    echo "@prefix hydra: <http://www.w3.org/ns/hydra/core#> ."
    echo "<cat> dcat:dataset <d3> ."
    echo "<d3> a dcat:Dataset ; dct:modified \"$d3_modified\" ;"
    echo "  dcat:distribution [ dcat:downloadURL <d3.nt> ; dct:format \"Turtle\" ] ."
    echo "<catalog-2.ttl> hydra:next <catalog-1.ttl> ."
  } > "$www/catalog-2.ttl"
}
catalog_pages 2024-01-01 yes
nt d1 5 > "$www/d1.nt"
nt d2 4 > "$www/d2.nt"
nt d3 6 > "$www/d3.nt"
echo "d1,csv" > "$www/d1.csv"
echo "<html><head><title>about d2</title></head><body><p>No data here.</p></body></html>" \
  > "$www/d2-page.html"

# ---- CKAN: real package dictionaries, and one of our own with a Turtle resource
ckan_port=$(hv_port)
CKAN_BASE="http://127.0.0.1:$ckan_port"
mkdir -p "$www/ckanfiles" "$dir/zip"
nt croissant 7 > "$dir/zip/data.nt"
(cd "$dir/zip" && python3 -c "import zipfile; z = zipfile.ZipFile('$www/ckanfiles/data.zip', 'w'); z.write('data.nt'); z.close()")
nt ckanrdf 3 > "$www/ckanfiles/own.ttl"
echo "<html><body>Geochemistry home page</body></html>" > "$www/ckanfiles/home.html"
echo "a,b" > "$www/ckanfiles/data.csv"
python3 - "$testdata/dcat-examples/ckanext-dcat/ckan" "$HV_BASE" "$www/ckanfiles" \
  > "$dir/packages.json" <<'PY'
import hashlib, json, sys
src, base, files = sys.argv[1], sys.argv[2], sys.argv[3]
packages = []
for f in ["ckan_dataset_multilingual.json", "ckan_full_dataset_croissant.json",
          "full_ckan_dataset_legacy.json"]:
    p = json.load(open(f"{src}/{f}"))
    for r in p.get("resources", []):
        r["url"] = (r["url"].replace("https://example.com/", base + "/ckanfiles/")
                    .replace("http://www.bgs.ac.uk/gbase/geochemcd/", base + "/ckanfiles/"))
        if r.get("hash"):  # the digest of the file served in its place: verified
            name = r["url"].rsplit("/", 1)[1]
            r["hash"] = hashlib.sha256(open(f"{files}/{name}", "rb").read()).hexdigest()
    packages.append(p)
packages.append({"name": "lodwash-own", "metadata_modified": "2024-05-01T10:00:00",
                 "resources": [{"url": base + "/ckanfiles/own.ttl", "format": "Turtle"}]})
json.dump(packages, sys.stdout)
PY
python3 "$LODWASH_SOURCE_DIR/tests/support/ckan_server.py" "$ckan_port" "$dir/packages.json" \
  "$dir/ckan.log" 2 > /dev/null 2>&1 &
HV_PIDS+=($!)
for _ in $(seq 100); do curl -s -o /dev/null "$CKAN_BASE/api/3/action/package_show" && break; sleep 0.05; done

# ---- a sitemap index (gzip), a urlset of pages and a semantic sitemap
mkdir -p "$www/site"
cat > "$www/site/page-rdfa.html" <<EOF2
<!DOCTYPE html>
<html prefix="schema: http://schema.org/"><head><title>Ada</title></head>
<body><div about="http://example.org/site/ada" typeof="schema:Person">
<span property="schema:name">Ada Lovelace</span></div></body></html>
EOF2
echo "<html><head><title>Contact</title></head><body><p>Write to us.</p></body></html>" \
  > "$www/site/page-plain.html"
cat > "$www/site/page-jsonld.html" <<'EOF2'
<!DOCTYPE html>
<html><head><title>Grace</title>
<script type="application/ld+json">
{"@context": {"name": "http://schema.org/name"},
 "@id": "http://example.org/site/grace", "name": "Grace Hopper"}
</script></head><body><p>Grace Hopper</p></body></html>
EOF2
nt sitedump 5 > "$www/site/dump.nt"
cat > "$www/site/sitemap-pages.xml" <<EOF2
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>$HV_BASE/site/page-rdfa.html</loc><lastmod>2024-03-01</lastmod></url>
  <url><loc>page-plain.html</loc><lastmod>2024-03-01</lastmod></url>
  <url><loc>page-jsonld.html</loc><lastmod>2024-03-01</lastmod></url>
</urlset>
EOF2
cat > "$www/site/sitemap-data.xml" <<EOF2
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:sc="http://sw.deri.org/2007/07/sitemapextension/scschema.xsd">
  <sc:dataset>
    <sc:datasetLabel>The site's data</sc:datasetLabel>
    <sc:datasetURI>http://example.org/site/dataset</sc:datasetURI>
    <sc:dataDumpLocation>$HV_BASE/site/dump.nt</sc:dataDumpLocation>
    <sc:sparqlEndpointLocation>$HV_BASE/site/sparql</sc:sparqlEndpointLocation>
    <lastmod>2024-03-02</lastmod>
  </sc:dataset>
</urlset>
EOF2
cat <<EOF2 | gzip > "$www/site/sitemap.xml.gz"
<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>$HV_BASE/site/sitemap-pages.xml</loc></sitemap>
  <sitemap><loc>$HV_BASE/site/sitemap-data.xml</loc></sitemap>
</sitemapindex>
EOF2

cat > "$dir/registry.yaml" <<EOF2
bees:
  dcat: $HV_BASE/bees.ttl
cat:
  dcat: $HV_BASE/catalog-1.ttl
portal:
  ckan: $CKAN_BASE/
site:
  sitemap: $HV_BASE/site/sitemap.xml.gz
EOF2

# ---- a SPARQL endpoint: the suite's Virtuoso, a graph of this run's own
sparql_graph="urn:lodwash-test:sources:$(basename "$dir")"
if [ -n "${LODWASH_TEST_SPARQL:-}" ]; then
  endpoint="${LODWASH_TEST_SPARQL%/*}/sparql"
  sparql_update() {
    curl -sf --digest -u "$LODWASH_TEST_SPARQL_USER:$LODWASH_TEST_SPARQL_PASSWORD" \
      "$LODWASH_TEST_SPARQL" --data-urlencode "query=$1" > /dev/null
  }
  nt ep 24 > "$dir/ep.nt"
  sparql_update "INSERT DATA { GRAPH <$sparql_graph> { $(cat "$dir/ep.nt") } }"
  trap 'sparql_update "DROP SILENT GRAPH <$sparql_graph>" || true; hv_stop; rm -rf "$dir"; lw_test_redis_cleanup "$prefix"' EXIT
  printf 'ep:\n  sparql: %s\n  graph: %s\n' "$endpoint" "$sparql_graph" >> "$dir/registry.yaml"
  # a query of the provider's own: only the p statements
  printf 'epq:\n  sparql: %s\n  query: "%s"\n' "$endpoint" \
    "CONSTRUCT { ?s <http://example.org/p> ?o } WHERE { GRAPH <$sparql_graph> { ?s <http://example.org/p> ?o } } ORDER BY ?s ?o" \
    >> "$dir/registry.yaml"
else
  echo "no Virtuoso (LODWASH_TEST_SPARQL unset; run scripts/test): the sparql: provider is skipped"
fi

# ---- an endpoint that describes its graph (SPARQL Service Description):
# its size and dct:modified are the version, the count query is not asked
sd_port=$(hv_port)
SD_BASE="http://127.0.0.1:$sd_port"
echo "2024-06-01" > "$dir/sd-modified"
python3 - "$sd_port" "$dir/sd-modified" "$dir/sd.log" > /dev/null 2>&1 <<'PY' &
import os, sys, urllib.parse
sys.path.insert(0, os.environ["LODWASH_SOURCE_DIR"] + "/tests/support")
import stub_server
port, modified_file, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
TRIPLES = "".join(f'<http://example.org/sd/r{i}> <http://example.org/p> "sd {i}" .\n' for i in range(3))
def answer(path):
    query = urllib.parse.parse_qs(urllib.parse.urlparse(path).query).get("query", [""])[0]
    with open(log, "a") as f:
        f.write((query.split()[0] if query else "description") + "\n")
    if not query:
        return 200, "text/turtle", (
            "@prefix sd: <http://www.w3.org/ns/sparql-service-description#> . "
            "@prefix void: <http://rdfs.org/ns/void#> . @prefix dct: <http://purl.org/dc/terms/> .\n"
            "<> a sd:Service ; sd:defaultDataset [ sd:defaultGraph [ void:triples 3 ; "
            f'dct:modified "{open(modified_file).read().strip()}" ] ] .\n')
    if query.startswith("CONSTRUCT"):
        return 200, "application/n-triples", TRIPLES
    return 500, None, ""
stub_server.serve(port, answer)
PY
HV_PIDS+=($!)
for _ in $(seq 100); do curl -s -o /dev/null "$SD_BASE/sparql" && break; sleep 0.05; done
printf 'described:\n  sparql: %s/sparql\n' "$SD_BASE" >> "$dir/registry.yaml"

# ======== the first cycle: everything new
cycle --sparql-page-size 10
expect_eq "cat: both pages read once though they name each other" \
  "$(requests '/catalog-[12]\.ttl ')" 2
expect_eq "portal: the search read in two pages of two" \
  "$(grep -c 'package_search' "$dir/ckan.log")" 2
expect_match "cat: three datasets, new" "$(datasets_of cat | sort)" \
  "d1 new 1 format CSV is not RDF.*d2 new 2 .*d3 new 1"
expect_match "portal: the packages as datasets" "$(datasets_of portal | sort)" \
  'lodwash-own new 1 .*test-dataset-croissant new 1 .*test-dataset-multilingual new 0 format CSV is not RDF.*zimbabwe-regional-geochemical-survey new 1'
work
cycle --sparql-page-size 10 # settles
for p in bees cat portal site; do
  expect_eq "$p: harvest done" "$(hv_harvest "$prefix" "$p" status)" done
done
# a catalogue has no dcterms:modified of its own: `lodwash providers` shows
# when its harvest ended under HARVESTED
expect_match "cat: HARVESTED in the providers table is the harvest's time" \
  "$(lw "$prefix" --registry "$dir/registry.yaml" providers | awk '$1 == "cat" { print $4 }')" \
  '^20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T'

expect_eq "bees: the graph holds exactly the Turtle distribution's triples" \
  "$(graph bees | md5sum)" "$(rapper -q -i turtle -o ntriples "$www/orgea/files/1T2p3o4B.ttl" | LC_ALL=C sort -u | md5sum)"
expect_eq "bees: the Shapefile never requested" "$(requests '\.shp ')" 0
expect_match "bees: the Shapefile listed as skipped, with its reason" "$(datasets_of bees)" \
  'SHP is not RDF'

expect_eq "cat: the graph holds d1, d2 and d3, exactly" "$(graph cat | md5sum)" \
  "$(cat "$www/d1.nt" "$www/d2.nt" "$www/d3.nt" | LC_ALL=C sort -u | md5sum)"
expect_eq "cat: the CSV never requested" "$(requests '/d1\.csv ')" 0
expect_eq "cat: the page of undeclared format fetched" "$(requests '/d2-page\.html ')" 1
page_seed=$(lw "$prefix" seed show "$HV_BASE/d2-page.html" --json 2>/dev/null |
  python3 -c 'import json,sys; s=json.load(sys.stdin); print(s.get("status"), s.get("skipped", ""))' || true)
expect_match "cat: the page without RDF skipped (its status) with the reason" "$page_seed" \
  '^skipped not RDF'

expect_eq "portal: the graph holds the archive's and the Turtle resource's triples" \
  "$(graph portal | md5sum)" \
  "$(cat "$dir/zip/data.nt" "$www/ckanfiles/own.ttl" | LC_ALL=C sort -u | md5sum)"
expect_eq "portal: the CSV resource never requested" "$(requests '/ckanfiles/data\.csv ')" 0

expect_match "site: the RDFa page's statement" "$(graph site)" \
  '<http://example.org/site/ada> <http://schema.org/name> "Ada Lovelace"'
expect_match "site: the JSON-LD page's statement" "$(graph site)" \
  '<http://example.org/site/grace> <http://schema.org/name> "Grace Hopper"'
expect_eq "site: the semantic sitemap's dump, every triple" \
  "$(graph site | grep -c 'sitedump')" "$(wc -l < "$www/site/dump.nt")"
expect_match "site: the endpoint listed as skipped" "$(datasets_of site)" 'SPARQL endpoint'
expect_match "site: the plain page skipped, not failed" \
  "$(lw "$prefix" seed show "$HV_BASE/site/page-plain.html" --json | python3 -c 'import json,sys; print(json.load(sys.stdin).get("skipped", ""))')" \
  '^not RDF'

expect_eq "described: harvested from its description's version" \
  "$(hv_harvest "$prefix" described status) $(redis HGET "${prefix}provider:described" void_modified)" \
  "done 3 triples, modified 2024-06-01 (service description)"
expect_eq "described: its triples" "$(graph described | grep -c '<http://example.org/sd/')" 3
expect_eq "described: the count query never asked" "$(grep -c SELECT "$dir/sd.log" || true)" 0

if [ -n "${LODWASH_TEST_SPARQL:-}" ]; then
  expect_eq "ep: harvest done" "$(hv_harvest "$prefix" ep status)" done
  expect_eq "ep: three pages of ten" "$(hv_harvest "$prefix" ep dumps | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 3
  expect_eq "ep: the graph holds exactly the endpoint's triples" "$(graph ep | md5sum)" \
    "$(LC_ALL=C sort -u "$dir/ep.nt" | md5sum)"
  expect_eq "epq: the graph holds exactly what its own query constructs" "$(graph epq | md5sum)" \
    "$(grep '<http://example.org/p>' "$dir/ep.nt" | LC_ALL=C sort -u | md5sum)"
fi

# ======== the second cycle: nothing changed, nothing downloaded
declare -A first
for p in bees cat portal site ep described; do first[$p]=$(redis HGET "${prefix}provider:$p" harvest); done
before=$(wc -l < "$dir/access.log")
# what the scheduler writes to Redis in it (a catalogue's datasets are
# megabytes at 100,000: written when they moved, not at every visit)
# (redis-cli itself in the background, not the function: $! must be the
# process that is killed, or redis-cli outlives the test)
redis-cli -u "$LODWASH_TEST_REDIS" MONITOR > "$dir/monitor.log" 2>&1 &
monitor=$!
sleep 0.3
cycle --sparql-page-size 10
kill "$monitor" 2>/dev/null; wait "$monitor" 2>/dev/null || true
expect_eq "the unchanged catalogues' datasets not written again" \
  "$(grep -c -E '"HSET" "'"$prefix"'provider:[^"]*".*"(source_datasets|void_dumps)"' "$dir/monitor.log" || true)" 0
expect_match "the visits recorded all the same" "$(cat "$dir/monitor.log")" \
  '"HSET" "'"$prefix"'provider:cat".*"checked"'
work
for p in bees cat portal site ep described; do
  expect_eq "$p: unchanged, no harvest started" "$(redis HGET "${prefix}provider:$p" harvest)" \
    "${first[$p]}"
done
expect_eq "no dump requested again" \
  "$(tail -n +"$((before + 1))" "$dir/access.log" | grep -v -c -E '/(catalog-[12]\.ttl|bees\.ttl|site/sitemap[^ ]*) ' || true)" 0

# ======== d3 changes (its dct:modified and its dump), d2 leaves the catalogue
catalog_pages 2024-02-01 no
nt d3 6 v2 > "$www/d3.nt"
echo "2024-07-01" > "$dir/sd-modified"
before=$(wc -l < "$dir/access.log")
cycle
expect_match "cat: d2 reported gone, d3 changed" "$(datasets_of cat | sort)" \
  "d1 unchanged 1 .*d2 gone 0 .*d3 changed 1"
work
cycle
expect_eq "cat: the change harvested" "$(hv_harvest "$prefix" cat status)" done
expect_match "described: a new dct:modified in its description, a new harvest" \
  "$(redis HGET "${prefix}provider:described" harvest)" "^described:"
[ "$(redis HGET "${prefix}provider:described" harvest)" != "${first[described]}" ] &&
  lw_pass || lw_fail "described: no new harvest after its description moved"
expect_eq "cat: a partial harvest" "$(hv_harvest "$prefix" cat kind)" partial
expect_eq "cat: only d3's dump downloaded" \
  "$(tail -n +"$((before + 1))" "$dir/access.log" | grep -E '\.(nt|html|csv) ' | awk '{print $1}' | sort | tr '\n' ' ')" \
  "/d3.nt "
expect_eq "cat: d3's new triples replace its old ones, d1's and d2's stay" \
  "$(graph cat | md5sum)" "$(cat "$www/d1.nt" "$www/d2.nt" "$www/d3.nt" | LC_ALL=C sort -u | md5sum)"

# ======== lodwash harvest NAME: every dataset's dumps, though none changed
before=$(wc -l < "$dir/access.log")
lw "$prefix" --registry "$dir/registry.yaml" --allow-net 127.0.0.1 --data "$data" \
  --host-interval-ms 0 --robots-ttl 0 harvest cat > "$dir/forced.out" 2>&1 ||
  lw_fail "lodwash harvest cat: $(cat "$dir/forced.out")"
work
cycle
expect_eq "cat: the forced harvest done" "$(hv_harvest "$prefix" cat status)" done
expect_eq "cat: the forced harvest is full" "$(hv_harvest "$prefix" cat kind)" full
expect_eq "cat: every dump of the catalogue downloaded" \
  "$(tail -n +"$((before + 1))" "$dir/access.log" | grep -E '\.(nt|html|csv) ' | awk '{print $1}' | sort | tr '\n' ' ')" \
  "/d1.nt /d3.nt "
lw_test_done
