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

# lw_start_http PORT DIR: serves DIR over HTTP on 127.0.0.1:PORT.
lw_start_http() {
  local port=$1 dir=$2
  python3 -m http.server --bind 127.0.0.1 --directory "$dir" "$port" >/dev/null 2>&1 &
  LW_SERVER_PIDS+=($!)
  for _ in $(seq 100); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
      return 0
    fi
    sleep 0.05
  done
  echo "HTTP server did not start on port $port" >&2
  return 1
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
