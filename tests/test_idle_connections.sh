#!/usr/bin/env bash
# Idle connections cannot take the pages down or stop the scheduler (issue
# 24, item 3). The scheduler runs with `ulimit -n 1024`, a common service
# default, its pages on; a stranger holds 2,000 idle connections to the pages
# from eight loopback addresses. Compared with the undisturbed run before the
# flood: /healthz still answers (from another address), the scheduler's
# cycles still complete without error, and nothing says "Too many open
# files". Before the fix (select(), no limits) the pages refused everyone and
# most cycles failed.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis
source "$LODWASH_SOURCE_DIR/scripts/lib/servers.sh"
source "$LODWASH_SOURCE_DIR/scripts/lib/examples.sh"

prefix="lwtest:idle:$$:"
dir=$(mktemp -d)
sched=""
flood=""
cleanup() {
  [ -n "$flood" ] && kill "$flood" 2>/dev/null && wait "$flood" 2>/dev/null
  if [ -n "$sched" ]; then
    kill -TERM "$sched" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$sched" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$sched" 2>/dev/null || true
  fi
  lw_servers_stop
  rm -rf "$dir"
  lw_test_redis_cleanup "$prefix"
}
trap cleanup EXIT

mkdir -p "$dir/web" "$dir/data"
http_port=$(lw_free_port)
lw_publish_examples "$dir/web"
lw_start_http "$http_port" "$dir/web"
# one provider: the cycle's own work stays small (its VoID visit, the duties)
printf 'library:\n  void: http://127.0.0.1:%s/library/void.ttl\n' "$http_port" > "$dir/registry.yaml"
export LODWASH_REDIS="$LODWASH_TEST_REDIS" LODWASH_PREFIX="$prefix"
export LODWASH_DATA="$dir/data" LODWASH_REGISTRY="$dir/registry.yaml"
export LODWASH_ALLOW_NET="127.0.0.1:$http_port"
pages_port=$(lw_free_port)
pages="http://127.0.0.1:$pages_port"
(ulimit -n 1024 && exec "$LODWASH_BINARY_DIR/lodwash-scheduler" --interval 1 \
  --metrics-port "$pages_port") 2> "$dir/scheduler.log" &
sched=$!

cycles() { grep -c 'cycle=done' "$dir/scheduler.log" || true; }
# wait_cycles N: until N more cycles than now are logged (at most 180 s: a
# generous cap for a loaded machine; a cycle takes about a second)
wait_cycles() {
  local want=$(($(cycles) + $1))
  for _ in $(seq 900); do [ "$(cycles)" -ge "$want" ] && return 0; sleep 0.2; done
  return 1
}

# --- undisturbed
for _ in $(seq 100); do curl -s -o /dev/null "$pages/healthz" && break; sleep 0.1; done
expect_eq "undisturbed: /healthz" "$(curl -s --max-time 10 "$pages/healthz")" ok
expect_status "undisturbed: two cycles complete" 0 wait_cycles 2

# --- 2,000 idle connections held
python3 "$LODWASH_SOURCE_DIR/tests/support/idle_sockets.py" "$pages_port" 2000 90 \
  "$dir/ready" 8 &
flood=$!
for _ in $(seq 300); do [ -s "$dir/ready" ] && break; sleep 0.2; done
opened=$(cat "$dir/ready" 2>/dev/null || echo 0)
expect_match "the stranger opened its connections ($opened of 2,000)" \
  "$([ "$opened" -ge 1900 ] && echo yes || echo no)" '^yes$'
before=$(cycles)
expect_eq "flooded: /healthz still answers" "$(curl -s --max-time 10 "$pages/healthz")" ok
expect_match "flooded: the dashboard still answers" \
  "$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$pages/")" '^200$'
expect_status "flooded: three more cycles complete" 0 wait_cycles 3
expect_eq "flooded: every cycle since the flood without errors" \
  "$(tail -n +1 "$dir/scheduler.log" | grep 'cycle=done' | tail -n +$((before + 1)) |
    grep -vc ' errors=0 ' || true)" 0
expect_eq "flooded: no cycle failed" "$(grep -c 'cycle=failed' "$dir/scheduler.log" || true)" 0
expect_eq "no descriptor ran out" "$(grep -ci 'too many open files' "$dir/scheduler.log" || true)" 0
held=$(ls /proc/"$sched"/fd | wc -l)
expect_match "the scheduler holds at most its limit of connections ($held descriptors)" \
  "$([ "$held" -lt 300 ] && echo yes || echo no)" '^yes$'
kill "$flood" 2>/dev/null || true
wait "$flood" 2>/dev/null || true
flood=""
expect_eq "after the flood: /healthz" "$(curl -s --max-time 10 "$pages/healthz")" ok
lw_test_done
