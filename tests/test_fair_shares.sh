#!/usr/bin/env bash
# One provider's flood never holds back another's (issue 24, item 6): on
# one loopback host, as providers share hosting, a hostile provider whose
# VoID lists 3,000 dumps and two whose dump is a nested tar.gz (512 MiB
# once expanded) are harvested first; then the harmless `control` (one
# dump). The real scheduler and three real workers, the host's pace on
# (--host-interval-ms 1000, the default). `control` must be harvested,
# exactly its graph of an undisturbed run (control alone), within 60 s,
# while the flood still runs; the archives of all harvests together stay
# under --unpacked-max-bytes (6 MiB, each bomb harvest being allowed 4 MiB
# by the expansion ratio), those past it failing with that option's name.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"
source "$(dirname "$0")/support/queue_lua.sh"
lw_test_require_redis

hv_setup fair
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }
bound_s=60
flood_dumps=3000
all_max=$((6 * 1024 * 1024))
pids=()
stop_all() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap 'stop_all; hv_stop; rm -rf "$dir"; lw_test_redis_cleanup "$prefix"; lw_test_redis_cleanup "${prefix}alone:"' EXIT

hv_init "$dir"
www=$dir/www
hv_dump control 40
hv_provider "$dir/control.yaml" control control

# The flood: 3,000 dumps of one triple each.
mkdir -p "$www/flood"
python3 - "$www/flood" "$flood_dumps" "$HV_BASE" > "$www/flood-void.ttl" <<'PY'
import sys
d, n, base = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print('@prefix void: <http://rdfs.org/ns/void#> .')
print('@prefix dcterms: <http://purl.org/dc/terms/> .')
print('@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .')
print('<#ds> a void:Dataset ; dcterms:modified "2020-01-01"^^xsd:date')
for i in range(n):
    with open(f"{d}/f{i}.nt", "w") as f:
        f.write(f'<http://example.org/flood/{i}> <http://example.org/p> "{i}" .\n')
    print(f'  ; void:dataDump <{base}/flood/f{i}.nt>')
print('  .')
PY
# The bombs: d.nt.gz (1 MiB of N-Triples) under three tar.gz levels of 8.
mkdir -p "$dir/gen"
{ yes '<http://example.org/s> <http://example.org/p> "o" .' || true; } | head -c 1048576 \
  | gzip -9 > "$dir/gen/d.nt.gz"
inner=d.nt.gz
for level in 1 2 3; do
  mkdir "$dir/gen/l$level"
  for i in 1 2 3 4 5 6 7 8; do cp "$dir/gen/$inner" "$dir/gen/l$level/c$i.${inner#*.}"; done
  tar -C "$dir/gen/l$level" -czf "$dir/gen/l$level.tar.gz" .
  inner=l$level.tar.gz
done
{
  printf 'flood:\n  void: %s/flood-void.ttl\n' "$HV_BASE"
  for b in bomb1 bomb2; do
    cp "$dir/gen/l3.tar.gz" "$www/$b.tar.gz"
    printf '@prefix void: <http://rdfs.org/ns/void#> .\n<#ds> a void:Dataset ; void:dataDump <%s/%s.tar.gz> .\n' \
      "$HV_BASE" "$b" > "$www/$b-void.ttl"
    printf '%s:\n  void: %s/%s-void.ttl\n' "$b" "$HV_BASE" "$b"
  done
} > "$dir/hostile.yaml"
cat "$dir/hostile.yaml" "$dir/control.yaml" > "$dir/all.yaml"
www_bytes=$(du -sb "$www" | cut -f1)

args=(--unpacked-max-bytes "$all_max" --log-level warn)
workers() { # PREFIX DATA: three workers in the background
  local i
  for i in 1 2 3; do
    # shellcheck disable=SC2046
    "$LODWASH_BINARY_DIR/lodwash-worker" $(hv_worker_args "$1" "$2" | sed 's/--exit-when-idle//') \
      "${args[@]}" 2>> "$2/workers.log" &
    pids+=($!)
  done
}
unpacked_on_disk() { # DATA: bytes under raw/ and utf8/ beyond what was served
  local on
  on=$(find "$1/raw" "$1/utf8" -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s + 0}')
  echo $((on > www_bytes ? on - www_bytes : 0))
}
# the most unpacked on disk seen, in DATA/peak
peak_seen() { # DATA
  local now peak
  now=$(unpacked_on_disk "$1")
  peak=$(cat "$1/peak" 2> /dev/null || echo 0)
  [ "$now" -le "$peak" ] || echo "$now" > "$1/peak"
}
# until PROVIDER's harvest is no longer STATUS (running: ended; else: is
# STATUS) or the bound is up; the seconds it took since START
harvest_in() { # PREFIX DATA START PROVIDER STATUS
  while :; do
    peak_seen "$2"
    local now
    now=$(hv_harvest "$1" "$4" status)
    if [ "$5" = running ]; then [ "$now" = running ] || break
    else [ "$now" != "$5" ] || break; fi
    [ $(($(date +%s) - $3)) -lt "$bound_s" ] || break
    sleep 0.5
  done
  echo $(($(date +%s) - $3))
}
graph() { # DATA: control's graph, sorted
  "$LODWASH_BINARY_DIR/lodwash" graph control --data "$1" | LC_ALL=C sort
}

