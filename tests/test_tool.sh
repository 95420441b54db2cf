#!/usr/bin/env bash
# The lodwash tool: exit codes (0 ok, 1 failure, 2 bad arguments), the
# status JSON shape, hash output, seed add/show, jobs push/dead/retry.
source "$LODWASH_SOURCE_DIR/tests/support/redis_shell.sh"

expect_exit() { # expect_exit CODE ARGS...: runs lodwash, compares its exit code
  local want=$1
  shift
  "$LODWASH" "$@" >"$LW_SH_TMP/out" 2>"$LW_SH_TMP/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "lodwash $*: exit $got, expected $want; stderr: $(cat "$LW_SH_TMP/err")" >&2
    return 1
  fi
}
one_line_error() { [ "$(wc -l <"$LW_SH_TMP/err")" -eq 1 ] && grep -q '^lodwash: ' "$LW_SH_TMP/err"; }

# --- no Redis needed
LW_SH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/lodwash-tool-XXXXXX")
trap lw_sh_cleanup EXIT
lw_sh_check "--help" expect_exit 0 --help
lw_sh_check "--help lists commands" grep -q "seed show URI|HASH" "$LW_SH_TMP/out"
lw_sh_check "--version" expect_exit 0 --version
lw_sh_check "no command" expect_exit 2
lw_sh_check "no command: one line" one_line_error
lw_sh_check "unknown command" expect_exit 2 frobnicate
lw_sh_check "unknown command: one line" one_line_error
lw_sh_check "unknown option" expect_exit 2 --frob status
lw_sh_check "bad Redis URL" expect_exit 2 --redis http://x status
lw_sh_check "hash without URI" expect_exit 2 hash
lw_sh_check "hash" expect_exit 0 hash 'HTTP://www.Example.COM/a/./b/../c/%7Efoo' http://example.org/
want=$(printf '%s' 'http://www.example.com/a/c/~foo' | md5sum | cut -d' ' -f1)
lw_sh_check "hash output line 1" [ "$(sed -n 1p "$LW_SH_TMP/out")" = "$want http://www.example.com/a/c/~foo" ]
want=$(printf '%s' 'http://example.org/' | md5sum | cut -d' ' -f1)
lw_sh_check "hash output line 2" [ "$(sed -n 2p "$LW_SH_TMP/out")" = "$want http://example.org/" ]

# --- Redis unreachable: a clear message, exit 1
lw_sh_check "Redis down: status" expect_exit 1 --redis redis://127.0.0.1:1/0 status
lw_sh_check "Redis down: message" grep -q "cannot connect to Redis at 127.0.0.1:1" "$LW_SH_TMP/err"
lw_sh_check "Redis down: seed show" expect_exit 1 --redis redis://127.0.0.1:1/0 seed show x
LODWASH_REDIS=redis://127.0.0.1:1/0 expect_exit 1 jobs dead
lw_sh_check "Redis down via LODWASH_REDIS" [ $? -eq 0 ]

# --- argument errors, checked before Redis is reached
lw_sh_check "status --bogus" expect_exit 2 --redis redis://127.0.0.1:1/0 status --bogus
lw_sh_check "seed without sub-command" expect_exit 2 seed
lw_sh_check "seed frob" expect_exit 2 seed frob
lw_sh_check "seed show without argument" expect_exit 2 seed show
lw_sh_check "seed add two URIs" expect_exit 2 seed add a b
lw_sh_check "jobs without sub-command" expect_exit 2 jobs
lw_sh_check "jobs push without stage" expect_exit 2 jobs push
lw_sh_check "jobs push unknown stage" expect_exit 2 jobs push nosuchstage
lw_sh_check "jobs push bad count" expect_exit 2 jobs push noop --count zero
lw_sh_check "jobs push bad JSON" expect_exit 2 jobs push noop '[1,2]'
lw_sh_check "jobs push bad JSON: one line" one_line_error
lw_sh_check "jobs push bad priority" expect_exit 2 jobs push noop --priority urgent
lw_sh_check "jobs retry without id" expect_exit 2 jobs retry

lw_sh_require_redis
rm -rf "$LW_SH_TMP"
lw_sh_init tool

