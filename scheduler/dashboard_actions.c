/*
 * The dashboard's actions: POST /actions/KIND with the form fields below and
 * token = LODWASH_ADMIN_TOKEN. Each answers with a redirect (303) back to the
 * page it came from (the Referer is not trusted: the page is chosen by the
 * action), or 403 without the right token, 400 for a bad field.
 *
 *   retry    job=ID|all        a dead job (or all) back to its queue
 *   delete   job=ID|all        a dead job (or all) deleted
 *   harvest  provider=NAME     a forced harvest at the scheduler's next visit
 *   cancel   provider=NAME     its running harvest cancelled
 *   hold     provider=NAME     not harvested until released
 *   release  provider=NAME
 *   pause    stage=STAGE       not fetched by workers until resumed
 *   resume   stage=STAGE
 *   purge    stage=STAGE       its waiting jobs dropped
 *
 * delete, purge and cancel destroy what cannot be had back: without
 * confirm=yes they answer 200 with a page that asks, whose button posts the
 * same action with confirm=yes (no script needed, and a stray POST or a
 * double tap on a phone deletes nothing).
 */
#include "queue/pipeline.h"
#include "scheduler/dashboard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "queue/controls.h"
#include "queue/queue.h"
#include "queue/provider_record.h"
#include "queue/registry_state.h"
#include "scheduler/harvest_cancel.h"
#include "config/config.h"

/* Compares in time independent of where the first difference is. */
static bool token_ok(const char *given, const char *want)
{
  size_t n = strlen(want), m = given ? strlen(given) : 0;
  unsigned diff = (unsigned)(n ^ m);
  for (size_t i = 0; i < n; ++i) {
    diff |= (unsigned char)want[i] ^ (unsigned char)(i < m ? given[i] : 0);
  }
  return given && diff == 0;
}

static void redirect(LwHttpPage *page, const char *to)
{
  page->status = 303;
  page->content_type = "text/plain; charset=utf-8";
  page->location = strdup(to);
  page->body = strdup("done\n");
}

/* retry and delete: job=ID|all */
static LwStatus dead_action(const LwDashboard *d, LwRecords *c, bool retry, const char *job,
                            LwError *err)
{
  long long n = 0;
  const char *id = strcmp(job, "all") ? job : NULL;
  return retry ? lw_pipeline_retry_dead(c, d->cfg, id, &n, err)
               : lw_controls_dead_delete(c, d->cfg, id, &n, err);
}

static LwStatus provider_action(const LwDashboard *d, LwRecords *c, const char *kind,
                                const char *name, LwError *err)
{
  LwRegistry *reg = NULL;
  json_t *state = NULL;
  LwStatus st = lw_registry_state_load(c, d->cfg, &reg, &state, err);
  json_decref(state);
  LW_TRY(st);
  bool known = lw_registry_find(reg, name) != NULL;
  lw_registry_free(reg);
  if (!known) { /* the registry stays the source of providers */
    return lw_error_set(err, LW_ERR_USAGE, "no provider '%s' in the registry", name);
  }
  if (!strcmp(kind, "hold") || !strcmp(kind, "release")) {
    return lw_controls_provider_hold(c, d->cfg->prefix, name, !strcmp(kind, "hold"), err);
  }
  if (!strcmp(kind, "cancel")) {
    return lw_harvest_cancel(c, d->cfg, name, NULL, err);
  }
  bool held = false;
  LW_TRY(lw_controls_provider_held(c, d->cfg->prefix, name, &held, err));
  if (held) {
    return lw_error_set(err, LW_ERR_STATE, "provider '%s' is held: release it first", name);
  }
  return lw_provider_request_force(c, d->cfg->prefix, name, err);
}

static LwStatus stage_action(const LwDashboard *d, LwRecords *c, const char *kind,
                             const char *stage, LwError *err)
{
  if (!strcmp(kind, "purge")) {
    long long n = 0;
    return lw_controls_purge(c, d->cfg, stage, lw_pipeline_follow_up, &n, err);
  }
  return lw_controls_stage_pause(c, d->cfg->prefix, stage, !strcmp(kind, "pause"), err);
}

static bool destructive(const char *kind)
{
  return !strcmp(kind, "delete") || !strcmp(kind, "purge") || !strcmp(kind, "cancel");
}

