#!/usr/bin/env bash
# A nested archive costs megabytes, not the harvest's whole budget (issue 24,
# item 4). The test builds a 42.zip-style bomb itself: a leaf of 2 MiB that
# compresses to a few KB, then zips of 16 copies of the zip below, four
# levels up: some tens of KB downloaded, 128 GiB once every level is
# unpacked. Each archive alone stays within its own caps (the leaf's 2 MiB
# is below the point where an archive's ratio is checked; each level above
# expands about 16 times), so before, only the harvest's 64 GB budget
# stopped it. Now the per-archive ratio applies to the whole chain: the
# harvest's archives hold at most --archive-max-ratio (200) times the bytes
# of its downloaded archives. Beside it, an undisturbed provider with a
# tar.gz of .nt.gz files (nested too) gets its whole graph.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/../scripts/lib/examples.sh"
source "$(dirname "$0")/../scripts/lib/servers.sh"
lw_test_require_redis

prefix="lwtest:nestedzip:$$:"
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

mkdir -p "$dir/www/bomb" "$dir/www/plain" "$dir/gen"
python3 - "$dir/www/bomb/bomb.zip" <<'PY'
import io, sys, zipfile
def zip_of(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()
line = b'<http://example.org/s> <http://example.org/p> "o" .\n'
level = zip_of([("leaf.nt", line * (2 * 1024 * 1024 // len(line)))])
for depth in range(4):
    level = zip_of([("z%d.zip" % i, level) for i in range(16)])
open(sys.argv[1], "wb").write(level)
PY
bomb_size=$(stat -c %s "$dir/www/bomb/bomb.zip")
echo "bomb: $bomb_size bytes, 128 GiB once unpacked"
lw_void_file "$dir/www/bomb" 2026-01-01T00:00:00Z FullDump bomb.zip

# the undisturbed provider: 3 .nt.gz in a tar.gz
for i in 1 2 3; do
  for j in $(seq 500); do echo "<http://example.org/p$i/$j> <http://example.org/v> \"$j\" ."; done \
    > "$dir/gen/d$i.nt"
  gzip -c "$dir/gen/d$i.nt" > "$dir/gen/d$i.nt.gz"
done
tar -C "$dir/gen" -czf "$dir/www/plain/plain.tar.gz" d1.nt.gz d2.nt.gz d3.nt.gz
lw_void_file "$dir/www/plain" 2026-01-01T00:00:00Z FullDump plain.tar.gz

port=$(lw_free_port)
lw_start_http "$port" "$dir/www"
printf 'bomb:\n  void: http://127.0.0.1:%s/bomb/void.ttl\nplain:\n  void: http://127.0.0.1:%s/plain/void.ttl\n' \
  "$port" "$port" > "$dir/registry.yaml"
common=(--redis "$LODWASH_TEST_REDIS" --prefix "$prefix" --data "$dir/data"
        --registry "$dir/registry.yaml" --allow-net 127.0.0.1 --host-interval-ms 0 --log-level warn)
"$LODWASH_BINARY_DIR/lodwash-scheduler" "${common[@]}" --once 2> "$dir/scheduler.log" \
  || { cat "$dir/scheduler.log"; exit 1; }
for w in 1 2; do
  timeout 600 "$LODWASH_BINARY_DIR/lodwash-worker" "${common[@]}" --exit-when-idle \
    2> "$dir/worker$w.log" &
  workers+=($!)
done
for w in "${workers[@]}"; do wait "$w" || { tail -20 "$dir"/worker*.log; lw_fail "worker exit"; }; done
workers=()

hb=$(r HGET "${prefix}provider:bomb" harvest)
cap=$((200 * bomb_size > 4194304 ? 200 * bomb_size : 4194304))
read -r held _ <<< "$(r HVALS "${prefix}unpacked:$hb" | awk '{b += $1; f += $2} END {printf "%d %d", b, f}')"
on_disk=$(( $(find "$dir/data/raw" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}') ))
echo "bomb harvest: $held bytes held, $on_disk bytes under raw/ (cap $cap)"
under() { [ "$1" -le "$2" ] && echo yes || echo "no: $1 > $2"; }
expect_eq "the bomb's archives hold at most 200 times its download" "$(under "$held" "$cap")" yes
expect_eq "on disk: megabytes, not gigabytes" "$(under "$on_disk" $((cap + 1048576 + bomb_size)))" yes
said=$(r --scan --pattern "${prefix}seed:*" | while read -r k; do r HGET "$k" error; done \
  | grep -m1 'harvest expansion ratio exceeded' || true)
expect_match "a seed says why" "$said" \
  'harvest expansion ratio exceeded: this archive needs [0-9]+ bytes.*200 times the [0-9]+ bytes.*--archive-max-ratio'
expect_eq "the bomb's harvest ended, failed" "$(r HGET "${prefix}harvest:$hb" status)" failed

# the undisturbed provider: every statement of its three files
hp=$(r HGET "${prefix}provider:plain" harvest)
expect_eq "plain's harvest is done" "$(r HGET "${prefix}harvest:$hp" status)" done
expect_eq "plain's graph: the three files" \
  "$(zcat "$dir/data/graphs/plain.nq.gz" | sed 's/ <[^>]*> \.$/ ./' | LC_ALL=C sort | md5sum)" \
  "$(cat "$dir/gen"/d?.nt | LC_ALL=C sort | md5sum)"
lw_test_done
