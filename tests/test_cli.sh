#!/usr/bin/env bash
# The command line as a person types it: --help on every command (exit 0,
# and `hash --help` is help, not a hash), the common options before or after
# the command, ports and sizes refused with a clear one-line error (exit 2),
# ISO 8601 times in what people read, and --log-json with each field its own
# key.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
bin="$LODWASH_BINARY_DIR"
dir=$(mktemp -d)
prefix="lwtest:cli:$$:"
trap 'rm -rf "$dir"; [ -n "${LODWASH_TEST_REDIS:-}" ] && lw_test_redis_cleanup "$prefix"' EXIT

# --- --help on every command
commands=$("$bin/lodwash" --help | sed -n 's/^  \([a-z]\+\) .*/\1/p; s/^  \([a-z]\+\)$/\1/p' | sort -u)
expect_match "the command list is read from --help" "$commands" 'hash'
for c in $commands; do
  code=0
  "$bin/lodwash" "$c" --help > "$dir/out" 2> "$dir/err" || code=$?
  expect_eq "lodwash $c --help exits 0" "$code" 0
  expect_match "lodwash $c --help prints its usage" "$(cat "$dir/out")" "^[Uu]sage: lodwash (\[OPTIONS\] )?$c"
  expect_eq "lodwash $c --help: nothing on stderr" "$(cat "$dir/err")" ""
done
expect_eq "hash --help is help, not a hash" "$("$bin/lodwash" hash --help | grep -cE '^[0-9a-f]{32} ' || true)" 0
expect_match "seed show URI --help" "$("$bin/lodwash" seed show x --help)" '^Usage: lodwash \[OPTIONS\] seed'
for prog in lodwash-worker lodwash-scheduler; do
  expect_status "$prog --help" 0 "$bin/$prog" --help
done

# --- each command's own --help: its options, not the summary again
expect_match "stage --help lists the stage names" "$("$bin/lodwash" stage --help)" \
  'Stages:.*download .*parse .*import'
expect_match "status --help says --every" "$("$bin/lodwash" status --help)" '--every S +seconds between'
expect_match "seed --help says what add refuses" "$("$bin/lodwash" seed --help)" 'add URI .*allow-net'
expect_match "--help says the exit codes" "$("$bin/lodwash" harvest --help)" '3 no such provider'

# --- ports and sizes
err() { "$@" 2>&1 > /dev/null || true; }
code_of() { local c=0; "$@" > /dev/null 2>&1 || c=$?; echo "$c"; }

# --- a usage error is one line
expect_eq "clean without FILE: exit 2" "$(code_of "$bin/lodwash" clean)" 2
expect_eq "clean without FILE: one line" "$(err "$bin/lodwash" clean | wc -l)" 1
expect_match "clean without FILE: says what" "$(err "$bin/lodwash" clean)" 'FILE missing'

# --- the admin token never on the command line (ps shows it)
expect_eq "--admin-token on the command line: exit 2" \
  "$(code_of "$bin/lodwash-scheduler" --admin-token secret)" 2
expect_match "--admin-token: says what to use" "$(err "$bin/lodwash-scheduler" --admin-token=secret)" \
  'admin-token-file FILE or LODWASH_ADMIN_TOKEN'
expect_eq "--admin-token-file that cannot be read: exit 2" \
  "$(code_of "$bin/lodwash-scheduler" --admin-token-file "$dir/none")" 2
: > "$dir/empty-token"
expect_match "--admin-token-file empty: refused" \
  "$(err "$bin/lodwash-scheduler" --admin-token-file "$dir/empty-token")" 'empty'

# --- seed add refuses what the download refuses, before any Redis
for uri in ftp://example.org/dump.nt http://10.1.2.3/dump.nt http://127.0.0.1:9/x.nt \
  'http://[::1]:9/x.nt' http://localhost:9/x.nt; do
  expect_eq "seed add $uri: exit 2" \
    "$(code_of "$bin/lodwash" --redis redis://127.0.0.1:1/0 seed add "$uri")" 2