echo "set up in $SECONDS s"
# ---- undisturbed: control alone
alone="${prefix}alone:"
mkdir -p "$dir/alone"
start=$(date +%s)
hv_sched "$alone" "$dir/control.yaml" "$dir/alone" "${args[@]}" 2> "$dir/alone/scheduler.log"
workers "$alone" "$dir/alone"
alone_s=$(harvest_in "$alone" "$dir/alone" "$start" control done)
stop_all
echo "control alone: harvested in ${alone_s} s"
expect_eq "control alone is harvested" "$(hv_harvest "$alone" control status)" done
graph "$dir/alone" > "$dir/alone.nq"
[ -s "$dir/alone.nq" ] || lw_fail "control alone has no graph"

# ---- the flood first, then control
mkdir -p "$dir/data"
hv_sched "$prefix" "$dir/hostile.yaml" "$dir/data" "${args[@]}" 2> "$dir/data/scheduler.log"
expect_eq "the flood's downloads are queued" \
  "$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:download")" $((flood_dumps + 2))
echo "the flood queued at $SECONDS s"
start=$(date +%s)
hv_sched "$prefix" "$dir/all.yaml" "$dir/data" "${args[@]}" 2>> "$dir/data/scheduler.log"
"$LODWASH_BINARY_DIR/lodwash-scheduler" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
  --registry "$dir/all.yaml" --allow-net 127.0.0.1 --data "$dir/data" --interval 5 \
  "${args[@]}" 2>> "$dir/data/scheduler.log" &
pids+=($!)
workers "$prefix" "$dir/data"
flood_s=$(harvest_in "$prefix" "$dir/data" "$start" control done)
left=$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:download")
flood_status=$(hv_harvest "$prefix" flood status)
echo "control beside the flood: harvested in ${flood_s} s ($left downloads still queued)"
# the bombs' harvests end meanwhile (their archives past the budgets fail)
start=$(date +%s)
for b in bomb1 bomb2; do harvest_in "$prefix" "$dir/data" "$start" "$b" running > /dev/null; done
echo "the bombs' harvests ended $(($(date +%s) - start)) s later"
stop_all
expect_eq "control is harvested beside the flood" "$(hv_harvest "$prefix" control status)" done
expect_eq "within ${bound_s} s" "$([ "$flood_s" -lt "$bound_s" ] && echo yes || echo "no: $flood_s s")" yes
graph "$dir/data" > "$dir/flood.nq"
expect_eq "control's graph is the undisturbed run's" "$(diff "$dir/alone.nq" "$dir/flood.nq" && echo same)" same
expect_eq "the flood still runs" "$flood_status" running
expect_eq "most of the flood still waits" "$([ "$left" -gt $((flood_dumps - 200)) ] && echo yes || echo "no: $left")" yes

# ---- the budget over all harvests
held=$(r --scan --pattern "${prefix}unpacked:*" | while read -r k; do r HVALS "$k"; done \
  | awk '{b += $1} END {print b + 0}')
peak=$(cat "$dir/data/peak")
final=$(unpacked_on_disk "$dir/data")
echo "unpacked: $held bytes held by all budgets; on disk $final at the end, $peak at the peak seen (cap $all_max)"
under() { [ "$1" -le "$2" ] && echo yes || echo "no: $1 > $2"; }
expect_eq "the budgets hold within --unpacked-max-bytes" "$(under "$held" "$all_max")" yes
expect_eq "on disk within it (peak)" "$(under "$peak" "$all_max")" yes
expect_eq "on disk within it (end)" "$(under "$final" "$all_max")" yes
expect_eq "the bombs did unpack (more than one harvest's share)" \
  "$([ "$held" -gt $((4 * 1024 * 1024)) ] && echo yes || echo "no: $held")" yes
for b in bomb1 bomb2; do
  expect_eq "$b's harvest ended" "$(hv_harvest "$prefix" "$b" status)" failed
done
echo "downloads deferred while their host was full: $(r HGET "${prefix}stats:download" deferred)"
expect_match "an archive past it says so (dead, retryable, after its attempts)" \
  "$(r LRANGE "${prefix}dead:unpack" 0 -1)" \
  'unpack budget of all harvests full: .*--unpacked-max-bytes'
echo "checked at $SECONDS s"
lw_test_done
