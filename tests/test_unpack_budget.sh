#!/usr/bin/env bash
# A harvest's unpack budget (--harvest-max-bytes, --harvest-max-files) holds
# across every archive level and every worker: a few KB of nested tar.gz
# (each level holding 8 copies of the next, 512 MiB in all once expanded)
# and a tar.gz of 1,200 small files are harvested by the real scheduler and
# two real workers over loopback HTTP. The bytes and files written stay under
# the budget, the archives past it fail saying "harvest budget exceeded", the
# harvest's other dump is still imported, and an unpack that runs again
# replaces its own count instead of adding to it.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/../scripts/lib/examples.sh"
source "$(dirname "$0")/../scripts/lib/servers.sh"
lw_test_require_redis

prefix="lwtest:budget:$$:"
dir=$(mktemp -d)
workers=()
cleanup() {
  for w in "${workers[@]}"; do kill "$w" 2>/dev/null || true; done
  for w in "${workers[@]}"; do wait "$w" 2>/dev/null || true; done
  lw_servers_stop
  rm -rf "$dir"
  lw_test_redis_cleanup "$prefix"
}
trap cleanup EXIT
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }
max_bytes=$((8 * 1024 * 1024))
max_files=1000

# The bomb: d.nt.gz (1 MiB of N-Triples) and three tar.gz levels above it.
mkdir -p "$dir/gen" "$dir/www/bomb" "$dir/www/wide"
{ yes '<http://example.org/s> <http://example.org/p> "o" .' || true; } | head -c 1048576 \
  | gzip -9 > "$dir/gen/d.nt.gz"
