# Shell helpers for the .sh tests: the same closing line as the C tests
# ("N passed, N failed"), skips (exit 77) and the real servers.
LW_PASSED=0
LW_FAILED=0

lw_test_skip() { echo "SKIP: $*"; exit 77; }

lw_test_require_redis() {
  [ -n "${LODWASH_TEST_REDIS:-}" ] || lw_test_skip "no test Redis (LODWASH_TEST_REDIS unset; run scripts/test)"
}

lw_pass() { LW_PASSED=$((LW_PASSED + 1)); }
lw_fail() { LW_FAILED=$((LW_FAILED + 1)); echo "FAILED: $*" >&2; }

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() {
  if [ "$2" == "$3" ]; then lw_pass; else lw_fail "$1: got [$2], expected [$3]"; fi
}

# expect_match WHAT ACTUAL EXTENDED-REGEX
expect_match() {
  if [[ "$2" =~ $3 ]]; then lw_pass; else lw_fail "$1: [$2] does not match /$3/"; fi
}

# expect_status WHAT EXPECTED-EXIT-CODE COMMAND...
expect_status() {
  local what=$1 want=$2; shift 2
  local got=0
  "$@" > /dev/null 2>&1 || got=$?
  expect_eq "$what (exit code)" "$got" "$want"
}

# lw_test_scratch NAME: the test's own keys and files. Sets prefix
# (lwtest:NAME:PID:) and data (a new temporary directory), and on exit
# runs lw_test_scratch_extra when the test defines one (its own servers,
# processes, directories), then removes data and the prefix's keys.
# r ARGS...: redis-cli on the test Redis.
lw_test_scratch() {
  prefix="lwtest:$1:$$:"
  data=$(mktemp -d)
  trap lw_test_scratch_end EXIT
}
lw_test_scratch_end() {
  if declare -F lw_test_scratch_extra >/dev/null; then lw_test_scratch_extra || true; fi
  rm -rf "$data"
  lw_test_redis_cleanup "$prefix"
}
r() { redis-cli -u "$LODWASH_TEST_REDIS" "$@"; }

# lw PREFIX ARGS...: the lodwash tool against the test Redis under PREFIX.
lw() {
  local prefix=$1; shift
  "$LODWASH_BINARY_DIR/lodwash" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" "$@"
}

lw_test_redis_cleanup() {
  local keys
  keys=$(redis-cli -u "$LODWASH_TEST_REDIS" --scan --pattern "$1*" 2>/dev/null || true)
  if [ -n "$keys" ]; then
    # one key a line: some keys hold a space (cleanof:HASH PROVIDER)
    echo "$keys" | xargs -r -d '\n' redis-cli -u "$LODWASH_TEST_REDIS" DEL > /dev/null 2>&1 || true
  fi
}

lw_test_done() {
  echo "$LW_PASSED passed, $LW_FAILED failed"
  [ "$LW_FAILED" -eq 0 ]
}
