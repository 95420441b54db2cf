#include "queue/harvest.h"

#include <stdio.h>
#include <stdlib.h>

#include "queue/job.h"
#include "queue/keys.h"
#include "queue/redis.h"

/* KEYS: harvest, queue:import, queued:import, stages
 * ARGV: import job JSON, harvest id, "1" if the file failed
 * Returns the files still pending (-1: no such harvest). The import job is
 * queued as lw_script_enqueue would, once per harvest. */
static const char file_done_script[] =
  "if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end\n"
  "if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[1], 'failed', 1) end\n"
  "local p = redis.call('HINCRBY', KEYS[1], 'pending', -1)\n"
  "if p > 0 then return p end\n"
  "if redis.call('HSETNX', KEYS[1], 'import_queued', '1') == 0 then return 0 end\n"
  "if redis.call('SADD', KEYS[3], ARGV[2]) == 1 then\n"
  "  redis.call('LPUSH', KEYS[2], ARGV[1])\n"
  "  redis.call('SADD', KEYS[4], 'import')\n"
  "end\n"
  "return 0\n";

void lw_txn_harvest_expect(LwTxn *txn, const char *harvest, long long delta)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_HARVEST, harvest);
  char n[32];
  snprintf(n, sizeof(n), "%lld", delta);
  const char *argv[] = {"HINCRBY", key.s, "pending", n};
  lw_txn_command(txn, 4, argv, NULL);
}

/* Fills argv with the EVAL of file_done_script; *job_out must be freed. */
static int file_done_argv(const char *prefix, const char *harvest, bool failed,
                          LwKey keys[4], const char *argv[10], LwJob **job_out,
                          LwError *err)
{
  /* The import job is about the harvest: (import, harvest id) is unique. */
  LwJob *job = lw_job_new("import", harvest, harvest, NULL, err);
  if (!job) {
    return -1;
  }
  keys[0] = lw_key(prefix, LW_KEY_HARVEST, harvest);
  keys[1] = lw_key(prefix, LW_KEY_QUEUE, "import");
  keys[2] = lw_key(prefix, LW_KEY_QUEUED, "import");
  keys[3] = lw_key(prefix, LW_KEY_STAGES, NULL);
  const char *args[] = {"EVAL", file_done_script, "4", keys[0].s, keys[1].s,
                        keys[2].s, keys[3].s, job->raw, harvest, failed ? "1" : "0"};
  for (int i = 0; i < 10; ++i) {
    argv[i] = args[i];
  }
  *job_out = job;
  return 10;
}

void lw_txn_harvest_file_done(LwTxn *txn, const char *harvest, bool failed)
{
  LwKey keys[4];
  const char *argv[10];
  LwJob *job = NULL;
  LwError err;
  int argc = file_done_argv(lw_txn_prefix(txn), harvest, failed, keys, argv, &job, &err);
  if (argc > 0) {
    lw_txn_command(txn, argc, argv, NULL);
  }
  lw_job_free(job);
}

LwStatus lw_harvest_file_done_now(redisContext *c, const char *prefix,
                                  const char *harvest, bool failed, LwError *err)
{
  LwKey keys[4];
  const char *argv[10];
  LwJob *job = NULL;
  int argc = file_done_argv(prefix, harvest, failed, keys, argv, &job, err);
  if (argc < 0) {
    return err->status;
  }
  redisReply *reply = lw_redis_argv(c, argc, argv, NULL, err);
  lw_job_free(job);
  if (!reply) {
    return err->status;
  }
  freeReplyObject(reply);
  return LW_OK;
}
