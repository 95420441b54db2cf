#!/usr/bin/env bash
# A registry broken by an edit while the stack runs (issue 23): the
# scheduler keeps the last good registry, and so does everything the
# operator looks at. After a real harvest of the example providers,
# registry.yaml gets a YAML error the way an editor saves it (sed -i: a new
# file renamed over the old one). Then the overview and /providers show the
# error (file and line) above the last good providers, every provider page
# answers 200, /metrics keeps every lodwash_provider_* series and says
# lodwash_registry_ok 0 with the time of the last good reading, and
# `lodwash providers` lists them (exit 0) with the error on stderr. Fixed,
# all is as before.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis
source "$(dirname "$0")/support/harvest.sh"

prefix="lwtest:registry:$$:"
dir=$(mktemp -d)
trap 'lw_harvest_stop; lw_servers_stop; rm -rf "$dir"; lw_test_redis_cleanup "$prefix"' EXIT
lw_harvest_start "$dir" "$prefix" 1
lw_harvest_wait
bin="$LODWASH_BINARY_DIR"
page() { curl -s "$LW_PAGES$1"; }
code() { curl -s -o /dev/null -w '%{http_code}' "$LW_PAGES$1"; }
metric() { page /metrics | grep -v '^#' | grep -F "$1 " | head -1 | awk '{print $NF}'; }

expect_eq "a good registry: lodwash_registry_ok 1" "$(metric lodwash_registry_ok)" 1
good_at=$(metric lodwash_registry_last_good_timestamp_seconds)
expect_match "the time of the last good reading" "$good_at" '^[0-9]{10}\.[0-9]{3}$'

# --- broken by an edit: an unclosed flow sequence on line 2
cp "$dir/registry.yaml" "$dir/registry.good"
sed -i '2s/$/ [unclosed/' "$dir/registry.yaml"
for _ in $(seq 300); do
  grep -q 'outcome=error keeping=last-good' "$dir/scheduler.log" && break
  sleep 0.1
done
expect_match "the scheduler keeps the last good registry" "$(cat "$dir/scheduler.log")" \
  'registry=.* outcome=error keeping=last-good'
overview=$(page /)
expect_match "overview: the error with the file and a line" "$overview" \
  "<p id=\"registry-error\" class=\"bad\">The registry does not load: $dir/registry.yaml:[0-9]+:[0-9]+: "
expect_match "overview: the last good providers, not 0" "$overview" 'Providers: 3</a>'
providers=$(page /providers)
expect_eq "/providers: 200" "$(code /providers)" 200
expect_match "/providers: the error" "$providers" 'id="registry-error"'
expect_eq "/providers: the three providers" "$(echo "$providers" | grep -o '<tr class="provider"' | wc -l)" 3
for p in library museum city; do
  expect_eq "/providers/$p: 200" "$(code "/providers/$p")" 200
  expect_eq "metrics: $p's state still there" \
    "$(metric "lodwash_provider_state{provider=\"$p\",state=\"idle\"}")" 1
  expect_match "metrics: $p's triples still there" \
    "$(metric "lodwash_provider_triples{provider=\"$p\"}")" '^[0-9]+$'
done
expect_eq "metrics: lodwash_registry_ok 0" "$(metric lodwash_registry_ok)" 0
expect_match "metrics: the last good reading's time kept" \
  "$(metric lodwash_registry_last_good_timestamp_seconds)" '^[0-9]{10}\.[0-9]{3}$'
rc=0
"$bin/lodwash" providers > "$dir/providers.out" 2> "$dir/providers.err" || rc=$?
expect_eq "lodwash providers: exit 0" "$rc" 0
expect_eq "lodwash providers: the three" "$(grep -cE '^(library|museum|city) ' "$dir/providers.out")" 3
expect_match "lodwash providers: the error on stderr, with the file" \
  "$(cat "$dir/providers.err")" "registry does not load: $dir/registry.yaml:[0-9]+"
expect_eq "lodwash provider hold of a last good provider: exit 0" \
  "$(rc=0; "$bin/lodwash" provider hold museum > /dev/null 2>&1 || rc=$?; echo "$rc")" 0
"$bin/lodwash" provider release museum > /dev/null 2>&1
expect_match "lodwash harvest of a last good provider: started" \
  "$("$bin/lodwash" harvest museum 2> /dev/null)" '^museum: harvest museum:.* (started|is running)'
expect_eq "lodwash harvest of a provider in neither: exit 3" \
  "$(rc=0; "$bin/lodwash" harvest nope > /dev/null 2>&1 || rc=$?; echo "$rc")" 3
expect_match "status --json: the registry's state" \
  "$("$bin/lodwash" status --json | python3 -c 'import json,sys; r=json.load(sys.stdin)["registry"]; print(r["ok"], r["error"])')" \
  "^False $dir/registry.yaml:"

# --- fixed: as before
cp "$dir/registry.good" "$dir/registry.yaml.new" && mv "$dir/registry.yaml.new" "$dir/registry.yaml"
for _ in $(seq 300); do
  [ "$(metric lodwash_registry_ok)" = 1 ] && break
  sleep 0.1
done
expect_eq "fixed: lodwash_registry_ok 1" "$(metric lodwash_registry_ok)" 1
expect_eq "fixed: no error on the overview" "$(page / | grep -c 'registry-error' || true)" 0
lw_test_done
