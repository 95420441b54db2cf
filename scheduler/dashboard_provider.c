/* The dashboard's provider pages: the list, one provider with its harvest
 * history and files, a harvest's report (HTML or JSON), a seed, and the
 * graph and changeset downloads. */
#include "scheduler/dashboard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/record.h"
#include "queue/registry_state.h"
#include "queue/seed.h"
#include "meta/meta.h"
#include "report/provider_report.h"
#include "scheduler/dashboard_chart.h"
#include "config/config.h"

static long long num(const json_t *o, const char *key)
{
  return json_integer_value(json_object_get(o, key));
}

static const char *str(const json_t *o, const char *key)
{
  return json_string_value(json_object_get(o, key));
}

/* "-" for a null count, else the number. */
static void count_cell(LwHtml *h, const json_t *o, const char *key)
{
  if (json_is_integer(json_object_get(o, key))) {
    lw_html(h, "<td class=\"n\">%lld</td>", num(o, key));
  } else {
    lw_html(h, "<td class=\"n\">-</td>");
  }
}

/* A catalogue's, CKAN site's, sitemap's or endpoint's datasets as the last
 * visit found them: version, what became of it, its dumps and the
 * distributions skipped with their reasons. */
static void source_datasets(LwHtml *h, const json_t *datasets)
{
  if (!json_array_size(datasets)) {
    return;
  }
  lw_html(h, "<h2>Datasets (last visit)</h2><table><tr><th>dataset</th><th>version</th>"
             "<th>state</th><th>dumps</th><th>skipped</th></tr>\n");
  size_t i, j;
  json_t *ds, *x;
  json_array_foreach(datasets, i, ds) {
    lw_html(h,
            "<tr><td class=\"mono\">%s</td><td>%s</td><td class=\"state-%s\">%s</td><td>",
            str(ds, "id"), str(ds, "version") ? str(ds, "version") : "", str(ds, "state"),
            str(ds, "state"));
    json_array_foreach(json_object_get(ds, "dumps"), j, x) {
      lw_html(h, "<div class=\"mono\">%s</div>", json_string_value(x));
    }
    lw_html(h, "</td><td>");
    json_array_foreach(json_object_get(ds, "skipped"), j, x) {
      lw_html(h, "<div><span class=\"mono\">%s</span> %s</div>",
              str(x, "url") ? str(x, "url") : "", str(x, "reason"));
    }
    lw_html(h, "</td></tr>\n");
  }
  lw_html(h, "</table>\n");
}

/* The provider name of the registry (the last good one when the file does
 * not load), or NULL (err says why). */
static const LwProvider *provider_of(const LwDashboard *d, LwRecords *c, const char *name,
                                     LwRegistry **reg, json_t **state, LwError *err)
{
  *reg = NULL;
  *state = NULL;
  if (!lw_provider_name_valid(name)) {
    lw_error_set(err, LW_ERR_USAGE, "no provider '%s'", name);
    return NULL;
  }
  if (lw_registry_state_load(c, d->cfg, reg, state, err) != LW_OK) {
    return NULL;
  }
  const LwProvider *p = lw_registry_find(*reg, name);
  if (!p) {
    lw_error_set(err, LW_ERR_USAGE, "no provider '%s' in the registry", name);
  }
  return p;
}

