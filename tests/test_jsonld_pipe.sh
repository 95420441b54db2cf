#!/usr/bin/env bash
# The W3C toRdf suite again, every input read through a pipe: the
# non-seekable path (streamed arrays, objects replayed into jansson).
set -u
bin="${LODWASH_BINARY_DIR:?}/tests/test_jsonld_suite"
[ -x "$bin" ] || { echo "SKIP: $bin not built"; exit 77; }
JSONLD_VIA_PIPE=1 exec "$bin"
