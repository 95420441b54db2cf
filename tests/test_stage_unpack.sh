#!/usr/bin/env bash
# The unpack stage through a real lodwash-worker and Redis: a downloaded
# tar.gz holding a Latin-1 Turtle file, a zip (holding N-Triples) and a
# symlink is unpacked level by level into child seeds; the data files get
# their encoding settled and a guess job; a gzip bomb fails its seed alone.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
source "$LODWASH_SOURCE_DIR/tests/support/queue_lua.sh"
lw_test_require_redis

lw_test_scratch unpack
work=$(mktemp -d)
lw_test_scratch_extra() { rm -rf "$work"; }
md5() { printf '%s' "$1" | md5sum | cut -c1-32; }
shard() { echo "$1/${2:0:2}/${2:2:2}/$2"; }

# the dump: a.ttl (Latin-1: é as 0xE9), nested/inner.zip (b.nt), link -> /etc/passwd
mkdir -p "$work/src/nested" "$work/zip"
printf '@prefix ex: <http://example.org/> .\nex:montreal ex:label "Montr\xe9al, Qu\xe9bec, caf\xe9 cr\xe8me, for\xeat" .\nex:geneve ex:label "Gen\xe8ve, pr\xe8s du L\xe9man, tr\xe8s visit\xe9e en \xe9t\xe9" .\n' > "$work/src/a.ttl"
printf '<http://example.org/b> <http://example.org/p> "b" .\n' > "$work/zip/b.nt"
(cd "$work/zip" && bsdtar --format zip -cf "$work/src/nested/inner.zip" b.nt)
ln -s /etc/passwd "$work/src/link"

parent=$(md5 "http://example.org/dumps.tar.gz")
mkdir -p "$(dirname "$data/$(shard raw "$parent")")"
(cd "$work/src" && bsdtar -czf "$data/$(shard raw "$parent")" a.ttl nested link)

r HSET "${prefix}seed:$parent" status filed uri http://example.org/dumps.tar.gz \
  provider geo harvest h1 > /dev/null
r HSET "${prefix}harvest:h1" provider geo status running pending 2 > /dev/null
r SADD "${prefix}harvest:h1:expected" "$parent" other-dump > /dev/null

worker() {
  "$LODWASH_BINARY_DIR/lodwash-worker" --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" \
    --data "$data" --exit-when-idle "$@"
}
# The script cache is flushed first: an ack that meets NOSCRIPT must not
# count twice.
r SCRIPT FLUSH > /dev/null

lw "$prefix" jobs push unpack "{\"seed\":\"$parent\",\"harvest\":\"h1\"}" > /dev/null
worker --stages unpack 2> "$work/worker.log" || { cat "$work/worker.log"; exit 1; }

ttl=$(md5 "${parent}a.ttl")
zip=$(md5 "${parent}nested/inner.zip")
nt=$(md5 "${zip}b.nt")

# the archive
expect_eq "archive status" "$(r HGET "${prefix}seed:$parent" status)" depleted
expect_eq "children" "$(r HGET "${prefix}seed:$parent" children)" "[\"$ttl\",\"$zip\"]"
expect_match "symlink skipped" "$(r HGET "${prefix}seed:$parent" skipped)" \
  '"path":"link".*"filetype":"symlink".*"target":"/etc/passwd"'
expect_match "archive format" "$(r HGET "${prefix}seed:$parent" archive_format)" \
  '"format":".*tar.*","filters":\["gzip"\]'

