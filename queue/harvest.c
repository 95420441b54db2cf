#include "queue/harvest.h"

#include <stdio.h>

#include "queue/job.h"
#include "queue/redis_cmd.h"

void lw_txn_harvest_expect_files(LwTxn *txn, const char *harvest, const char *const *files,
                                 size_t n)
{
  const char *prefix = lw_txn_prefix(txn);
  LwKey keys[3] = {lw_key(prefix, LW_KEY_HARVEST, harvest),
                   lw_key(prefix, LW_KEY_HARVEST_EXPECTED, harvest),
                   lw_key(prefix, LW_KEY_HARVEST_FINISHED, harvest)};
  for (size_t i = 0; i < n; ++i) {
    lw_txn_op(txn, "expect", 4,
              (const char *[]){keys[0].s, keys[1].s, keys[2].s, files[i]});
  }
}

void lw_txn_harvest_finish_file(LwTxn *txn, const char *harvest, const char *file,
                                bool failed, const char *follow_up_stage)
{
  const char *prefix = lw_txn_prefix(txn);
  LwError err;
  /* The follow-up is about the harvest: (stage, harvest) is unique. */
  LwJob *job = lw_job_new(follow_up_stage, harvest, harvest, NULL, &err);
  if (!job) {
    return;
  }
  char member[LW_JOB_MEMBER_MAX];
  lw_job_member(job, member);
  LwKey keys[7] = {lw_key(prefix, LW_KEY_HARVEST, harvest),
                   lw_key(prefix, LW_KEY_HARVEST_EXPECTED, harvest),
                   lw_key(prefix, LW_KEY_HARVEST_FINISHED, harvest),
                   lw_key(prefix, LW_KEY_HARVEST_FAILED, harvest),
                   lw_key(prefix, LW_KEY_QUEUE, follow_up_stage),
                   lw_key(prefix, LW_KEY_QUEUED, follow_up_stage),
                   lw_key(prefix, LW_KEY_STAGES, NULL)};
  const char *argv[] = {
    keys[0].s, keys[1].s, keys[2].s, keys[3].s, file,     failed ? "1" : "0", keys[4].s,
    keys[5].s, keys[6].s, job->raw,  member,    "normal", follow_up_stage, harvest};
  lw_txn_op(txn, "finish", 14, argv);
  lw_job_free(job);
}

void lw_txn_harvest_owns(LwTxn *txn, const char *harvest, const char *seed)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_SEED, seed);
  lw_txn_op(
    txn, "guard", 4,
    (const char *[]){key.s, "harvest", harvest, "the seed belongs to another harvest"});
}

void lw_txn_harvest_owns_or_none(LwTxn *txn, const char *harvest, const char *seed)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_SEED, seed);
  lw_txn_op(txn, "guard", 5,
            (const char *[]){key.s, "harvest", harvest, "the seed belongs to another harvest",
                             "or-empty"});
}

void lw_txn_harvest_running(LwTxn *txn, const char *harvest)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_HARVEST, harvest);
  lw_txn_op(txn, "guard", 4,
            (const char *[]){key.s, "status", "running", "the harvest is over"});
}

LwStatus lw_harvest_unfinished(LwRecords *c, const char *prefix, const char *harvest,
                               size_t *count, char first[64], LwError *err)
{
  *count = 0;
  first[0] = '\0';
  LwKey expected = lw_key(prefix, LW_KEY_HARVEST_EXPECTED, harvest);
  LwKey finished = lw_key(prefix, LW_KEY_HARVEST_FINISHED, harvest);
  redisReply *r = lw_redis_cmd(c, err, "SDIFF", expected.s, finished.s, NULL);
  if (!r) {
    return err->status;
  }
  if (r->type == REDIS_REPLY_ARRAY) {
    *count = r->elements;
    if (r->elements && r->element[0]->type == REDIS_REPLY_STRING) {
      snprintf(first, 64, "%s", r->element[0]->str);
    }
  }
  freeReplyObject(r);
  return LW_OK;
}
