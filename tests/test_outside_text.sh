#!/usr/bin/env bash
# What strangers and providers send, and what an operator mistypes, stays
# harmless when printed (issue 24, item 7), each compared with an
# undisturbed run:
#   - a malformed Redis URL holding a password: every program exits 2 at
#     once with a clear message, and the password is nowhere;
#   - a provider's dcterms:modified holding a newline and quotes forges no
#     log line (plain) and no field (--log-json);
#   - every page of the scheduler forbids framing (X-Frame-Options, CSP);
#   - an import that fails for good ends its harvest at once (failed, the
#     provider in error), not after the harvest timeout.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis
source "$(dirname "$0")/support/harvests.sh"
hv_setup outside
hv_init "$dir"
reg="$dir/registry.yaml"
data="$dir/data"
mkdir -p "$data"
bin="$LODWASH_BINARY_DIR"

# --- a malformed Redis URL
bad='redis://admin:s3cret@127.0.0.1:notaport/0'
for prog in lodwash-scheduler lodwash-worker lodwash; do
  args=(--redis "$bad" --registry "$reg" --data "$data")
  [ "$prog" = lodwash ] && args=(--redis "$bad" status)
  [ "$prog" = lodwash-worker ] && args=(--redis "$bad" --data "$data" --exit-when-idle)
  code=0
  out=$(timeout 20 "$bin/$prog" "${args[@]}" 2>&1) || code=$?
  expect_eq "$prog: a malformed Redis URL is exit 2" "$code" 2
  expect_match "$prog: says so" "$out" "bad Redis URL 'redis://127.0.0.1:notaport/0': bad port"
  expect_eq "$prog: never the password" "$(echo "$out" | grep -c s3cret || true)" 0
done

# --- providers: one undisturbed, one whose import fails for good, one
# whose VoID forges log lines
hv_dump good 20
hv_provider "$reg" good good
hv_dump doomed 20 doomed
hv_provider "$reg" doomed doomed
forged='2026-01-01\" level=error provider=victim x=\"\n2001-01-01T00:00:00.000Z error lodwash-scheduler provider=victim outcome=error'
{
  echo '@prefix void: <http://rdfs.org/ns/void#> .'
  echo '@prefix dcterms: <http://purl.org/dc/terms/> .'
  echo "<#ds> a void:Dataset ; dcterms:modified \"$forged\" ; void:dataDump <$HV_BASE/good.nt> ."
} > "$dir/www/forge-void.ttl"
printf 'forge:\n  void: %s\n' "$HV_BASE/forge-void.ttl" >> "$reg"

code=0
hv_sched "$prefix" "$reg" "$data" 2> "$dir/plain.log" || code=$?
expect_eq "undisturbed: a scheduler cycle with a good URL" "$code" 0
expect_match "the forged date is reported, escaped" "$(grep provider=forge "$dir/plain.log")" \
  'is not a date'
expect_eq "plain log: every line is one of the scheduler's" \
  "$(grep -cvE '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z (error|warn|info|debug) lodwash-scheduler ' \
    "$dir/plain.log" || true)" 0
expect_eq "plain log: no forged line" "$(grep -c '^2001-01-01' "$dir/plain.log" || true)" 0
# the same cycle with JSON logs, under a prefix of its own (a first visit)
hv_sched "${prefix}json:" "$reg" "$dir/data-json" --log-json 2> "$dir/json.log" || true
expect_eq "JSON log: every line an object, no forged provider or level" \
  "$(python3 -c '
import json, sys
bad = 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    bad += o.get("provider") == "victim" or o.get("level") not in ("error", "warn", "info", "debug")
print(bad)' "$dir/json.log")" 0

# --- the import of doomed fails for good: its graph's place is a file
mkdir -p "$data/graphs"
echo "not a database" > "$data/graphs/doomed.lmdb"
hv_workers "$prefix" "$data" 2 --max-attempts 1
expect_eq "undisturbed: good's harvest is done" "$(hv_harvest "$prefix" good status)" done
expect_eq "doomed's harvest failed at once" "$(hv_harvest "$prefix" doomed status)" failed
expect_match "with the import's error" "$(hv_harvest "$prefix" doomed error)" \
  '^the import failed for good: '
expect_eq "doomed is in error (tried again later)" \
  "$(redis-cli -u "$LODWASH_TEST_REDIS" HGET "${prefix}provider:doomed" state)" error

# --- the pages forbid framing
port=$(hv_port)
LODWASH_ADMIN_TOKEN="t$$" "$bin/lodwash-scheduler" --redis "$LODWASH_TEST_REDIS" \
  --prefix "$prefix" --registry "$reg" --data "$data" --allow-net 127.0.0.1 --interval 3600 \
  --metrics-port "$port" 2> "$dir/pages.log" &
HV_PIDS+=($!)
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
for page in / /healthz /providers /dead /nothing; do
  headers=$(curl -s -D - -o /dev/null --max-time 10 "http://127.0.0.1:$port$page" | tr -d '\r')
  expect_match "$page: X-Frame-Options" "$headers" $'\n''X-Frame-Options: DENY'
  expect_match "$page: CSP frame-ancestors" "$headers" \
    $'\n'"Content-Security-Policy: frame-ancestors 'none'"
done
headers=$(curl -s -D - -o /dev/null --max-time 10 -X POST -d token=t$$ \
  "http://127.0.0.1:$port/actions/retry-dead" | tr -d '\r')
expect_match "an action's answer: X-Frame-Options" "$headers" 'X-Frame-Options: DENY'
lw_test_done