# --- status JSON shape
lw_sh_check "jobs push" expect_exit 0 jobs push noop --count 3 '{"sleep_ms": 1}'
lw_sh_check "jobs push says how many" grep -q "queued 3 noop jobs" "$LW_SH_TMP/out"
lw_sh_check "status --json" expect_exit 0 status --json
shape() {
  python3 - "$LW_SH_TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert {"stages", "workers", "seeds", "counters", "providers"} <= set(d), d.keys()
assert isinstance(d["counters"], dict) and isinstance(d["providers"], list)
noop = d["stages"]["noop"]
assert set(noop) == {"queued", "inflight", "delayed", "dead", "done", "failed"}, noop
assert all(isinstance(v, int) for v in noop.values())
assert noop["queued"] == 3
assert isinstance(d["workers"], list)
assert isinstance(d["seeds"], dict) and d["seeds"]["added"] == 0
PY
}
lw_sh_check "status JSON shape" shape
lw_sh_check "status text" expect_exit 0 status
lw_sh_check "status text has the stage" grep -q "^noop  *3 " "$LW_SH_TMP/out"

# --- seeds
lw_sh_check "seed add" expect_exit 0 seed add 'http://Example.org/dump.nt'
hash=$(printf '%s' 'http://example.org/dump.nt' | md5sum | cut -d' ' -f1)
lw_sh_check "seed add prints the hash" grep -q "^$hash added, download queued" "$LW_SH_TMP/out"
lw_sh_check "seed add again" expect_exit 0 seed add 'http://example.org/dump.nt'
lw_sh_check "seed add again: already" grep -q "already recorded" "$LW_SH_TMP/out"
lw_sh_check "seed show by URI" expect_exit 0 seed show 'http://example.org/dump.nt'
lw_sh_check "seed show text" grep -q "^status  *added" "$LW_SH_TMP/out"
lw_sh_check "seed show --json by hash" expect_exit 0 seed show "$hash" --json
seed_json() {
  python3 -c "import json,sys; d=json.load(open('$LW_SH_TMP/out')); assert d['status']=='added' and d['hash']=='$hash' and 'relative' not in d, d"
}
lw_sh_check "seed JSON" seed_json
lw_sh_check "seed show unknown: exit 3" expect_exit 3 seed show http://example.org/never
lw_sh_check "seed show unknown: message" grep -q "no seed" "$LW_SH_TMP/err"
lw_sh_check "seed add relative" expect_exit 0 seed add 'data/x.ttl'
lw_sh_check "relative not queued" grep -q "never downloaded" "$LW_SH_TMP/out"
lw_sh_check "download queued once" [ "$(lw_sh_count download queued)" = 1 ]
lw_sh_check "seeds counted" [ "$(lw_sh_json 'd["seeds"]["added"]')" = 2 ]

# --- duplicates and the dead list
lw_sh_check "push with a seed" expect_exit 0 jobs push noop '{"seed": "s1", "fail": "permanent"}'
lw_sh_check "push it again" expect_exit 0 jobs push noop '{"seed": "s1"}'
lw_sh_check "second push suppressed" grep -q "queued 0 noop jobs (1 suppressed" "$LW_SH_TMP/out"
lw_sh_check "jobs dead (empty)" expect_exit 0 jobs dead
lw_sh_check "no dead jobs" grep -q "no dead jobs" "$LW_SH_TMP/out"
timeout 30 "$WORKER" --stages noop --exit-when-idle 2>/dev/null
lw_sh_check "jobs dead --json" expect_exit 0 jobs dead --json
dead_json() {
  python3 -c "import json; d=json.load(open('$LW_SH_TMP/out')); assert len(d)==1 and d[0]['seed']=='s1' and d[0]['error_kind']=='format' and d[0]['attempt']==1, d"
}
lw_sh_check "dead job JSON" dead_json
"$LODWASH" jobs push noop --count 2 '{"fail": "permanent"}' >/dev/null
timeout 30 "$WORKER" --stages noop --exit-when-idle 2>/dev/null
lw_sh_check "jobs dead --limit 1" expect_exit 0 jobs dead --limit 1
lw_sh_check "limited to one job" [ "$(grep -c ' stage=noop ' "$LW_SH_TMP/out")" -eq 1 ]
lw_sh_check "says how many in all" grep -q "(3 dead jobs in all" "$LW_SH_TMP/out"
lw_sh_check "jobs dead --limit bad" expect_exit 2 jobs dead --limit many
lw_sh_check "jobs retry unknown: no such job, exit 3" expect_exit 3 jobs retry ffffffffffffffff
lw_sh_check "jobs retry --all" expect_exit 0 jobs retry --all
lw_sh_check "retried" grep -q "3 jobs queued again" "$LW_SH_TMP/out"
lw_sh_check "back in the queue" [ "$(lw_sh_count noop queued)" = 3 ]

lw_sh_finish
