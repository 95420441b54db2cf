#!/usr/bin/env bash
# Every kind of error, in every syntax, located: `lodwash clean --errors N`
# prints FILE:LINE:COLUMN for syntax errors, bad lexical forms and bad
# language tags (columns where the parser knows them: RDF/XML has lines
# only, JSON-LD the start of the top-level element holding the statement).
set -u
source "${LODWASH_SOURCE_DIR:-.}/tests/support/lib.sh"
bin="${LODWASH_BINARY_DIR:-build}"
[ -x "$bin/lodwash" ] || lw_test_skip "lodwash is not built"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"
XSD=http://www.w3.org/2001/XMLSchema#

# errors FILE: the error lines of `lodwash clean --errors 20 FILE`, without
# the directory
errors() {
  "$bin/lodwash" clean --errors 20 "$tmp/$1" 2>&1 >/dev/null |
    grep -v '^format=' | sed "s|^$tmp/||"
}

expect_error() { # WHAT FILE EXPECTED-LINE-PREFIX
  local got
  got=$(errors "$2")
  if grep -qF -- "$3" <<< "$got"; then lw_pass; else lw_fail "$1: no [$3] in [$got]"; fi
}

cat > "$tmp/a.nt" <<EOF
<http://e/s> <http://e/p> "x"^^<${XSD}integer> .
<http://e/s>  <http://e/p>  "y"@abcdefghijk .
<http://e/s> <http://e/p> "z" "v" .
<http://e/s> <http://e/p> "w\\q" .
EOF
expect_error "N-Triples literal" a.nt 'a.nt:1:27: literal: invalid lexical form "x"'
expect_error "N-Triples language tag" a.nt 'a.nt:2:29: langtag: malformed language tag "abcdefghijk"'
expect_error "N-Triples syntax" a.nt 'a.nt:3:31: syntax:'
expect_error "N-Triples bad escape" a.nt 'a.nt:4:'

cat > "$tmp/b.nq" <<EOF
<http://e/s> <http://e/p> "x"^^<${XSD}integer> <http://e/g> .
<http://e/s> <http://e/p> "y"@abcdefghijk <http://e/g> .
<http://e/s> <http://e/p> "y" <http://e/g> <http://e/h> .
EOF
expect_error "N-Quads literal" b.nq 'b.nq:1:27: literal:'
expect_error "N-Quads language tag" b.nq 'b.nq:2:27: langtag:'
expect_error "N-Quads syntax" b.nq 'b.nq:3:44: syntax:'

# Turtle and TriG: where serd stood when the object ended
cat > "$tmp/c.ttl" <<EOF
@prefix xsd: <${XSD}> .
<http://e/s> <http://e/p> "1"^^xsd:integer ,
   "x"^^xsd:integer ;
  <http://e/q> "y"@abcdefghijk .
<http://e/s> <http://e/p> <http://e/o> <http://e/x> .
<http://e/s> <http://e/r> """a
b"""^^xsd:boolean .
EOF
expect_error "Turtle literal" c.ttl 'c.ttl:3:20: literal: invalid lexical form "x"'
expect_error "Turtle language tag" c.ttl 'c.ttl:4:31: langtag:'
expect_error "Turtle syntax" c.ttl 'c.ttl:5:40: syntax:'
expect_error "Turtle literal over two lines" c.ttl 'c.ttl:7:18: literal:'

cat > "$tmp/d.trig" <<EOF
@prefix xsd: <${XSD}> .
<http://e/g> {
 <http://e/s> <http://e/p> "2"^^xsd:integer,
  "x"^^xsd:boolean ;
  <http://e/q> "y"@abcdefghijk .
 <http://e/s> <http://e/p> .
}
EOF
expect_error "TriG literal" d.trig 'd.trig:4:19: literal:'
expect_error "TriG language tag" d.trig 'd.trig:5:31: langtag:'
expect_error "TriG syntax" d.trig 'd.trig:6:'

# RDF/XML: lines (libxml2 gives no column for an element)
cat > "$tmp/e.rdf" <<'EOF'
<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:eg="http://example.org/">
<rdf:Description rdf:about="http://e/a">
  <eg:p rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">x</eg:p>
  <eg:q xml:lang="abcdefghijk">y</eg:q>
</rdf:Description>
<rdf:Description rdf:about="http://e/b" eg:r="z" xml:lang="abcdefghijkl"/>
<rdf:li rdf:about="http://e/c"/>
</rdf:RDF>
EOF
expect_error "RDF/XML literal" e.rdf 'e.rdf:5:0: literal:'
expect_error "RDF/XML language tag" e.rdf 'e.rdf:6:0: langtag:'
expect_error "RDF/XML property attribute language tag" e.rdf 'e.rdf:8:0: langtag: malformed language tag "abcdefghijkl"'
expect_error "RDF/XML syntax" e.rdf 'e.rdf:9:'

# JSON-LD: the top-level element holding the statement
cat > "$tmp/f.jsonld" <<EOF
[
 {"@id": "http://e/a",
  "http://e/p": {"@value": "x", "@type": "${XSD}integer"}},
   {"@id": "http://e/b",
  "http://e/q": {"@value": "y", "@language": "abcdefghijk"}}
]
EOF
expect_error "JSON-LD literal" f.jsonld 'f.jsonld:2:2: literal:'
expect_error "JSON-LD language tag" f.jsonld 'f.jsonld:4:4: syntax: malformed language tag "abcdefghijk", statement skipped'
printf '[\n {"@id": "http://e/a",\n  "http://e/p": 1,}\n]\n' > "$tmp/g.jsonld"
expect_error "JSON-LD syntax" g.jsonld 'g.jsonld:3:'

lw_test_done
