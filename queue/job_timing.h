/*
 * How long jobs take, per stage: a histogram kept on Redis so that every
 * worker adds to the same one and /metrics shows it as a Prometheus
 * histogram (lodwash_job_duration_seconds_bucket/_sum/_count).
 *
 * Key timing:<stage> (queue/keys.h), a hash:
 *   b<i>     runs that took at most lw_job_timing_bounds[i] seconds and more
 *            than the bound before (not cumulative; /metrics sums them)
 *   inf      runs longer than the largest bound
 *   sum_ms   total run time in milliseconds (absent while 0)
 * The number of runs is the buckets' sum (each run adds 1 to one bucket):
 * no field of its own, which would be one more command in every ack.
 * A run is counted with its outcome (done, retry or dead), in the same
 * fenced script call (queue/queue.c): a job handed back at shutdown, or
 * one whose outcome finds it no longer the worker's (lost), is not.
 */
#ifndef LW_QUEUE_JOB_TIMING_H
#define LW_QUEUE_JOB_TIMING_H

#include <stddef.h>

#include "base/base.h"
#include "queue/redis.h"
#include "queue/txn.h"

/* Upper bounds of the buckets, in seconds, ascending. */
extern const double lw_job_timing_bounds[];
#define LW_JOB_TIMING_BUCKETS 12

typedef struct {
  long long bucket[LW_JOB_TIMING_BUCKETS + 1]; /* last: longer than every bound */
  long long sum_ms;
  long long count;
} LwJobTiming;

/* Adds to txn the ops that count one run of ms milliseconds of a job of
 * stage. */
void lw_job_timing_ops(LwTxn *txn, const char *prefix, const char *stage, long long ms);

/* Reads the histogram of stage (all zero when none was recorded). */
LwStatus lw_job_timing_read(LwRecords *c, const char *prefix, const char *stage,
                            LwJobTiming *out, LwError *err);

#endif
