#!/usr/bin/env bash
# A Redis on the same machine by its Unix socket (unix:///path?db=N): the
# real scheduler, workers and CLI harvest a provider over it, in a database
# other than 0, and end with the graph a TCP run gives; a socket that is not
# there is a clear error.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
command -v redis-server > /dev/null || lw_test_skip "no redis-server"
source "$(dirname "$0")/../scripts/lib/servers.sh"
source "$(dirname "$0")/support/harvests.sh"
prefix="lwtest:unix:$$:"
dir=$(mktemp -d)
trap 'hv_stop; lw_servers_stop; rm -rf "$dir"' EXIT
rport=$(hv_port)
sock="$dir/redis.sock"
lw_start_redis "$rport" --unixsocket "$sock" --unixsocketperm 700
hv_init "$dir"
hv_dump d1 40 d1
hv_dump d2 25 d2
hv_provider "$dir/reg.yaml" prov d1 d2
mkdir -p "$dir/tcp" "$dir/unix"

# over TCP, for the graph to compare with
export LODWASH_TEST_REDIS="redis://127.0.0.1:$rport/0"
hv_sched "$prefix" "$dir/reg.yaml" "$dir/tcp" 2> /dev/null
hv_workers "$prefix" "$dir/tcp" 1
expect_eq "over TCP: harvest done" "$(hv_harvest "$prefix" prov status)" done

# over the socket, database 3
export LODWASH_TEST_REDIS="unix://$sock?db=3"
hv_sched "$prefix" "$dir/reg.yaml" "$dir/unix" 2> "$dir/sched.log"
hv_workers "$prefix" "$dir/unix" 2
expect_eq "over the socket: harvest done" \
  "$(redis-cli -s "$sock" -n 3 HGET "${prefix}harvest:$(redis-cli -s "$sock" -n 3 HGET "${prefix}provider:prov" harvest)" status)" done
expect_eq "the same graph as over TCP" "$(hv_graph "$dir/unix" prov | md5sum)" \
  "$(hv_graph "$dir/tcp" prov | md5sum)"
expect_eq "all 88 triples of the two dumps" "$(hv_graph "$dir/unix" prov | wc -l)" 88
expect_eq "database 0 untouched by the socket's run" \
  "$(redis-cli -s "$sock" -n 0 EXISTS "${prefix}provider:prov")" 1
expect_eq "the keys in database 3" "$(redis-cli -s "$sock" -n 3 EXISTS "${prefix}provider:prov")" 1
status=$("$LODWASH_BINARY_DIR/lodwash" --redis "unix://$sock?db=3" --prefix "$prefix" \
  status --json)
expect_eq "lodwash status over the socket: 2 seeds parsed" \
  "$(echo "$status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seeds"].get("parsed", 0))')" 2

# no socket there: a clear error, exit 1, no hang
set +e
out=$("$LODWASH_BINARY_DIR/lodwash" --redis "unix://$dir/none.sock" status 2>&1)
rc=$?
set -e
expect_eq "missing socket: exit 1" "$rc" 1
expect_match "missing socket: says where" "$out" "cannot connect to Redis at $dir/none.sock"
lw_test_done
