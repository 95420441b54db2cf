/*
 * What the worker frame adds to a job's results, from the stage table: the
 * seed's moves and the next job (the pipeline as data), and the harvest's
 * fan-in, derived from what a file job did (queue/harvest.h). No stage has
 * to know about either.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/harvest.h"
#include "queue/pipeline.h"
#include "queue/provider_record.h"
#include "queue/queue.h"
#include "workers/stage.h"

/* True when job works on one file of its harvest. */
static bool harvest_file_job(const LwJob *job)
{
  return lw_pipeline_is_file_stage(job->stage) && *job->harvest && *job->seed;
}

void lw_stage_fan_in(const LwJob *job, LwTxn *txn)
{
  if (!harvest_file_job(job) || lw_txn_count(txn) == 0) {
    return; /* not a file of a harvest, or nothing done (the job ran twice) */
  }
  lw_txn_harvest_owns(txn, job->harvest, job->seed);
  bool continues = false;
  size_t n = lw_txn_pushed_count(txn);
  const char **found = calloc(n + 1, sizeof(char *));
  size_t n_found = 0;
  for (size_t i = 0; i < n; ++i) {
    const char *seed = lw_txn_pushed_seed(txn, i);
    if (!strcmp(seed, job->seed)) {
      continues = true;
    } else if (found) {
      found[n_found++] = seed;
    }
  }
  lw_txn_harvest_expect_files(txn, job->harvest, found, n_found);
  free(found);
  if (!continues) {
    lw_txn_harvest_finish_file(txn, job->harvest, job->seed, false, lw_pipeline_follow_up);
  }
}

LwTxn *lw_stage_fail_fan_in(const LwConfig *cfg, const LwJob *job, const LwError *failure)
{
  if (!harvest_file_job(job)) {
    return NULL;
  }
  LwTxn *txn = lw_txn_new(cfg->prefix);
  if (txn) {
    lw_txn_harvest_owns(txn, job->harvest, job->seed);
    if (lw_queue_fail_final(cfg, job, failure)) {
      lw_txn_harvest_finish_file(txn, job->harvest, job->seed, true, lw_pipeline_follow_up);
    }
  }
  return txn;
}

void lw_stage_dead_ends_harvest(LwRecords *c, const LwConfig *cfg, const LwJob *job,
                                const LwError *failure)
{
  if (!c || strcmp(job->stage, lw_pipeline_follow_up) || !*job->harvest) {
    return;
  }
  char why[LW_ERROR_MESSAGE_MAX + 64];
  snprintf(why, sizeof(why), "the import failed for good: %s", failure->message);
  LwError err;
  lw_error_clear(&err);
  if (lw_harvest_finish(c, cfg->prefix, job->harvest, false, why, &err) > LW_NOTHING) {
    /* the harvest timeout still ends it */
    lw_warn("stage=%s harvest=%s msg=\"could not end the harvest of a dead import\" "
            "error=\"%s\"",
            job->stage, job->harvest, err.message);
  }
}

void lw_stage_other(LwStageCtx *ctx)
{
  ctx->outcome = LW_STAGE_OTHER;
}

void lw_stage_fold(LwStageCtx *ctx, const char *stage, LwStageOutcomeKind outcome)
{
  ctx->folded = stage;
  ctx->folded_outcome = outcome;
}

/* The outcome a stage's run ended with. */
static const LwStageOutcome *outcome_of(const LwStage *stage, LwStageOutcomeKind kind)
{
  return kind == LW_STAGE_OTHER && stage->other.status ? &stage->other : &stage->done;
}

void lw_stage_spawn(LwStageCtx *ctx, const char *seed, bool reset)
{
  const LwStage *stage = lw_stage_find(ctx->job->stage);
  if (!stage || !stage->takes) {
    return; /* a stage about no seed spawns none (test_stages) */
  }
  if (reset) {
    lw_txn_seed_status(ctx->txn, seed, "added");
  }
  lw_txn_seed_status(ctx->txn, seed, stage->takes);
  lw_txn_push_job(ctx->txn, stage->name, seed, ctx->job->harvest, LW_PRIORITY_NORMAL, NULL);
}

void lw_stage_results(LwStageCtx *ctx, LwStatus st)
{
  const LwJob *job = ctx->job;
  const LwStage *stage = lw_stage_find(job->stage);
  if (st == LW_OK && stage && stage->takes && *job->seed) {
    const LwStageOutcome *o = outcome_of(stage, ctx->outcome);
    /* from the working status, which a job may not have entered itself
     * (its work was found done): the machine's way */
    lw_txn_seed_status(ctx->txn, job->seed, stage->working);
    lw_txn_seed_status(ctx->txn, job->seed, o->status);
    const LwStage *folded = ctx->folded && o->next && !strcmp(o->next, ctx->folded)
                              ? lw_stage_find(ctx->folded)
                              : NULL;
    if (folded && folded->takes) { /* the next stage's moves too, as its job would */
      o = outcome_of(folded, ctx->folded_outcome);
      lw_txn_seed_status(ctx->txn, job->seed, folded->working);
      lw_txn_seed_status(ctx->txn, job->seed, o->status);
    }
    if (o->next) {
      lw_txn_push_job(ctx->txn, o->next, job->seed, job->harvest, LW_PRIORITY_NORMAL, NULL);
    }
  }
  lw_stage_fan_in(job, ctx->txn);
}