void lw_dashboard_providers(const LwDashboard *d, LwRecords *c, LwHttpPage *page)
{
  LwRegistry *reg = NULL;
  LwError err;
  json_t *list = NULL, *state = NULL;
  if (lw_registry_state_load(c, d->cfg, &reg, &state, &err) != LW_OK ||
      lw_providers_json(c, d->cfg->prefix, reg, &list, &err) != LW_OK) {
    lw_registry_free(reg);
    json_decref(state);
    lw_dashboard_error_page(page, 503, err.message);
    return;
  }
  lw_registry_free(reg);
  LwHtml h = LW_HTML_INIT;
  lw_html_page_start(&h, "providers", lw_dashboard_actions_on(d));
  lw_dashboard_registry_error(&h, state);
  json_decref(state);
  lw_html(&h,
          "<h1>Providers: %zu</h1><div class=\"scroll\"><table id=\"providers\"><tr>"
          "<th>provider</th><th>state</th><th>VoID modified</th><th>harvested</th>"
          "<th>last harvest</th><th class=\"n\">files</th><th class=\"n\">triples</th>"
          "<th class=\"n\">+</th><th class=\"n\">-</th><th>error</th></tr>\n",
          json_array_size(list));
  size_t i;
  const json_t *p;
  json_array_foreach(list, i, p) {
    const json_t *hv = json_object_get(p, "harvest");
    char name[160];
    lw_html_url_part(str(p, "name"), name, sizeof(name));
    lw_html(&h,
            "<tr class=\"provider\" data-provider=\"%s\"><td><a href=\"/providers/%s\">%s"
            "</a></td><td class=\"state-%s\">%s</td><td>%s</td><td>%s</td><td>%s %s</td>",
            str(p, "name"), name, str(p, "name"), str(p, "state"), str(p, "state"),
            str(p, "void_modified"), str(p, "harvested_at"), str(hv, "status"),
            str(hv, "finished"));
    count_cell(&h, hv, "files");
    count_cell(&h, hv, "triples");
    count_cell(&h, hv, "added");
    count_cell(&h, hv, "removed");
    lw_html(&h, "<td class=\"bad\">%s</td></tr>\n", str(p, "error") ? str(p, "error") : "");
  }
  lw_html(&h, "</table></div>\n");
  lw_html_page_end(&h);
  json_decref(list);
  lw_dashboard_html_page(page, 200, lw_html_finish(&h));
}

static void harvest_files(LwHtml *h, const json_t *report)
{
  lw_html(h, "<div class=\"scroll\"><table id=\"files\"><tr><th>file</th><th>outcome</th>"
             "<th>status</th><th>format</th><th class=\"n\">triples</th><th class=\"n\">"
             "syntax errors</th><th class=\"n\">literal errors</th><th>error</th></tr>\n");
  size_t i;
  const json_t *f;
  json_array_foreach(json_object_get(report, "files"), i, f) {
    char seed[160];
    lw_html_url_part(str(f, "seed"), seed, sizeof(seed));
    lw_html(h,
            "<tr class=\"file\"><td><a class=\"mono\" href=\"/seeds/%s\">%s</a></td>"
            "<td>%s</td><td>%s</td><td>%s</td>",
            seed, str(f, "uri"), str(f, "outcome"), str(f, "status"), str(f, "format"));
    count_cell(h, f, "triples");
    count_cell(h, f, "syntax_errors");
    count_cell(h, f, "literal_errors");
    const char *why = str(f, "error") ? str(f, "error") : str(f, "skipped");
    lw_html(h, "<td class=\"%s\">%s</td></tr>\n", str(f, "error") ? "bad" : "",
            why ? why : "");
  }
  lw_html(h, "</table></div>\n");
}

/* Triples, additions and removals of each harvest that has them, oldest
 * first, as a picture. */
static void harvest_chart(LwHtml *h, const json_t *history)
{
  size_t n = json_array_size(history), k = 0;
  double *v = calloc(4 * (n ? n : 1), sizeof(double));
  if (!v) {
    return;
  }
  double *x = v, *triples = v + n, *added = v + 2 * n, *removed = v + 3 * n;
  char first[16] = "", last[16] = "";
  for (size_t i = n; i-- > 0;) { /* the history is newest first */
    const json_t *hv = json_array_get(history, i);
    if (!json_is_integer(json_object_get(hv, "triples"))) {
      continue; /* running, or ended without an import */
    }
    snprintf(k ? last : first, 16, "%.10s", str(hv, "started") ? str(hv, "started") : "");
    x[k] = (double)k;
    triples[k] = (double)json_integer_value(json_object_get(hv, "triples"));
    added[k] = (double)json_integer_value(json_object_get(hv, "added"));
    removed[k] = (double)json_integer_value(json_object_get(hv, "removed"));
    ++k;
  }
  const LwChartSeries series[] = {
    {"triples", "#05a", triples}, {"added", "#176", added}, {"removed", "#b00", removed}};
  lw_chart_lines(h, "chart-harvests", "Triples and changes per harvest", x, k, series, 3,
                 first, k > 1 ? last : "");
  free(v);
}

