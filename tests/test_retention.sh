#!/usr/bin/env bash
# Retention: the same two providers harvested again and again (100 times, 30
# in the sanitizer build, LODWASH_RETENTION_HARVESTS to change it) by the real scheduler
# (--once, which also collects) and a real worker (--exit-when-idle) over
# loopback HTTP, with dumps that change every time: one whose content
# changes, one whose URL changes (the old one is no longer listed), and a
# tar.gz whose entries change. After each harvest `lodwash gc` runs; the
# number of keys, the sum of their MEMORY USAGE and the number of files in
# the data directory are the same after the last harvest as after the tenth.
# Also: what the last harvests need is kept (graphs, clean files, seeds),
# `gc --dry-run` removes nothing and announces exactly what `gc` then
# removes, and dead lists are capped with the dropped jobs counted.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/seeds.sh"
source "$(dirname "$0")/../scripts/lib/examples.sh"
source "$(dirname "$0")/../scripts/lib/servers.sh"
lw_test_require_redis

# 100 harvests take about 30 s with the plain build; the sanitizer build's
# processes are about five times slower, so it does 30 (the figures are flat
# from the fourth harvest on).
default_harvests=100
if grep -q '^LODWASH_SANITIZE:BOOL=ON' "$LODWASH_BINARY_DIR/CMakeCache.txt" 2>/dev/null; then
  default_harvests=30
fi
harvests=${LODWASH_RETENTION_HARVESTS:-$default_harvests}
warm=$(( harvests < 10 ? harvests : 10 ))
prefix="lwtest:retention:$$:"
dir=$(mktemp -d)
cleanup() {
  lw_servers_stop
  rm -rf "$dir"
  lw_test_redis_cleanup "$prefix"
}
trap cleanup EXIT
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }

port=$(lw_free_port)
mkdir -p "$dir/www/alpha" "$dir/www/beta" "$dir/gen"
lw_start_http "$port" "$dir/www"
printf 'alpha:\n  void: http://127.0.0.1:%s/alpha/void.ttl\nbeta:\n  void: http://127.0.0.1:%s/beta/void.ttl\n' \
  "$port" "$port" > "$dir/registry.yaml"

common=(--redis "$LODWASH_TEST_REDIS" --prefix "$prefix" --data "$dir/data"
        --registry "$dir/registry.yaml" --allow-net 127.0.0.1 --host-interval-ms 0 --log-level warn
        --keep-harvests 3 --gc-grace 0 --dead-max 2 --max-attempts 1)