inner="d.nt.gz"
for level in 1 2 3; do
  mkdir "$dir/gen/l$level"
  ext=${inner#*.}
  for i in 1 2 3 4 5 6 7 8; do cp "$dir/gen/$inner" "$dir/gen/l$level/c$i.$ext"; done
  tar -C "$dir/gen/l$level" -czf "$dir/gen/l$level.tar.gz" .
  inner="l$level.tar.gz"
done
cp "$dir/gen/l3.tar.gz" "$dir/www/bomb/bomb.tar.gz"
echo "bomb: $(stat -c %s "$dir/www/bomb/bomb.tar.gz") bytes, 512 MiB expanded"
printf '<http://example.org/good> <http://example.org/p> "kept" .\n' > "$dir/www/bomb/good.nt"
lw_void_file "$dir/www/bomb" 2026-01-01T00:00:00Z FullDump bomb.tar.gz good.nt
# Wide: 1,200 files in one archive, more than the harvest's files.
mkdir "$dir/gen/wide"
for i in $(seq 1200); do echo "<http://example.org/w$i> <http://example.org/p> \"$i\" ." \
  > "$dir/gen/wide/w$i.nt"; done
tar -C "$dir/gen/wide" -czf "$dir/www/wide/wide.tar.gz" .
lw_void_file "$dir/www/wide" 2026-01-01T00:00:00Z FullDump wide.tar.gz

port=$(lw_free_port)
lw_start_http "$port" "$dir/www"
printf 'bomb:\n  void: http://127.0.0.1:%s/bomb/void.ttl\nwide:\n  void: http://127.0.0.1:%s/wide/void.ttl\n' \
  "$port" "$port" > "$dir/registry.yaml"

common=(--redis "$LODWASH_TEST_REDIS" --prefix "$prefix" --data "$dir/data"
        --registry "$dir/registry.yaml" --allow-net 127.0.0.1 --host-interval-ms 0 --log-level warn
        --harvest-max-bytes "$max_bytes" --harvest-max-files "$max_files"
        --archive-max-ratio 0) # the absolute budget alone (test_nested_zip: the ratio)
"$LODWASH_BINARY_DIR/lodwash-scheduler" "${common[@]}" --once 2> "$dir/scheduler.log" \
  || { cat "$dir/scheduler.log"; exit 1; }
for w in 1 2; do
  timeout 300 "$LODWASH_BINARY_DIR/lodwash-worker" "${common[@]}" --exit-when-idle \
    2> "$dir/worker$w.log" &
  workers+=($!)
done
for w in "${workers[@]}"; do wait "$w" || { cat "$dir"/worker*.log | tail -20; lw_fail "worker exit"; }; done

hb=$(r HGET "${prefix}provider:bomb" harvest)
hw=$(r HGET "${prefix}provider:wide" harvest)
sum() { r HVALS "${prefix}unpacked:$1" | awk '{b += $1; f += $2} END {printf "%d %d", b, f}'; }
read -r used_bytes used_files <<< "$(sum "$hb")"
echo "bomb harvest holds $used_bytes bytes, $used_files files of its budget"
under() { [ "$1" -le "$2" ] && echo yes || echo "no: $1 > $2"; }
expect_eq "budget bytes held within the cap" "$(under "$used_bytes" "$max_bytes")" yes
expect_eq "budget files held within the cap" "$(under "$used_files" "$max_files")" yes
# What is really on disk: every unpacked file (raw/ and utf8/ but the downloads).
downloads=$(( $(stat -c %s "$dir/www/bomb/bomb.tar.gz") + $(stat -c %s "$dir/www/bomb/good.nt") \
  + $(stat -c %s "$dir/www/wide/wide.tar.gz") ))
mkdir -p "$dir/data/utf8"
on_disk=$(( $(find "$dir/data/raw" "$dir/data/utf8" -type f -printf '%s\n' \
  | awk '{s += $1} END {print s + 0}') - downloads ))
files_on_disk=$(( $(find "$dir/data/raw" "$dir/data/utf8" -type f | wc -l) - 3 ))
echo "unpacked on disk: $on_disk bytes in $files_on_disk files (of 512 MiB in 1,097 files)"
expect_eq "bytes on disk within the budget" "$(under "$on_disk" "$max_bytes")" yes
expect_eq "files on disk within the budget" "$(under "$files_on_disk" "$((max_files + 1))")" yes
# (how much depends on which levels the two workers reserve for first: at
# least one leaf's megabyte, never nothing)
expect_eq "something was unpacked down to the data" \
  "$([ "$on_disk" -ge 1048576 ] && echo yes || echo "no: $on_disk")" yes

# The bomb's seeds past the budget say why (the wide archive's seed, which
# says files ran out, is left out); the other dump got in.
wide_seed=$(r HGET "${prefix}harvest:$hw" seeds | tr -d '[]"')
budget_seed=$(r --scan --pattern "${prefix}seed:*" | grep -vx "${prefix}seed:$wide_seed" \
  | while read -r k; do
  e=$(r HGET "$k" error); [[ "$e" != *"harvest budget exceeded"* ]] || echo "$e"; done \
  | grep -m1 . || true)
expect_match "a seed says bytes ran out" "$budget_seed" \
  'harvest budget exceeded: this archive needs [0-9]+ bytes.*--harvest-max-bytes'
expect_eq "bomb harvest ended" "$(r HGET "${prefix}harvest:$hb" status)" failed
expect_match "its other dump was imported" "$(zcat "$dir/data/graphs/bomb.nq.gz")" '"kept"'
expect_eq "wide archive failed" "$(r HGET "${prefix}seed:$wide_seed" status)" failed
expect_match "wide archive says files ran out" "$(r HGET "${prefix}seed:$wide_seed" error)" \
  'harvest budget exceeded: this archive needs [0-9]+ files.*--harvest-max-files'
expect_eq "wide archive left no file" \
  "$(find "$dir/data/raw" -type f | wc -l | awk '{print ($1 < 1100) ? "yes" : "no"}')" yes
expect_eq "wide archive holds no budget" "$(r HEXISTS "${prefix}unpacked:$hw" "$wide_seed")" 0

# An unpack that runs again (a lost ack, a crash) replaces its own count.
again=$(r HGETALL "${prefix}unpacked:$hb" | paste - - | awk '$2 == 1048576 {print $1; exit}')
[ -n "$again" ] || lw_fail "no bottom archive was unpacked"
before=$(sum "$hb")
r HSET "${prefix}seed:$again" status filed > /dev/null
lw "$prefix" jobs push unpack "{\"seed\":\"$again\",\"harvest\":\"$hb\"}" > /dev/null
"$LODWASH_BINARY_DIR/lodwash-worker" "${common[@]}" --stages unpack --exit-when-idle \
  2> "$dir/again.log" || { cat "$dir/again.log"; exit 1; }
expect_eq "the rerun unpacked again" "$(r HGET "${prefix}seed:$again" status)" depleted
expect_eq "budget unchanged by the rerun" "$(sum "$hb")" "$before"
lw_test_done