static void harvest_history(LwHtml *h, const char *name, const json_t *history)
{
  lw_html(h, "<h2>Harvests</h2>\n");
  harvest_chart(h, history);
  lw_html(
    h, "<div class=\"scroll\"><table id=\"history\"><tr><th>started</th>"
       "<th>kind</th><th>status</th><th class=\"n\">files</th><th class=\"n\">triples</th>"
       "<th class=\"n\">added</th><th class=\"n\">removed</th><th class=\"n\">seconds</th>"
       "<th>report and changesets</th></tr>\n");
  size_t i;
  const json_t *hv;
  json_array_foreach(history, i, hv) {
    char id[400];
    lw_html_url_part(str(hv, "id"), id, sizeof(id));
    lw_html(h, "<tr><td>%s</td><td>%s</td><td>%s</td>", str(hv, "started"), str(hv, "kind"),
            str(hv, "status"));
    count_cell(h, hv, "files");
    count_cell(h, hv, "triples");
    count_cell(h, hv, "added");
    count_cell(h, hv, "removed");
    lw_html(h,
            "<td class=\"n\">%.1f</td><td><a href=\"/providers/%s/harvests/%s\">report</a>",
            json_number_value(json_object_get(hv, "duration_s")), name, id);
    if (str(hv, "changeset_added")) {
      lw_html(h,
              " · <a href=\"/providers/%s/harvests/%s/added.nq.gz\">added</a>"
              " · <a href=\"/providers/%s/harvests/%s/removed.nq.gz\">removed</a>",
              name, id, name, id);
    }
    lw_html(h, "</td></tr>\n");
  }
  lw_html(h, "</table></div>\n");
}

static void provider_actions(const LwDashboard *d, LwHtml *h, const json_t *p)
{
  if (!lw_dashboard_actions_on(d)) {
    return;
  }
  const char *name = str(p, "name");
  lw_html(h, "<div id=\"actions\">");
  lw_dashboard_action_button(h, "harvest", "provider", name, "Harvest now");
  if (!strcmp(str(p, "state"), "harvesting")) {
    lw_dashboard_action_button(h, "cancel", "provider", name, "Cancel harvest");
  }
  bool held = json_is_true(json_object_get(p, "held"));
  lw_dashboard_action_button(h, held ? "release" : "hold", "provider", name,
                             held ? "Release" : "Hold");
  lw_html(h, "</div>\n");
}

/* Where the harvest's report went, and how that went (scheduler/notify.h). */
static void notify_outcome(LwHtml *h, const LwProvider *prov, const json_t *harvest)
{
  if (!prov->notify_url) {
    return;
  }
  const json_t *n = json_object_get(harvest, "notify");
  lw_html(h,
          "<dt>report sent to</dt><dd><span class=\"mono\">%s</span>: <span id=\"notify\">",
          prov->notify_url);
  if (!json_is_object(n)) {
    lw_html(h, "not yet (after the harvest ends)");
  } else {
    lw_html(h, "%s after %lld attempt(s), last %s", str(n, "status"), num(n, "attempts"),
            str(n, "at"));
    if (json_is_integer(json_object_get(n, "http"))) {
      lw_html(h, ", HTTP %lld", num(n, "http"));
    }
    if (str(n, "error") && *str(n, "error")) {
      lw_html(h, ", <span class=\"bad\">%s</span>", str(n, "error"));
    }
    if (str(n, "next")) {
      lw_html(h, "; next try %s", str(n, "next"));
    }
  }
  lw_html(h, "</span></dd>");
}

