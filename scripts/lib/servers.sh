# Shell helpers to start the real servers lodwash needs on loopback and stop
# them again: sourced by scripts/test, scripts/quickstart and the benchmarks.
# Every server lives in a temporary directory; lw_servers_stop (run it from a
# trap) stops them all and removes the directories.

LW_SERVER_PIDS=()
LW_SERVER_DIRS=()
LW_SERVERS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# LW_SERVERS_OWN_SESSION=1 (scripts/run-local): each server in a session of
# its own, so that a signal to the whole process group (Ctrl-C, `timeout`)
# reaches the workers but not Redis: a worker told to stop still hands back
# its job and signs off, and lw_servers_stop ends the servers after it.
lw_server_exec() {
  if [ "${LW_SERVERS_OWN_SESSION:-}" = 1 ]; then
    exec setsid "$@"
  fi
  exec "$@"
}

# Prints a TCP port that is free on 127.0.0.1 right now.
lw_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# lw_start_redis PORT [extra redis-server args...]: starts redis-server on
# 127.0.0.1:PORT in a new temporary directory and waits until it answers.
# Seed records are kept as listpacks (queue/redis_tuning.h), as in
# docker/docker-compose.yml.
lw_start_redis() {
  local port=$1; shift
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/lodwash-redis-XXXXXX")
  LW_SERVER_DIRS+=("$dir")
  (lw_server_exec redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' \
    --daemonize no --logfile "$dir/redis.log" --hash-max-listpack-value 1024 "$@") &
  LW_SERVER_PIDS+=($!)
  for _ in $(seq 100); do
    if redis-cli -p "$port" ping >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.05
  done
  echo "redis-server did not start on port $port:" >&2
  cat "$dir/redis.log" >&2
  return 1
}

# lw_redis_reads PORT: the read events of the redis-server on 127.0.0.1:PORT
# so far (INFO total_reads_processed): a round trip each, a pipelined batch
# one. The benchmarks count round trips with it.
lw_redis_reads() {
  redis-cli -p "$1" INFO stats | tr -d '\r' |
    awk -F: '$1 == "total_reads_processed" { print $2 }'
}

# lw_wait_url URL WHAT [TRIES]: waits (TRIES x 50 ms, default 100) until URL
# answers; otherwise says that WHAT did not start and fails.
lw_wait_url() {
  local url=$1 what=$2 tries=${3:-100}
  for _ in $(seq "$tries"); do
    if curl -s -o /dev/null "$url"; then
      return 0
    fi
    sleep 0.05
  done
  echo "$what did not start ($url)" >&2
  return 1
}

# lw_start_http PORT DIR [ADDRESS]: serves DIR over HTTP on ADDRESS:PORT
# (default 127.0.0.1).
lw_start_http() {
  local port=$1 dir=$2 address=${3:-127.0.0.1}
  (lw_server_exec python3 -m http.server --bind "$address" --directory "$dir" "$port" \
    >/dev/null 2>&1) &
  LW_SERVER_PIDS+=($!)
  lw_wait_url "http://$address:$port/" "HTTP server"
}

# lw_stop_pid PID [SECONDS]: stops a process for good: SIGTERM, up to SECONDS
# (default 10) for it to end, then SIGKILL; reaps it when it is our child.
# A program that hangs on its way out (an ASan build's exit-time leak check
# was seen spinning at 100% CPU) must not outlive the script that started it.
lw_stop_pid() {
  local pid=$1 seconds=${2:-10} i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < seconds * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    # a child that exited stays a zombie (kill -0 succeeds) until waited for
    if [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = Z ]; then
      break
    fi
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null && [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" != Z ]; then
    echo "note: process $pid ($(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-80)) ignored SIGTERM for ${seconds}s: SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

# lw_stop_pids SECONDS PID...: SIGTERM to all at once, then lw_stop_pid each.
lw_stop_pids() {
  local seconds=$1 pid; shift
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "$@"; do lw_stop_pid "$pid" "$seconds"; done
}

# lw_servers_stop_on_exit: the EXIT trap of a script that started servers:
# stops them all, with INT and TERM ignored meanwhile (a second signal, such
# as `timeout`'s to its process group, must not cut the stop short).
lw_servers_stop_on_exit() {
  trap '' INT TERM
  lw_servers_stop
}

lw_servers_stop() {
  if [ ${#LW_SERVER_PIDS[@]} -gt 0 ]; then
    lw_stop_pids 10 "${LW_SERVER_PIDS[@]}"
  fi
  LW_SERVER_PIDS=()
  local dir
  for dir in "${LW_SERVER_DIRS[@]}"; do
    rm -rf "$dir"
  done
  LW_SERVER_DIRS=()
}

# lw_leftover_processes ROOT: lists (pid and command) every process still
# running that a test of the checkout ROOT started: ctest gives each test
# LODWASH_SOURCE_DIR=ROOT, and children inherit it.
lw_leftover_processes() {
  local root=$1 env pid
  for env in /proc/[0-9]*/environ; do
    pid=${env#/proc/}; pid=${pid%/environ}
    [ "$pid" = "$$" ] && continue
    if { tr '\0' '\n' < "$env"; } 2>/dev/null | grep -qxF "LODWASH_SOURCE_DIR=$root"; then
      echo "$pid $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-120)"
    fi
  done
}

# lw_start_virtuoso HTTP_PORT SQL_PORT USER PASSWORD: starts Virtuoso (Debian's
# virtuoso-opensource) on 127.0.0.1 with its database in a new temporary
# directory, and creates USER with the right to update through SPARQL
# (digest authentication on /sparql-auth and /sparql-graph-crud-auth; the open
# endpoints stay read-only).
lw_start_virtuoso() {
  local http_port=$1 sql_port=$2 user=$3 password=$4
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/lodwash-virtuoso-XXXXXX")
  LW_SERVER_DIRS+=("$dir")
  cat > "$dir/virtuoso.ini" <<INI
[Database]
DatabaseFile = $dir/virtuoso.db
ErrorLogFile = $dir/virtuoso.log
LockFile = $dir/virtuoso.lck
TransactionFile = $dir/virtuoso.trx
xa_persistent_file = $dir/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = $dir/virtuoso-temp.db
TransactionFile = $dir/virtuoso-temp.trx
[Parameters]
ServerPort = 127.0.0.1:$sql_port
DisableUnixSocket = 1
CheckpointInterval = 60
CaseMode = 2
DirsAllowed = ., $dir
NumberOfBuffers = 170000
MaxDirtyBuffers = 130000
MaxQueryMem = 1G
[HTTPServer]
ServerPort = 127.0.0.1:$http_port
ServerRoot = /var/lib/virtuoso-opensource-7/vsp
ServerThreads = 10
MaxClientConnections = 10
Charset = UTF-8
[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = 600
MaxQueryCostEstimationTime = 600
DefaultQuery = select distinct ?g where { graph ?g { ?s ?p ?o } }
INI
  (cd "$dir" && lw_server_exec virtuoso-t +foreground +configfile "$dir/virtuoso.ini" >"$dir/stdout.log" 2>&1) &
  LW_SERVER_PIDS+=($!)
  local ok=""
  for _ in $(seq 600); do
    if isql-vt "127.0.0.1:$sql_port" dba dba exec="select 1;" >/dev/null 2>&1; then
      ok=1
      break
    fi
    sleep 0.1
  done
  if [ -z "$ok" ]; then
    echo "Virtuoso did not start on $http_port/$sql_port:" >&2
    tail -20 "$dir/virtuoso.log" >&2
    return 1
  fi
  sh "$LW_SERVERS_ROOT/docker/virtuoso/lodwash-user-sql" "$user" "$password" \
    | isql-vt "127.0.0.1:$sql_port" dba dba >/dev/null 2>&1
  for _ in $(seq 100); do
    if curl -s -o /dev/null "http://127.0.0.1:$http_port/sparql"; then
      return 0
    fi
    sleep 0.1
  done
  echo "Virtuoso HTTP did not answer on $http_port" >&2
  return 1
}
