/*
 * Telling a provider what became of its dump: when the registry gives a
 * provider `notify: URL`, the report of each harvest that ended (done or
 * failed; scheduler/provider_report.h, lw_harvest_report_json) is POSTed
 * there as JSON (Content-Type: application/json), by the scheduler at its
 * next cycle.
 *
 * The POST follows the download stage's address rules (common/netguard.h:
 * http(s) only, public addresses unless --allow-net exempts them, checked on
 * the socket connected), follows no redirect, and counts as sent on a 2xx
 * answer. Otherwise it is tried again with the queue's backoff
 * (--retry-base-ms doubling, at most --retry-max-ms), up to --max-attempts
 * times. The outcome goes on the harvest record, where the provider's page
 * shows it:
 *
 *   notify_status    sent | retrying | failed
 *   notify_attempts  POSTs made
 *   notify_next      ms before which no new attempt is made (retrying)
 *   notify_at        ms of the last attempt
 *   notify_http      HTTP status of the last answer ("" when none)
 *   notify_error     why the last attempt failed ("" when sent)
 *   notify_url       where it went
 */
#ifndef LW_SCHEDULER_NOTIFY_H
#define LW_SCHEDULER_NOTIFY_H

#include <hiredis/hiredis.h>

#include "common/config.h"
#include "common/status.h"
#include "scheduler/registry.h"

/* Sends p's latest ended harvest's report if p has a notify URL, it was not
 * sent yet, and an attempt is due. LW_NOTHING when nothing was to be done;
 * a failed POST is LW_OK (recorded, retried later); LW_ERR_REDIS when Redis
 * failed. */
LwStatus lw_notify_provider(redisContext *c, const LwConfig *cfg, const LwProvider *p,
                            LwError *err);

#endif