static void provider_page(const LwDashboard *d, LwRecords *c, const LwProvider *prov,
                          LwHttpPage *page)
{
  json_t *p = NULL, *history = NULL, *latest = NULL;
  LwError err;
  if (lw_provider_json(c, d->cfg->prefix, prov, &p, &err) != LW_OK ||
      lw_harvest_history_json(c, d->cfg->prefix, prov->name, 50, &history, &err) != LW_OK) {
    json_decref(p);
    lw_dashboard_error_page(page, 503, err.message);
    return;
  }
  const char *id = str(json_object_get(p, "harvest"), "id");
  if (id) {
    lw_harvest_report_json(c, d->cfg->prefix, id, &latest, &err);
  }
  char name[160];
  lw_html_url_part(prov->name, name, sizeof(name));
  LwHtml h = LW_HTML_INIT;
  lw_html_page_start(&h, prov->name, lw_dashboard_actions_on(d));
  lw_html(
    &h,
    "<h1>%s</h1><dl><dt>state</dt><dd id=\"state\" class=\"state-%s\">%s</dd>"
    "<dt>source (%s)</dt><dd class=\"mono\">%s</dd><dt>source modified</dt><dd>%s</dd>"
    "<dt>registry modified</dt><dd>%s</dd><dt>harvested version</dt><dd>%s</dd>"
    "<dt>harvested at</dt><dd>%s</dd><dt>source checked</dt><dd>%s</dd>",
    prov->name, str(p, "state"), str(p, "state"), str(p, "source"), str(p, "source_url"),
    str(p, "void_modified"), str(p, "modified"), str(p, "harvested"),
    str(p, "harvested_at"), str(p, "checked"));
  if (str(p, "error")) {
    lw_html(&h, "<dt>error</dt><dd class=\"bad\">%s</dd>", str(p, "error"));
  }
  notify_outcome(&h, prov, json_object_get(p, "harvest"));
  lw_html(&h, "</dl>\n");
  provider_actions(d, &h, p);
  source_datasets(&h, json_object_get(p, "datasets"));
  char graph[4096];
  snprintf(graph, sizeof(graph), "%s/graphs/%s.nq.gz", d->cfg->data_dir, prov->name);
  lw_html(&h,
          "<p>Downloads: <a href=\"/providers/%s/graph.nq.gz\">the graph</a> · "
          "<a href=\"/providers/%s/harvests/latest\">latest harvest's report</a> "
          "(<a href=\"/providers/%s/harvests/latest.json\">JSON</a>) · "
          "<a href=\"/providers/%s/void.ttl\">its metadata</a> (VoID, harvests, "
          "documents)</p>\n",
          name, name, name, name);
  if (latest) {
    lw_html(&h, "<h2>Latest harvest: %s, %s</h2>", str(latest, "status"),
            str(latest, "kind"));
    harvest_files(&h, latest);
  }
  harvest_history(&h, name, history);
  lw_html_page_end(&h);
  json_decref(p);
  json_decref(history);
  json_decref(latest);
  lw_dashboard_html_page(page, 200, lw_html_finish(&h));
}

