/*
 * The harvest's fan-in, derived by the worker frame from what a file job
 * did (queue/harvest.h), so that no stage has to know about it.
 */
#include <stdlib.h>
#include <string.h>

#include "queue/harvest.h"
#include "queue/queue.h"
#include "workers/stage.h"

/* True when job works on one file of its harvest. */
static bool harvest_file_job(const LwJob *job)
{
  const LwStage *stage = lw_stage_find(job->stage);
  return stage && stage->harvest_file && *job->harvest && *job->seed;
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
    lw_txn_harvest_finish_file(txn, job->harvest, job->seed, false,
                               lw_stage_harvest_follow_up);
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
      lw_txn_harvest_finish_file(txn, job->harvest, job->seed, true,
                                 lw_stage_harvest_follow_up);
    }
  }
  return txn;
}
