/*
 * Telling a provider what became of its dump: when the registry gives a
 * provider `notify: URL`, the report of each harvest that ended (done or
 * failed; report/provider_report.h, lw_harvest_report_json) is POSTed
 * there as JSON (Content-Type: application/json), by the scheduler at its
 * next cycle, during its VoID visits (within their timeout, 5 to 30 s).
 *
 * The POST follows the download stage's address rules (net/net.h:
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

#include "queue/redis.h"

#include "config/config.h"
#include "base/base.h"

/* The reports due go out at once (up to 64 a cycle; the rest at the next),
 * each POST on a thread of its own within timeout_ms, while the caller does
 * the rest of its cycle: a receiver that never answers costs the cycle
 * nothing beyond that timeout, however many there are. */
typedef struct LwNotifyBatch LwNotifyBatch;

/* Reads which of reg's providers with a notify URL have a report due (their
 * latest harvest ended, not sent yet, an attempt due) and starts their
 * POSTs (a report that cannot be made is logged and skipped). NULL (err
 * set) when Redis failed or out of memory. */
LwNotifyBatch *lw_notify_begin(LwRecords *c, const LwConfig *cfg, const LwRegistry *reg,
                               long timeout_ms, LwError *err);

/* Waits for the POSTs of batch (each ends within its timeout), records
 * each outcome on its harvest record and frees batch (NULL safe). A failed
 * POST is LW_OK (recorded, retried later); LW_ERR_REDIS when Redis
 * failed. */
LwStatus lw_notify_end(LwRecords *c, LwNotifyBatch *batch, LwError *err);

#endif
