#!/usr/bin/env bash
# The records layer owns Redis (issue 11, docs/queue.md "Who owns which
# keys"): outside queue/, no source file builds a key (lw_key, LW_KEY_*) or
# sends a Redis command itself (hiredis' redisCommand*/redisAppendCommand*/
# redisGetReply, or lw_redis_cmd, lw_redis_argv, lw_script_run,
# lw_script_load, lw_record_get or lw_txn_command with a key, or a
# redisReply). Connecting (lw_redis_connect) and passing the records handle
# (LwRecords, queue/redis.h) to queue/ functions is allowed; hiredis itself
# (#include <hiredis/...>, redisContext) is not, so that the handle stays
# opaque: only queue/ sends commands. Tests are not checked: they read Redis
# as an operator would, to assert on it.
#
# ALLOWED lists what is not moved yet, each with its reason. The list must
# shrink: an entry that no longer offends fails the test too, so that it is
# removed when its file is moved.
set -euo pipefail
root="${LODWASH_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"

pattern='lw_key\(|LW_KEY_|redisCommand|redisAppendCommand|redisGetReply|lw_redis_cmd\(|lw_redis_argv\(|lw_script_run\(|lw_script_load\(|lw_record_get\(|lw_txn_command\(|redisReply|redisContext|redisFree|hiredis/|queue/redis_cmd\.h'

# "file: reason" for each file not moved yet (none left today).
ALLOWED=()

allowed_file() {
  local f=$1 entry
  for entry in "${ALLOWED[@]}"; do
    [[ "${entry%%:*}" == "$f" ]] && return 0
  done
  return 1
}

# Every folder of C sources but queue/ (and the tests and benchmarks,
# which read Redis as an operator would): a new folder is checked too.
outside=$(find . -mindepth 2 -maxdepth 2 -name '*.[ch]' | cut -d/ -f2 | sort -u |
            grep -vxE 'queue|tests|scripts|build.*')

fail=0
offenders=$(grep -rlE "$pattern" --include='*.c' --include='*.h' $outside | sort || true)
for f in $offenders; do
  if ! allowed_file "$f"; then
    echo "FAIL $f talks to Redis or names a key outside queue/:" >&2
    grep -nE "$pattern" "$f" | sed 's/^/    /' >&2
    fail=1
  fi
done
# The queue/ headers that code outside queue/ includes keep the handle
# opaque: they do not bring hiredis (or queue/redis_cmd.h) in with them.
public=$(grep -rhoE '#include "queue/[a-z_]+\.h"' --include='*.c' --include='*.h' \
           $outside | sed -E 's/#include "(.*)"/\1/' | sort -u)
for h in $public; do
  if grep -nE '#include <hiredis|#include "queue/redis_cmd\.h"' "$h" >/dev/null; then
    echo "FAIL $h is included outside queue/ but includes hiredis:" >&2
    grep -nE '#include <hiredis|#include "queue/redis_cmd\.h"' "$h" | sed 's/^/    /' >&2
    fail=1
  fi
done
for entry in "${ALLOWED[@]}"; do
  f="${entry%%:*}"
  if ! grep -qE "$pattern" "$f" 2>/dev/null; then
    echo "FAIL $f is allowed to talk to Redis but no longer does: remove it from ALLOWED" >&2
    fail=1
  fi
done
if [[ $fail -eq 0 ]]; then
  echo "ok: outside queue/ only ${#ALLOWED[@]} allowed files talk to Redis"
fi
exit $fail
