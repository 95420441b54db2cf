/*
 * The reliable job queue (at-least-once) on Redis. Key names: queue/keys.h;
 * the job's life cycle: queue/job.h.
 *
 * Guarantees:
 *   - a job is always in exactly one place: its queue, the delayed set, one
 *     worker's in-flight list, the dead list, or gone after its ack; every
 *     move between them is one atomic Lua script;
 *   - fetch moves a job into the worker's in-flight list and marks the
 *     worker's heartbeat in one round trip;
 *   - ack removes it, records the stage's results and pushes the follow-up
 *     jobs in one fenced script call (nothing applies if the job is no
 *     longer the worker's), in one round trip;
 *   - a failure is retried after retry_base_ms * 2^(attempt-1) (capped at
 *     retry_max_ms), up to max_attempts runs, then the job is dead; a
 *     permanent error (!lw_status_retryable) is dead at once;
 *   - the reaper gives back the jobs of workers whose heartbeat expired;
 *   - (stage, seed, harvest) is queued at most once at a time: a second
 *     push while the first is queued, delayed or in flight is suppressed
 *     (LW_NOTHING); see lw_job_member.
 *
 * All functions take a connected LwRecords and return LW_ERR_REDIS (err
 * set) when Redis fails; the caller reconnects.
 */
#ifndef LW_QUEUE_QUEUE_H
#define LW_QUEUE_QUEUE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "base/base.h"
#include "queue/job.h"
#include "queue/redis.h"
#include "queue/txn.h"

/* Queues job. LW_OK, or LW_NOTHING when a job of the same stage for the
 * same seed is already queued, delayed or in flight. */
LwStatus lw_queue_push(LwRecords *c, const LwConfig *cfg, const LwJob *job,
                       LwPriority priority, LwError *err);
LwStatus lw_queue_push_prefix(LwRecords *c, const char *prefix, const LwJob *job,
                              LwPriority priority, LwError *err);

/* Queues n jobs in pipelined batches (benchmarks, `jobs push --count`).
 * *pushed (may be NULL) gets how many were not suppressed. */
LwStatus lw_queue_push_many(LwRecords *c, const LwConfig *cfg, LwJob *const *jobs, size_t n,
                            LwPriority priority, size_t *pushed, LwError *err);

/* The cap on the workers in downloads at once (--download-workers,
 * workers/download_cap.h), kept by the fetch itself: the download stage is
 * asked only with one of limit places (the lease set downloadslots, member
 * the worker, leased lease_ms), and the place is given back in the same
 * call when the job taken is not a download, or there is none. */
typedef struct {
  const char *member;
  long long limit;
  long long lease_ms;
} LwFetchCap;

/* Takes the next job of the first of stages[0..n) that has one (moving due
 * retries of those stages into their queues first) into worker_id's
 * in-flight list, and refreshes the worker's heartbeat; cap (may be NULL:
 * none) as LwFetchCap says. LW_OK with *out set (caller frees), or
 * LW_NOTHING with *out NULL when all are empty. */
LwStatus lw_queue_fetch(LwRecords *c, const LwConfig *cfg, const char *worker_id,
                        const char *const *stages, size_t n, const LwFetchCap *cap,
                        LwJob **out, LwError *err);

/* Finishes job: in one fenced script call (queue/txn.h), removes it from
 * the in-flight list, releases its (stage, seed, harvest) and counts it
 * done, and applies txn (may be NULL) all or nothing. LW_NOTHING: the job
 * was no longer this worker's (reaped, or this ack already applied and its
 * reply was lost): nothing was applied. LW_ERR_STATE: the job is done but
 * txn's results were refused (err says why). */
LwStatus lw_queue_ack(LwRecords *c, const LwConfig *cfg, const char *worker_id,
                      const LwJob *job, LwTxn *txn, LwError *err);

/* Whether stage was paused (an operator's pause, queue/controls.h) when
 * this process's worker last read the paused stages with an ack. */
bool lw_queue_paused_seen(const char *stage);

/* lw_queue_ack, and in the same round trip the fetch of the next job
 * (lw_queue_fetch's semantics): *next gets it or NULL. The next job is
 * fetched even when the ack fails; the caller owns it either way. */
LwStatus lw_queue_ack_fetch(LwRecords *c, const LwConfig *cfg, const char *worker_id,
                            const LwJob *job, LwTxn *txn, const char *const *stages,
                            size_t n, const LwFetchCap *cap, LwJob **next, LwError *err);

/* Hands back every job in worker_id's in-flight list except `except` (may
 * be NULL): after a reconnect, a job whose fetch reply was lost with the
 * connection would otherwise sit there while the worker lives. */
LwStatus lw_queue_release_orphans(LwRecords *c, const LwConfig *cfg, const char *worker_id,
                                  const LwJob *except, long long *released, LwError *err);

typedef enum {
  LW_FAIL_RETRY, /* in the delayed set */
  LW_FAIL_DEAD   /* in the dead list */
} LwFailOutcome;

/* True when a failure of job goes to the dead list (permanent, or the last
 * attempt). */
bool lw_queue_fail_final(const LwConfig *cfg, const LwJob *job, const LwError *failure);

