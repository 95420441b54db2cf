#!/usr/bin/env bash
# The scheduler's pages for operators over real HTTP: /healthz, /status (the
# status report, providers included) and /metrics (Prometheus text), the same
# numbers `lodwash status --json` shows; SIGTERM stops it cleanly.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$LODWASH_SOURCE_DIR/scripts/lib/servers.sh"
lw_test_require_redis

prefix="lwtest:observe:$$:"
dir=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && lw_stop_pid "$pid"; rm -rf "$dir"; lw_test_redis_cleanup "$prefix"' EXIT

cat > "$dir/registry.yaml" <<'YAML'
geo:
  void: http://127.0.0.1:9/void.ttl
  modified: 2020-01-01
YAML
port=$(lw_free_port)
"$LODWASH_BINARY_DIR/lodwash-scheduler" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
  --registry "$dir/registry.yaml" --data "$dir/data" --interval 1 --metrics-port "$port" \
  2> "$dir/scheduler.log" &
pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
lw "$prefix" jobs push noop --count 3 '{}' > /dev/null

expect_eq "healthz" "$(curl -s "http://127.0.0.1:$port/healthz")" ok
status=$(curl -s "http://127.0.0.1:$port/status")
expect_match "status: stages" "$status" '"noop": \{'
expect_match "status: providers" "$status" '"name": "geo"'
metrics=$(curl -s "http://127.0.0.1:$port/metrics")
expect_match "metrics: queued jobs" "$metrics" 'lodwash_jobs\{stage="noop",state="queued"\} 3'
expect_match "metrics: workers" "$metrics" 'lodwash_workers_alive 0'
expect_match "metrics: provider state" "$metrics" 'lodwash_provider_state\{provider="geo",state="[a-z]+"\} 1'
expect_eq "unknown path" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nope")" 404
expect_match "the tool says the same" "$(lw "$prefix" --registry "$dir/registry.yaml" status --json)" '"queued": 3'
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
pid=""
expect_eq "SIGTERM: exit 0" "$code" 0
expect_match "log names the pages" "$(cat "$dir/scheduler.log")" "pages=http://127.0.0.1:$port/"
lw_test_done
