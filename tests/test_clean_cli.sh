#!/usr/bin/env bash
# `lodwash clean` as a user runs it: output, summary line, exit codes.
set -u
bin="${LODWASH_BINARY_DIR:-build}"
if [ -x "$bin/lodwash" ] && "$bin/lodwash" clean --help >/dev/null 2>&1; then
  clean=("$bin/lodwash" clean)
elif [ -x "$bin/tests/test_clean" ]; then
  clean=("$bin/tests/test_clean" --cli clean) # the same command, before the tool's main exists
else
  echo "SKIP: neither lodwash nor tests/test_clean is built"; exit 77
fi
testdata="${LODWASH_TESTDATA:-${LODWASH_SOURCE_DIR:-.}/../shared/testdata}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*" >&2; }
check() { local what="$1"; shift; if "$@"; then ok; else bad "$what"; fi; }
run() { "${clean[@]}" "$@"; }

cat > "$tmp/data.nt" <<'EOF'
<http://ex.org/b> <http://ex.org/p> "two" .
<http://ex.org/a> <http://ex.org/p> "one"@en .
<http://ex.org/b> <http://ex.org/p> "two" .
<http://ex.org/c> <http://ex.org/p> "3"^^<http://www.w3.org/2001/XMLSchema#integer> .
EOF

# --help, bad usage
run --help > "$tmp/help" 2>&1; check "--help exits 0" test $? -eq 0
check "--help shows usage" grep -q 'usage: lodwash clean FILE' "$tmp/help"
run > /dev/null 2>&1; check "no FILE exits 2" test $? -eq 2
run "$tmp/data.nt" --bogus > /dev/null 2>&1; check "unknown option exits 2" test $? -eq 2
run "$tmp/data.nt" --format klingon > /dev/null 2>&1; check "bad format exits 2" test $? -eq 2
run "$tmp/data.nt" -o > /dev/null 2>&1; check "-o without value exits 2" test $? -eq 2

# stdout: sorted, distinct, canonical; one summary line on stderr
run "$tmp/data.nt" > "$tmp/out.nq" 2> "$tmp/err"; check "clean exits 0" test $? -eq 0
check "three distinct triples" test "$(wc -l < "$tmp/out.nq")" -eq 3
check "sorted like LC_ALL=C sort -u" cmp -s "$tmp/out.nq" <(LC_ALL=C sort -u "$tmp/data.nt")
check "one summary line" test "$(wc -l < "$tmp/err")" -eq 1
check "summary counts" grep -q '^format=N-Triples triples=3 duplicates=1 syntax_errors=0 literal_errors=0 ' "$tmp/err"

# -o OUT: gzip only for .gz
run "$tmp/data.nt" -o "$tmp/out.nq.gz" 2> /dev/null; check "-o .gz exits 0" test $? -eq 0
check "-o .gz is gzip" gzip -t "$tmp/out.nq.gz"
check ".gz content = stdout content" cmp -s <(gzip -dc "$tmp/out.nq.gz") "$tmp/out.nq"
run "$tmp/data.nt" --output="$tmp/plain.nq" 2> /dev/null
check "-o plain is plain" cmp -s "$tmp/plain.nq" "$tmp/out.nq"
check "md5 in summary = md5 of content" grep -q "md5=$(md5sum < "$tmp/out.nq" | cut -c1-32)" "$tmp/err"

# devices as OUT: written to, never removed
run "$tmp/data.nt" -o /dev/null 2> /dev/null; check "-o /dev/null exits 0" test $? -eq 0
if [ -c /dev/full ]; then
  run "$tmp/data.nt" -o /dev/full 2> "$tmp/err"; check "-o /dev/full (disk full) exits 1" test $? -eq 1
  check "disk full says so" grep -q 'No space left' "$tmp/err"
  check "/dev/full is still there" test -c /dev/full
fi

# --format and --base: a relative IRI in a file with a misleading name
printf '@prefix ex: <http://ex.org/> .\n<thing> ex:p ex:o .\n' > "$tmp/rel.txt"
run "$tmp/rel.txt" --format turtle --base http://base.example/dir/ > "$tmp/rel.nq" 2> "$tmp/err"
check "--format turtle exits 0" test $? -eq 0
check "--base resolves" grep -q '^<http://base.example/dir/thing> <http://ex.org/p> <http://ex.org/o> .$' "$tmp/rel.nq"
check "summary says Turtle" grep -q '^format=Turtle ' "$tmp/err"

# dirty data: exit 0, errors counted, good statements kept
cat > "$tmp/dirty.nt" <<'EOF'
<http://ex.org/s1> <http://ex.org/p> "good" .
<http://ex.org/s2> <http://ex.org/p> "broken .
<http://ex.org/s3> <http://ex.org/p> "x"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/s4> <http://ex.org/p> "also good" .
EOF
run "$tmp/dirty.nt" --errors 5 > "$tmp/dirty.nq" 2> "$tmp/err"
check "dirty file exits 0" test $? -eq 0
check "dirty: good statements kept" test "$(wc -l < "$tmp/dirty.nq")" -eq 3
check "dirty: counts" grep -q 'syntax_errors=1 literal_errors=1' "$tmp/err"
check "dirty: error located" grep -q "dirty.nt:2:" "$tmp/err"

