#!/usr/bin/env bash
# A dump that is an archive of many small files (one file per resource, as
# some providers publish): the import reads its 300 clean files 64 at a
# time, in rounds through DATA/tmp, so that it runs within a worker's
# descriptors and memory. The workers run with 200 descriptors: reading all
# 300 at once fails there ("Too many open files"). The real scheduler and
# workers, over loopback HTTP; the graph must hold every triple of the
# archive once, and DATA/tmp nothing after.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$(dirname "$0")/support/harvests.sh"
lw_test_require_redis

hv_setup many
hv_init "$dir"
mkdir -p "$dir/gen" "$dir/data"
python3 - "$dir/gen" <<'PY'
import sys
for f in range(300):
    with open(f"{sys.argv[1]}/r{f:03d}.nt", "w") as out:
        for k in range(5):
            # subjects shared by neighbouring files, a line repeated in the next file
            out.write(f'<http://example.org/many/s{(f + k) % 310}> <http://example.org/p{k}> "{(f + k) % 310} {k}" .\n')
        out.write(f'<http://example.org/many/r{f}> <http://example.org/in> "file {f}" .\n')
PY
tar -C "$dir/gen" -czf "$dir/www/many.tar.gz" .
cat > "$dir/www/many-void.ttl" <<EOF2
@prefix void: <http://rdfs.org/ns/void#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<#ds> a void:Dataset ; dcterms:modified "2020-01-01"^^xsd:date ;
  void:dataDump <$HV_BASE/many.tar.gz> .
EOF2
printf 'many:\n  void: %s\n' "$HV_BASE/many-void.ttl" > "$dir/registry.yaml"

hv_sched "$prefix" "$dir/registry.yaml" "$dir/data" 2>> "$dir/sched.log"
(ulimit -n 200 && hv_workers "$prefix" "$dir/data" 2)
expect_eq "harvest done" "$(hv_harvest "$prefix" many status)" done
expect_eq "its 300 clean files imported" "$(hv_harvest "$prefix" many files)" 300
expect_eq "the graph holds every triple of the archive, once" \
  "$(hv_graph "$dir/data" many | sed -E 's/ <[^ >]*> \.$/ ./' | md5sum)" \
  "$(cat "$dir"/gen/*.nt | LC_ALL=C sort -u | md5sum)"
expect_eq "nothing left in DATA/tmp" "$(find "$dir/data/tmp" -type f 2>/dev/null | wc -l)" 0
lw_test_done
