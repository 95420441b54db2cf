#!/usr/bin/env bash
# The dashboard in a real browser (headless Chromium from Debian's package)
# during a real harvest of the example providers and a provider with broken,
# hostile data: what a person sees once the page's script has run (provider
# rows, error lines with their line numbers, hostile text shown as text),
# a dead job retried by typing the token and clicking Retry, then gone; the
# pages on a phone-sized window. Screenshots go to BUILD/screenshots/.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || lw_test_skip "no chromium (Debian package chromium; scripts/setup installs it)"
profile=$(mktemp -d)
browse() { # browse ARGS... URL: a headless run of its own, bounded
  timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-dev-shm-usage --user-data-dir="$profile" "$@" 2> /dev/null
}
browse --dump-dom 'data:text/html,<p id="x">no</p><script>x.textContent="yes"</script>' \
  | grep -q '<p id="x">yes</p>' || lw_test_skip "chromium cannot run here (headless, --no-sandbox)"
source "$(dirname "$0")/support/harvest.sh"

prefix="lwtest:browser:$$:"
dir=$(mktemp -d)
shots="$LODWASH_BINARY_DIR/screenshots"
mkdir -p "$shots"
chrome_pid=""
trap '[ -n "$chrome_pid" ] && { kill "$chrome_pid" 2>/dev/null; wait "$chrome_pid" 2>/dev/null; }; lw_harvest_stop; lw_servers_stop; rm -rf "$dir" "$profile"; lw_test_redis_cleanup "$prefix"' EXIT
export LODWASH_ADMIN_TOKEN="token-$$-$RANDOM"
lw_harvest_start "$dir" "$prefix" 1 broken
lw_harvest_wait

# --- what the browser shows (the DOM after the page's script ran)
providers=$(browse --dump-dom "$LW_PAGES/providers")
expect_eq "four provider rows" "$(echo "$providers" | grep -o '<tr class="provider"' | wc -l)" 4
for p in library museum city; do
  expect_match "$p: idle with its triples" "$providers" "data-provider=\"$p\">.*class=\"state-idle\">idle<"
done
expect_match "broken: in error" "$providers" 'data-provider="broken">.*class="state-error">error<'
errors=$(browse --dump-dom "$LW_PAGES/errors")
expect_match "error line of city: line 18, column 68" "$errors" \
  '<td>syntax</td><td class="n">18</td><td class="n">68</td><td>invalid IRI character'
expect_match "error line of broken: line 5" "$errors" '<td>syntax</td><td class="n">5</td>'
expect_match "the hostile message is text in its cell" "$errors" \
  '<td>invalid lexical form "&lt;script&gt;alert\(1\)&lt;/script&gt;" for'
expect_eq "the only script element is the page's own" "$(echo "$errors" | grep -o '<script' | wc -l)" 1

# --- a dead job retried by a person: token typed, Retry clicked, then gone
job=$("$LODWASH_BINARY_DIR/lodwash" jobs dead --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
lw_publish_missing "$dir/web"  # the provider fixed its file
port=$(lw_free_port)
"$chrome" --headless --no-sandbox --disable-gpu --no-first-run --disable-dev-shm-usage \
  --user-data-dir="$profile" --remote-debugging-address=127.0.0.1 --remote-debugging-port="$port" \
  --window-size=1200,900 about:blank 2> "$dir/chrome.log" &
chrome_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/json/version" && break; sleep 0.1; done
result=$(timeout 120 python3 "$(dirname "$0")/support/cdp.py" "$port" retry "$LW_PAGES" "$job" \
  "$LODWASH_ADMIN_TOKEN" "$shots/dead-retried.png" || echo '{}')
js() { echo "$result" | python3 -c "import json,sys; print(json.load(sys.stdin).get('$1'))"; }
expect_eq "the dead job's row was on the page" "$(js seen_before)" True
expect_eq "after Retry, the row is gone" "$(js gone_after)" True
expect_eq "the token typed stays in the field" "$(js token_kept)" True
expect_eq "and the dead list is empty" "$("$LODWASH_BINARY_DIR/lodwash" jobs dead --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 0
# on a phone-sized window no page scrolls sideways as a whole (wide tables
# scroll inside their own box)
for page in / /providers /providers/city /errors /dead; do
  name=$(echo "phone$page" | tr '/' '-' | sed 's/-$//')
  sizes=$(timeout 60 python3 "$(dirname "$0")/support/cdp.py" "$port" phone "$LW_PAGES$page" "$shots/$name.png" || echo '{}')
  expect_eq "phone: $page fits the width" \
    "$(echo "$sizes" | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s.get("scroll_width") is not None and s.get("scroll_width") <= s.get("inner_width"))')" True
  expect_eq "phone: $page shows every column and button (none off the window)" \
    "$(echo "$sizes" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("offscreen"))')" 0
done
kill "$chrome_pid" 2>/dev/null || true
wait "$chrome_pid" 2>/dev/null || true
chrome_pid=""

# --- screenshots, a desktop and a phone-sized window
browse --window-size=1200,900 --screenshot="$shots/overview.png" "$LW_PAGES/" > /dev/null || true
browse --window-size=1200,1100 --screenshot="$shots/provider-city.png" "$LW_PAGES/providers/city" > /dev/null || true
browse --window-size=1200,1000 --screenshot="$shots/errors.png" "$LW_PAGES/errors" > /dev/null || true
for shot in overview provider-city errors phone phone-providers-city dead-retried; do
  expect_match "screenshot $shot.png saved" "$(head -c 8 "$shots/$shot.png" 2>/dev/null | od -An -c | tr -d ' \n')" '^211PNG'
done
echo "screenshots in $shots"
lw_test_done
