/*
 * The status report: what `lodwash status --json` prints, what the status
 * job writes to DATA/status.json and what /status serves — one function, so
 * they never disagree. lw_queue_status (stages, workers, seeds), plus
 * "counters" (bytes downloaded, triples cleaned and imported, errors by
 * kind: the PREFIXcounters hash) and "providers" (one object per provider
 * with its current or last harvest).
 */
#ifndef LW_QUEUE_REPORT_READ_H
#define LW_QUEUE_REPORT_READ_H

#include <hiredis/hiredis.h>
#include <jansson.h>

#include "common/config.h"
#include "common/status.h"
#include "queue/keys.h"


/* Builds the report (caller decrefs *out). */
LwStatus lw_report_json(redisContext *c, const LwConfig *cfg, json_t **out, LwError *err);

/* Writes the report to DATA/status.json atomically. */
LwStatus lw_report_write(const LwConfig *cfg, const json_t *report, LwError *err);

/* Redis's used memory in bytes (INFO memory), -1 when it does not say. */
LwStatus lw_report_redis_memory(redisContext *c, long long *used, LwError *err);

#endif
