#!/usr/bin/env bash
# The docker compose deployment, as an operator runs it, on a real Docker
# engine (started here as docker/local-engine.sh does: its own folder, kept
# between runs in LODWASH_DOCKER_DIR, default /var/tmp/lodwash-docker, so the
# base images and the layer cache are reused):
#  - the image built from the repository; registry.yaml and docker/.env edited
#    in a copy of it (no override file); `--profile virtuoso up -d --scale
#    worker=3`; two more workers from a second compose project
#    (docker/workers.yml) with its own network attached to the first's
#    (LODWASH_JOIN_NETWORK), sharing Redis (by its service name) and the
#    data volume; at the end, one from the same file without that setting,
#    through the published ports, as on another host;
#  - the main project through scripts/compose (v2 when the machine has it,
#    else v1, as Debian 12 packages it);
#  - the example providers (served on the docker0 gateway) harvested: graph
#    files as expected, and Virtuoso holding the same triples;
#  - a provider added to registry.yaml with `sed -i` (a new file renamed
#    over the old one, as editors save) while the stack runs: harvested;
#  - a second harvest during which the worker holding its download is killed
#    (docker kill) and the redis container restarted: it still ends with the
#    right graph, the one the files store's rules give;
#  - every container healthy, /metrics read from the host, a Virtuoso
#    password holding quotes, `down -v`.
# Skipped (77) when no Docker engine can be started here. Runs once, with the
# plain build (label `docker`); everything it starts is stopped at the end.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
src="$LODWASH_SOURCE_DIR"
bin="$LODWASH_BINARY_DIR"
case "$bin" in
  */build) ;;
  *) lw_test_skip "the docker test runs once, with the plain build's tests" ;;
esac
[ "${LODWASH_TEST_DOCKER:-1}" != 0 ] || lw_test_skip "LODWASH_TEST_DOCKER=0"
[ "$(id -u)" -eq 0 ] || lw_test_skip "a Docker engine needs root here"
command -v dockerd > /dev/null || lw_test_skip "no dockerd (apt-get install docker.io debootstrap iptables)"
if docker compose version > /dev/null 2>&1; then
  compose_cmd=(docker compose)
elif command -v docker-compose > /dev/null; then
  compose_cmd=(docker-compose)
else
  lw_test_skip "neither docker compose (v2) nor docker-compose (v1) is installed"
fi
source "$src/scripts/lib/servers.sh"
source "$src/scripts/lib/examples.sh"
source "$src/docker/local-engine.sh"

