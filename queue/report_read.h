/*
 * The queue's part of the status report (report/status_report.h builds the
 * whole one), read from Redis: lw_queue_status (stages, workers, seeds)
 * plus "counters" (bytes downloaded, triples cleaned and imported, errors by
 * kind: the PREFIXcounters hash), and Redis's own used memory.
 */
#ifndef LW_QUEUE_REPORT_READ_H
#define LW_QUEUE_REPORT_READ_H

#include "queue/redis.h"
#include <jansson.h>

#include "config/config.h"
#include "base/base.h"
#include "queue/keys.h"


/* Reads the queue's part of the report (caller decrefs *out). */
LwStatus lw_report_json(LwRecords *c, const LwConfig *cfg, json_t **out, LwError *err);

/* Redis's used memory in bytes (INFO memory), -1 when it does not say. */
LwStatus lw_report_redis_memory(LwRecords *c, long long *used, LwError *err);

#endif