# the Latin-1 file: a child, recoded to UTF-8
expect_eq "ttl status" "$(r HGET "${prefix}seed:$ttl" status)" unarchived
expect_eq "ttl parent" "$(r HGET "${prefix}seed:$ttl" parent)" "$parent"
expect_match "ttl encoding" "$(r HGET "${prefix}seed:$ttl" encoding)" '^(ISO-8859-1|WINDOWS-1252)$'
expect_eq "ttl file" "$(r HGET "${prefix}seed:$ttl" file)" "$(shard utf8 "$ttl")"
expect_eq "ttl original" "$(r HGET "${prefix}seed:$ttl" original_file)" "$(shard raw "$ttl")"
expect_match "ttl utf-8 text" "$(cat "$data/$(shard utf8 "$ttl")")" 'Montréal, Québec'
expect_eq "ttl raw bytes kept" "$(md5sum < "$data/$(shard raw "$ttl")" | cut -c1-32)" \
  "$(md5sum < "$work/src/a.ttl" | cut -c1-32)"
expect_match "ttl archive meta" "$(r HGET "${prefix}seed:$ttl" archive)" \
  '"path":"a.ttl".*"size":[0-9]+.*"format"'
expect_match "ttl content" "$(r HGET "${prefix}seed:$ttl" content)" \
  "\"hash\":\"$(md5sum < "$work/src/a.ttl" | cut -c1-32)\".*\"number_of_lines\":3"
expect_eq "ttl provider" "$(r HGET "${prefix}seed:$ttl" provider)" geo
expect_eq "ttl depth" "$(r HGET "${prefix}seed:$ttl" depth)" 1

# the nested zip and its N-Triples file, two levels down
expect_eq "zip status" "$(r HGET "${prefix}seed:$zip" status)" depleted
expect_eq "zip children" "$(r HGET "${prefix}seed:$zip" children)" "[\"$nt\"]"
expect_eq "nt status" "$(r HGET "${prefix}seed:$nt" status)" unarchived
expect_eq "nt encoding" "$(r HGET "${prefix}seed:$nt" encoding)" ASCII
# not recoded: its own raw file, which the record does not repeat
# (lw_seed_default_file: lodwash seed show prints it)
expect_eq "nt file (not recoded)" "$(r HEXISTS "${prefix}seed:$nt" file)" 0
expect_match "nt file (seed show)" "$("$LODWASH_BINARY_DIR/lodwash" --redis "$LODWASH_TEST_REDIS" \
  --prefix "$prefix" seed show "$nt")" $'\n''file +'"$(shard raw "$nt")"$'\n'
expect_eq "nt file there" "$([ -f "$data/$(shard raw "$nt")" ] && echo yes)" yes
expect_eq "nt depth" "$(r HGET "${prefix}seed:$nt" depth)" 2
expect_eq "nt harvest" "$(r HGET "${prefix}seed:$nt" harvest)" h1

# follow-up work and the harvest's bookkeeping: 2 dumps, the archive became
# 2 entries (+1), the zip became 1 (+0)
expect_eq "guess jobs" "$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:guess")" 2
expect_eq "harvest pending" "$(r HGET "${prefix}harvest:h1" pending)" 3
# (and, downloaded, the tar.gz's own size: the chain's expansion ratio)
expect_eq "harvest budget: the tar.gz's bytes, files and size" \
  "$(r HGET "${prefix}unpacked:h1" "$parent")" \
  "$(( $(stat -c %s "$data/$(shard raw "$ttl")") + $(stat -c %s "$data/$(shard raw "$zip")") )) 2 $(stat -c %s "$data/$(shard raw "$parent")")"
expect_eq "harvest budget: the zip's" "$(r HGET "${prefix}unpacked:h1" "$zip")" \
  "$(stat -c %s "$data/$(shard raw "$nt")") 1"
expect_eq "no file outside the store" \
  "$(find "$data" -type f | grep -Ev "/(raw|utf8)/../../[0-9a-f]{32}$" || true)" ""

# the same job again: nothing changes
lw "$prefix" jobs push unpack "{\"seed\":\"$parent\",\"harvest\":\"h1\"}" > /dev/null
worker --stages unpack 2> /dev/null
expect_eq "pending after a rerun" "$(r HGET "${prefix}harvest:h1" pending)" 3
expect_eq "guess jobs after a rerun" "$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:guess")" 2

