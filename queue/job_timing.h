/*
 * How long jobs take, per stage: a histogram kept on Redis so that every
 * worker adds to the same one and /metrics shows it as a Prometheus
 * histogram (lodwash_job_duration_seconds_bucket/_sum/_count).
 *
 * Key timing:<stage> (queue/keys.h), a hash:
 *   b<i>     runs that took at most lw_job_timing_bounds[i] seconds and more
 *            than the bound before (not cumulative; /metrics sums them)
 *   inf      runs longer than the largest bound
 *   sum_ms   total run time in milliseconds
 *   count    runs
 * A run is counted when its outcome was sent (done, retry or dead); a job
 * handed back at shutdown is not.
 */
#ifndef LW_QUEUE_JOB_TIMING_H
#define LW_QUEUE_JOB_TIMING_H

#include <stddef.h>

#include "base/base.h"
#include "queue/redis.h"

/* Upper bounds of the buckets, in seconds, ascending. */
extern const double lw_job_timing_bounds[];
#define LW_JOB_TIMING_BUCKETS 12

typedef struct {
  long long bucket[LW_JOB_TIMING_BUCKETS + 1]; /* last: longer than every bound */
  long long sum_ms;
  long long count;
} LwJobTiming;

/* Adds one run of ms milliseconds of a job of stage. */
LwStatus lw_job_timing_record(LwRecords *c, const char *prefix, const char *stage,
                              long long ms, LwError *err);

/* Reads the histogram of stage (all zero when none was recorded). */
LwStatus lw_job_timing_read(LwRecords *c, const char *prefix, const char *stage,
                            LwJobTiming *out, LwError *err);

#endif