started=$(date +%s)
dir=$(mktemp -d)
repo="$dir/repo"
# Project names of this run only: another checkout's run never meets them.
main=lwtest-$$ extra=lwtest-extra-$$
# The container started by name (not by compose) to see a dba password
# generated: the engine's data root outlives the test (the image cache), and
# so would this container, stopped, if the test ended between its start and
# its removal; the next run's start would then meet the name in use and its
# "no container left" would count it.
vgen=lwtest-vgen
remove_vgen() { docker rm -f -v "$vgen" > /dev/null 2>&1 || true; }
cleanup() {
  set +e
  if [ -n "$LW_DOCKERD_PID" ]; then
    remove_vgen
    compose_extra down -v --remove-orphans > /dev/null 2>&1
    compose_remote down -v --remove-orphans > /dev/null 2>&1
    compose_main --profile virtuoso --profile examples down -v --remove-orphans > /dev/null 2>&1
  fi
  # Untagged images: older builds, but also the build stage's image, the
  # compile's cache. Pruned only once the cache folder has grown past 4 GB.
  if [ -n "$LW_DOCKERD_PID" ] \
     && [ "$(du -sm "$LW_DOCKER_DIR/data-root" 2>/dev/null | cut -f1)" -gt 4096 ]; then
    docker image prune -f > /dev/null 2>&1
  fi
  lw_docker_engine_stop
  lw_servers_stop
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'echo "FAILED: line $LINENO: $BASH_COMMAND exited with $?" >&2' ERR
trap 'exit 130' INT TERM
# The main project as the README has it: scripts/compose picks the compose.
compose_main() { "$repo/scripts/compose" -p "$main" "$@"; }
compose_extra() { (cd "$repo" && "${compose_cmd[@]}" -p "$extra" --env-file "$dir/extra.env" -f docker/workers.yml -f docker/workers-join.yml "$@"); }
compose_remote() { (cd "$repo" && "${compose_cmd[@]}" -p "$extra" --env-file "$dir/remote.env" -f docker/workers.yml "$@"); }
step() { echo "== $(($(date +%s) - started))s: $*"; }

# --- the engine and the images
code=0
lw_docker_engine_start "${LODWASH_DOCKER_DIR:-/var/tmp/lodwash-docker}" || code=$?
[ "$code" -eq 0 ] || lw_test_skip "no Docker engine can be started here (the reason is above)"
step "engine up (${compose_cmd[*]})"
lw_docker_base_images || { echo "FAILED: base images"; exit 1; }
step "base images"

# A copy of the repository, as an operator's checkout (what .dockerignore
# leaves out of the build is left out here too).
mkdir -p "$repo"
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=./quickstart \
  --exclude=./data --exclude=./docker/.env -cf - . | tar -C "$repo" -xf -
gw=$(lw_docker_gateway)
expect_match "docker0 gateway address" "$gw" '^[0-9]+(\.[0-9]+){3}$'

# The example providers on the gateway; the library's later partial dump is
# answered slowly, so the harvest can be disturbed while it is downloaded.
web="$dir/web"
lw_publish_examples "$web"
port=$(lw_free_port)
python3 - "$gw" "$port" "$web" > "$dir/web.log" 2>&1 <<'PY' &
import functools, http.server, sys, time
class Slow(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if "update" in self.path:
            time.sleep(8)
        super().do_GET()
handler = functools.partial(Slow, directory=sys.argv[3])
http.server.ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), handler).serve_forever()
PY
LW_SERVER_PIDS+=($!)
for _ in $(seq 100); do curl -s -o /dev/null "http://$gw:$port/" && break; sleep 0.05; done
lw_example_registry "$repo/registry.yaml" "http://$gw:$port"

# docker/.env as the operator writes it: the Virtuoso profile's settings, a
# password holding quotes and a semicolon, the test provider allowed.
password="it's-a-\"quoted\";pass'word"
cat > "$repo/docker/.env" <<ENV
LODWASH_STORE=http://virtuoso:8890/sparql-auth
LODWASH_STORE_PASSWORD=$password
VIRTUOSO_DBA_PASSWORD=dba-secret-'1'
LODWASH_ALLOW_NET=$gw:$port
LODWASH_INTERVAL=2
LODWASH_HEARTBEAT_TTL=6
LODWASH_RETRY_BASE_MS=1000
REDIS_PUBLISH=$gw:$(lw_free_port)
VIRTUOSO_PUBLISH=$gw:$(lw_free_port)
SCHEDULER_PUBLISH=127.0.0.1:$(lw_free_port)
ENV

step "building the images"
if ! compose_main --profile virtuoso build > "$dir/build.log" 2>&1; then
  tail -30 "$dir/build.log"
  echo "FAILED: the images did not build"
  exit 1
fi
step "images built"
compose_main --profile virtuoso up -d --scale worker=3 > "$dir/up.log" 2>&1 || { cat "$dir/up.log"; echo "FAILED: up"; exit 1; }
step "stack up"
expect_eq "the password reaches the workers as .env has it" \
  "$(compose_main exec -T worker printenv LODWASH_STORE_PASSWORD)" "$password"
expect_eq "LODWASH_ALLOW_NET reaches the workers from .env" \
  "$(compose_main exec -T worker printenv LODWASH_ALLOW_NET)" "$gw:$port"
expect_eq "an unset setting stays unset (the program's default)" \
  "$(compose_main exec -T scheduler sh -c 'echo ${LODWASH_CONTACT-unset}')" unset
published() { compose_main port "$1" "$2" | tail -1 | sed 's/.*://'; }
redis_port=$(published redis 6379)
sparql_port=$(published virtuoso 8890)
metrics_port=$(published scheduler 9100)
rcli() { redis-cli -h "$gw" -p "$redis_port" "$@"; }

