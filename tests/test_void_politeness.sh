#!/usr/bin/env bash
# VoID fetches are polite per host, and a slow host delays only its own
# providers: the real scheduler (one cycle) and three loopback hosts that
# record their requests (tests/support/host_log_server.py):
#   A: robots.txt Crawl-delay 2 s, 4 providers
#   B: answers after 2 s, 5 providers (--per-host-concurrency 2; then
#      again with one of its 2 places held by a download worker)
#   C: quick, 5 providers (--host-interval-ms 200)
# A's VoIDs are fetched 2 s apart, B's never more than 2 at once, and all of
# C's are fetched before A's third: the pool takes the next provider on
# another host instead of waiting. The undisturbed run (robots.txt off, no
# pace, no limit) shows each of these would be seen if broken.
source "$LODWASH_SOURCE_DIR/tests/support/redis_shell.sh"
lw_sh_require_redis
lw_sh_init voidpolite
export LODWASH_ALLOW_NET=127.0.0.0/8
a=127.0.0.41 b=127.0.0.42 c=127.0.0.43
source "$LODWASH_SOURCE_DIR/tests/support/void_hosts.sh"
lw_vh_serve "$a" "$b" "$c"
printf 'User-agent: *\nCrawl-delay: 2\n' > "$www/$a/robots.txt"
echo 2 > "$www/$b/.delay"
for i in 1 2 3 4; do lw_vh_provider a$i "$a"; done
for i in 1 2 3 4 5; do lw_vh_provider b$i "$b"; lw_vh_provider c$i "$c"; done

# one cycle under a prefix of its own; the VoID requests it caused, by host
cycle() { # NAME ARGS...
  local name=$1; shift
  : > "$LW_SH_TMP/requests"
  LODWASH_PREFIX="${LODWASH_PREFIX}$name:" "$LODWASH_BINARY_DIR/lodwash-scheduler" \
    --registry "$reg" --once --per-host-concurrency 2 --host-interval-ms 200 "$@" \
    2>"$LW_SH_TMP/$name.log"
  grep '\.ttl ' "$LW_SH_TMP/requests" > "$LW_SH_TMP/$name.voids"
}
# FIGURE HOST FILE: most at once / shortest gap between starts (s) / last start
figure() {
  python3 - "$@" <<'PY'
import sys
what, host, path = sys.argv[1:4]
rows = [l.split() for l in open(path)]
spans = sorted((float(r[2]), float(r[3])) for r in rows if r[0] == host)
starts = [s for s, _ in spans]
if what == "most":
    # A request's end is logged by the host's thread after it has sent the
    # answer: the client may have it, and the next request may start, a
    # little before. Each answer takes 2 s, so 0.1 s off the ends hides
    # only that, never a request too many.
    print(max(sum(1 for s2, e2 in spans if s2 <= s < e2 - 0.1) for s, _ in spans))
elif what == "gap":
    print("%.2f" % min(b - a for a, b in zip(starts, starts[1:])))
elif what == "start":  # the Nth start (1-based) of host
    print("%.3f" % starts[int(sys.argv[4]) - 1])
PY
}
ge() { python3 -c "import sys; sys.exit(0 if $1 >= $2 else 1)"; }
# Gaps are measured where the host sees them (each request's start at the
# server), and the turns are reserved in Redis ahead of the requests: a
# request held up after its turn (a thread the machine does not run at
# once, the connection, the server's own thread) arrives late, and the next
# one, on time, comes that much sooner after it. 10 to 35 ms were seen on a
# loaded machine under ASan; the checks allow 0.1 s, and still tell a paced
# host from one that is not (the undisturbed run: A's gaps under 1 s, C's
# a few ms).
slack=0.1
lt() { python3 -c "import sys; sys.exit(0 if $1 < $2 else 1)"; }

