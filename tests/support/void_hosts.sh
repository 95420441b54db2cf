# Loopback hosts that serve VoIDs and record every request, for the VoID
# politeness tests (sourced after redis_shell.sh and lw_sh_init):
#   lw_vh_serve ADDRESS...   tests/support/host_log_server.py on them,
#                            files in $www/ADDRESS/, requests in
#                            $LW_SH_TMP/requests; sets $port
#   lw_vh_provider NAME HOST a provider whose VoID is on HOST, added to
#                            $reg (the registry)
www=$LW_SH_TMP/www
reg=$LW_SH_TMP/registry.yaml

lw_vh_serve() {
  local address
  for address in "$@"; do mkdir -p "$www/$address"; done
  python3 "$LODWASH_SOURCE_DIR/tests/support/host_log_server.py" "$www" "$LW_SH_TMP/requests" \
    "$LW_SH_TMP/port" "$@" &
  LW_SH_PIDS+=($!)
  lw_sh_wait_for 10 test -s "$LW_SH_TMP/port"
  port=$(cat "$LW_SH_TMP/port")
}

lw_vh_provider() {
  cat > "$www/$2/$1.ttl" <<TTL
@prefix void: <http://rdfs.org/ns/void#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
<#d> a void:Dataset ; dcterms:modified "2020-01-01" ; void:dataDump <http://$2:$port/$1.nt> .
TTL
  printf '%s:\n  void: http://%s:%s/%s.ttl\n' "$1" "$2" "$port" "$1" >> "$reg"
}