# lodwash's own view, through `compose exec` as the docs show.
status_json() { compose_main exec -T scheduler lodwash status --json 2>/dev/null; }
# wait_idle SECONDS: every provider harvested at least once, none
# harvesting, nothing queued, delayed or in flight.
wait_idle() {
  local _
  for _ in $(seq "$1"); do
    if status_json | python3 -c '
import json, sys
r = json.load(sys.stdin)
busy = sum(s["queued"] + s["inflight"] + s["delayed"] for s in r["stages"].values())
states = [p["state"] for p in r["providers"]]
done = r["providers"] and all(p["harvest"] for p in r["providers"])
sys.exit(0 if done and not busy and "harvesting" not in states else 1)' 2>/dev/null; then
      return 0
    fi
    sleep 1
  done
  return 1
}
graph() { compose_main exec -T scheduler sh -c "zcat /data/graphs/$1.nq.gz" | sort; }
sparql() {
  curl -s --max-time 60 "http://$gw:$sparql_port/sparql" -H 'Accept: text/tab-separated-values' \
    --data-urlencode "query=$1" | tail -n +2 | tr -d '"' | sort
}
# same_triples NAME: Virtuoso's graph has the files store's triples: the
# same count and the same subject-predicate pairs (IRIs, skolemized blank
# nodes included, are written alike by both).
same_triples() {
  local g="http://lodwash.example.org/graph/$1" files
  files=$(graph "$1")
  expect_eq "$1: Virtuoso holds as many triples as the graph file" \
    "$(sparql "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <$g> { ?s ?p ?o } }")" "$(echo "$files" | grep -c .)"
  expect_eq "$1: Virtuoso holds the graph file's subjects and predicates" \
    "$(sparql "SELECT DISTINCT ?s ?p WHERE { GRAPH <$g> { ?s ?p ?o } }" | tr '\t' ' ' | sort -u)" \
    "$(echo "$files" | awk '{ print $1, $2 }' | tr -d "<>" | sort -u)"
}

# --- workers from a second compose project, its network attached to the
# first's: Redis and Virtuoso by their service names, the data volume shared
cat > "$dir/extra.env" <<ENV
LODWASH_JOIN_NETWORK=${main}_default
LODWASH_REDIS=redis://redis:6379/0
LODWASH_DATA_VOLUME=${main}_data
LODWASH_STORE=http://virtuoso:8890/sparql-auth
LODWASH_STORE_PASSWORD=$password
LODWASH_ALLOW_NET=$gw:$port
LODWASH_HEARTBEAT_TTL=6
LODWASH_RETRY_BASE_MS=1000
ENV
compose_extra up -d --scale worker=2 > "$dir/up-extra.log" 2>&1 || { cat "$dir/up-extra.log"; echo "FAILED: extra workers up"; exit 1; }
step "extra workers up"
# heartbeat_hosts: the hosts (container ids) of the workers alive in Redis.
heartbeat_hosts() {
  local id
  for id in $(rcli SMEMBERS lodwash:workers); do rcli HGET "lodwash:worker:$id" host; done | sort
}
# networks_of CONTAINER: the names of its networks, sorted, each followed by a space.
networks_of() {
  docker inspect -f '{{range $n, $_ := .NetworkSettings.Networks}}{{$n}} {{end}}' "$1"
}
# has_heartbeats CONTAINER...: each one's worker has its heartbeat in Redis.
has_heartbeats() {
  local c hosts
  hosts=$(heartbeat_hosts)
  for c in "$@"; do grep -qx "${c:0:12}" <<< "$hosts" || return 1; done
}
extra_ids=$(compose_extra ps -q worker)
expect_eq "the extra project runs 2 workers" "$(echo $extra_ids | wc -w)" 2
for c in $extra_ids; do
  expect_eq "extra worker ${c:0:12}: on its own network and the first project's" \
    "$(networks_of "$c")" "$(printf '%s\n' "${main}_default" lodwash-workers | LC_ALL=C sort | tr '\n' ' ')"
