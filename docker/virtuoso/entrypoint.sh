#!/bin/sh
# Starts Virtuoso for lodwash. On every start it makes sure lodwash's user
# (LODWASH_STORE_USER, LODWASH_STORE_PASSWORD) exists with that password and
# may update through SPARQL, so changing the password in .env takes effect
# on the next start. The dba password is VIRTUOSO_DBA_PASSWORD; when it is
# unset at the first start, one is generated and printed once.
#
# Every wait is bounded (VIRTUOSO_START_TIMEOUT seconds, default 300): a dba
# password that no longer matches the database (changed in .env after the
# first start) is a clear error, not an endless loop.
set -eu
user=${LODWASH_STORE_USER:-lodwash}
timeout=${VIRTUOSO_START_TIMEOUT:-300}
fail() {
  echo "lodwash-virtuoso: $*" >&2
  if [ -n "${pid:-}" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  exit 1
}
[ -n "${LODWASH_STORE_PASSWORD:-}" ] \
  || fail "LODWASH_STORE_PASSWORD is not set: set it in docker/.env (the workers write with it)"
sql_for_user=$(lodwash-user-sql "$user" "$LODWASH_STORE_PASSWORD") || exit 1

marker=/database/.lodwash-initialized
dba_password=${VIRTUOSO_DBA_PASSWORD:-}
if [ ! -f "$marker" ] && [ -z "$dba_password" ]; then
  dba_password=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
  echo "lodwash-virtuoso: generated the dba password (shown this once; put it in .env as VIRTUOSO_DBA_PASSWORD to keep managing lodwash's user): $dba_password"
fi

cd /database
virtuoso-t +foreground +configfile /etc/lodwash-virtuoso/virtuoso.ini &
pid=$!
trap 'kill -TERM $pid; wait $pid; exit 0' TERM INT

# try_login PASSWORD: logged_in=PASSWORD when dba may log in with it, and
# counts the refusals (a server that is not up yet is neither).
try_login() {
  out=$(isql-vt 1111 dba "$1" exec="select 1;" 2>&1) && { logged_in=$1; return 0; }
  case "$out" in *"Bad login"*) refused=$((refused + 1)) ;; esac
  return 0
}
waited=0 logged_in=""
while [ -z "$logged_in" ]; do
  kill -0 "$pid" 2>/dev/null || fail "virtuoso-t exited; the end of /database/virtuoso.log:
$(tail -15 /database/virtuoso.log 2>/dev/null)"
  if [ -z "$dba_password" ]; then
    # Generated at the first start and not given since: only wait for the
    # server; lodwash's user stays as it is.
    curl -sf -o /dev/null --max-time 2 http://127.0.0.1:8890/sparql && break
  else
    refused=0 tries=1
    try_login "$dba_password"
    # A fresh database's dba password is "dba" until the first start sets it.
    if [ -z "$logged_in" ] && [ ! -f "$marker" ]; then tries=2; try_login dba; fi
    [ -n "$logged_in" ] && break
    if [ "$refused" = "$tries" ]; then
      fail "Virtuoso refuses the dba password VIRTUOSO_DBA_PASSWORD. It was set in the database at its first start; changing it in .env does not change it. Put the old value back, or change it inside Virtuoso first (isql: USER_PASSWORD_SET('dba', 'NEW')), then in .env."
    fi
  fi
  [ "$waited" -lt "$timeout" ] || fail "Virtuoso did not accept connections within ${timeout}s (VIRTUOSO_START_TIMEOUT); see /database/virtuoso.log"
  sleep 1
  waited=$((waited + 1))
done

if [ -n "$logged_in" ]; then
  {
    echo "$sql_for_user"
    if [ "$logged_in" != "$dba_password" ]; then
      secret=$(printf '%s' "$dba_password" | base64 | tr -d '\n')
      echo "USER_PASSWORD_SET('dba', cast(decode_base64('$secret') as varchar));"
    fi
  } | isql-vt 1111 dba "$logged_in" > /dev/null 2>&1 || true
  touch "$marker"
  echo "lodwash-virtuoso: ready; user $user may update through /sparql-auth"
fi
wait "$pid"
