# Oxigraph for the sparql store's tests: its engine from the npm registry
# (package `oxigraph`), served over the SPARQL 1.1 Protocol and Graph Store
# Protocol by tests/support/oxigraph_server.js on 127.0.0.1. Source
# scripts/lib/servers.sh first: the server joins LW_SERVER_PIDS, so
# lw_servers_stop stops it.

LW_OXIGRAPH_VERSION=0.5

# Prints the folder whose node_modules holds oxigraph, installing it there
# with npm the first time (LODWASH_NPM_CACHE, default ~/.cache/lodwash/npm-oxigraph).
# Fails when node or npm is missing or the install fails.
lw_oxigraph_install() {
  local dir=${LODWASH_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lodwash/npm-oxigraph}
  command -v node > /dev/null || return 1
  if [ ! -f "$dir/node_modules/oxigraph/package.json" ]; then
    command -v npm > /dev/null || return 1
    mkdir -p "$dir" || return 1
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error \
      "oxigraph@$LW_OXIGRAPH_VERSION" > /dev/null 2>&1) || return 1
  fi
  echo "$dir"
}

# lw_start_oxigraph PORT MODULE_DIR: starts the server; endpoints
# http://127.0.0.1:PORT/query, /update and /store.
lw_start_oxigraph() {
  local port=$1 modules=$2
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  node "$here/oxigraph_server.js" "$port" "$modules" > /dev/null 2>&1 &
  LW_SERVER_PIDS+=($!)
  lw_wait_url "http://127.0.0.1:$port/query?query=ASK%7B%7D" Oxigraph 200
}