done
ok=""
for _ in $(seq 60); do
  # shellcheck disable=SC2086
  has_heartbeats $extra_ids && { ok=1; break; }
  sleep 1
done
expect_eq "the extra workers' heartbeats are in Redis (reached as redis:6379)" "$ok" 1

# --- the first harvest
wait_idle 300 || lw_fail "first harvest did not end in 300 s"
step "first harvest done"
expect_eq "library graph" "$(graph library | wc -l)" 27
expect_eq "museum graph (an archive of RDF/XML and JSON-LD)" "$(graph museum | wc -l)" 18
expect_eq "city graph (a broken statement skipped)" "$(graph city | wc -l)" 10
for g in library museum city; do same_triples "$g"; done
expect_eq "the extra project's workers see the shared data volume" \
  "$(compose_extra exec -T worker sh -c 'ls /data/graphs/*.nq.gz' | wc -l)" 3
# Which worker pops which job is up to timing: the count is told, not checked.
echo "jobs done by the extra project's workers: $(compose_extra logs --no-color worker 2>&1 | grep -c ' outcome=done' || true)"

# --- a provider added while the stack runs, the way an editor saves:
# sed -i writes a new file and renames it over registry.yaml
mkdir -p "$web/added"
printf '%s\n' '<http://example.org/added/a> <http://example.org/name> "added" .' \
  '<http://example.org/added/b> <http://example.org/name> "also added" .' > "$web/added/data.nt"
lw_void_file "$web/added" 2026-01-01T00:00:00Z FullDump data.nt
inode_before=$(stat -c %i "$repo/registry.yaml")
sed -i "\$a added:\\n  void: http://$gw:$port/added/void.ttl" "$repo/registry.yaml"
expect_eq "sed -i replaced the file (a new inode)" \
  "$([ "$(stat -c %i "$repo/registry.yaml")" != "$inode_before" ] && echo new)" new
expect_match "the scheduler's container sees the edit" \
  "$(compose_main exec -T scheduler cat /etc/lodwash/registry.yaml)" "added:"
added=""
for _ in $(seq 180); do
  added=$({ compose_main exec -T scheduler sh -c 'zcat /data/graphs/added.nq.gz 2>/dev/null || true' || true; } | wc -l)
  [ "$added" = 2 ] && break
  sleep 1
done
expect_eq "the provider added with sed -i is harvested: 2 triples" "$added" 2
step "a provider added with sed -i harvested"

# --- the second harvest, disturbed: the worker downloading the library's
# partial dump is killed, and Redis restarted, while the download runs.
before=$(graph library)
lw_publish_library_update "$web"
# What the files store's rule gives (the triples about the dump's subjects
# replaced, the others kept): the undisturbed result to compare with.
update=$("$bin/lodwash" clean "$web/library/books-update.ttl" 2>/dev/null \
  | sed 's| \.$| <http://lodwash.example.org/graph/library> .|')
expected=$( { echo "$before" | awk 'NR == FNR { s[$1] = 1; next } !($1 in s)' <(echo "$update") -; echo "$update"; } | sort -u)
victim="" job_seen=""
for _ in $(seq 120); do
  for id in $(rcli SMEMBERS lodwash:workers); do
    job_seen=$(rcli LRANGE "lodwash:inflight:$id" 0 -1 | grep '"stage":"download"' || true)
    if [ -n "$job_seen" ]; then
      victim=$(rcli HGET "lodwash:worker:$id" host)
      break 2
    fi
  done
  sleep 0.5
done
expect_match "a worker is downloading the partial dump" "$job_seen" '.'
if [ -n "$victim" ]; then
  docker kill "$victim" > /dev/null
  step "killed worker container $victim during the download"
fi
compose_main restart redis > /dev/null 2>&1
step "redis restarted"
wait_idle 300 || lw_fail "second harvest did not end in 300 s"
step "second harvest done"
after=$(graph library)
expect_eq "library after the disturbed partial harvest: the expected graph" "$after" "$expected"
expect_eq "the partial harvest changed the graph" "$([ "$after" != "$before" ] && echo changed)" changed
same_triples library

