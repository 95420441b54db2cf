# Shell helpers for tests that run whole harvests: dumps and VoID files
# served over loopback HTTP, a registry of providers, the real scheduler and
# workers, and the graphs they end with (the files store). Source after
# lib.sh; call hv_stop from the test's EXIT trap.
#
#   hv_setup NAME          $prefix and $dir, removed on exit (with hv_stop)
#   hv_init DIR            serve DIR/www on a free port ($HV_BASE); files
#                          under www/slow/ answer after $HV_SLOW_S (3) s;
#                          every answer is a line "PATH STATUS" of
#                          DIR/access.log
#   hv_dump NAME N [SEED]  DIR/www/NAME.nt: N triples, blank nodes among them
#   hv_provider REG NAME DUMP...  NAME's VoID lists the dumps; added to the
#                          registry file REG
#   hv_sched PREFIX REG DATA [ARGS...]   one scheduler cycle (--once)
#   hv_workers PREFIX DATA N [ARGS...]   N workers until nothing is left
#   hv_harvest PREFIX NAME FIELD         a field of NAME's current harvest
#   hv_graph DATA NAME     NAME's graph, sorted quads
HV_PIDS=()

# hv_setup NAME: the test's Redis prefix ($prefix, lwtest:NAME:PID:) and
# temporary folder ($dir), both removed on exit with the servers hv_init
# started. For tests that need nothing else cleaned up.
hv_setup() {
  prefix="lwtest:$1:$$:"
  dir=$(mktemp -d)
  trap 'hv_stop; rm -rf "$dir"; lw_test_redis_cleanup "$prefix"' EXIT
}

hv_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

hv_init() {
  HV_DIR=$1
  mkdir -p "$HV_DIR/www"
  local port
  port=$(hv_port)
  HV_BASE="http://127.0.0.1:$port"
  # files under /slow/ are answered after ${HV_SLOW_S:-3} s (a download
  # that is surely in flight when a test freezes its worker)
  python3 - "$HV_DIR/www" "$port" "${HV_SLOW_S:-3}" "$HV_DIR/access.log" > /dev/null 2>&1 <<'PY' &
import functools, http.server, sys, time
class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/slow/"):
            time.sleep(float(sys.argv[3]))
        super().do_GET()
    def log_request(self, code="-", size="-"):
        with open(sys.argv[4], "a") as f:
            f.write("%s %s\n" % (self.path, int(code)))
    def log_message(self, *args):
        pass
handler = functools.partial(Handler, directory=sys.argv[1])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), handler).serve_forever()
PY
  HV_PIDS+=($!)
  for _ in $(seq 100); do
    curl -s -o /dev/null "$HV_BASE/" && return 0
    sleep 0.05
  done
  echo "HTTP server did not start" >&2
  return 1
}

hv_dump() {
  local name=$1 n=$2 seed=${3:-$1}
  python3 - "$n" "$seed" > "$HV_DIR/www/$name.nt" <<'PY'
import sys
n, seed = int(sys.argv[1]), sys.argv[2]
for i in range(n):
    s = f"<http://example.org/{seed}/s{i % 7}>"
    if i % 3 == 0:
        print(f'_:b{i % 5} <http://example.org/p> "{seed} {i}" .')
        print(f"{s} <http://example.org/knows> _:b{i % 5} .")
    else:
        print(f'{s} <http://example.org/v{i % 4}> "{seed} value {i}" .')
PY
}

hv_provider() {
  local reg=$1 name=$2; shift 2
  {
    echo '@prefix void: <http://rdfs.org/ns/void#> .'
    echo '@prefix dcterms: <http://purl.org/dc/terms/> .'
    echo '@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .'
    echo "<#ds> a void:Dataset ; dcterms:modified \"2020-01-01\"^^xsd:date"
    local d
    for d in "$@"; do echo "  ; void:dataDump <$HV_BASE/$d.nt>"; done
    echo '  .'
  } > "$HV_DIR/www/$name-void.ttl"
  printf '%s:\n  void: %s\n' "$name" "$HV_BASE/$name-void.ttl" >> "$reg"
}

hv_sched() {
  local prefix=$1 reg=$2 data=$3; shift 3
  "$LODWASH_BINARY_DIR/lodwash-scheduler" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
    --registry "$reg" --allow-net 127.0.0.1 --data "$data" --once "$@"
}

# Heartbeat TTL: HV_HEARTBEAT_TTL seconds, 5 unless a test that freezes a
# worker wants it reaped sooner. Short enough for a quick reap, long enough
# that a worker held up a second or two on a loaded machine (sanitizers, a
# busy CI host) is not taken for dead and its job run twice.
hv_worker_args() {
  local prefix=$1 data=$2
  echo --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" --data "$data" \
    --allow-net 127.0.0.1 --exit-when-idle --heartbeat-ttl "${HV_HEARTBEAT_TTL:-5}" \
    --retry-base-ms 50 --retry-max-ms 200
}

hv_workers() {
  local prefix=$1 data=$2 n=$3; shift 3
  local pids=() i
  for i in $(seq "$n"); do
    # shellcheck disable=SC2046
    "$LODWASH_BINARY_DIR/lodwash-worker" $(hv_worker_args "$prefix" "$data") "$@" \
      2>> "$data/workers.log" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || true; done
}

hv_harvest() {
  local prefix=$1 name=$2 field=$3
  local id
  id=$(redis-cli -u "$LODWASH_TEST_REDIS" HGET "${prefix}provider:$name" harvest)
  redis-cli -u "$LODWASH_TEST_REDIS" HGET "${prefix}harvest:$id" "$field"
}

hv_graph() {
  local f="$1/graphs/$2.nq.gz"
  if [ -f "$f" ]; then zcat "$f" | LC_ALL=C sort; fi
}

hv_stop() {
  local p
  for p in "${HV_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${HV_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  HV_PIDS=()
}
