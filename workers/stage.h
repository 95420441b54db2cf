/*
 * The stage contract: how a pipeline stage (download, unpack, guess, parse,
 * import, export, status, noop) plugs into lodwash-worker.
 *
 * A stage is one source file under workers/ with one run function, and one
 * row in the table in workers/stages.c:
 *
 *   { "download", lw_stage_download_run, "fetch a seed over HTTP(S)" },
 *
 * The row also says, for a stage on a seed, the status it takes, its working
 * status and how it may end (status and next stage): the frame makes those
 * moves and queues the next job, so a stage computes results and never
 * names another stage (unpack queues its entries with lw_stage_spawn).
 *
 * The worker frame (workers/worker.c) takes a job from the stage's queue and
 * calls run(ctx) with:
 *
 *   ctx->config  the settings (data dir, limits, store, ...), read only
 *   ctx->redis   a connection to Redis: read what you need (the seed record:
 *                lw_seed_get), and write intermediate state that must be
 *                visible at once: the working status with
 *                lw_stage_seed_working (fenced: only while the job is still
 *                this worker's; lw_stage_on_own_seed does it)
 *   ctx->job     the job (ctx->job->seed, ->harvest, ->attempt, extra fields
 *                with lw_job_get_int / lw_job_get_string), read only
 *   ctx->txn     where the RESULT goes: seed fields, new child seeds
 *                (queue/txn.h); the frame adds the final status, the next
 *                job and the harvest's fan-in from the table. It applies
 *                them with the ack that removes the job from the in-flight
 *                list, in one fenced script call (nothing if the job is no
 *                longer this worker's), and only if run returns success.
 *   ctx->err     where an error message goes (lw_error_set)
 *
 * run returns:
 *   LW_OK                 success: the txn and the row's outcome (done, or
 *                         other after lw_stage_other) are applied with the
 *                         ack.
 *   LW_NOTHING            nothing to do (the job ran twice): the txn, if
 *                         any, is applied, but no move and no next job.
 *   a retryable error     (lw_status_retryable: net, redis, io, store, ...)
 *                         the txn is dropped; the job is retried later with
 *                         exponential backoff, and after max_attempts it goes
 *                         to the dead list. The seed gets `error` set to the
 *                         message, and `status failed` once the job is dead.
 *   a permanent error     (syntax, http 4xx, limit, format, refused, ...)
 *                         the txn is dropped; the job goes straight to the
 *                         dead list, the seed gets `error` and `status failed`
 *                         (when its status allows: a working state).
 *
 * A status transition in the txn that the seed machine refuses (see
 * queue/seed.h), or a seed that belongs to another harvest by now, refuses
 * all the results: nothing of them is applied. The job is acked anyway and
 * the worker logs a warning, so check the seed's status before working (a
 * seed already past your stage: return LW_NOTHING; lw_stage_on_own_seed
 * does).
 *
 * Rules for handlers:
 *   - Be idempotent: the queue is at-least-once, a job may run twice (its
 *     worker was thought dead, or died after doing the work but before the
 *     ack). Running twice must end in the same records and files.
 *   - Write files to a temporary file and rename (files/files.h);
 *     never leave half files under their final name.
 *   - Keep no state between jobs; everything lives in Redis and the data dir.
 *   - Long work: call lw_stage_stopping(ctx) now and then and return an
 *     error (any) when it is true; the frame then hands the job back to its
 *     queue unchanged (SIGTERM), instead of counting a failure. Report
 *     progress with lw_stage_progress (shown by `lodwash status`); it is
 *     cheap to call often (rate-limited to one write a second).
 *   - Redis replies and your own allocations are yours to free.
 */
#ifndef LW_WORKERS_STAGE_H
#define LW_WORKERS_STAGE_H

#include "queue/redis.h"
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "base/base.h"
#include "queue/job.h"
#include "queue/txn.h"

typedef struct LwWorker LwWorker;

/* The worker's id: its in-flight list holds the jobs it runs. */
const char *lw_worker_id(const LwWorker *w);

/* How a stage ended, when it ends well: the row's `done` (the default) or
 * its `other` outcome (lw_stage_other). */
typedef enum { LW_STAGE_DONE = 0, LW_STAGE_OTHER = 1 } LwStageOutcomeKind;

typedef struct {
  const LwConfig *config;
  LwRecords *redis;
  const LwJob *job;
  LwTxn *txn;
  LwError *err;
  LwWorker *worker; /* the frame's; use through the functions below */
  LwStageOutcomeKind outcome;
  /* the next stage, run in this job too (lw_stage_fold), and its outcome */
  const char *folded;
  LwStageOutcomeKind folded_outcome;
} LwStageCtx;

typedef LwStatus (*LwStageRunFn)(LwStageCtx *ctx);

/* One way a stage on a seed ends: the seed's status then, and the stage
 * queued next for the seed (NULL: the file's pipeline ends here). */
typedef struct {
  const char *status;
  const char *next;
} LwStageOutcome;

typedef struct {
  const char *name; /* queue name: [a-z0-9_-]+ */
  LwStageRunFn run;
  const char *doc; /* one line, shown by lodwash-worker --help */
  /* The pipeline as data, for a stage that works on a seed (takes NULL:
   * not about a seed). The frame makes the moves: to working before the
   * stage runs (lw_stage_on_own_seed), to the outcome's status with the
   * next job in the ack (lw_stage_results). The seed machine (queue/seed.h)
   * must allow each move; test_stages checks it. */
  const char *takes;    /* the seed status it works on */
  const char *working;  /* the status while it works */
  LwStageOutcome done;  /* how it usually ends */
  LwStageOutcome other; /* the other way it may end ({NULL}: none) */
} LwStage;

