/*
 * The operator's dashboard, served by the scheduler's HTTP service beside
 * /metrics: plain server-rendered HTML (scheduler/dashboard_html.h), a
 * little JavaScript to refresh it, no build step.
 *
 *   GET  /                          overview: queues per stage, workers and
 *                                   their jobs, the scheduler's lease, Redis
 *   GET  /providers                 every provider of the registry
 *   GET  /providers/NAME            its state, harvest history, files and
 *                                   their errors, downloads
 *   GET  /providers/NAME/graph.nq.gz                 its graph file
 *   GET  /providers/NAME/harvests/ID/added.nq.gz     a changeset (and
 *                                                    removed.nq.gz)
 *   GET  /providers/NAME/harvests/latest (or ID)     the harvest's report,
 *                                   HTML, or JSON (Accept: application/json
 *                                   or a .json suffix)
 *   GET  /seeds/HASH                a seed record with its errors
 *   GET  /errors                    every file of the latest harvests that
 *                                   has errors, with line, column, message
 *   GET  /dead                      dead jobs, error and attempts
 *   POST /actions/...               the controls (scheduler/dashboard_actions.c),
 *                                   only with the admin token
 *
 * admin_token: LODWASH_ADMIN_TOKEN. When it is empty the pages are read-only:
 * no action buttons, and every POST is refused (403).
 */
#ifndef LW_SCHEDULER_DASHBOARD_H
#define LW_SCHEDULER_DASHBOARD_H

#include "queue/redis.h"
#include <jansson.h>
#include <stdbool.h>

#include "config/config.h"
#include "net/net.h"
#include "scheduler/dashboard_html.h"

typedef struct {
  const LwConfig *cfg;
  const char *admin_token; /* "" or NULL: read-only */
} LwDashboard;

/* Fills page when req is one of the dashboard's; false otherwise (page
 * untouched). c is a connected Redis. */
bool lw_dashboard_page(const LwDashboard *d, LwRecords *c, const LwHttpRequest *req,
                       LwHttpPage *page);

/* The pages, one per file (dashboard_*.c); each fills page. */
void lw_dashboard_overview(const LwDashboard *d, LwRecords *c, LwHttpPage *page);
void lw_dashboard_dead(const LwDashboard *d, LwRecords *c, LwHttpPage *page);
void lw_dashboard_errors(const LwDashboard *d, LwRecords *c, LwHttpPage *page);
void lw_dashboard_providers(const LwDashboard *d, LwRecords *c, LwHttpPage *page);
/* rest: the path after "/providers/" */
void lw_dashboard_provider(const LwDashboard *d, LwRecords *c, const LwHttpRequest *req,
                           const char *rest, LwHttpPage *page);
void lw_dashboard_seed(const LwDashboard *d, LwRecords *c, const char *hash,
                       LwHttpPage *page);
/* POST /actions/KIND with the form's fields. */
void lw_dashboard_action(const LwDashboard *d, LwRecords *c, const LwHttpRequest *req,
                         LwHttpPage *page);

/* Helpers shared by the pages. */
/* A button posting to /actions/ACTION with one field; the token is filled
 * in from the header's field by the page's script. */
void lw_dashboard_action_button(LwHtml *h, const char *action, const char *field,
                                const char *value, const char *label);
/* The errors a seed record holds, as a table (kind, line, column, message). */
void lw_dashboard_seed_errors(LwHtml *h, const json_t *seed);
/* When the registry file does not load (registry: the status report's
 * "registry", queue/registry_state.h), its error (file, line) and when the
 * last good one shown was read; nothing when it loads. */
void lw_dashboard_registry_error(LwHtml *h, const json_t *registry);
bool lw_dashboard_actions_on(const LwDashboard *d);
void lw_dashboard_html_page(LwHttpPage *page, int status, char *html);
void lw_dashboard_error_page(LwHttpPage *page, int status, const char *message);

#endif
