#!/usr/bin/env bash
# The README's first command, as a user runs it: scripts/quickstart harvests
# the example providers end to end, then a partial update, and shows the
# changeset. It builds and uses build/, so it runs once, with the plain build.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
case "$LODWASH_BINARY_DIR" in
  */build) ;;
  *) lw_test_skip "the quick start uses build/; it runs with the plain build's tests" ;;
esac
out=$(mktemp)
trap 'rm -f "$out"' EXIT
code=0
timeout 600 bash "$LODWASH_SOURCE_DIR/scripts/quickstart" > "$out" 2>&1 || code=$?
expect_eq "quickstart exits 0" "$code" 0
[ "$code" -eq 0 ] || tail -40 "$out"
log=$(cat "$out")
expect_match "three harvests started" "$log" 'provider=city outcome=started'
expect_match "library graph" "$log" ' 27  [^ ]*/graphs/library.nq.gz'
expect_match "museum graph (an archive)" "$log" ' 18  [^ ]*/graphs/museum.nq.gz'
expect_match "city graph" "$log" ' 10  [^ ]*/graphs/city.nq.gz'
expect_match "errors shown" "$log" 'syntax_errors +1'
expect_match "the partial harvest" "$log" 'provider=library outcome=started .*kind=partial'
expect_match "changeset: added" "$log" 'book/5> <http://purl.org/dc/terms/title> "The Descent of Man"'
expect_match "changeset: removed" "$log" 'Removed:
<http://library.lodwash.example/book/4> <http://purl.org/dc/terms/title> "Opticks"@en'
expect_match "export" "$log" 'exported 3 graphs'
expect_eq "nothing left running" "$(pgrep -f "$LODWASH_SOURCE_DIR/quickstart" | wc -l)" 0
lw_test_done
