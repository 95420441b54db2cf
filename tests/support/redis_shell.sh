# Shell helpers for the worker and tool tests (sourced). They use the test
# Redis (LODWASH_TEST_REDIS, skip when unset) under a key prefix of their
# own, run the built programs and clean up in a trap.
#
#   source "$LODWASH_SOURCE_DIR/tests/support/redis_shell.sh"
#   lw_sh_init NAME          prefix, programs, temp dir, trap
#   lw_sh_check "what" CMD   counts a check (CMD's exit status)
#   lw_sh_finish             prints "N passed, N failed", exits

set -uo pipefail

: "${LODWASH_BINARY_DIR:?run through ctest}"
: "${LODWASH_SOURCE_DIR:?run through ctest}"

LW_SH_PASSED=0
LW_SH_FAILED=0
LW_SH_PIDS=()
LODWASH="$LODWASH_BINARY_DIR/lodwash"
WORKER="$LODWASH_BINARY_DIR/lodwash-worker"

lw_sh_require_redis() {
  if [ -z "${LODWASH_TEST_REDIS:-}" ]; then
    echo "SKIP: no test Redis (LODWASH_TEST_REDIS unset; run scripts/test)"
    exit 77
  fi
}

# host and port of a redis:// URL, for redis-cli
lw_sh_redis_cli() {
  local url=${LODWASH_REDIS#redis://}
  url=${url#*@}
  local hostport=${url%%/*} db=0
  [[ $url == */* ]] && db=${url#*/}
  local host=${hostport%%:*} port=6379
  [[ $hostport == *:* ]] && port=${hostport##*:}
  redis-cli -h "$host" -p "$port" -n "${db:-0}" "$@"
}

lw_sh_cleanup() {
  local pid
  for pid in "${LW_SH_PIDS[@]}"; do
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ -n "${LODWASH_PREFIX:-}" ] && [ -n "${LODWASH_REDIS:-}" ]; then
    lw_sh_redis_cli --scan --pattern "${LODWASH_PREFIX}*" 2>/dev/null |
      while read -r key; do lw_sh_redis_cli UNLINK "$key" >/dev/null 2>&1; done
  fi
  if [ -n "${LW_SH_TMP:-}" ] && [ -z "${LW_SH_KEEP:-}" ]; then rm -rf "$LW_SH_TMP"; fi
}

lw_sh_init() {
  local name=$1
  export LODWASH_REDIS=${LODWASH_REDIS:-$LODWASH_TEST_REDIS}
  export LODWASH_PREFIX="lwtest:$name:$$:"
  LW_SH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/lodwash-$name-XXXXXX")
  export LODWASH_DATA="$LW_SH_TMP/data"
  trap lw_sh_cleanup EXIT
}

lw_sh_check() {
  local what=$1
  shift
  if "$@"; then
    LW_SH_PASSED=$((LW_SH_PASSED + 1))
  else
    LW_SH_FAILED=$((LW_SH_FAILED + 1))
    echo "FAILED: $what" >&2
  fi
}

lw_sh_finish() {
  echo "$LW_SH_PASSED passed, $LW_SH_FAILED failed"
  [ "$LW_SH_FAILED" -eq 0 ]
  exit $?
}

# lw_sh_json EXPR: evaluates a Python expression on `lodwash status --json`
# (as d), e.g. lw_sh_json 'd["stages"]["noop"]["queued"]'
lw_sh_json() {
  "$LODWASH" status --json | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"
}

# stage counter, 0 when the stage is not known yet
lw_sh_count() {
  lw_sh_json "d['stages'].get('$1', {}).get('$2', 0)"
}

# lw_sh_wait_for SECONDS CMD...: polls CMD until it succeeds
lw_sh_wait_for() {
  local limit=$1
  shift
  local end=$((SECONDS + limit))
  while [ $SECONDS -lt $end ]; do
    if "$@"; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

# starts a worker in the background, logging to $LW_SH_TMP/NAME.log; its
# pid is in $LW_SH_LAST_PID
lw_sh_start_worker() {
  local name=$1
  shift
  "$WORKER" "$@" 2>"$LW_SH_TMP/$name.log" &
  LW_SH_LAST_PID=$!
  LW_SH_PIDS+=("$LW_SH_LAST_PID")
}
