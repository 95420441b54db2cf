#include "scheduler/observe.h"

#include <stdlib.h>
#include <string.h>

#include "queue/redis.h"
#include "scheduler/dashboard.h"
#include "report/metrics.h"
#include "report/status_report.h"

static void page_text(LwHttpPage *page, int status, const char *text)
{
  page->status = status;
  page->content_type = "text/plain; charset=utf-8";
  page->body = strdup(text);
}

static void page(void *handle, const LwHttpRequest *req, LwHttpPage *p)
{
  const LwDashboard *d = handle;
  const LwConfig *cfg = d->cfg;
  const char *path = req->path;
  bool get = strcmp(req->method, "POST") != 0;
  bool metrics = get && !strcmp(path, "/metrics");
  bool status = get && !strcmp(path, "/status");
  bool health = get && !strcmp(path, "/healthz");
  LwRecords *c = NULL;
  LwError err;
  lw_error_clear(&err);
  if (lw_redis_connect(cfg->redis_url, &c, &err) != LW_OK) {
    if (metrics) { /* a scrape still answers: lodwash_redis_up 0 */
      p->status = 200;
      p->content_type = "text/plain; version=0.0.4; charset=utf-8";
      p->body = lw_metrics_render(NULL);
    } else {
      page_text(p, 503, err.message);
    }
    return;
  }
  json_t *report = NULL;
  if (!metrics && !status && !health) {
    if (!lw_dashboard_page(d, c, req, p)) {
      p->status = get ? 404 : 405;
    }
  } else if (health) {
    page_text(p, 200, "ok\n");
  } else if (lw_status_report(c, cfg, &report, &err) != LW_OK) {
    page_text(p, 503, err.message);
  } else if (metrics) {
    p->status = 200;
    p->content_type = "text/plain; version=0.0.4; charset=utf-8";
    p->body = lw_metrics_render(report);
  } else {
    p->status = 200;
    p->content_type = "application/json";
    p->body = json_dumps(report, JSON_INDENT(2) | JSON_SORT_KEYS);
  }
  if (p->status == 200 && !p->body && !p->file) {
    page_text(p, 500, "out of memory\n");
  }
  json_decref(report);
  lw_records_close(c);
}

LwHttpService *lw_observe_start(const LwDashboard *dashboard, const char *bind_address,
                                int port, LwError *err)
{
  return lw_http_service_start(bind_address, port, page, (void *)dashboard, err);
}
