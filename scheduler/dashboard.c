/* The dashboard's router, its overview, dead-job and errors pages. */
#include "scheduler/dashboard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "queue/queue.h"
#include "queue/record.h"
#include "queue/seed.h"
#include "queue/samples.h"
#include "scheduler/dashboard_chart.h"
#include "scheduler/dashboard_html.h"
#include "scheduler/dashboard_rate.h"
#include "report/provider_report.h"
#include "report/status_report.h"

bool lw_dashboard_actions_on(const LwDashboard *d)
{
  return d->admin_token && *d->admin_token;
}

void lw_dashboard_html_page(LwHttpPage *page, int status, char *html)
{
  page->status = html ? status : 500;
  page->content_type = "text/html; charset=utf-8";
  page->body = html ? html : strdup("out of memory\n");
}

void lw_dashboard_error_page(LwHttpPage *page, int status, const char *message)
{
  LwHtml h = LW_HTML_INIT;
  lw_html_page_start(&h, "error", false);
  lw_html(&h, "<h1>%d</h1><p class=\"bad\">%s</p>", status, message);
  lw_html_page_end(&h);
  lw_dashboard_html_page(page, status, lw_html_finish(&h));
}

static long long num(const json_t *o, const char *key)
{
  return json_integer_value(json_object_get(o, key));
}

static const char *str(const json_t *o, const char *key)
{
  return json_string_value(json_object_get(o, key));
}

void lw_dashboard_action_button(LwHtml *h, const char *action, const char *field,
                                const char *value, const char *label)
{
  lw_html(h,
          "<form class=\"inline\" method=\"post\" action=\"/actions/%s\">"
          "<input type=\"hidden\" name=\"%s\" value=\"%s\">"
          "<input type=\"hidden\" name=\"token\" value=\"\">"
          "<button type=\"submit\">%s</button></form> ",
          action, field, value, label);
}

static bool in_array(const json_t *array, const char *s)
{
  size_t i;
  const json_t *v;
  json_array_foreach(array, i, v) {
    if (json_is_string(v) && !strcmp(json_string_value(v), s)) {
      return true;
    }
  }
  return false;
}

static void overview_stages(const LwDashboard *d, LwHtml *h, const json_t *report)
{
  const json_t *paused = json_object_get(report, "paused");
  json_t *rates = lw_dashboard_rates(json_object_get(report, "stages"),
                                     lw_datetime_now_usec() / 1000);
  lw_html(
    h, "<h2>Queues</h2><div class=\"scroll\"><table id=\"stages\"><tr><th>stage</th>"
       "<th class=\"n\">queued</th><th class=\"n\">in flight</th><th class=\"n\">delayed"
       "</th><th class=\"n\">dead</th><th class=\"n\">done</th><th class=\"n\">failed</th>"
       "<th class=\"n\">done/min</th><th>state</th>");
  lw_html(h, lw_dashboard_actions_on(d) ? "<th>actions</th></tr>\n" : "</tr>\n");
  const char *stage;
  const json_t *s;
  json_object_foreach((json_t *)json_object_get(report, "stages"), stage, s) {
    bool is_paused = in_array(paused, stage);
    lw_html(h,
            "<tr><td>%s</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
            "<td class=\"n\">%lld</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
            "<td class=\"n\">%lld</td>",
            stage, num(s, "queued"), num(s, "inflight"), num(s, "delayed"), num(s, "dead"),
            num(s, "done"), num(s, "failed"));
    const json_t *rate = json_object_get(rates, stage);
    if (rate) {
      lw_html(h, "<td class=\"n\">%.1f</td>", json_number_value(rate));
    } else {
      lw_html(h, "<td class=\"n\">-</td>");
    }
    lw_html(h, "<td>%s</td>", is_paused ? "paused" : "running");
    if (lw_dashboard_actions_on(d)) {
      lw_html(h, "<td>");
      lw_dashboard_action_button(h, is_paused ? "resume" : "pause", "stage", stage,
                                 is_paused ? "Resume" : "Pause");
      lw_dashboard_action_button(h, "purge", "stage", stage, "Purge queue");
      lw_html(h, "</td>");
    }
    lw_html(h, "</tr>\n");
  }
  lw_html(h,
          "</table></div><p>done/min: over the last 5 minutes this page was watched</p>\n");
  json_decref(rates);
}

