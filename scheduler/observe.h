/*
 * The scheduler's HTTP pages for operators (net/net.h):
 *   /metrics  Prometheus text (report/metrics.h)
 *   /status   the status report as JSON (report/status_report.h)
 *   /healthz  "ok" when Redis answers, else 503
 *   /, /providers, /dead, ... and POST /actions/...: the dashboard
 *             (scheduler/dashboard.h)
 * Each request reads Redis afresh on a connection of its own (the service
 * runs on its own thread; hiredis contexts are not shared between threads).
 */
#ifndef LW_SCHEDULER_OBSERVE_H
#define LW_SCHEDULER_OBSERVE_H

#include "config/config.h"
#include "net/net.h"
#include "scheduler/dashboard.h"

/* Starts the pages on bind_address:port (dashboard and its cfg are kept by
 * reference). */
LwHttpService *lw_observe_start(const LwDashboard *dashboard, const char *bind_address,
                                int port, LwError *err);

#endif
