/*
 * The common frame of a stage that works on one seed: read the job's seed,
 * work when it is in the stage's input (or working) status, and do nothing
 * when it is already past them (the job ran twice). The move to the working
 * status is fenced like the ack: a worker that lost its job (reaped while it
 * was stopped) changes nothing and does no work.
 */
#include <string.h>

#include "base/base.h"
#include "queue/record.h"
#include "queue/seed.h"
#include "workers/stage.h"

static void warn_lost(const LwJob *job, const char *status)
{
  lw_warn("stage=%s seed=%s job=%s msg=\"lost the job before its work: it is no longer "
          "this worker's, %s not written\"",
          job->stage, job->seed, job->id, status);
}

LwStatus lw_stage_seed_working(LwStageCtx *ctx, const char *status)
{
  const LwJob *job = ctx->job;
  const char *prefix = ctx->config->prefix;
  if (!ctx->worker) {
    return lw_seed_set_status(ctx->redis, prefix, job->seed, status, ctx->err);
  }
  LwStatus st = lw_seed_set_working(ctx->redis, prefix, lw_worker_id(ctx->worker), job,
                                    status, ctx->err);
  if (st == LW_NOTHING) {
    warn_lost(job, status);
  }
  return st;
}

/* lw_stage_on_seed without a worker (a stage run alone, in tests): the read,
 * then the unfenced move. */
static LwStatus on_seed_alone(LwStageCtx *ctx, const char *input_status,
                              const char *working_status, LwStageSeedFn work)
{
  json_t *seed = NULL;
  LwStatus st = lw_seed_get(ctx->redis, ctx->config->prefix, ctx->job->seed, &seed,
                            ctx->err);
  if (st != LW_OK) {
    return st == LW_NOTHING
             ? lw_error_set(ctx->err, LW_ERR_STATE, "no seed %s", ctx->job->seed)
             : st;
  }
  const char *status = lw_record_str(seed, "status", "");
  const char *owner = lw_record_str(seed, "harvest", "");
  if (*ctx->job->harvest && *owner && strcmp(owner, ctx->job->harvest)) {
    st = LW_NOTHING; /* a job of an older harvest: the seed is another's now */
  } else if (!strcmp(status, input_status) || !strcmp(status, working_status)) {
    st = lw_stage_seed_working(ctx, working_status);
    if (st == LW_OK) {
      st = work(ctx, seed);
    }
  } else {
    st = LW_NOTHING; /* past this stage already: the job ran twice */
  }
  json_decref(seed);
  return st;
}

/* In a worker the move to the working status comes first, and the seed's
 * read with it, in one round trip (lw_seed_take_working): the machine
 * allows the move only from the input status (or the working one itself),
 * and the owner guard only on the job's harvest's seed, which is what the
 * read decided before. */
LwStatus lw_stage_on_seed(LwStageCtx *ctx, const char *input_status,
                          const char *working_status, LwStageSeedFn work)
{
  if (!ctx->worker) {
    return on_seed_alone(ctx, input_status, working_status, work);
  }
  const LwJob *job = ctx->job;
  json_t *seed = NULL;
  LwStatus st = lw_seed_take_working(ctx->redis, ctx->config->prefix,
                                     lw_worker_id(ctx->worker), job, working_status, &seed,
                                     ctx->err);
  if (st == LW_OK) {
    st = seed ? work(ctx, seed)
              : lw_error_set(ctx->err, LW_ERR_STATE, "no seed %s", job->seed);
  } else if (st == LW_ERR_STATE) {
    /* past this stage already (the job ran twice), or the seed is another
     * harvest's now: nothing to do; no seed at all is an error */
    st = seed ? LW_NOTHING : lw_error_set(ctx->err, LW_ERR_STATE, "no seed %s", job->seed);
  } else if (st == LW_NOTHING) {
    warn_lost(job, working_status);
  }
  json_decref(seed);
  return st;
}

LwStatus lw_stage_on_own_seed(LwStageCtx *ctx, LwStageSeedFn work)
{
  const LwStage *stage = lw_stage_find(ctx->job->stage);
  if (!stage || !stage->takes) {
    return lw_error_set(ctx->err, LW_ERR_USAGE, "stage %s works on no seed",
                        ctx->job->stage);
  }
  return lw_stage_on_seed(ctx, stage->takes, stage->working, work);
}
