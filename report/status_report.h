/*
 * The whole status report: the queue's part (queue/report_read.h: stages,
 * workers, seeds, counters) and the providers of the registry with their
 * harvests (report/provider_report.h). What `lodwash status --json`
 * prints, the status job writes to DATA/status.json and the scheduler serves
 * at /status (and renders at /metrics). A registry that cannot be read leaves
 * "providers" empty and says why in "providers_error".
 *
 * Besides: "timings" (per stage: count, sum_seconds, cumulative buckets of
 * the job run times, queue/job_timing.h), "redis" (up, used_memory_bytes),
 * "scheduler" (lease_holder, lease_ttl_s), "paused" (stages),
 * "generated". Times a person reads are ISO 8601 in UTC (workers' started
 * and since, harvests' started and finished); a worker with a job has
 * job_seconds.
 */
#ifndef LW_REPORT_STATUS_REPORT_H
#define LW_REPORT_STATUS_REPORT_H

#include "queue/redis.h"
#include <jansson.h>

#include "config/config.h"
#include "base/base.h"

LwStatus lw_status_report(LwRecords *c, const LwConfig *cfg, json_t **out, LwError *err);

/* Writes report to DATA/status.json atomically (what the status stage
 * leaves for those who read files, not Redis). */
LwStatus lw_status_report_write(const LwConfig *cfg, const json_t *report, LwError *err);

#endif