# --- every container healthy (the killed worker brought back by `up`)
compose_main --profile virtuoso up -d --scale worker=3 > /dev/null 2>&1
compose_extra up -d --scale worker=2 > /dev/null 2>&1
healthy="" ids=""
for _ in $(seq 90); do
  ids="$(compose_main --profile virtuoso ps -q) $(compose_extra ps -q)"
  # shellcheck disable=SC2086
  states=$(docker inspect 2>&1 -f '{{.Name}} {{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' $ids || true)
  metrics=$(curl -s --max-time 10 "http://127.0.0.1:$metrics_port/metrics" || true)
  if [ "$(echo "$states" | grep -vc ' healthy$')" = 0 ] && [[ "$metrics" == *"lodwash_workers_alive 5"* ]]; then
    healthy=1
    break
  fi
  sleep 2
done
expect_eq "every container healthy (${states//$'\n'/, })" "$healthy" 1
expect_eq "containers: redis, virtuoso, scheduler, 3 + 2 workers" "$(echo $ids | wc -w)" 8
expect_match "/metrics from the host: 5 workers alive" "$metrics" 'lodwash_workers_alive 5'
expect_match "/metrics: the library's state" "$metrics" 'lodwash_provider_state\{provider="library"'
# A worker whose heartbeat stops is unhealthy: the check reads Redis.
w1=$(compose_main ps -q worker | sed -n 1p)
expect_status "a worker's health check passes" 0 docker exec "$w1" lodwash-healthcheck worker
expect_status "a worker's health check fails without its heartbeat" 1 \
  docker exec -e LODWASH_PREFIX=nobody: "$w1" lodwash-healthcheck worker

# --- Virtuoso's passwords: the one in .env (quotes and all) is the dba's;
# changed in .env after the first
# start is a clear error, not an endless wait; without a store password the
# container says so; an unset dba password is generated and printed once.
expect_status "dba logs in with the password .env gives (quotes included)" 0 \
  compose_main exec -T virtuoso isql-vt 1111 dba "dba-secret-'1'" 'exec=select 1;'
sed -i 's/^VIRTUOSO_DBA_PASSWORD=.*/VIRTUOSO_DBA_PASSWORD=changed-later/' "$repo/docker/.env"
compose_main --profile virtuoso up -d virtuoso > /dev/null 2>&1
vlog=""
for _ in $(seq 60); do
  vlog=$(compose_main logs --no-color virtuoso 2>&1 || true)
  [[ "$vlog" == *"refuses the dba password"* ]] && break
  sleep 1
done
expect_match "a changed dba password: a clear error" "$vlog" 'refuses the dba password VIRTUOSO_DBA_PASSWORD'
vimage=lodwash-virtuoso:latest
expect_match "no store password: a clear error" \
  "$(docker run --rm "$vimage" 2>&1 || true)" 'LODWASH_STORE_PASSWORD is not set'
remove_vgen # one left by a run killed before its clean-up
docker run -d --name "$vgen" -e LODWASH_STORE_PASSWORD=p "$vimage" > /dev/null
generated=""
for _ in $(seq 60); do
  generated=$(docker logs "$vgen" 2>&1 | sed -n 's/.*generated the dba password.*: //p')
  [ -n "$generated" ] && docker logs "$vgen" 2>&1 | grep -q 'lodwash-virtuoso: ready' && break
  sleep 1
done
expect_match "an unset dba password is generated and printed" "$generated" '^[A-Za-z0-9_-]{20,}$'
expect_status "the printed dba password is the database's" 0 \
  docker exec "$vgen" isql-vt 1111 dba "$generated" 'exec=select 1;'
remove_vgen
# A worker whose store never answers (the profile forgotten) says so and
# stops, after LODWASH_STORE_WAIT seconds.
expect_match "a worker without its store: a clear error, in bounded time" \
  "$(timeout 60 docker run --rm -e LODWASH_STORE=http://virtuoso:8890/sparql-auth \
       -e LODWASH_STORE_PASSWORD=p -e LODWASH_STORE_WAIT=2 lodwash:latest 2>&1 || true)" \
  'not usable after [0-9]+s: it does not answer \(with the bundled Virtuoso: --profile virtuoso'