static void overview_workers(LwHtml *h, const json_t *workers)
{
  lw_html(h, "<h2>Workers alive: %zu</h2>", json_array_size(workers));
  if (!json_array_size(workers)) {
    lw_html(h, "<p>No worker has a live heartbeat.</p>\n");
    return;
  }
  lw_html(h, "<div class=\"scroll\"><table id=\"workers\"><tr><th>worker</th><th>host</th>"
             "<th>stages</th><th>job</th><th>since</th><th>progress</th></tr>\n");
  size_t i;
  const json_t *w;
  json_array_foreach(workers, i, w) {
    const json_t *job = json_object_get(w, "job");
    lw_html(h, "<tr><td class=\"mono\">%s</td><td>%s</td><td>%s</td>", str(w, "id"),
            str(w, "host"), str(w, "stages"));
    if (json_is_object(job)) {
      char seed[160];
      lw_html_url_part(str(job, "seed"), seed, sizeof(seed));
      lw_html(h,
              "<td>%s <a class=\"mono\" href=\"/seeds/%s\">%s</a></td><td>%s (%.1f s)</td>"
              "<td>%s</td>",
              str(job, "stage"), seed, str(job, "seed"), str(w, "since"),
              json_number_value(json_object_get(w, "job_seconds")), str(w, "progress"));
    } else {
      lw_html(h, "<td>idle</td><td></td><td></td>");
    }
    lw_html(h, "</tr>\n");
  }
  lw_html(h, "</table></div>\n");
}

/* One line per provider state, with a link to the providers' page; above
 * it, when the registry file does not load, its error (the providers are
 * the last good registry's). */
void lw_dashboard_registry_error(LwHtml *h, const json_t *registry)
{
  if (json_is_false(json_object_get(registry, "ok"))) {
    char when[LW_DATETIME_BUF] = "never";
    long long ms = json_integer_value(json_object_get(registry, "last_good_ms"));
    if (ms > 0) {
      lw_datetime_format_ms(ms, when);
    }
    lw_html(h,
            "<p id=\"registry-error\" class=\"bad\">The registry does not load: %s. Shown: "
            "the last good registry (read %s).</p>\n",
            str(registry, "error"), when);
  }
}

static void overview_providers(LwHtml *h, const json_t *providers, const json_t *registry)
{
  lw_dashboard_registry_error(h, registry);
  lw_html(h, "<h2><a href=\"/providers\">Providers: %zu</a></h2><p id=\"provider-states\">",
          json_array_size(providers));
  for (const char *const *state = lw_provider_states; *state; ++state) {
    size_t n = 0, i;
    const json_t *p;
    json_array_foreach(providers, i, p) {
      n += str(p, "state") && !strcmp(str(p, "state"), *state);
    }
    lw_html(h, "<span class=\"state-%s\">%zu %s</span> ", *state, n, *state);
  }
  lw_html(h, "</p>\n");
}

/* The status report and the start of a page titled title; false (page
 * filled with the error) when Redis failed. */
static bool report_page(const LwDashboard *d, LwRecords *c, const char *title,
                        json_t **report, LwHtml *h, LwHttpPage *page)
{
  LwError err;
  if (lw_status_report(c, d->cfg, report, &err) != LW_OK) {
    lw_dashboard_error_page(page, 503, err.message);
    return false;
  }
  lw_html_page_start(h, title, lw_dashboard_actions_on(d));
  return true;
}

/* "HH:MM" (UTC) of a Unix minute. */
static void minute_label(double minute, char out[8])
{
  char iso[LW_DATETIME_BUF];
  lw_datetime_format_ms((long long)minute * 60000, iso);
  snprintf(out, 8, "%.5s", iso + 11);
}

/* The samples (queue/samples.h) as two pictures: jobs done and failed per
 * minute (the counters' differences), and the jobs waiting. */