# Version i of both providers' dumps, under a newer dcterms:modified.
publish() {
  local i=$1 modified
  modified=$(date -u -d "2026-01-01 + $i minutes" +%Y-%m-%dT%H:%M:%SZ)
  printf '<http://example.org/alpha/s> <http://example.org/p> "version %d" .\n' "$i" \
    > "$dir/www/alpha/stable.nt"
  rm -f "$dir"/www/alpha/v*.nt.gz
  printf '<http://example.org/alpha/v%d> <http://example.org/p> "%d" .\n' "$i" "$i" \
    | gzip > "$dir/www/alpha/v$i.nt.gz"
  lw_void_file "$dir/www/alpha" "$modified" FullDump stable.nt "v$i.nt.gz"
  rm -rf "$dir/gen/beta" && mkdir "$dir/gen/beta"
  printf '@prefix ex: <http://example.org/beta/> .\nex:a ex:p "a %d" .\n' "$i" > "$dir/gen/beta/a.ttl"
  printf '<http://example.org/beta/b> <http://example.org/p> "b %d" .\n' "$i" > "$dir/gen/beta/b.nt"
  tar -C "$dir/gen/beta" -czf "$dir/www/beta/pack.tar.gz" a.ttl b.nt
  lw_void_file "$dir/www/beta" "$modified" FullDump pack.tar.gz
  # A Last-Modified of its own for every version (the server's resolution is
  # one second: a conditional GET must not mistake a new version for the last).
  touch -d "@$(( $(date -u -d 2026-01-01 +%s) + 60 * i ))" "$dir"/www/*/*
}

harvest() {
  "$LODWASH_BINARY_DIR/lodwash-scheduler" "${common[@]}" --once --gc-interval 1 \
    --log-level info 2> "$dir/scheduler.log" || { cat "$dir/scheduler.log"; lw_fail "scheduler"; }
  timeout 120 "$LODWASH_BINARY_DIR/lodwash-worker" "${common[@]}" --exit-when-idle \
    2> "$dir/worker.log" || { cat "$dir/worker.log"; lw_fail "worker"; }
}

gc() { "$LODWASH_BINARY_DIR/lodwash" "${common[@]}" gc "$@"; }
seed_in() { lw_test_seed_in "$prefix" "$@"; }
keys() { r --scan --pattern "${prefix}*"; }
# "<keys> <bytes of MEMORY USAGE> <files>"
measure() {
  local n=0 bytes=0 k
  while read -r k; do
    n=$((n + 1))
    bytes=$((bytes + $(r MEMORY USAGE "$k")))
  done < <(keys)
  echo "$n $bytes $(find "$dir/data" -type f | wc -l)"
}

# Dead lists: five jobs that fail for good, two kept.
for i in 1 2 3 4 5; do
  lw "$prefix" jobs push download "{\"seed\":\"$(printf '%032d' "$i")\"}" > /dev/null
done
"$LODWASH_BINARY_DIR/lodwash-worker" "${common[@]}" --exit-when-idle 2> /dev/null || true
expect_eq "five dead jobs" "$(r LLEN "${prefix}dead:download")" 5
newest=$(r LINDEX "${prefix}dead:download" 0)

start=$(date +%s)
for i in $(seq 1 "$harvests"); do
  publish "$i"
  harvest
  if [ "$i" -eq 1 ]; then
    old=$(seed_in alpha /v1.nt.gz)
    expect_eq "dead list capped" "$(r LLEN "${prefix}dead:download")" 2
    expect_eq "the newest dead job kept" "$(r LINDEX "${prefix}dead:download" 0)" "$newest"
    expect_eq "the two newest kept, oldest dropped" \
      "$(r LRANGE "${prefix}dead:download" 0 -1 | grep -o '"seed":"0*[0-9]"' | tr -d '"seed:0' | tr '\n' ' ')" "5 4 "
    expect_eq "dropped dead jobs counted" "$(r HGET "${prefix}counters" dead_dropped:download)" 3
  fi
  if [ "$i" -eq "$harvests" ]; then
    # Garbage of this harvest is there: the dry run says what gc removes.
    before=$(keys | sort)
    files_before=$(find "$dir/data" -type f | sort)
    gc --dry-run > "$dir/dry.txt"
    expect_eq "dry run removes no key" "$(keys | sort)" "$before"
    expect_eq "dry run removes no file" "$(find "$dir/data" -type f | sort)" "$files_before"
  fi
  gc > "$dir/gc.txt" || { cat "$dir/gc.txt"; lw_fail "gc"; }
  if [ "$i" -eq "$warm" ]; then
    warm_figures=$(measure)
  fi
done
took=$(( $(date +%s) - start ))
last_figures=$(measure)
echo "$harvests harvests of 2 providers in ${took}s"
echo "after harvest $warm: $warm_figures (keys, bytes, files); after $harvests: $last_figures"

expect_match "dry run listed removals" "$(cat "$dir/dry.txt")" 'would remove (seed|clean|harvest|file) '
expect_eq "gc removed what the dry run announced" \
  "$(grep -v '^gc' "$dir/gc.txt" | sed 's/^removed //' | sort)" \
  "$(grep -v '^gc' "$dir/dry.txt" | sed 's/^would remove //' | sort)"
expect_match "the scheduler collected too (one harvest per provider)" \
  "$(grep -o 'gc=done harvests=[0-9]*' "$dir/scheduler.log")" "gc=done harvests=$(( harvests > 3 ? 2 : 0 ))"
expect_match "gc summary" "$(tail -1 "$dir/gc.txt")" '^gc: removed [0-9]+ harvests, [0-9]+ seeds'

read -r wk wb wf <<< "$warm_figures"
read -r lk lb lf <<< "$last_figures"
expect_eq "keys flat" "$lk" "$wk"
expect_eq "files flat" "$lf" "$wf"
expect_eq "memory flat (within 10%)" \
  "$([ "$lb" -le $(( wb * 11 / 10 )) ] && echo yes || echo "no: $wb -> $lb bytes")" yes

# What the last harvests need is still there.
expect_eq "three harvests kept per provider" \
  "$(r --scan --pattern "${prefix}harvest:alpha:*" | grep -cvE ':(expected|finished|failed)$')" 3
alpha_harvest=$(r HGET "${prefix}provider:alpha" harvest)
expect_eq "last alpha harvest done" "$(r HGET "${prefix}harvest:$alpha_harvest" status)" done
expect_match "alpha graph has the last version" "$(zcat "$dir/data/graphs/alpha.nq.gz")" \
  "\"version $harvests\""
expect_match "beta graph has the last version" "$(zcat "$dir/data/graphs/beta.nq.gz")" \
  "\"b $harvests\""
stable=$(seed_in alpha /stable.nt)
clean=$(r HGET "${prefix}seed:$stable" clean)
expect_eq "the stable dump's clean record kept" "$(r HGET "${prefix}seed:$clean" status)" cleaned
expect_eq "its clean file kept" "$([ -f "$dir/data/$(r HGET "${prefix}seed:$clean" file)" ] && echo yes)" yes
if [ "$harvests" -gt 4 ]; then
  expect_eq "a dump no VoID lists any more is gone" "$(r EXISTS "${prefix}seed:$old")" 0
  expect_eq "and its file" "$(find "$dir/data" -name "$old" | wc -l)" 0
fi
expect_eq "changesets of 3 harvests per provider" \
  "$(find "$dir/data/changesets" -type f | wc -l)" 12
lw_test_done