# a file that cannot be read, or is not RDF: exit 1
run "$tmp/nope.ttl" > /dev/null 2> "$tmp/err"; check "missing file exits 1" test $? -eq 1
check "missing file says so" grep -q 'nope.ttl' "$tmp/err"
printf '%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n' > "$tmp/doc.pdf"
run "$tmp/doc.pdf" > /dev/null 2>&1; check "not RDF exits 1" test $? -eq 1

# a real file, a small sort budget: same output as with the default budget
real="$testdata/geolink/ec-geolink__design__data__bco-dmo__test__platform.rdf"
if [ -f "$real" ]; then
  run "$real" --memory 64K --base http://ex.org/ > "$tmp/small.nq" 2> /dev/null
  check "small budget exits 0" test $? -eq 0
  run "$real" --base http://ex.org/ > "$tmp/large.nq" 2> /dev/null
  check "budget does not change output" cmp -s "$tmp/small.nq" "$tmp/large.nq"
  check "real file has triples" test "$(wc -l < "$tmp/large.nq")" -gt 1000
  check "no sort runs left" test -z "$(ls -A "$tmp/tmp" 2>/dev/null)"
fi

# a gzip-compressed file (a real Turtle dump) reads like its content
gz="$testdata/geolink/ec-geolink__design__data__chronos__NeptuneSamples.ttl.gz"
if [ -f "$gz" ]; then
  gzip -dc "$gz" > "$tmp/samples.ttl"
  run "$gz" --base http://ex.org/ > "$tmp/from-gz.nq" 2> "$tmp/err"
  check ".ttl.gz exits 0" test $? -eq 0
  check ".ttl.gz read as Turtle" grep -q '^format=Turtle ' "$tmp/err"
  run "$tmp/samples.ttl" --base http://ex.org/ > "$tmp/from-ttl.nq" 2> /dev/null
  check ".ttl.gz = its content" cmp -s "$tmp/from-gz.nq" "$tmp/from-ttl.nq"
  check ".ttl.gz has triples" test "$(wc -l < "$tmp/from-gz.nq")" -gt 100
fi

# JSON-LD with a remote context: --context-map supplies it; without it the
# context's address (a private one here) is refused, and the error says so
# (the document could not be read: a syntax error, located, nothing out)
printf '{"@context": {"@vocab": "http://schema.org/"}}' > "$tmp/ctx.json"
printf '{"@context": "http://10.255.255.1/ctx.jsonld", "@id": "http://ex.org/a", "name": "A"}' > "$tmp/doc.jsonld"
run "$tmp/doc.jsonld" --context-map "http://10.255.255.1/ctx.jsonld=$tmp/ctx.json" > "$tmp/ctx.nq" 2> /dev/null
check "--context-map exits 0" test $? -eq 0
check "--context-map supplies the context" grep -qF '<http://ex.org/a> <http://schema.org/name> "A" .' "$tmp/ctx.nq"
run "$tmp/doc.jsonld" --errors 5 > "$tmp/out" 2> "$tmp/err"
check "refused context: nothing out" test ! -s "$tmp/out"
check "refused context: a syntax error" grep -q 'syntax_errors=1 ' "$tmp/err"
check "refused context says why" grep -q 'loading remote context failed.*10.255.255.1' "$tmp/err"
run "$tmp/doc.jsonld" --context-map "nonsense" > /dev/null 2>&1
check "bad --context-map exits 2" test $? -eq 2

# RDFa in HTML that is not XML: guessed from the content, read as browsers
# do (libxml2's HTML parser), and the statements after the unclosed <p>,
# &nbsp; and <br> are there
cat > "$tmp/page.html" <<'EOF'
<!DOCTYPE html>
<html prefix="dc: http://purl.org/dc/terms/">
<head><title>A page</title></head>
<body>
<p>An unclosed paragraph&nbsp;with an entity<br>
<p about="/photo.jpg"><span property="dc:creator">Ann&nbsp;Lee</span>
<a rel="dc:license" href="/licence">licence</a>
</body>
</html>
EOF
run "$tmp/page.html" --base http://ex.org/page.html > "$tmp/page.nq" 2> "$tmp/err"
check "broken HTML exits 0" test $? -eq 0
check "broken HTML read as RDFa" grep -q '^format=RDFa ' "$tmp/err"
check "broken HTML: the literal after it" grep -qF "<http://ex.org/photo.jpg> <http://purl.org/dc/terms/creator> \"Ann$(printf '\302\240')Lee\" ." "$tmp/page.nq"
check "broken HTML: the link after it" grep -qF '<http://ex.org/photo.jpg> <http://purl.org/dc/terms/license> <http://ex.org/licence> .' "$tmp/page.nq"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