static void overview_charts(const LwDashboard *d, LwRecords *c, LwHtml *h)
{
  json_t *samples = NULL;
  LwError err;
  if (lw_samples_read(c, d->cfg->prefix, &samples, &err) != LW_OK) {
    return;
  }
  size_t n = json_array_size(samples);
  double *v = calloc(4 * (n ? n : 1), sizeof(double));
  double *x = v, *done = v + n, *failed = v + 2 * n, *waiting = v + 3 * n;
  for (size_t i = 0; v && i < n; ++i) {
    const json_t *s = json_array_get(samples, i),
                 *p = json_array_get(samples, i ? i - 1 : 0);
    x[i] = (double)num(s, "minute");
    waiting[i] = (double)num(s, "waiting");
    double gap = i ? x[i] - (double)num(p, "minute") : 0;
    /* per minute since the previous sample; a counter that went down (Redis
     * emptied) counts from zero */
    done[i] = gap > 0 ? (double)(num(s, "done") - num(p, "done")) / gap : 0;
    failed[i] = gap > 0 ? (double)(num(s, "failed") - num(p, "failed")) / gap : 0;
    done[i] = done[i] < 0 ? 0 : done[i];
    failed[i] = failed[i] < 0 ? 0 : failed[i];
  }
  char first[8] = "", last[8] = "";
  if (v && n) {
    minute_label(x[0], first);
    minute_label(x[n - 1], last);
  }
  lw_html(h, "<h2>Activity, the last hours</h2>\n");
  const LwChartSeries jobs[] = {{"done", "#176", done + 1}, {"failed", "#b00", failed + 1}};
  lw_chart_lines(h, "chart-jobs", "Jobs per minute (from the second minute on)", x + 1,
                 v && n > 1 ? n - 1 : 0, jobs, 2, first, last);
  const LwChartSeries depth[] = {{"queued, delayed or running", "#05a", waiting}};
  lw_chart_lines(h, "chart-queue", "Jobs waiting", x, v ? n : 0, depth, 1, first, last);
  free(v);
  json_decref(samples);
}

void lw_dashboard_overview(const LwDashboard *d, LwRecords *c, LwHttpPage *page)
{
  json_t *report = NULL;
  LwHtml h = LW_HTML_INIT;
  if (!report_page(d, c, "overview", &report, &h, page)) {
    return;
  }
  const json_t *sched = json_object_get(report, "scheduler");
  const json_t *redis = json_object_get(report, "redis");
  lw_html(&h,
          "<h1>Overview</h1><dl><dt>as of</dt><dd>%s</dd><dt>scheduler lease</dt>"
          "<dd id=\"lease\">%s",
          str(report, "generated"),
          str(sched, "lease_holder") ? str(sched, "lease_holder") : "nobody holds it");
  if (json_is_number(json_object_get(sched, "lease_ttl_s"))) {
    lw_html(&h, " (%.1f s left)", json_number_value(json_object_get(sched, "lease_ttl_s")));
  }
  lw_html(&h,
          "</dd><dt>Redis memory</dt><dd>%.1f MB</dd><dt>read-only</dt><dd>%s</dd></dl>\n",
          (double)num(redis, "used_memory_bytes") / 1e6,
          lw_dashboard_actions_on(d) ? "no: actions need the admin token"
                                     : "yes (set LODWASH_ADMIN_TOKEN for actions)");
  overview_stages(d, &h, report);
  overview_charts(d, c, &h);
  overview_workers(&h, json_object_get(report, "workers"));
  overview_providers(&h, json_object_get(report, "providers"),
                     json_object_get(report, "registry"));
  lw_html_page_end(&h);
  json_decref(report);
  lw_dashboard_html_page(page, 200, lw_html_finish(&h));
}

/* True when the list holds a job with this id before index i: a job
 * retried and dead again is listed once. */
static bool listed_before(const json_t *list, size_t i, const char *id)
{
  for (size_t j = 0; id && j < i; ++j) {
    const char *other = str(json_array_get(list, j), "id");
    if (other && !strcmp(other, id)) {
      return true;
    }
  }
  return false;
}

/* One dead job: what an operator asks first, the provider and the URL (from
 * its seed record), then the stage, the error and the attempts. */