/* A harvest's report as HTML. */
static char *report_html(const LwDashboard *d, const json_t *r)
{
  LwHtml h = LW_HTML_INIT;
  lw_html_page_start(&h, str(r, "id"), lw_dashboard_actions_on(d));
  lw_html(&h,
          "<h1>Harvest %s</h1><dl><dt>provider</dt><dd>%s</dd><dt>status</dt><dd>%s</dd>"
          "<dt>kind</dt><dd>%s</dd><dt>VoID modified</dt><dd>%s</dd><dt>started</dt>"
          "<dd>%s</dd><dt>finished</dt><dd>%s</dd><dt>seconds</dt><dd>%.1f</dd>"
          "<dt>triples</dt><dd>%lld (+%lld -%lld)</dd>",
          str(r, "id"), str(r, "provider"), str(r, "status"), str(r, "kind"),
          str(r, "void_modified"), str(r, "started"), str(r, "finished"),
          json_number_value(json_object_get(r, "duration_s")), num(r, "triples"),
          num(r, "added"), num(r, "removed"));
  if (str(r, "error")) {
    lw_html(&h, "<dt>error</dt><dd class=\"bad\">%s</dd>", str(r, "error"));
  }
  lw_html(&h, "</dl>\n");
  harvest_files(&h, r);
  lw_html_page_end(&h);
  return lw_html_finish(&h);
}

/* /providers/NAME/harvests/ID[.json|/added.nq.gz|/removed.nq.gz] */
static void harvest_page(const LwDashboard *d, LwRecords *c, const LwHttpRequest *req,
                         const json_t *provider, const char *rest, LwHttpPage *page)
{
  char id[512];
  snprintf(id, sizeof(id), "%s", rest);
  const char *file = NULL;
  char *slash = strchr(id, '/');
  if (slash) {
    *slash = '\0';
    file = slash + 1;
  }
  size_t n = strlen(id);
  bool json = strstr(req->accept, "application/json") != NULL;
  if (!file && n > 5 && !strcmp(id + n - 5, ".json")) {
    id[n - 5] = '\0';
    json = true;
  }
  if (!strcmp(id, "latest")) {
    const char *latest = str(json_object_get(provider, "harvest"), "id");
    snprintf(id, sizeof(id), "%s", latest ? latest : "");
  }
  json_t *r = NULL;
  LwError err;
  lw_error_clear(&err);
  LwStatus st = *id ? lw_harvest_report_json(c, d->cfg->prefix, id, &r, &err) : LW_NOTHING;
  if (st == LW_OK && strcmp(str(r, "provider"), str(provider, "name"))) {
    json_decref(r);
    r = NULL;
    st = LW_NOTHING;
  }
  if (st != LW_OK) {
    lw_dashboard_error_page(page, st == LW_NOTHING ? 404 : 503,
                            st == LW_NOTHING ? "no such harvest" : err.message);
    return;
  }
  const char *path = file && !strcmp(file, "added.nq.gz")     ? str(r, "changeset_added")
                     : file && !strcmp(file, "removed.nq.gz") ? str(r, "changeset_removed")
                                                              : NULL;
  if (file && (!path || strncmp(path, d->cfg->data_dir, strlen(d->cfg->data_dir)))) {
    lw_dashboard_error_page(page, 404, "no such file");
  } else if (file) {
    page->status = 200;
    page->content_type = "application/gzip";
    page->file = strdup(path);
  } else if (json) {
    page->status = 200;
    page->content_type = "application/json";
    page->body = json_dumps(r, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  } else {
    lw_dashboard_html_page(page, 200, report_html(d, r));
  }
  json_decref(r);
}

/* /providers/NAME/void.ttl: the provider's part of the metadata graph
 * (meta/meta.h), made from the records now. */
static void void_page(const LwDashboard *d, LwRecords *c, const char *name,
                      LwHttpPage *page)
{
  LwMetaOptions o = {.prefix = d->cfg->prefix,
                     .data_dir = d->cfg->data_dir,
                     .graph_base = d->cfg->graph_base,
                     .provider = name,
                     .sort_memory = (size_t)d->cfg->sort_memory_bytes};
  LwBuf ttl = LW_BUF_INIT;
  LwError err;
  lw_error_clear(&err);
  if (lw_meta_turtle(c, &o, &ttl, &err) != LW_OK) {
    lw_buf_free(&ttl);
    lw_dashboard_error_page(page, 503, err.message);
    return;
  }
  page->status = 200;
  page->content_type = "text/turtle; charset=utf-8";
  page->length = ttl.len;
  page->body = lw_buf_steal(&ttl);
}

void lw_dashboard_provider(const LwDashboard *d, LwRecords *c, const LwHttpRequest *req,
                           const char *rest, LwHttpPage *page)
{
  char name[128];
  size_t n = strcspn(rest, "/");
  snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1),
           rest);
  const char *sub = rest[n] ? rest + n + 1 : "";
  LwRegistry *reg = NULL;
  json_t *state = NULL;
  LwError err;
  const LwProvider *prov = provider_of(d, c, name, &reg, &state, &err);
  if (!prov) {
    lw_dashboard_error_page(page, err.status == LW_ERR_USAGE ? 404 : 503, err.message);
  } else if (!*sub) {
    provider_page(d, c, prov, page);
  } else if (!strcmp(sub, "graph.nq.gz")) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/graphs/%s.nq.gz", d->cfg->data_dir, prov->name);
    page->status = 200;
    page->content_type = "application/gzip";
    page->file = strdup(path);
  } else if (!strcmp(sub, "void.ttl")) {
    void_page(d, c, prov->name, page);
  } else if (!strncmp(sub, "harvests/", 9)) {
    json_t *p = NULL;
    if (lw_provider_json(c, d->cfg->prefix, prov, &p, &err) != LW_OK) {
      lw_dashboard_error_page(page, 503, err.message);
    } else {
      harvest_page(d, c, req, p, sub + 9, page);
    }
    json_decref(p);
  } else {
    lw_dashboard_error_page(page, 404, "no such page");
  }
  lw_registry_free(reg);
  json_decref(state);
}