cycle polite
f=$LW_SH_TMP/polite.voids
lw_sh_check "every provider visited" test "$(grep -c 'outcome=started' "$LW_SH_TMP/polite.log")" = 14
lw_sh_check "each VoID fetched once" test "$(wc -l < "$f")" = 14
most=$(figure most "$b" "$f")
lw_sh_check "slow host: at most 2 fetches at once (saw $most)" test "$most" = 2
gap=$(figure gap "$a" "$f")
lw_sh_check "Crawl-delay host: fetches ${gap}s apart (at least 2 s)" ge "$gap" "2 - $slack"
gap=$(figure gap "$c" "$f")
lw_sh_check "quick host: ${gap}s apart (--host-interval-ms 200)" ge "$gap" "0.2 - $slack"
c_last=$(figure start "$c" "$f" 5) a_third=$(figure start "$a" "$f" 3)
lw_sh_check "the quick host is not held up by the others: done before A's third" \
  lt "$c_last" "$a_third"

# A download from B already running (its place in B's shared lease set, as
# a download worker holds it): the VoID fetches share the host's 2 places
# with it, so at most 1 at once, and each gives its place back.
slots="${LODWASH_PREFIX}shared:hostslots:$b"
lw_sh_redis_cli ZADD "$slots" "$(( $(lw_sh_redis_cli TIME | head -1) * 1000 + 600000 ))" download-job \
  > /dev/null
cycle shared
f=$LW_SH_TMP/shared.voids
lw_sh_check "shared: every provider visited" \
  test "$(grep -c 'outcome=started' "$LW_SH_TMP/shared.log")" = 14
most=$(figure most "$b" "$f")
lw_sh_check "shared with a download: at most 1 fetch at once on B (saw $most)" \
  test "$most" = 1
lw_sh_check "shared: only the download's place is left" \
  test "$(lw_sh_redis_cli ZRANGE "$slots" 0 -1 | tr '\n' ' ')" = "download-job "

# Every place on B held by downloads (two providers of B only, a short
# cycle: VoID timeout 5 s): their VoIDs are not fetched within the timeout,
# and the providers are deferred (first on their host next cycle), not
# failed.
far=$(( $(lw_sh_redis_cli TIME | head -1) * 1000 + 600000 ))
lw_sh_redis_cli ZADD "${LODWASH_PREFIX}full:hostslots:$b" "$far" download-1 "$far" download-2 \
  > /dev/null
printf 'b1:\n  void: http://%s:%s/b1.ttl\nb2:\n  void: http://%s:%s/b2.ttl\n' \
  "$b" "$port" "$b" "$port" > "$LW_SH_TMP/registry-b.yaml"
cycle full --registry "$LW_SH_TMP/registry-b.yaml" --interval 3
lw_sh_check "no place on B: both providers deferred" \
  test "$(grep -c 'outcome=deferred' "$LW_SH_TMP/full.log")" = 2
lw_sh_check "no place on B: no provider error" \
  test "$(grep -c 'outcome=error' "$LW_SH_TMP/full.log")" = 0
lw_sh_check "no place on B: no VoID requested from it" test "$(wc -l < "$LW_SH_TMP/full.voids")" = 0

# undisturbed: no robots.txt, no pace, no limit
cycle free --robots-ttl 0 --host-interval-ms 0 --per-host-concurrency 100
f=$LW_SH_TMP/free.voids
lw_sh_check "undisturbed: every provider visited" \
  test "$(grep -c 'outcome=started' "$LW_SH_TMP/free.log")" = 14
# (a host not heard from yet this cycle gets one fetch, its probe: with
# robots.txt off, B's other 4 start once its first VoID has answered)
most=$(figure most "$b" "$f")
lw_sh_check "undisturbed: the slow host gets the 4 after its probe at once (saw $most)" \
  test "$most" = 4
gap=$(figure gap "$a" "$f")
lw_sh_check "undisturbed: A's fetches ${gap}s apart" lt "$gap" 1
lw_sh_finish