static void dead_row(const LwDashboard *d, LwRecords *c, LwHtml *h, const json_t *job)
{
  json_t *seed = NULL;
  LwError err;
  if (str(job, "seed")) {
    lw_seed_get(c, d->cfg->prefix, str(job, "seed"), &seed, &err);
  }
  char hash[160], failed[LW_DATETIME_BUF] = "-";
  lw_html_url_part(str(job, "seed"), hash, sizeof(hash));
  if (num(job, "failed") > 0) {
    lw_datetime_format_ms(num(job, "failed"), failed);
  }
  const char *provider = seed ? lw_record_str(seed, "provider", NULL) : NULL;
  const char *uri = seed ? lw_record_str(seed, "uri", NULL) : NULL;
  lw_html(h, "<tr class=\"dead-job\" data-job=\"%s\"><td data-label=\"provider\">",
          str(job, "id"));
  if (provider) {
    lw_html(h, "<a href=\"/providers/%s\">%s</a>", provider, provider);
  } else {
    lw_html(h, "-");
  }
  lw_html(h, "</td><td data-label=\"URL\"><a class=\"mono\" href=\"/seeds/%s\">%s</a></td>",
          hash, uri ? uri : str(job, "seed"));
  lw_html(
    h,
    "<td data-label=\"stage\">%s</td><td data-label=\"error\"><b>%s</b> %s</td>"
    "<td class=\"n\" data-label=\"attempts\">%lld</td><td data-label=\"failed\">%s</td>"
    "<td class=\"mono\" data-label=\"job\">%s</td>",
    str(job, "stage"), str(job, "error_kind"), str(job, "error"), num(job, "attempt"),
    failed, str(job, "id"));
  if (lw_dashboard_actions_on(d)) {
    lw_html(h, "<td data-label=\"actions\">");
    lw_dashboard_action_button(h, "retry", "job", str(job, "id"), "Retry");
    lw_dashboard_action_button(h, "delete", "job", str(job, "id"), "Delete");
    lw_html(h, "</td>");
  }
  lw_html(h, "</tr>\n");
  json_decref(seed);
}

void lw_dashboard_dead(const LwDashboard *d, LwRecords *c, LwHttpPage *page)
{
  json_t *list = NULL;
  long long total = 0;
  LwError err;
  if (lw_queue_dead_list(c, d->cfg, 200, &list, &total, &err) != LW_OK) {
    lw_dashboard_error_page(page, 503, err.message);
    return;
  }
  LwHtml h = LW_HTML_INIT;
  bool actions = lw_dashboard_actions_on(d);
  lw_html_page_start(&h, "dead jobs", actions);
  lw_html(&h, "<h1>Dead jobs: %lld</h1>", total);
  if (actions && total) {
    lw_dashboard_action_button(&h, "retry", "job", "all", "Retry all");
    lw_dashboard_action_button(&h, "delete", "job", "all", "Delete all");
  }
  lw_html(&h,
          "<div class=\"scroll\"><table id=\"dead\" class=\"cards\"><tr><th>provider</th>"
          "<th>URL</th><th>stage</th><th>error</th><th class=\"n\">attempts</th>"
          "<th>failed</th><th>job</th>");
  lw_html(&h, actions ? "<th>actions</th></tr>\n" : "</tr>\n");
  size_t i;
  json_t *job;
  json_array_foreach(list, i, job) {
    if (!json_is_object(job)) {
      lw_html(&h, "<tr><td colspan=\"7\">not a job: %s</td></tr>\n",
              json_string_value(job));
    } else if (!listed_before(list, i, str(job, "id"))) {
      dead_row(d, c, &h, job);
    }
  }
  lw_html(&h, "</table></div>\n");
  if ((long long)json_array_size(list) < total) {
    lw_html(&h, "<p>%lld more: <code>lodwash jobs dead --limit 0</code></p>",
            total - (long long)json_array_size(list));
  }
  lw_html_page_end(&h);
  json_decref(list);
  lw_dashboard_html_page(page, 200, lw_html_finish(&h));
}

/* The errors a seed record holds, as a table (line, column, message). */
void lw_dashboard_seed_errors(LwHtml *h, const json_t *seed)
{
  json_t *errors = json_loads(lw_record_str(seed, "errors", "[]"), 0, NULL);
  if (json_array_size(errors)) {
    lw_html(h,
            "<div class=\"scroll\"><table class=\"errors\"><tr><th>kind</th>"
            "<th class=\"n\">line</th><th class=\"n\">column</th><th>message</th></tr>\n");
    size_t i;
    const json_t *e;
    json_array_foreach(errors, i, e) {
      lw_html(h,
              "<tr class=\"error-line\"><td>%s</td><td class=\"n\">%lld</td>"
              "<td class=\"n\">%lld</td><td>%s</td></tr>\n",
              str(e, "kind"), num(e, "line"), num(e, "column"), str(e, "message"));
    }
    lw_html(h, "</table></div>\n");
  }
  json_decref(errors);
}

