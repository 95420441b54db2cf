# The example providers (examples/providers, written for this project) as a
# web site: sourced by scripts/quickstart and the end-to-end tests.

# lw_void_file DIR MODIFIED FEATURE DUMP...: writes DIR/void.ttl describing
# one dataset with the given dcterms:modified, harvester feature (FullDump or
# PartialDump) and dumps (relative to the VoID file).
lw_void_file() {
  local dir=$1 modified=$2 feature=$3; shift 3
  {
    echo '@prefix void: <http://rdfs.org/ns/void#> .'
    echo '@prefix dcterms: <http://purl.org/dc/terms/> .'
    echo '@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .'
    echo '<#dataset> a void:Dataset ;'
    echo "  dcterms:title \"$(basename "$dir")\" ;"
    echo "  dcterms:modified \"$modified\"^^xsd:dateTime ;"
    echo "  void:feature <http://schema.geolink.org/dev/voc/harvester#$feature> ;"
    local dump
    for dump in "$@"; do echo "  void:dataDump <$dump> ;"; done
    echo '  .'
  } > "$dir/void.ttl"
}

# lw_dcat_catalog DIR: the city's DCAT catalogue, DIR/catalog.ttl: one
# dataset (modified 2026-01-01) with a TriG distribution and a CSV one (a
# format that is not RDF: listed as skipped, never downloaded).
lw_dcat_catalog() {
  cat > "$1/catalog.ttl" <<'TTL'
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<#catalog> a dcat:Catalog ; dct:title "The city's open data" ; dcat:dataset <#districts> .
<#districts> a dcat:Dataset ;
  dct:title "City districts" ;
  dct:modified "2026-01-01T00:00:00Z"^^xsd:dateTime ;
  dcat:distribution [ a dcat:Distribution ; dcat:downloadURL <districts.trig> ;
                      dcat:mediaType <http://www.iana.org/assignments/media-types/application/trig> ] ,
                    [ a dcat:Distribution ; dcat:downloadURL <districts.csv> ;
                      dct:format <http://publications.europa.eu/resource/authority/file-type/CSV> ] .
TTL
}

# lw_publish_examples WEB: three providers under WEB/{library,museum,city}:
# library (Turtle + N-Triples) and museum (a tar.gz of RDF/XML and JSON-LD)
# with a VoID file, city (TriG with a broken statement and a statement in a
# graph of its own) with a DCAT catalogue; all modified 2026-01-01.
lw_publish_examples() {
  local web=$1
  local examples
  examples="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/examples/providers"
  mkdir -p "$web/library" "$web/museum" "$web/city"
  cp "$examples/library/books.ttl" "$examples/library/authors.nt" "$web/library/"
  tar -C "$examples/museum" -czf "$web/museum/museum.tar.gz" objects.rdf places.jsonld
  cp "$examples/city/districts.trig" "$web/city/"
  lw_void_file "$web/library" 2026-01-01T00:00:00Z FullDump books.ttl authors.nt
  lw_void_file "$web/museum" 2026-01-01T00:00:00Z FullDump museum.tar.gz
  lw_void_file "$web/city" 2026-01-01T00:00:00Z FullDump districts.trig
  lw_dcat_catalog "$web/city"
}

# lw_publish_library_update WEB: the library's partial dump under a newer
# dcterms:modified.
lw_publish_library_update() {
  local web=$1
  local examples
  examples="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/examples/providers"
  cp "$examples/library/books-update.ttl" "$web/library/"
  lw_void_file "$web/library" 2026-02-01T00:00:00Z PartialDump books-update.ttl
}

# lw_example_registry FILE URL: a registry of the three providers served at
# URL: library and museum by their VoID files, city by its DCAT catalogue.
lw_example_registry() {
  local file=$1 url=$2 name
  echo "# The example providers, served at $url." > "$file"
  for name in library museum; do
    printf '%s:\n  void: %s/%s/void.ttl\n  modified: 2025-12-01\n' "$name" "$url" "$name" >> "$file"
  done
  printf 'city:\n  dcat: %s/city/catalog.ttl\n  modified: 2025-12-01\n' "$url" >> "$file"
}