/* Records that job failed with failure (its status and message): puts it in
 * the delayed set (retryable, attempts left) or the dead list, in one
 * fenced script call with results (may be NULL: the caller's ops, e.g. the
 * harvest's fan-in, to which the seed's `error` and, when dead, its move to
 * `failed` if its status allows are added). LW_NOTHING: the job was no
 * longer this worker's, nothing applied. *outcome and *delay_ms (may be
 * NULL) say what happened. */
LwStatus lw_queue_fail(LwRecords *c, const LwConfig *cfg, const char *worker_id,
                       const LwJob *job, const LwError *failure, LwTxn *results,
                       LwFailOutcome *outcome, long long *delay_ms, LwError *err);

/* Puts job back at the front of its queue unchanged (SIGTERM). */
LwStatus lw_queue_handback(LwRecords *c, const LwConfig *cfg, const char *worker_id,
                           const LwJob *job, LwError *err);

/* The retry delay before run attempt+1 (attempt >= 1 failed runs). */
long long lw_queue_backoff_ms(const LwConfig *cfg, long long attempt);

/* The reaper: gives back every in-flight job of every registered worker
 * whose heartbeat key expired, and forgets those workers. *returned (may be
 * NULL) gets the number of jobs handled. The scheduler calls it each cycle;
 * idle workers call it too. */
LwStatus lw_queue_reap(LwRecords *c, const LwConfig *cfg, long long *returned,
                       LwError *err);

/* What the reaper needs to finish, as failed, the file of a harvest whose
 * job it sends to the dead list (queue/harvest.h): the stages that work on
 * files of a harvest, and the stage of the job queued when a harvest's
 * files are all finished. */
typedef struct {
  const char *const *file_stages;
  size_t n_file_stages;
  const char *follow_up;
} LwReapFanIn;

/* lw_queue_reap with the harvest fan-in of dead file jobs (fan_in may be
 * NULL: none; queue/pipeline.h has lw_pipeline_reap, with the pipeline's). */
LwStatus lw_queue_reap_files(LwRecords *c, const LwConfig *cfg, const LwReapFanIn *fan_in,
                             long long *returned, LwError *err);

/* Puts job, which worker_id holds, in the delayed set for delay_ms
 * unchanged: no attempt spent, nothing counted but `deferred` (a job whose
 * host is full: not its doing). Fenced like the fail; LW_NOTHING when the
 * job was no longer this worker's. */
LwStatus lw_queue_defer(LwRecords *c, const LwConfig *cfg, const char *worker_id,
                        const LwJob *job, long long delay_ms, LwError *err);

/* The number of jobs of stage waiting in its queue (all its harvests'
 * lanes, queue/keys.h) into *n. */
LwStatus lw_queue_depth(LwRecords *c, const LwConfig *cfg, const char *stage, long long *n,
                        LwError *err);

/* Moves due retries of stage (NULL: every known stage) into their queues. */
LwStatus lw_queue_promote(LwRecords *c, const LwConfig *cfg, const char *stage,
                          long long *moved, LwError *err);

/* Moves dead jobs of stage (NULL: every stage) back to their queue with
 * attempt 0: the one whose id is id, or all of them when id is NULL.
 * *moved gets how many; LW_NOTHING when none matched. */
LwStatus lw_queue_retry_dead(LwRecords *c, const LwConfig *cfg, const char *stage,
                             const char *id, long long *moved, LwError *err);

/* The dead jobs of every stage, newest first, at most limit per stage
 * (0: all), as a JSON array of job objects (an entry that is not JSON is
 * kept as a string); caller decrefs. *total (may be NULL) gets the number
 * of dead jobs in all. */
LwStatus lw_queue_dead_list(LwRecords *c, const LwConfig *cfg, long long limit,
                            json_t **out, long long *total, LwError *err);

/* Counts of one stage. */
typedef struct {
  long long queued, inflight, delayed, dead, done, failed;
} LwStageCounts;

/* The names of every stage a job was ever queued for, sorted, as a JSON
 * array of strings (caller decrefs). */
LwStatus lw_queue_stages(LwRecords *c, const LwConfig *cfg, json_t **out, LwError *err);

/* Counts of stage; inflight is counted over the in-flight lists. */
LwStatus lw_queue_counts(LwRecords *c, const LwConfig *cfg, const char *stage,
                         LwStageCounts *out, LwError *err);

/* The whole picture, as `lodwash status --json` prints it:
 *   {"stages": {"<stage>": {"queued":N,"inflight":N,"delayed":N,"dead":N,
 *                           "done":N,"failed":N}, ...},
 *    "workers": [{"id":..,"host":..,"pid":N,"stages":"a,b","started":ms,
 *                 "job":{..}|null,"since":ms|null,"progress":".."|null}, ...],
 *    "seeds": {"<status>": N, ...}}
 * Only live workers (heartbeat present) are listed. Caller decrefs. */
LwStatus lw_queue_status(LwRecords *c, const LwConfig *cfg, json_t **out, LwError *err);

/* True when nothing of stages[0..n) is queued, delayed or in flight on any
 * worker other than except_worker (NULL: none excepted). */
LwStatus lw_queue_idle(LwRecords *c, const LwConfig *cfg, const char *const *stages,
                       size_t n, const char *except_worker, bool *idle, LwError *err);

#endif
