#!/usr/bin/env bash
# docs/operations.md's alert rules and Grafana dashboard: both parse, and
# every metric name they use is one a running scheduler's /metrics exports
# (scraped for real; a histogram's _bucket, _sum and _count are its own).
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis
source "$LODWASH_SOURCE_DIR/scripts/lib/servers.sh"
docs="$LODWASH_SOURCE_DIR/docs"
prefix="lwtest:operations:$$:"
dir=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }; rm -rf "$dir"; lw_test_redis_cleanup "$prefix"' EXIT

printf 'p:\n  void: http://127.0.0.1:9/void.ttl\n' > "$dir/registry.yaml"
port=$(lw_free_port)
"$LODWASH_BINARY_DIR/lodwash-scheduler" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
  --registry "$dir/registry.yaml" --data "$dir/data" --interval 1 --metrics-port "$port" \
  2> "$dir/scheduler.log" &
pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
"$LODWASH_BINARY_DIR/lodwash" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" jobs push noop '{}' > /dev/null
curl -s "http://127.0.0.1:$port/metrics" > "$dir/metrics.txt"
exported=$(grep '^# TYPE ' "$dir/metrics.txt" | awk '{print $3}' | sort -u)
expect_match "the scrape has families" "$exported" 'lodwash_jobs'

rules="$docs/prometheus-alerts.yml"
grafana="$docs/grafana-dashboard.json"
exprs=$(python3 - "$rules" "$grafana" <<'PY'
import json, sys, yaml
rules = yaml.safe_load(open(sys.argv[1]))
for group in rules["groups"]:
    for rule in group["rules"]:
        assert rule["alert"] and rule["expr"], rule
        print(rule["expr"])
dash = json.load(open(sys.argv[2]))
for panel in dash["panels"]:
    for target in panel["targets"]:
        print(target["expr"])
PY
) || exprs=""
expect_match "the alert rules and the dashboard parse" "$exprs" 'lodwash_'
used=$(echo "$exprs" | grep -oE 'lodwash_[a-z_]+' | sed -E 's/_(bucket|sum|count)$//' | sort -u)
for m in $used; do
  expect_match "$m is exported by /metrics" "$exported" "(^|
)$m(\$|
)"
done
expect_eq "the alert on providers not harvested" "$(grep -c 'time() - lodwash_provider_last_harvest_timestamp_seconds' "$rules")" 1
for alert in LodwashProviderNotHarvested LodwashDeadJobsGrowing LodwashNoWorkerAlive LodwashHarvestRunningTooLong; do
  expect_match "alert $alert" "$(cat "$rules")" "alert: $alert"
  expect_match "docs/operations.md lists $alert" "$(cat "$docs/operations.md")" "$alert"
done
# the documented expressions are the ones in the file
python3 - "$rules" "$docs/operations.md" <<'PY' && lw_pass || lw_fail "operations.md shows the rules' expressions"
import sys, yaml
doc = open(sys.argv[2]).read()
for group in yaml.safe_load(open(sys.argv[1]))["groups"]:
    for rule in group["rules"]:
        assert "`%s`" % rule["expr"] in doc, rule["expr"]
PY
lw_test_done