/* The table (workers/stages.c) and its length. */
extern const LwStage lw_stages[];
extern const size_t lw_stage_count;

/* The row for name, or NULL. */
const LwStage *lw_stage_find(const char *name);

/* The harvest's fan-in of a file job that succeeded, added to its txn by
 * the frame (workers/fan_in.c): the results apply only while the seed is
 * still the job's harvest's; seeds the txn queues jobs for are new files
 * of the harvest (an archive's entries); when it queues nothing for the
 * job's own seed, that file is finished. Nothing for other jobs, or when
 * the txn is empty (the job found its work done). */
void lw_stage_fan_in(const LwJob *job, LwTxn *txn);

/* The results of a failed file job (caller frees; NULL for other jobs):
 * the same guard, and when the failure is final the file is finished as
 * failed, in the same script as the job's move to the dead list. */
LwTxn *lw_stage_fail_fan_in(const LwConfig *cfg, const LwJob *job, const LwError *failure);

/* After job went to the dead list: when it is a harvest's import, the
 * harvest can no longer end by itself, so it ends now, failed with the
 * import's error (its provider settles: backoff, then tried again), rather
 * than holding the provider until the harvest timeout. */
void lw_stage_dead_ends_harvest(LwRecords *c, const LwConfig *cfg, const LwJob *job,
                                const LwError *failure);

/* Records a short progress note ("12 MB of 40 MB") in the worker's
 * heartbeat. Cheap: a note of a new kind (another fmt) is written at once,
 * one of the same kind at most once a second. */
void lw_stage_progress(LwStageCtx *ctx, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

/* True once the worker was asked to stop (SIGTERM/SIGINT). */
bool lw_stage_stopping(const LwStageCtx *ctx);

/* The stage ended the row's other way (e.g. download: unchanged). */
void lw_stage_other(LwStageCtx *ctx);

/* Whether this job may do the next stage's work itself (lw_stage_fold):
 * its worker serves that stage and no operator paused it (as last seen). */
bool lw_stage_may_fold(const LwStageCtx *ctx, const char *stage);

/* The job did the work of stage, the next one of its row's done outcome,
 * which ended with outcome: the frame moves the seed on through that
 * stage's working and outcome statuses too and queues what follows it,
 * instead of a job of it; one job, one round trip, where there were two. */
void lw_stage_fold(LwStageCtx *ctx, const char *stage, LwStageOutcomeKind outcome);

/* Queues this stage for another seed (an archive's entry: a new file of the
 * harvest), in the txn: the seed moves to the status the stage takes (from
 * `added` first when reset: a seed an earlier harvest left further on) and
 * the stage's job for it is pushed. The stage names neither. */
void lw_stage_spawn(LwStageCtx *ctx, const char *seed, bool reset);

/* For the frame, after run succeeded (st LW_OK or LW_NOTHING): adds to
 * ctx->txn the seed's move to the outcome's status and the job queued next
 * (for a stage about a seed, when st is LW_OK), then the harvest's
 * fan-in (lw_stage_fan_in). */
void lw_stage_results(LwStageCtx *ctx, LwStatus st);

/* Works on the job's seed (read whole, as JSON strings). */
typedef LwStatus (*LwStageSeedFn)(LwStageCtx *ctx, const json_t *seed);

/* Moves the job's seed to status (the stage's working status) at once, in
 * one script fenced like the ack (lw_seed_set_working): only while this
 * worker still holds the job. LW_NOTHING when it lost it (reaped after a
 * stall: nothing changed, logged; do no work, the ack will change nothing
 * either). A ctx without a worker (a test running a stage by itself) writes
 * unfenced. */
LwStatus lw_stage_seed_working(LwStageCtx *ctx, const char *status);

/* lw_stage_on_seed with the row's takes and working statuses, moving the
 * seed to working (lw_stage_seed_working) before work. */
LwStatus lw_stage_on_own_seed(LwStageCtx *ctx, LwStageSeedFn work);

/* Reads the job's seed and calls work when its status is input_status or
 * working_status (a job run again after a crash), after moving it to
 * working_status (fenced); LW_NOTHING when the seed is past them (the job
 * ran twice), belongs to another harvest, or the job was lost;
 * LW_ERR_STATE when there is no seed. */
LwStatus lw_stage_on_seed(LwStageCtx *ctx, const char *input_status,
                          const char *working_status, LwStageSeedFn work);

/* The stages (one function each, in their own files). */
LwStatus lw_stage_noop_run(LwStageCtx *ctx);
LwStatus lw_stage_download_run(LwStageCtx *ctx);
LwStatus lw_stage_unpack_run(LwStageCtx *ctx);
LwStatus lw_stage_guess_run(LwStageCtx *ctx);

/* The guess of the seed's data file (rel, under the data directory): its
 * format and the guess's reason into ctx->txn; not RDF, in an optional
 * seed: skipped with its reason (*skipped true); not RDF otherwise:
 * LW_ERR_FORMAT. Used by the guess stage and, folded, by unpack. */
LwStatus lw_stage_guess_file(LwStageCtx *ctx, const json_t *seed, const char *hash,
                             const char *rel, bool *skipped);
LwStatus lw_stage_parse_run(LwStageCtx *ctx);
LwStatus lw_stage_import_run(LwStageCtx *ctx);
LwStatus lw_stage_export_run(LwStageCtx *ctx);
LwStatus lw_stage_status_run(LwStageCtx *ctx);

#endif
