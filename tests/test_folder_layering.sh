#!/usr/bin/env bash
# The folders depend one way (docs/design.md, "Libraries and layers"). The
# allowed dependencies are written down once, in CMakeLists.txt (lw_layer
# USES), which writes them to the build's layering.txt; the build already
# refuses an #include of a folder that is not used directly or through
# another. This test is stricter: every #include "F/..." in a folder's
# sources must name the folder itself or one it uses directly, and a
# library's header seen from outside it is its one public header
# (F/F.h), never a private one (the pipeline's folders, queue/ to tools/,
# have no such header yet). Tests and scripts are not checked.
#
# The exceptions in layering.txt (lw_layer_exception) are the wrong-way
# includes not removed yet; one that is gone fails the test too, so that it
# is struck from CMakeLists.txt.
set -euo pipefail
root="${LODWASH_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
build="${LODWASH_BINARY_DIR:-$root/build}"
table="$build/layering.txt"
[[ -f $table ]] || { echo "no $table: configure with cmake first" >&2; exit 1; }
cd "$root"

declare -A uses=() library=() exception=() exception_seen=()
while read -r kind a b rest; do
  case $kind in
    library|folder)
      uses[$a]=" ${b:+$b }$rest "
      [[ $kind == library ]] && library[$a]=1 ;;
    except) exception["$a $b"]=$rest ;;
  esac
done < <(grep -v '^#' "$table")

fail=0
complain() { echo "FAIL $*" >&2; fail=1; }

# Every top-level folder holding C sources is a layer.
for dir in $(git ls-files '*.c' '*.h' | grep / | cut -d/ -f1 | sort -u); do
  case $dir in tests|scripts|docker|examples|docs) continue ;; esac
  [[ -n ${uses[$dir]+x} ]] || complain "$dir/ has C sources but no lw_layer($dir ...) in CMakeLists.txt"
done

checked=0
for dir in "${!uses[@]}"; do
  [[ -d $dir ]] || continue
  for file in "$dir"/*.c "$dir"/*.h; do
    [[ -f $file ]] || continue
    while IFS= read -r inc; do
      target=${inc%%/*}
      checked=$((checked + 1))
      if [[ $target == "$dir" ]]; then
        continue
      fi
      if [[ -n ${exception["$file $target"]+x} ]]; then
        exception_seen["$file $target"]=1
        continue
      fi
      if [[ -z ${uses[$target]+x} ]]; then
        complain "$file includes $inc: $target/ is no folder of the layers"
      elif [[ ${uses[$dir]} != *" $target "* ]]; then
        complain "$file includes $inc: $dir/ may not use $target/ (allowed:${uses[$dir]% })"
      elif [[ -n ${library[$target]+x} && $inc != "$target/$target.h" ]]; then
        complain "$file includes $inc: outside $target/ only its header $target/$target.h"
      fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\/[^"]*\)".*/\1/p' "$file")
  done
done

for key in "${!exception[@]}"; do
  if [[ -z ${exception_seen[$key]+x} ]]; then
    complain "${key% *} no longer includes ${key#* }/: remove its lw_layer_exception from CMakeLists.txt"
  fi
done

if [[ $fail -eq 0 ]]; then
  echo "ok: $checked includes in ${#uses[@]} folders follow the layering (${#exception[@]} exceptions left)"
fi
exit $fail