void lw_dashboard_seed(const LwDashboard *d, LwRecords *c, const char *hash,
                       LwHttpPage *page)
{
  json_t *seed = NULL;
  LwError err;
  bool hex = strlen(hash) == LW_HASH_HEX_LEN &&
             strspn(hash, "0123456789abcdef") == LW_HASH_HEX_LEN;
  LwStatus st = hex ? lw_seed_get(c, d->cfg->prefix, hash, &seed, &err) : LW_NOTHING;
  if (st != LW_OK) {
    lw_dashboard_error_page(page, st == LW_NOTHING ? 404 : 503,
                            st == LW_NOTHING ? "no such seed" : err.message);
    return;
  }
  static const char *const shown[] = {
    "uri",        "status",        "provider",       "harvest",
    "format",     "content_type",  "encoding",       "triples",
    "duplicates", "syntax_errors", "literal_errors", "guess",
    "error",      "file",          "clean",          NULL};
  LwHtml h = LW_HTML_INIT;
  lw_html_page_start(&h, hash, lw_dashboard_actions_on(d));
  lw_html(&h, "<h1>Seed <span class=\"mono\">%s</span></h1><dl>", hash);
  for (const char *const *f = shown; *f; ++f) {
    const char *v = lw_record_str(seed, *f, NULL);
    if (v) {
      lw_html(&h,
              strcmp(*f, "error") ? "<dt>%s</dt><dd>%s</dd>"
                                  : "<dt>%s</dt><dd class=\"bad\">%s</dd>",
              *f, v);
    }
  }
  static const char *const times[] = {"added", "processed", "updated", NULL};
  for (const char *const *f = times; *f; ++f) {
    long long ms = lw_record_int(seed, *f, 0);
    char iso[LW_DATETIME_BUF];
    if (ms > 0) {
      lw_html(&h, "<dt>%s</dt><dd>%s</dd>", *f, lw_datetime_format_ms(ms, iso));
    }
  }
  lw_html(&h, "</dl>\n<h2>Errors</h2>\n");
  lw_dashboard_seed_errors(&h, seed);
  lw_html_page_end(&h);
  json_decref(seed);
  lw_dashboard_html_page(page, 200, lw_html_finish(&h));
}