done
expect_match "seed add ftp: says why" \
  "$(err "$bin/lodwash" --redis redis://127.0.0.1:1/0 seed add ftp://example.org/d.nt)" \
  'download would refuse it: only http and https'
expect_match "seed add 10.1.2.3: says why" \
  "$(err "$bin/lodwash" --redis redis://127.0.0.1:1/0 seed add http://10.1.2.3/d.nt)" \
  'private and not on the allow list \(--allow-net\)'
expect_eq "seed add a loopback address in --allow-net: past the check (Redis down: 1)" \
  "$(code_of "$bin/lodwash" --redis redis://127.0.0.1:1/0 --allow-net 127.0.0.1 seed add http://127.0.0.1:9/x.nt)" 1
expect_eq "--metrics-port 99999: exit 2" "$(code_of "$bin/lodwash-scheduler" --metrics-port 99999)" 2
expect_match "--metrics-port 99999: says why" "$(err "$bin/lodwash-scheduler" --metrics-port 99999)" \
  '^lodwash-scheduler: --metrics-port 99999 is not a port \(1 to 65535; 0: off\)$'
expect_eq "--metrics-port 80x: exit 2" "$(code_of "$bin/lodwash-scheduler" --metrics-port 80x)" 2
expect_eq "--metrics-bind nonsense: exit 2" "$(code_of "$bin/lodwash-scheduler" --metrics-port 1 --metrics-bind nope)" 2
expect_eq "a size with a bad suffix: exit 2" "$(code_of "$bin/lodwash" --download-max-bytes 3Q status)" 2
expect_match "a size with a bad suffix: says why" "$(err "$bin/lodwash" status --download-max-bytes 3Q)" \
  "^lodwash: --download-max-bytes: '3Q' is not a number \(digits, optionally followed by k, M or G\)$"
expect_eq "a size too large: exit 2" "$(code_of "$bin/lodwash-worker" --sort-memory 99999999999G)" 2
expect_eq "a negative size: exit 2" "$(code_of "$bin/lodwash-worker" --archive-max-bytes -1)" 2

# --- the common options after the command
cat > "$dir/registry.yaml" <<'YAML'
after:
  void: http://127.0.0.1:9/void.ttl
YAML
expect_eq "an option after the command that needs none of Redis: --registry" \
  "$(code_of "$bin/lodwash" providers --registry "$dir/registry.yaml" --redis redis://127.0.0.1:1/0)" 1
expect_match "--registry after the command is read" \
  "$(err "$bin/lodwash" providers --registry=/nonexistent/registry.yaml)" '/nonexistent/registry.yaml'
expect_eq "an unknown option after the command is still the command's error" \
  "$(code_of "$bin/lodwash" status --frob)" 2

lw_test_require_redis
r="$LODWASH_TEST_REDIS"
expect_match "providers --registry F --redis R --prefix P (all after)" \
  "$("$bin/lodwash" providers --registry "$dir/registry.yaml" --redis "$r" --prefix "$prefix")" '^NAME .*
after '
expect_match "mixed: some before, some after" \
  "$("$bin/lodwash" --redis "$r" providers --json --prefix="$prefix" --registry "$dir/registry.yaml")" '"name": "after"'

# --- a provider disabled in the registry shows as disabled, not idle
printf 'off:\n  void: http://127.0.0.1:9/void.ttl\n  enabled: false\non:\n  void: http://127.0.0.1:9/v.ttl\n' \
  > "$dir/disabled.yaml"
providers=$("$bin/lodwash" providers --registry "$dir/disabled.yaml" --redis "$r" --prefix "$prefix")
expect_match "providers: enabled: false shows as disabled" "$providers" '
off +disabled '
expect_match "providers: the other one idle" "$providers" '
on +idle '

