# A real harvest of the example providers for the tests of the operator's
# console: sourced after support/lib.sh. The providers (scripts/lib/
# examples.sh) are served over loopback HTTP, the real scheduler runs with its
# pages on (--metrics-port) and real workers do the work, against the test
# Redis under a prefix of their own.
#
#   lw_harvest_start DIR PREFIX [WORKERS] [broken]
#                                           starts it all; sets LW_PAGES
#                                           (http://127.0.0.1:PORT), LW_WEB
#                                           (the providers' base URL)
#   lw_harvest_wait                         waits until every provider's
#                                           harvest ended (done or failed)
#   lw_harvest_stop                         stops scheduler and workers
#                                           (SIGTERM, bounded wait, SIGKILL)
# With "broken", a fourth provider publishes hostile, broken data (see
# lw_publish_broken). The caller's EXIT trap must call lw_harvest_stop and
# lw_servers_stop.
source "$LODWASH_SOURCE_DIR/scripts/lib/servers.sh"
source "$LODWASH_SOURCE_DIR/scripts/lib/examples.sh"

LW_HARVEST_PIDS=()

# lw_publish_broken WEB: provider "broken" under WEB/broken: broken.ttl with
# a literal whose lexical form is markup (its error message then holds
# <script>) and a syntax error on line 5, and missing.ttl listed in the VoID
# but not served (404: its download job goes dead). lw_publish_missing WEB
# serves it afterwards.
lw_publish_broken() {
  local web=$1
  mkdir -p "$web/broken"
  printf '%s\n' '@prefix ex: <http://example.org/> .' \
    '@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .' \
    'ex:a ex:name "ok" .' \
    'ex:b ex:count "<script>alert(1)</script>"^^xsd:integer .' \
    'ex:c ex:p ex:d ex:e .' \
    'ex:f ex:name "still here" .' > "$web/broken/broken.ttl"
  lw_void_file "$web/broken" 2026-01-01T00:00:00Z FullDump broken.ttl missing.ttl
}

lw_publish_missing() {
  printf '<http://example.org/m> <http://example.org/name> "found" .\n' > "$1/broken/missing.ttl"
}

lw_harvest_start() {
  local dir=$1 prefix=$2 workers=${3:-1} broken=${4:-}
  mkdir -p "$dir/web" "$dir/data"
  local http_port pages_port
  http_port=$(lw_free_port)
  lw_publish_examples "$dir/web"
  lw_start_http "$http_port" "$dir/web"
  LW_WEB="http://127.0.0.1:$http_port"
  lw_example_registry "$dir/registry.yaml" "$LW_WEB"
  if [ -n "$broken" ]; then
    lw_publish_broken "$dir/web"
    # its reports go to the web server, which answers a POST with 501
    printf 'broken:\n  void: %s/broken/void.ttl\n  notify: %s/hook\n' "$LW_WEB" "$LW_WEB" \
      >> "$dir/registry.yaml"
  fi
  export LODWASH_REDIS="$LODWASH_TEST_REDIS" LODWASH_PREFIX="$prefix"
  export LODWASH_DATA="$dir/data" LODWASH_REGISTRY="$dir/registry.yaml"
  export LODWASH_ALLOW_NET="127.0.0.1:$http_port"
  pages_port=$(lw_free_port)
  "$LODWASH_BINARY_DIR/lodwash-scheduler" --interval 1 --metrics-port "$pages_port" \
    2> "$dir/scheduler.log" &
  LW_HARVEST_PIDS+=($!)
  LW_PAGES="http://127.0.0.1:$pages_port"
  local i
  for i in $(seq "$workers"); do
    "$LODWASH_BINARY_DIR/lodwash-worker" 2> "$dir/worker$i.log" &
    LW_HARVEST_PIDS+=($!)
  done
  for _ in $(seq 100); do curl -s -o /dev/null "$LW_PAGES/healthz" && return 0; sleep 0.1; done
  echo "the scheduler's pages did not come up" >&2
  return 1
}

# True when every provider of the registry has a harvest that ended and no
# job of a harvest's stages is waiting or running.
lw_harvest_ended() {
  "$LODWASH_BINARY_DIR/lodwash" status --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
ps = s["providers"]
ended = ps and all((p.get("harvest") or {}).get("status") in ("done", "failed") for p in ps)
busy = any(s["stages"].get(st, {}).get(k, 0)
           for st in ("download", "unpack", "guess", "parse", "import")
           for k in ("queued", "inflight", "delayed"))
sys.exit(0 if ended and not busy else 1)'
}

lw_harvest_wait() {
  for _ in $(seq 600); do
    lw_harvest_ended && return 0
    sleep 0.2
  done
  echo "the harvest did not end in 120 s" >&2
  return 1
}

lw_harvest_stop() {
  local pid
  for pid in "${LW_HARVEST_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${LW_HARVEST_PIDS[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  LW_HARVEST_PIDS=()
}