# a new harvest of the same dump: its children exist from the last one.
# Either they start again (added -> filed), or, while the seed machine does
# not allow that, the archive fails with a clear message and no half-made
# records.
r HSET "${prefix}seed:$parent" status filed > /dev/null
lw "$prefix" jobs push unpack "{\"seed\":\"$parent\",\"harvest\":\"h1\"}" > /dev/null
worker --stages unpack 2> /dev/null || true
case "$(r HGET "${prefix}seed:$parent" status)" in
  depleted)
    expect_eq "re-harvest: child again" "$(r HGET "${prefix}seed:$ttl" status)" unarchived ;;
  *)
    expect_eq "re-harvest refused" "$(r HGET "${prefix}seed:$parent" status)" failed
    expect_match "re-harvest message" "$(r HGET "${prefix}seed:$parent" error)" \
      "entry seed $ttl .* is unarchived and cannot be filed again"
    expect_eq "re-harvest: child untouched" "$(r HGET "${prefix}seed:$ttl" status)" unarchived ;;
esac
expect_eq "re-harvest: no extra guess job" "$(r EVAL "$LW_QUEUE_LEN_LUA" 1 "${prefix}queue:guess")" 2

# a gzip bomb fails its own seed, with the cap in the message
bomb=$(md5 "http://example.org/bomb.nt.gz")
mkdir -p "$(dirname "$data/$(shard raw "$bomb")")"
{ yes '<http://example.org/a> <http://example.org/b> "c" .' || true; } | head -c 64000000 \
  | gzip -9 > "$data/$(shard raw "$bomb")"
r HSET "${prefix}seed:$bomb" status filed uri http://example.org/bomb.nt.gz > /dev/null
lw "$prefix" jobs push unpack "{\"seed\":\"$bomb\"}" > /dev/null
worker --stages unpack --archive-max-ratio 100 2> /dev/null || true
expect_eq "bomb status" "$(r HGET "${prefix}seed:$bomb" status)" failed
expect_match "bomb error" "$(r HGET "${prefix}seed:$bomb" error)" 'max_ratio'
expect_eq "bomb left nothing" "$(find "$data/raw" -type f | wc -l)" 5
expect_eq "other seeds unharmed" "$(r HGET "${prefix}seed:$nt" status)" unarchived
# memory stays bounded: a 200 MB file in a tar.gz through the real worker,
# whose peak RSS (GNU time's %M, in KB) stays far below the data's size
if [ -x /usr/bin/time ]; then
  big=$(md5 "http://example.org/big.tar.gz")
  mkdir -p "$work/big" "$(dirname "$data/$(shard raw "$big")")"
  { yes '<http://example.org/subject> <http://example.org/predicate> "object" .' || true; } \
    | head -c 200000000 > "$work/big/big.nt"
  (cd "$work/big" && bsdtar -cf - big.nt | gzip -1 > "$data/$(shard raw "$big")")
  rm "$work/big/big.nt"
  r HSET "${prefix}seed:$big" status filed uri http://example.org/big.tar.gz > /dev/null
  lw "$prefix" jobs push unpack "{\"seed\":\"$big\"}" > /dev/null
  /usr/bin/time -f '%M' -o "$work/rss" "$LODWASH_BINARY_DIR/lodwash-worker" \
    --redis "$LODWASH_TEST_REDIS" --prefix "$prefix" --data "$data" --exit-when-idle \
    --stages unpack --archive-max-ratio 0 2> /dev/null
  bigchild=$(md5 "${big}big.nt")
  expect_eq "big entry unarchived" "$(r HGET "${prefix}seed:$bigchild" status)" unarchived
  expect_eq "big entry size" "$(stat -c %s "$data/$(shard raw "$bigchild")")" 200000000
  rss=$(tail -1 "$work/rss")
  echo "worker peak RSS: $rss KB for 200 MB unpacked"
  expect_eq "worker peak RSS under 100 MB" "$([ "$rss" -lt 102400 ] && echo yes || echo "no: $rss KB")" yes
fi
lw_test_done