# --- one exit code per kind of mistake (docs/cli.md): 3 no such thing
for args in "harvest nope" "harvest cancel nope" "provider hold nope" "reclean nope"; do
  expect_eq "lodwash $args: no such provider, exit 3" \
    "$(code_of "$bin/lodwash" --redis "$r" --prefix "$prefix" --registry "$dir/registry.yaml" $args)" 3
done
expect_eq "graph nope: exit 3" "$(code_of "$bin/lodwash" --data "$dir/data" graph nope)" 3
expect_eq "seed show of no seed: exit 3" \
  "$(code_of "$bin/lodwash" --redis "$r" --prefix "$prefix" seed show http://example.org/never)" 3
expect_eq "jobs retry of no job: exit 3" \
  "$(code_of "$bin/lodwash" --redis "$r" --prefix "$prefix" jobs retry 0123456789abcdef)" 3
expect_eq "stage pause nope: a bad argument, exit 2" \
  "$(code_of "$bin/lodwash" --redis "$r" --prefix "$prefix" stage pause nope)" 2

# --- status --json --watch: JSON only, one report a line
# (LeakSanitizer's check at exit, in the sanitizer build, was seen to hang
# for good once the watch had ended on SIGINT: its tracer waiting on the main
# thread. The leak check is left out of this one run; ASan's other checks
# stay, and the plain build shows the watch ends.)
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout -s INT 5 "$bin/lodwash" --redis "$r" \
  --prefix "$prefix" status --json --watch --every 1 > "$dir/watch.out" 2>&1 || true
expect_eq "status --json --watch: every line is a JSON report" "$(python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
ok = bool(lines) and all("stages" in json.loads(l) for l in lines)
print("yes" if ok else "no: %r" % lines[:2])' "$dir/watch.out")" yes

# --- ISO 8601 times for people
"$bin/lodwash" --redis "$r" --prefix "$prefix" --allow-net 127.0.0.1 seed add http://127.0.0.1:9/a.ttl > /dev/null
iso='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z'
expect_match "seed show: added as ISO 8601" \
  "$("$bin/lodwash" seed show http://127.0.0.1:9/a.ttl --redis "$r" --prefix "$prefix")" "added +$iso"
expect_match "seed show --json: added as ISO 8601" \
  "$("$bin/lodwash" seed show http://127.0.0.1:9/a.ttl --json --redis "$r" --prefix "$prefix")" "\"added\": \"$iso\""

# --- --log-json: a worker runs a job that fails for good
"$bin/lodwash" --redis "$r" --prefix "$prefix" jobs push noop '{"seed":"s1","fail":"permanent"}' > /dev/null
timeout 60 "$bin/lodwash-worker" --redis "$r" --prefix "$prefix" --stages noop --log-json \
  --exit-when-idle 2> "$dir/worker.log" || true
expect_eq "every log line is a JSON object" "$(python3 -c '
import json, sys
bad = 0
for line in open(sys.argv[1]):
    try:
        bad += not isinstance(json.loads(line), dict)
    except ValueError:
        bad += 1
print(bad)' "$dir/worker.log")" 0
job=$(grep '"outcome"' "$dir/worker.log" | head -1)
for key in time level program stage seed job outcome ms attempt error_kind error; do
  expect_match "the job's line has its own \"$key\" key" "$job" "\"$key\":"
done
expect_match "stage is a field" "$job" '"stage":"noop"'
expect_match "outcome is a field" "$job" '"outcome":"dead"'
expect_match "ms is a number" "$job" '"ms":[0-9]+[,}]'
expect_match "a quoted value keeps its words" "$job" '"error":"noop: asked to fail \(permanent\)"'
expect_match "free text goes to msg" "$(head -1 "$dir/worker.log")" '"msg":"worker started"'
expect_match "jobs dead: the failure time as ISO 8601" \
  "$("$bin/lodwash" jobs dead --redis "$r" --prefix "$prefix")" "failed=$iso"
lw_test_done