# --- the extra project from workers.yml alone, as on another host:
# its own network only, Redis through the port the main project publishes.
compose_extra down -v > /dev/null 2>&1
grep -v '^LODWASH_JOIN_NETWORK=' "$dir/extra.env" \
  | sed "s|^LODWASH_REDIS=.*|LODWASH_REDIS=redis://$gw:$redis_port/0|; s|^LODWASH_STORE=.*|LODWASH_STORE=http://$gw:$sparql_port/sparql-auth|" \
  > "$dir/remote.env"
compose_remote up -d > "$dir/up-remote.log" 2>&1 || { cat "$dir/up-remote.log"; lw_fail "workers through published ports: up"; }
remote_id=$(compose_remote ps -q worker)
expect_eq "a worker through published ports: on its own network only" \
  "$(networks_of "$remote_id")" "lodwash-workers "
# Its jobs are not checked here: from another bridge network of the same
# engine, a published port leads back into the main project's network,
# which docker's isolation rules drop (from another host it does not).
compose_remote down -v > /dev/null 2>&1
step "a worker through published ports"

# --- down -v
expect_status "down -v" 0 compose_main --profile virtuoso down -v
expect_eq "no container left" "$(docker ps -aq | wc -l)" 0
expect_eq "volumes removed" "$(docker volume ls -q | grep -c "^${main}_" || true)" 0

# --- without the profile: the files store, no triple store container
sed -i '/^LODWASH_STORE/d; /^VIRTUOSO_DBA_PASSWORD/d' "$repo/docker/.env"
compose_main up -d --scale worker=2 > "$dir/up-files.log" 2>&1 || { cat "$dir/up-files.log"; lw_fail "up without a profile"; }
step "files store stack up"
wait_idle 300 || lw_fail "the files store's harvest did not end in 300 s"
step "files store harvest done"
expect_eq "files store: containers" \
  "$(docker ps --filter "label=com.docker.compose.project=$main" \
       --format '{{.Label "com.docker.compose.service"}}' | sort -u | tr '\n' ' ')" "redis scheduler worker "
expect_eq "files store: museum graph" "$(graph museum | wc -l)" 18
expect_eq "files store: city graph" "$(graph city | wc -l)" 10
expect_eq "files store: library graph (its VoID lists the partial dump now)" "$(graph library)" \
  "$(echo "$update" | sort -u)"
expect_status "down -v (files store)" 0 compose_main down -v

# --- the README's first command: the example providers served by the
# examples profile, with registry.yaml as the repository has it and
# LODWASH_ALLOW_NET and LODWASH_INTERVAL at their defaults
cp "$src/registry.yaml" "$repo/registry.yaml"
sed -i '/^LODWASH_ALLOW_NET/d; /^LODWASH_INTERVAL/d' "$repo/docker/.env"
compose_main --profile examples build examples > "$dir/build-examples.log" 2>&1 \
  || { tail -20 "$dir/build-examples.log"; lw_fail "the examples image did not build"; }
t0=$(date +%s)
compose_main --profile examples up -d > "$dir/up-examples.log" 2>&1 \
  || { cat "$dir/up-examples.log"; lw_fail "up --profile examples"; }
step "examples profile up"
# lines NAME: the lines of NAME's graph file, 0 while there is none
lines() {
  { compose_main exec -T scheduler sh -c "zcat /data/graphs/$1.nq.gz 2>/dev/null || true" || true; } | wc -l
}
harvested=""
for _ in $(seq 300); do
  harvested="$(lines library) $(lines museum) $(lines city)"
  [ "$harvested" = "27 18 10" ] && break
  sleep 1
done
expect_eq "--profile examples: the example providers harvested (library, museum, city)" \
  "$harvested" "27 18 10"
echo "the example providers harvested $(( $(date +%s) - t0 ))s after up (warm images)"
expect_match "--profile examples: a disabled provider shows as disabled" \
  "$(compose_main exec -T scheduler lodwash providers 2>/dev/null)" 'dataone +disabled'
expect_status "down -v (examples)" 0 compose_main --profile examples down -v
step "done"
lw_test_done
