#!/usr/bin/env bash
# The dashboard on the scheduler's pages, during a real harvest of the
# example providers and a provider with broken, hostile data: what each page
# shows against the status report, the seed records and the files; every
# string escaped (an error message holding <script> shows as text); the
# actions as POSTs needing the admin token (retry a dead job, pause, hold,
# harvest now), and read-only pages without a token.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
lw_test_require_redis
source "$(dirname "$0")/support/harvest.sh"

prefix="lwtest:dashboard:$$:"
dir=$(mktemp -d)
trap 'lw_harvest_stop; lw_servers_stop; rm -rf "$dir"; lw_test_redis_cleanup "$prefix"' EXIT
export LODWASH_ADMIN_TOKEN="token-$$-$RANDOM"
lw_harvest_start "$dir" "$prefix" 1 broken
lw_harvest_wait
bin="$LODWASH_BINARY_DIR"
page() { curl -s "$LW_PAGES$1"; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
status=$(page /status)
js() { echo "$status" | python3 -c "import json,sys; s=json.load(sys.stdin); print($1)"; }

# --- overview
overview=$(page /)
expect_match "overview: a page for phones" "$overview" '<meta name="viewport" content="width=device-width'
expect_match "overview: the refresh script" "$overview" 'setInterval\(function\(\)'
# the pictures: drawn by the scheduler from its samples in Redis, as SVG
expect_match "overview: the scheduler keeps a sample a minute" \
  "$(redis-cli -u "$LODWASH_TEST_REDIS" LRANGE "${prefix}samples" 0 0)" '^[0-9]+ [0-9]+ [0-9]+ [0-9]+$'
expect_match "overview: the queue depth as a picture" "$overview" \
  '<svg id="chart-queue" viewBox="0 0 600 150".*<polyline class="series" data-name="queued, delayed or running"'
expect_match "overview: jobs per minute as a picture" "$overview" '<figcaption>Jobs per minute'
expect_eq "overview: no script library, the page's own script only" "$(echo "$overview" | grep -o '<script' | wc -l)" 1
# jobs per minute needs two minutes of samples: two made-up older ones show
# how it is drawn (done 60 a minute, failed 6)
now_min=$(( $(date +%s) / 60 ))
redis-cli -u "$LODWASH_TEST_REDIS" RPUSH "${prefix}samples" "$((now_min - 2)) 60 6 5" "$((now_min - 3)) 0 0 0" > /dev/null
jobs_svg=$(page / | grep -o '<svg id="chart-jobs".*</svg>' | head -1)
expect_match "overview: jobs per minute drawn, done and failed" "$jobs_svg" \
  'data-name="done".*data-name="failed"'
expect_match "overview: its scale is the busiest minute (60 done)" "$jobs_svg" '>60</text>'
city_page=$(page /providers/city)
expect_match "a provider's page: triples and changes per harvest as a picture" "$city_page" \
  '<svg id="chart-harvests".*data-name="triples".*data-name="added".*data-name="removed"'
# a worker that serves unpack and guess guesses a data file in its unpack
# job (workers/unpack.c): no guess job of its own
expect_eq "guess: done inside the unpack jobs" "$(js "s['stages'].get('guess')")" None
for stage in download unpack parse import; do
  done_=$(js "s['stages']['$stage']['done']")
  expect_match "overview: $stage row with its done count ($done_)" "$overview" \
    "<tr><td>$stage</td><td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">[0-9]+</td><td class=\"n\">$done_</td>"
done
sleep 5.5  # the rate needs two samples of the totals at least 5 s apart
expect_match "overview: jobs done per minute, once sampled twice" "$(page /)" \
  '<td>download</td>(<td class="n">[0-9]+</td>){6}<td class="n">[0-9]+\.[0-9]</td>'
expect_match "overview: one worker alive" "$overview" 'Workers alive: 1<'
lease=$(js "s['scheduler']['lease_holder']")
expect_match "overview: the scheduler's lease ($lease)" "$overview" "<dd id=\"lease\">$lease \\("
expect_match "overview: Redis memory" "$overview" 'Redis memory</dt><dd>[0-9]+\.[0-9] MB'

# --- providers
providers=$(page /providers)
for p in library museum city broken; do
  state=$(js "[p['state'] for p in s['providers'] if p['name']=='$p'][0]")
  expect_match "providers: $p is $state" "$providers" "data-provider=\"$p\"><td><a href=\"/providers/$p\">$p</a></td><td class=\"state-$state\">$state<"
done
expect_eq "broken: a dump failed, so its harvest failed" "$(js "[p['state'] for p in s['providers'] if p['name']=='broken'][0]")" error
city=$(page /providers/city)
expect_match "city: its file with 1 syntax and 1 literal error" "$city" \
  'city/districts.trig</a></td><td>ok</td><td>parsed</td><td>TriG</td><td class="n">10</td><td class="n">1</td><td class="n">1</td>'
expect_match "city: its source, a DCAT catalogue" "$city" '<dt>source \(dcat\)</dt><dd class="mono">[^<]*/city/catalog.ttl</dd>'
expect_match "city: the catalogue's dataset with its dump and its CSV skipped, why" "$city" \
  '<h2>Datasets \(last visit\)</h2>.*#districts</td><td>2026-01-01T00:00:00Z</td>.*districts.trig</div>.*districts.csv</span> format CSV is not RDF'
expect_match "city: its harvest in the history" "$city" '<td>full</td><td>done</td><td class="n">1</td><td class="n">10</td><td class="n">10</td><td class="n">0</td>'
curl -s -o "$dir/graph.nq.gz" "$LW_PAGES/providers/city/graph.nq.gz"
expect_status "city: the graph download is the graph file" 0 cmp "$dir/graph.nq.gz" "$dir/data/graphs/city.nq.gz"
added=$(echo "$city" | grep -oE 'href="/providers/city/harvests/[^"]+/added.nq.gz"' | head -1 | sed 's/href="//; s/"$//')
curl -s -o "$dir/added.nq.gz" "$LW_PAGES$added"
expect_eq "city: the changeset download holds the triples added" "$(zcat "$dir/added.nq.gz" | wc -l)" 10
expect_eq "a changeset outside the data folder is not served" "$(code "$LW_PAGES/providers/city/harvests/nope/added.nq.gz")" 404
report=$(page /providers/city/harvests/latest.json)
expect_eq "latest report (JSON): provider, kind, triples, file errors" \
  "$(echo "$report" | python3 -c 'import json,sys; r=json.load(sys.stdin); f=r["files"][0]; print(r["provider"], r["kind"], r["triples"], f["outcome"], f["syntax_errors"], f["literal_errors"])')" \
  "city full 10 ok 1 1"
expect_eq "museum's report: the archive, then its two entries with their parent" \
  "$(page /providers/museum/harvests/latest.json | python3 -c 'import json,sys; f=json.load(sys.stdin)["files"]; print(len(f), f[0]["status"], [x.get("parent") == f[0]["seed"] for x in f[1:]], sum(x["triples"] or 0 for x in f[1:]))')" \
  "3 depleted [True, True] 18"
expect_match "latest report by Accept: application/json" "$(curl -s -H 'Accept: application/json' "$LW_PAGES/providers/city/harvests/latest")" '"provider": "city"'
expect_match "latest report as HTML" "$(page /providers/city/harvests/latest)" '<h1>Harvest city:'
broken=$(page /providers/broken)
expect_match "broken: the missing dump failed, with its HTTP status" "$broken" 'missing.ttl</a></td><td>failed</td><td>failed</td>.*404'
for _ in $(seq 50); do page /providers/broken | grep -q 'id="notify">[a-z]' && break; sleep 0.2; done
expect_match "broken: the report's POST and its outcome" "$(page /providers/broken)" \
  "report sent to</dt><dd><span class=\"mono\">$LW_WEB/hook</span>: <span id=\"notify\">retrying after [0-9]+ attempt\(s\), last [0-9T:.Z-]+, HTTP 501"
expect_eq "no such provider: 404" "$(code "$LW_PAGES/providers/nope")" 404
expect_eq "no such seed: 404" "$(code "$LW_PAGES/seeds/zzz")" 404

# --- errors, as the seed records hold them, escaped
errors=$(page /errors)
expect_match "errors: city's syntax error, line 18 column 68" "$errors" \
  '<tr class="error-line"><td>syntax</td><td class="n">18</td><td class="n">68</td><td>invalid IRI character'
expect_match "errors: broken's syntax error on line 5" "$errors" '<td>syntax</td><td class="n">5</td>'
expect_match "errors: the hostile message shows as text" "$errors" \
  'invalid lexical form &quot;&lt;script&gt;alert\(1\)&lt;/script&gt;&quot;'
expect_eq "errors: no markup from the data" "$(echo "$errors" | grep -c '<script>alert' || true)" 0
# a provider's dump seed is the provider's own (a dump may be shared): ask the tool
hash=$("$bin/lodwash" seed show "$LW_WEB/broken/broken.ttl" --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
seed=$(page "/seeds/$hash")
expect_match "seed page: the errors of the file" "$seed" '&lt;script&gt;alert\(1\)&lt;/script&gt;'
expect_eq "seed page: no markup from the data" "$(echo "$seed" | grep -c '<script>alert' || true)" 0
expect_match "seed page: times as ISO 8601" "$seed" '<dt>added</dt><dd>[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z</dd>'

expect_eq "our own markup is never escaped into text" \
  "$(for p in / /providers /providers/city /providers/broken /errors /dead "/seeds/$hash"; do page "$p"; done \
     | grep -cE '&lt;/?(th|td|tr|a|dd|dt|b|span)[ &]|&quot;bad' || true)" 0

# --- dead jobs and the actions
dead=$(page /dead)
dead_id=$("$bin/lodwash" jobs dead --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
dead_seed=$("$bin/lodwash" jobs dead --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["seed"])')
seed_status() { "$bin/lodwash" seed show "$dead_seed" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])'; }
expect_eq "the dead download's seed failed" "$(seed_status)" failed
dead_uri=$("$bin/lodwash" seed show "$dead_seed" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["uri"])')
expect_match "dead: the job's provider, URL, stage, error and attempts" "$dead" \
  "data-job=\"$dead_id\"><td data-label=\"provider\"><a href=\"/providers/[a-z]+\">[a-z]+</a></td><td data-label=\"URL\"><a class=\"mono\" href=\"/seeds/$dead_seed\">$dead_uri</a></td><td data-label=\"stage\">download</td><td data-label=\"error\"><b>http</b> [^<]*404[^<]*</td><td class=\"n\" data-label=\"attempts\">[0-9]+</td>"
expect_eq "dead: one row a job" "$(echo "$dead" | grep -o 'data-job="[^"]*"' | sort | uniq -d | wc -l)" 0
expect_match "dead: a retry button (actions on)" "$dead" "name=\"job\" value=\"$dead_id\"><input type=\"hidden\" name=\"token\" value=\"\"><button type=\"submit\">Retry"
post() { curl -s -o /dev/null -w '%{http_code}' "$LW_PAGES/actions/$1" "${@:2}"; }
# destructive actions ask first: without confirm=yes, a page that asks
dead_count() { "$bin/lodwash" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["stages"]["download"]["dead"])'; }
before=$(dead_count)
asked=$(curl -s "$LW_PAGES/actions/delete" -d job=all -d token="$LODWASH_ADMIN_TOKEN")
expect_match "Delete all asks first" "$asked" '<h1>Delete every dead job\?</h1>'
expect_match "its button posts the same action with confirm=yes" "$asked" \
  '<form id="confirm" method="post" action="/actions/delete"><input type="hidden" name="job" value="all">.*name="confirm" value="yes"><button type="submit">Yes, delete</button>'
expect_eq "and nothing was deleted" "$(dead_count)" "$before"
expect_match "Purge queue asks first" "$(curl -s "$LW_PAGES/actions/purge" -d stage=parse -d token="$LODWASH_ADMIN_TOKEN")" \
  '<h1>Drop every waiting job of stage parse\?</h1>'
expect_match "Cancel a harvest asks first" "$(curl -s "$LW_PAGES/actions/cancel" -d provider=city -d token="$LODWASH_ADMIN_TOKEN")" \
  '<h1>Cancel the running harvest of city\?</h1>'
expect_eq "asking still needs the token" "$(post delete -d job=all)" 403
expect_eq "purge of a stage that does not exist: 400, not a question" "$(post purge -d stage=nope -d token="$LODWASH_ADMIN_TOKEN")" 400
expect_eq "purge parse, confirmed: 303" "$(post purge -d stage=parse -d confirm=yes -d token="$LODWASH_ADMIN_TOKEN")" 303
expect_eq "retry without the token: 403" "$(post retry -d job="$dead_id")" 403
expect_eq "retry with a wrong token: 403" "$(post retry -d job="$dead_id" -d token=wrong)" 403
expect_match "still dead" "$(page /dead)" "data-job=\"$dead_id\""
lw_publish_missing "$dir/web"
expect_eq "retry with the token: 303 back to /dead" "$(post retry -d job="$dead_id" -d token="$LODWASH_ADMIN_TOKEN")" 303
for _ in $(seq 100); do
  [ "$("$bin/lodwash" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["stages"]["download"]["dead"])')" = 0 ] && break
  sleep 0.1
done
expect_eq "the retried job left the dead list" "$(page /dead | grep -c "data-job=\"$dead_id\"" || true)" 0
# The retry ran the download again (its seed back to added), not an ack of
# nothing: the seed goes on through the pipeline, no longer failed.
for _ in $(seq 600); do
  [ "$(seed_status)" = parsed ] && break
  sleep 0.1
done
expect_eq "the retry ran the stage again: the seed is parsed" "$(seed_status)" parsed
expect_eq "no 'done ms=0' for the retried job" \
  "$(grep -c "job=$dead_id .*outcome=done ms=0 " "$dir"/worker*.log 2>/dev/null | awk -F: '{s+=$NF} END {print s+0}')" 0
expect_match "and the page says none" "$(page /dead)" '<h1>Dead jobs: 0</h1>'
expect_eq "pause parse: 303" "$(post pause -d stage=parse -d token="$LODWASH_ADMIN_TOKEN")" 303
expect_match "paused in the overview" "$(page /)" '<td>parse</td>(<td class="n">[0-9.-]+</td>){7}<td>paused</td>'
expect_match "paused in the metrics" "$(page /metrics)" 'lodwash_stage_paused\{stage="parse"\} 1'
expect_eq "resume parse: 303" "$(post resume -d stage=parse -d token="$LODWASH_ADMIN_TOKEN")" 303
expect_eq "pause a stage that does not exist: 400" "$(post pause -d stage=nope -d token="$LODWASH_ADMIN_TOKEN")" 400
expect_eq "and it is not paused" "$(page /metrics | grep -c 'lodwash_stage_paused{stage="nope"}' || true)" 0
expect_eq "hold museum: 303" "$(post hold -d provider=museum -d token="$LODWASH_ADMIN_TOKEN")" 303
expect_match "held on its page" "$(page /providers/museum)" '<dd id="state" class="state-held">held</dd>'
expect_match "held in the metrics" "$(page /metrics)" 'lodwash_provider_state\{provider="museum",state="held"\} 1'
expect_eq "harvest a held provider: 409" "$(post harvest -d provider=museum -d token="$LODWASH_ADMIN_TOKEN")" 409
expect_eq "release museum: 303" "$(post release -d provider=museum -d token="$LODWASH_ADMIN_TOKEN")" 303
expect_eq "harvest city now: 303" "$(post harvest -d provider=city -d token="$LODWASH_ADMIN_TOKEN")" 303
# Wait for the scheduler's word itself: it records the new harvest in Redis
# before it logs it, so a new harvest id seen by the tool does not mean the
# line is written yet.
for _ in $(seq 300); do
  grep -q 'provider=city outcome=started .*forced=yes' "$dir/scheduler.log" && break
  sleep 0.1
done
expect_match "harvest now: the scheduler started a new harvest of city" "$(cat "$dir/scheduler.log")" 'provider=city outcome=started .*forced=yes'
old_city=$(js "[p['harvest']['id'] for p in s['providers'] if p['name']=='city'][0]")
new_city=$("$bin/lodwash" providers --json | python3 -c 'import json,sys; print([p["harvest"]["id"] for p in json.load(sys.stdin) if p["name"]=="city"][0])')
expect_eq "harvest now: city's harvest is a new one ($new_city)" "$([ "$new_city" != "$old_city" ] && echo yes)" yes
expect_eq "an action not known: 400" "$(post frob -d token="$LODWASH_ADMIN_TOKEN")" 400
expect_eq "a provider not in the registry: 409" "$(post hold -d provider=nope -d token="$LODWASH_ADMIN_TOKEN")" 409

# --- read-only without a token: a second scheduler's pages
port=$(lw_free_port)
LODWASH_ADMIN_TOKEN="" "$bin/lodwash-scheduler" --interval 1 --metrics-port "$port" 2> "$dir/ro.log" &
LW_HARVEST_PIDS+=($!)
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
expect_eq "read-only: no action buttons" "$(curl -s "http://127.0.0.1:$port/dead" "http://127.0.0.1:$port/" "http://127.0.0.1:$port/providers/city" | grep -c '<form' || true)" 0
expect_eq "read-only: POST refused" "$(curl -s -o /dev/null -w '%{http_code}' -d stage=parse -d token=x "http://127.0.0.1:$port/actions/pause")" 403
lw_test_done