/* The question of a destructive action, in words. */
static void confirm_question(LwHtml *h, const char *kind, const char *value)
{
  if (!strcmp(kind, "delete")) {
    lw_html(h,
            !strcmp(value, "all") ? "<h1>Delete every dead job?</h1>"
                                  : "<h1>Delete dead job %s?</h1>",
            value);
    lw_html(h, "<p>Deleted jobs are gone for good; their seeds stay failed until "
               "the next harvest.</p>");
  } else if (!strcmp(kind, "purge")) {
    lw_html(h,
            "<h1>Drop every waiting job of stage %s?</h1><p>The jobs queued and "
            "delayed are gone for good; their harvests end without them.</p>",
            value);
  } else {
    lw_html(h,
            "<h1>Cancel the running harvest of %s?</h1><p>Its waiting jobs are "
            "dropped; the next harvest starts from the start.</p>",
            value);
  }
}

/* The page that asks before a destructive action: its button posts the
 * same action again with confirm=yes. */
static void confirm_page(const LwDashboard *d, const LwHttpRequest *req, const char *kind,
                         const char *field, const char *value, LwHttpPage *page)
{
  LwHtml h = LW_HTML_INIT;
  lw_html_page_start(&h, "confirm", lw_dashboard_actions_on(d));
  confirm_question(&h, kind, value);
  lw_html(
    &h,
    "<form id=\"confirm\" method=\"post\" action=\"/actions/%s\">"
    "<input type=\"hidden\" name=\"%s\" value=\"%s\">"
    "<input type=\"hidden\" name=\"token\" value=\"%s\">"
    "<input type=\"hidden\" name=\"confirm\" value=\"yes\">"
    "<button type=\"submit\">Yes, %s</button></form> <a href=\"%s\">No, go back</a>\n",
    kind, field, value, lw_http_form_get(req, "token"), kind,
    !strcmp(kind, "delete") ? "/dead" : "/");
  lw_html_page_end(&h);
  lw_dashboard_html_page(page, 200, lw_html_finish(&h));
}

void lw_dashboard_action(const LwDashboard *d, LwRecords *c, const LwHttpRequest *req,
                         LwHttpPage *page)
{
  const char *kind = req->path + strlen("/actions/");
  if (!lw_dashboard_actions_on(d)) {
    lw_dashboard_error_page(page, 403,
                            "read-only: the scheduler has no LODWASH_ADMIN_TOKEN");
    return;
  }
  if (!token_ok(lw_http_form_get(req, "token"), d->admin_token)) {
    lw_dashboard_error_page(page, 403, "wrong or missing admin token");
    return;
  }
  const char *job = lw_http_form_get(req, "job");
  const char *provider = lw_http_form_get(req, "provider");
  const char *stage = lw_http_form_get(req, "stage");
  const char *confirm = lw_http_form_get(req, "confirm");
  if (destructive(kind) && (!confirm || strcmp(confirm, "yes"))) {
    const char *field = job ? "job" : provider ? "provider" : "stage";
    const char *value = job ? job : provider ? provider : stage;
    bool valid = value && *value &&
                 (job ||
                  (provider ? lw_provider_name_valid(value) : lw_pipeline_is_stage(value)));
    if (!valid) {
      lw_dashboard_error_page(page, 400, "unknown action or missing field");
    } else {
      confirm_page(d, req, kind, field, value, page);
    }
    return;
  }
  LwError err;
  lw_error_clear(&err);
  LwStatus st;
  char back[256] = "/";
  if ((!strcmp(kind, "retry") || !strcmp(kind, "delete")) && job && *job) {
    st = dead_action(d, c, !strcmp(kind, "retry"), job, &err);
    snprintf(back, sizeof(back), "/dead");
  } else if ((!strcmp(kind, "harvest") || !strcmp(kind, "cancel") ||
              !strcmp(kind, "hold") || !strcmp(kind, "release")) &&
             provider && lw_provider_name_valid(provider)) {
    st = provider_action(d, c, kind, provider, &err);
    snprintf(back, sizeof(back), "/providers/%s", provider);
  } else if ((!strcmp(kind, "pause") || !strcmp(kind, "resume") ||
              !strcmp(kind, "purge")) &&
             stage) {
    if (!lw_pipeline_is_stage(stage)) { /* else a pause only the page could undo */
      lw_dashboard_error_page(page, 400, "no such stage");
      return;
    }
    st = stage_action(d, c, kind, stage, &err);
  } else {
    lw_dashboard_error_page(page, 400, "unknown action or missing field");
    return;
  }
  if (st > LW_NOTHING) {
    lw_dashboard_error_page(page, st == LW_ERR_REDIS ? 503 : 409, err.message);
    return;
  }
  lw_info("action=%s job=%s provider=%s stage=%s outcome=%s", kind, job ? job : "-",
          provider ? provider : "-", stage ? stage : "-", st == LW_OK ? "done" : "nothing");
  redirect(page, back);
}
