#!/bin/sh
# Starts Virtuoso; on the first start, sets the dba password and creates the
# user lodwash writes with (LODWASH_STORE_USER / LODWASH_STORE_PASSWORD).
set -eu
: "${DBA_PASSWORD:?set DBA_PASSWORD}"
: "${LODWASH_STORE_USER:=lodwash}"
: "${LODWASH_STORE_PASSWORD:?set LODWASH_STORE_PASSWORD}"
cd /database
virtuoso-t +foreground +configfile /etc/lodwash-virtuoso/virtuoso.ini &
pid=$!
trap 'kill -TERM $pid; wait $pid' TERM INT
until isql-vt 1111 dba "$DBA_PASSWORD" exec="select 1;" >/dev/null 2>&1 \
   || isql-vt 1111 dba dba exec="select 1;" >/dev/null 2>&1; do
  sleep 1
done
if [ ! -f /database/.lodwash-initialized ]; then
  isql-vt 1111 dba dba <<SQL
DB.DBA.USER_CREATE('$LODWASH_STORE_USER', '$LODWASH_STORE_PASSWORD');
GRANT SPARQL_UPDATE TO "$LODWASH_STORE_USER";
DB.DBA.RDF_DEFAULT_USER_PERMS_SET('nobody', 1);
DB.DBA.RDF_DEFAULT_USER_PERMS_SET('$LODWASH_STORE_USER', 3);
USER_PASSWORD_SET('dba', '$DBA_PASSWORD');
SQL
  touch /database/.lodwash-initialized
fi
wait $pid
