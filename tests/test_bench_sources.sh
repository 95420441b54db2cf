#!/usr/bin/env bash
# scripts/bench-sources still works, at a tiny size: 60 datasets in pages of
# 25 (three DCAT pages, three CKAN search pages), 5 of them changed; and
# with --linked (30 datasets, each in a document of its own). The
# benchmark checks its own figures (no dump re-downloaded by the re-check,
# exactly the changed datasets' dumps after the change, their new triples in
# the graph) and fails otherwise; here its output must say so, and it must
# leave neither a process nor its temporary folder behind. It starts its own
# redis-server, so it needs no test Redis.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
for tool in redis-server redis-cli python3 curl /usr/bin/time; do
  command -v "$tool" > /dev/null || lw_test_skip "$tool is not installed"
done

out=$(mktemp)
trap 'rm -f "$out" "$out.linked"' EXIT
# every process the benchmark starts inherits this mark
mark="lodwash-bench-sources-test-$$-$RANDOM"
status=0
BENCH_SOURCES_TEST_MARK=$mark LODWASH_BUILD_DIR="$LODWASH_BINARY_DIR" timeout 120 \
  "$LODWASH_SOURCE_DIR/scripts/bench-sources" --datasets 60 --page-size 25 --change 5 \
  > "$out" 2>&1 || status=$?
cat "$out"
expect_eq "bench-sources exits 0" "$status" 0
expect_match "it passed its checks" "$(cat "$out")" 'bench-sources: all checks passed'
for kind in dcat ckan; do
  section=$(sed -n "/^== $kind:/,/^$kind: ok/p" "$out")
  expect_match "$kind: the re-check read the 3 pages and re-downloaded no dump" "$section" \
    're-check \(unchanged\): [0-9.]+ s wall, .*outcome=unchanged; requests: 3 catalogue pages, 0 robots.txt, 0 dumps re-downloaded'
  expect_match "$kind: the floor measured on the same pages" "$section" \
    're-check [0-9.]+ s \([0-9.]+ s without the collection\), curl of the same 3 pages [0-9.]+ s \(median of 3: [0-9.]+-[0-9.]+ s\) \(ratio [0-9.]+, [0-9.]+ without the collection\)'
  expect_match "$kind: the re-checks without the collection read the 3 pages too" "$section" \
    're-check without the collection \(--gc-interval 0\), median of 3: [0-9.]+ s wall .*; 3 catalogue pages each; Redis: [0-9]+ commands'
  expect_match "$kind: the change downloaded exactly 5 dumps" "$section" \
    'change of 5 datasets: .*requests: 3 catalogue pages, 5 dumps downloaded; harvest done, kind partial'
  expect_match "$kind: the graph has the new triples only" "$section" \
    'graph: 10 new triples of the changed datasets \(expected 10\), 0 of their old ones \(expected 0\), 180 in all \(expected 180\)'
done
# --linked: each dataset in a document of its own, read at every visit
status=0
BENCH_SOURCES_TEST_MARK=$mark LODWASH_BUILD_DIR="$LODWASH_BINARY_DIR" timeout 120 \
  "$LODWASH_SOURCE_DIR/scripts/bench-sources" --datasets 30 --page-size 25 --change 3 \
  --kinds dcat --linked --runs 1 > "$out.linked" 2>&1 || status=$?
cat "$out.linked"
expect_eq "bench-sources --linked exits 0" "$status" 0
expect_match "--linked: the re-check read the 2 pages and the 30 datasets' documents, no dump" \
  "$(cat "$out.linked")" 'requests: 32 catalogue pages, 0 robots.txt, 0 dumps re-downloaded'
expect_match "--linked: the change downloaded exactly 3 dumps" "$(cat "$out.linked")" \
  'change of 3 datasets: .*requests: 32 catalogue pages, 3 dumps downloaded; harvest done, kind partial'
rm -f "$out.linked"
tmpdir=$(sed -n 's/^temporary folder: \([^ ]*\) .*/\1/p' "$out")
expect_match "it names its temporary folder" "$tmpdir" '^/.+lodwash-bench-sources-'
expect_eq "its temporary folder is removed" "$([ -e "$tmpdir" ] && echo left || echo removed)" removed
left=""
for env in /proc/[0-9]*/environ; do
  if { tr '\0' '\n' < "$env"; } 2> /dev/null | grep -qxF "BENCH_SOURCES_TEST_MARK=$mark"; then
    pid=${env#/proc/}; pid=${pid%/environ}
    left+="$pid $(tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null | cut -c1-100); "
  fi
done
expect_eq "no process left behind" "$left" ""
lw_test_done
