/*
 * The samples behind the overview's pictures (key `samples`, a list, newest
 * first): one a minute, "MINUTE DONE FAILED WAITING" with MINUTE the Unix
 * minute, DONE and FAILED the jobs done and the failed attempts of every
 * stage so far (the counters), WAITING the jobs queued, delayed or in
 * flight then. The scheduler records one each cycle: a cycle in the same
 * minute as the head replaces it. LW_SAMPLES_MAX (6 hours) are kept.
 */
#ifndef LW_QUEUE_SAMPLES_H
#define LW_QUEUE_SAMPLES_H

#include <jansson.h>

#include "base/base.h"
#include "config/config.h"
#include "queue/redis.h"

#define LW_SAMPLES_MAX 360

/* Records the counts of now (ms) as the sample of its minute. */
LwStatus lw_samples_record(LwRecords *c, const LwConfig *cfg, long long now_ms,
                           LwError *err);

/* The samples, oldest first, as a JSON array of
 * {"minute": N, "done": N, "failed": N, "waiting": N} (caller decrefs). */
LwStatus lw_samples_read(LwRecords *c, const char *prefix, json_t **out, LwError *err);

#endif
