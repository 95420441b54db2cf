# Shell helpers to start the real servers lodwash needs on loopback and stop
# them again: sourced by scripts/test, scripts/quickstart and the benchmarks.
# Every server lives in a temporary directory; lw_servers_stop (run it from a
# trap) stops them all and removes the directories.

LW_SERVER_PIDS=()
LW_SERVER_DIRS=()

# Prints a TCP port that is free on 127.0.0.1 right now.
lw_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# lw_start_redis PORT [extra redis-server args...]: starts redis-server on
# 127.0.0.1:PORT in a new temporary directory and waits until it answers.
lw_start_redis() {
  local port=$1; shift
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/lodwash-redis-XXXXXX")
  LW_SERVER_DIRS+=("$dir")
  redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' \
    --daemonize no --logfile "$dir/redis.log" "$@" &
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

# lw_start_http PORT DIR: serves DIR over HTTP on 127.0.0.1:PORT.
lw_start_http() {
  local port=$1 dir=$2
  python3 -m http.server --bind 127.0.0.1 --directory "$dir" "$port" >/dev/null 2>&1 &
  LW_SERVER_PIDS+=($!)
  lw_wait_url "http://127.0.0.1:$port/" "HTTP server"
}

lw_servers_stop() {
  local pid
  for pid in "${LW_SERVER_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${LW_SERVER_PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  LW_SERVER_PIDS=()
  local dir
  for dir in "${LW_SERVER_DIRS[@]}"; do
    rm -rf "$dir"
  done
  LW_SERVER_DIRS=()
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
  (cd "$dir" && exec virtuoso-t +foreground +configfile "$dir/virtuoso.ini" >"$dir/stdout.log" 2>&1) &
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
  isql-vt "127.0.0.1:$sql_port" dba dba >/dev/null <<SQL
DB.DBA.USER_CREATE('$user', '$password');
GRANT SPARQL_UPDATE TO "$user";
GRANT EXECUTE ON DB.DBA.SPARQL_INSERT_DICT_CONTENT TO "$user";
GRANT EXECUTE ON DB.DBA.SPARQL_DELETE_DICT_CONTENT TO "$user";
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 1);
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('$user', 3);
SQL
  for _ in $(seq 100); do
    if curl -s -o /dev/null "http://127.0.0.1:$http_port/sparql"; then
      return 0
    fi
    sleep 0.1
  done
  echo "Virtuoso HTTP did not answer on $http_port" >&2
  return 1
}