/* One file of a harvest on the errors page: nothing when it has none. */
static void errors_of_file(LwHtml *h, LwRecords *c, const LwDashboard *d,
                           const char *provider, const json_t *file)
{
  bool has = num(file, "syntax_errors") > 0 || num(file, "literal_errors") > 0 ||
             str(file, "error") ||
             !strcmp(str(file, "outcome") ? str(file, "outcome") : "", "failed");
  if (!has) {
    return;
  }
  json_t *seed = NULL;
  LwError err;
  lw_seed_get(c, d->cfg->prefix, str(file, "seed"), &seed, &err);
  char hash[160];
  lw_html_url_part(str(file, "seed"), hash, sizeof(hash));
  lw_html(h,
          "<section class=\"file\"><h3>%s: <a class=\"mono\" href=\"/seeds/%s\">%s</a></h3>"
          "<p>%s, %s; %lld syntax and %lld literal errors",
          provider, hash, str(file, "uri"), str(file, "outcome"), str(file, "status"),
          num(file, "syntax_errors"), num(file, "literal_errors"));
  if (str(file, "error")) {
    lw_html(h, "; <span class=\"bad\">%s</span>", str(file, "error"));
  }
  lw_html(h, "</p>\n");
  if (seed) {
    lw_dashboard_seed_errors(h, seed);
  }
  lw_html(h, "</section>\n");
  json_decref(seed);
}

void lw_dashboard_errors(const LwDashboard *d, LwRecords *c, LwHttpPage *page)
{
  json_t *report = NULL;
  LwHtml h = LW_HTML_INIT;
  if (!report_page(d, c, "errors", &report, &h, page)) {
    return;
  }
  LwError err;
  lw_html(&h, "<h1>Errors in the latest harvests</h1>\n");
  size_t i;
  const json_t *p;
  json_array_foreach(json_object_get(report, "providers"), i, p) {
    if (str(p, "error")) {
      lw_html(&h, "<p><b>%s</b>: <span class=\"bad\">%s</span></p>\n", str(p, "name"),
              str(p, "error"));
    }
    const char *id = str(json_object_get(p, "harvest"), "id");
    json_t *hr = NULL;
    if (!id || lw_harvest_report_json(c, d->cfg->prefix, id, &hr, &err) != LW_OK) {
      continue;
    }
    size_t j;
    const json_t *file;
    json_array_foreach(json_object_get(hr, "files"), j, file) {
      errors_of_file(&h, c, d, str(p, "name"), file);
    }
    json_decref(hr);
  }
  lw_html_page_end(&h);
  json_decref(report);
  lw_dashboard_html_page(page, 200, lw_html_finish(&h));
}

bool lw_dashboard_page(const LwDashboard *d, LwRecords *c, const LwHttpRequest *req,
                       LwHttpPage *page)
{
  const char *path = req->path;
  if (!strcmp(req->method, "POST")) {
    if (strncmp(path, "/actions/", 9)) {
      return false;
    }
    lw_dashboard_action(d, c, req, page);
  } else if (!strcmp(path, "/")) {
    lw_dashboard_overview(d, c, page);
  } else if (!strcmp(path, "/dead")) {
    lw_dashboard_dead(d, c, page);
  } else if (!strcmp(path, "/errors")) {
    lw_dashboard_errors(d, c, page);
  } else if (!strcmp(path, "/providers") || !strcmp(path, "/providers/")) {
    lw_dashboard_providers(d, c, page);
  } else if (!strncmp(path, "/providers/", 11)) {
    lw_dashboard_provider(d, c, req, path + 11, page);
  } else if (!strncmp(path, "/seeds/", 7)) {
    lw_dashboard_seed(d, c, path + 7, page);
  } else {
    return false;
  }
  return true;
}
