#!/usr/bin/env bash
# A worker waiting for a host's turn (its robots.txt Crawl-delay) stops at
# once on SIGTERM: it exits within seconds, not after the delay, and its job
# goes back to the queue, where another worker does it, still keeping the
# host's pace. The real worker, the test Redis, a loopback host that records
# its requests (tests/support/host_log_server.py).
source "$LODWASH_SOURCE_DIR/tests/support/redis_shell.sh"
lw_sh_require_redis
lw_sh_init pacestop
export LODWASH_HEARTBEAT_TTL=5 LODWASH_POLL_MAX_MS=50 LODWASH_ALLOW_NET=127.0.0.0/8
delay=20
host=127.0.0.31
mkdir -p "$LW_SH_TMP/www/$host"
printf 'User-agent: *\nCrawl-delay: %s\n' "$delay" > "$LW_SH_TMP/www/$host/robots.txt"
for d in a b; do echo "<http://example.org/$d> <http://example.org/p> \"$d\" ." \
  > "$LW_SH_TMP/www/$host/$d.nt"; done
python3 "$LODWASH_SOURCE_DIR/tests/support/host_log_server.py" "$LW_SH_TMP/www" \
  "$LW_SH_TMP/requests" "$LW_SH_TMP/port" "$host" &
LW_SH_PIDS+=($!)
lw_sh_wait_for 10 test -s "$LW_SH_TMP/port"
port=$(cat "$LW_SH_TMP/port")
dumps() { grep -c '\.nt ' "$LW_SH_TMP/requests" 2>/dev/null || true; }
# The server writes a request's line once it has sent the answer, which the
# worker may have read and gone on from already: a count is waited for.
dumps_are() { [ "$(dumps)" = "$1" ]; }

"$LODWASH" seed add "http://$host:$port/a.nt" >/dev/null
"$LODWASH" seed add "http://$host:$port/b.nt" >/dev/null

# one worker: the first dump, then the wait for the host's next turn
lw_sh_start_worker first --stages download
first=$LW_SH_LAST_PID
lw_sh_check "the first worker waits for the host's turn" \
  lw_sh_wait_for 15 grep -q "for the host's turn" "$LW_SH_TMP/first.log"
lw_sh_check "one dump fetched so far" lw_sh_wait_for 10 dumps_are 1

began=$SECONDS
kill -TERM "$first"
lw_sh_wait_for 15 bash -c "! kill -0 $first 2>/dev/null"
took=$((SECONDS - began))
wait "$first"
code=$?
lw_sh_check "SIGTERM ends the wait: exited after ${took}s (the delay is ${delay}s)" \
  test "$took" -le 5
lw_sh_check "exit code 0" test "$code" = 0
lw_sh_check "the job was handed back" grep -q "outcome=handed-back" "$LW_SH_TMP/first.log"
lw_sh_check "it is queued again" test "$(lw_sh_count download queued)" = 1
lw_sh_check "the second dump was not fetched" test "$(dumps)" = 1

# another worker does it, at the host's turn (the given-back one)
lw_sh_start_worker second --stages download --exit-when-idle
second=$LW_SH_LAST_PID
lw_sh_wait_for $((delay + 20)) bash -c "! kill -0 $second 2>/dev/null"
wait "$second"
lw_sh_check "both downloads done" test "$(lw_sh_count download done)" = 2
lw_sh_check "both dumps fetched" lw_sh_wait_for 10 dumps_are 2
gap=$(awk '/\.nt / {t[n++] = $3} END {printf "%.1f", t[1] - t[0]}' "$LW_SH_TMP/requests")
lw_sh_check "the Crawl-delay held across the hand-back: ${gap}s apart" \
  python3 -c "import sys; sys.exit(0 if $gap >= $delay - 0.5 else 1)"
lw_sh_finish
