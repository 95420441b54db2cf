#!/usr/bin/env bash
# The benchmarks' C drivers (scripts/bench-*.c) build against the library as
# it is now, with the link flags the scripts use (scripts/lib/core_link.sh):
# a benchmark that no longer links is found here, not by whoever runs it next.
# Then scripts/bench-scale runs at its tiny size (--tiny: a few providers,
# 1 and 2 workers, 25 s of visits) and must print every figure: a benchmark
# that no longer runs is found here too. Nothing is timed.
set -u
src="${LODWASH_SOURCE_DIR:-.}"
bin="${LODWASH_BINARY_DIR:-build}"
lib="$bin/liblodwash_core.a"
if [ ! -f "$lib" ]; then
  echo "SKIP: $lib is not built"; exit 77
fi
source "$src/scripts/lib/core_link.sh"
sanitize=()
if grep -q '^LODWASH_SANITIZE:BOOL=ON' "$bin/CMakeCache.txt" 2>/dev/null; then
  sanitize=(-fsanitize=address,undefined) # the library's objects call the runtimes
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
for driver in "$src"/scripts/bench-*.c "$src"/scripts/bench_*.c; do
  [ -f "$driver" ] || continue
  name=$(basename "$driver" .c)
  extra=()
  [ "$name" = bench_fetch ] && extra=(-DLODWASH_VERSION='"bench"' "$bin/tests/liblodwash_test_support.a")
  # shellcheck disable=SC2046
  if cc -O0 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I "$src" "${sanitize[@]}" \
    "$driver" "${extra[@]}" "$lib" $(lw_core_link_flags) -o "$tmp/$name" 2> "$tmp/$name.log"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $driver does not build:" >&2
    head -20 "$tmp/$name.log" >&2
  fi
done
echo "bench drivers: $passed built, $failed failed"
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ] || exit 1

# bench-scale, tiny: its own redis-server and cloud server on loopback
if [ -x "$bin/lodwash-worker" ] && [ -x "$bin/lodwash-scheduler" ]; then
  if ! LODWASH_BUILD_DIR="$bin" "$src/scripts/bench-scale" --tiny > "$tmp/scale.out" 2>&1; then
    echo "FAILED: scripts/bench-scale --tiny:" >&2; tail -20 "$tmp/scale.out" >&2; exit 1
  fi
  cat "$tmp/scale.out"
  for want in '^      1        24       12 ' '^      2        24       12 ' 'a dump seed [0-9]+ B' \
              'the re-check index [0-9]+ B' 'lag between visits: p50 [0-9.]+ s, p99 [0-9.]+ s' \
              'cpu: scheduler .* ms a document' 'rt/doc'; do
    if ! grep -Eq "$want" "$tmp/scale.out"; then
      echo "FAILED: scripts/bench-scale --tiny printed no line matching '$want'" >&2; exit 1
    fi
  done
else
  echo "note: $bin has no lodwash-worker: bench-scale not run"
fi
