#!/usr/bin/env bash
# What retention keeps, through the real scheduler and worker over loopback
# HTTP: a dump seed stays while ANY provider's kept harvest lists it (here a
# dump that moved from provider A's VoID to provider B's, then out of both),
# a seed no VoID lists and no kept harvest needs goes only after the grace
# period, with its clean record, its cleanof entry and its files, a seed
# with a job queued stays, and a seed added by hand stays.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/seeds.sh"
source "$(dirname "$0")/../scripts/lib/examples.sh"
source "$(dirname "$0")/../scripts/lib/servers.sh"
lw_test_require_redis

prefix="lwtest:retrefs:$$:"
dir=$(mktemp -d)
cleanup() {
  lw_servers_stop
  rm -rf "$dir"
  lw_test_redis_cleanup "$prefix"
}
trap cleanup EXIT
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }

port=$(lw_free_port)
web="http://127.0.0.1:$port"
mkdir -p "$dir/www/a" "$dir/www/b" "$dir/www/shared"
printf '<http://example.org/a> <http://example.org/p> "a" .\n' > "$dir/www/a/a.nt"
printf '<http://example.org/b> <http://example.org/p> "b" .\n' > "$dir/www/b/b.nt"
printf '<http://example.org/x> <http://example.org/p> "x" .\n' > "$dir/www/shared/x.nt"
printf '<http://example.org/m> <http://example.org/p> "m" .\n' > "$dir/www/manual.nt"
lw_start_http "$port" "$dir/www"
printf 'a:\n  void: %s/a/void.ttl\nb:\n  void: %s/b/void.ttl\n' "$web" "$web" > "$dir/registry.yaml"

common=(--redis "$LODWASH_TEST_REDIS" --prefix "$prefix" --data "$dir/data"
        --registry "$dir/registry.yaml" --allow-net 127.0.0.1 --host-interval-ms 0 --log-level warn
        --keep-harvests 3 --gc-interval 0 --gc-grace 0)
# gc [OPTIONS]: `lodwash gc` with the test's settings (OPTIONS override them).
gc() { "$LODWASH_BINARY_DIR/lodwash" "${common[@]}" "$@" gc; }
seed_in() { lw_test_seed_in "$prefix" "$@"; }

# step N A-DUMPS B-DUMPS: both VoIDs at version N, one scheduler cycle and a
# worker until idle, then gc without grace.
step() {
  local n=$1 modified
  modified=$(date -u -d "2026-01-01 + $n hours" +%Y-%m-%dT%H:%M:%SZ)
  # shellcheck disable=SC2086
  lw_void_file "$dir/www/a" "$modified" FullDump $2
  # shellcheck disable=SC2086
  lw_void_file "$dir/www/b" "$modified" FullDump $3
  "$LODWASH_BINARY_DIR/lodwash-scheduler" "${common[@]}" --once 2> "$dir/scheduler.log" \
    || { cat "$dir/scheduler.log"; lw_fail "scheduler"; }
  timeout 120 "$LODWASH_BINARY_DIR/lodwash-worker" "${common[@]}" --exit-when-idle \
    2> "$dir/worker.log" || { cat "$dir/worker.log"; lw_fail "worker"; }
}

manual=$("$LODWASH_BINARY_DIR/lodwash" hash "$web/manual.nt" | awk '{print $1}')
"$LODWASH_BINARY_DIR/lodwash" "${common[@]}" seed add "$web/manual.nt" > /dev/null

step 1 "a.nt ../shared/x.nt" "b.nt"             # A lists x
x=$(seed_in a /x.nt)
x_clean=$(r HGET "${prefix}seed:$x" clean)
x_content=$(r HGET "${prefix}seed:$x" content | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
x_files=$(find "$dir/data" -name "$x*" -o -name "$x_clean*" | wc -l)
expect_eq "x cleaned" "$(r HGET "${prefix}seed:$x_clean" status)" cleaned
expect_eq "x's raw and clean files" "$x_files" 2
step 2 "a.nt" "b.nt ../shared/x.nt"             # x moves to B
# B's seed of x: the same record as A's, or B's own (when each provider's
# dump is a seed of its own)
xb=$(seed_in b /x.nt)
xb_clean=$(r HGET "${prefix}seed:$xb" clean)
step 3 "a.nt" "b.nt"                            # no VoID lists x any more
step 4 "a.nt" "b.nt"
gc > /dev/null
expect_eq "A's harvest that listed x is gone" \
  "$(r --scan --pattern "${prefix}harvest:a:*" | grep -cvE ':(expected|finished|failed)$')" 3
expect_eq "x kept: B's harvest 2 (kept) lists it" "$(r EXISTS "${prefix}seed:$xb")" 1
expect_eq "x's clean record kept" "$(r HGET "${prefix}seed:$xb_clean" status)" cleaned

step 5 "a.nt" "b.nt"                            # B's harvest 2 drops out of the last 3
# Within the grace period nothing of x goes.
gc --gc-grace 3600 > "$dir/grace.txt"
expect_eq "grace: x stays" "$(r EXISTS "${prefix}seed:$xb")" 1
expect_eq "grace: nothing of x announced" "$(grep -c "$xb\|$xb_clean" "$dir/grace.txt" || true)" 0
# A job queued for x keeps it too.
"$LODWASH_BINARY_DIR/lodwash" "${common[@]}" jobs push guess "{\"seed\":\"$xb\"}" > /dev/null
gc > /dev/null
expect_eq "queued: x stays" "$(r EXISTS "${prefix}seed:$xb")" 1
timeout 120 "$LODWASH_BINARY_DIR/lodwash-worker" "${common[@]}" --exit-when-idle \
  2> "$dir/worker.log" || { cat "$dir/worker.log"; lw_fail "worker"; }
gc > "$dir/gc.txt"
expect_eq "x removed" "$(r EXISTS "${prefix}seed:$xb")" 0
expect_eq "x's clean records removed" "$(r EXISTS "${prefix}seed:$x_clean" "${prefix}seed:$xb_clean")" 0
expect_eq "x's cleanof entry removed" "$(r EXISTS "${prefix}cleanof:$x_content")" 0
expect_eq "x's files removed ($x_files of them)" \
  "$(find "$dir/data" -name "$x*" -o -name "$xb*" -o -name "$x_clean*" -o -name "$xb_clean*" | wc -l)" 0
expect_match "gc said so" "$(cat "$dir/gc.txt")" "removed seed $xb"
expect_eq "seed counts still add up" \
  "$(r HVALS "${prefix}seeds" | awk '{s += $1} END {print s}')" \
  "$(r --scan --pattern "${prefix}seed:*" | wc -l)"
a=$(seed_in a /a.nt)
expect_eq "A's listed dump kept" "$(r EXISTS "${prefix}seed:$a")" 1
expect_eq "with its clean record (its content did not change)" \
  "$(r HGET "${prefix}seed:$(r HGET "${prefix}seed:$a" clean)" status)" cleaned
expect_eq "the seed added by hand kept" "$(r HGET "${prefix}seed:$manual" status)" parsed
expect_match "B's graph still has x (graphs are not retention's)" \
  "$(zcat "$dir/data/graphs/b.nq.gz")" '"x"'
lw_test_done
