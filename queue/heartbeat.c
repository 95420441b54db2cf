#include "queue/heartbeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "queue/job.h"
#include "queue/keys.h"
#include "queue/redis_cmd.h"

void lw_worker_id_new(char *out, size_t size)
{
  char host[128] = "localhost";
  gethostname(host, sizeof(host) - 1);
  host[sizeof(host) - 1] = '\0';
  char rnd[17];
  lw_job_new_id(rnd);
  snprintf(out, size, "%s-%ld-%.4s", host, (long)getpid(), rnd);
}

static LwStatus run(redisContext *c, LwError *err, redisReply *reply)
{
  if (!reply) {
    return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
  }
  freeReplyObject(reply);
  (void)c;
  return LW_OK;
}

LwStatus lw_heartbeat_register(redisContext *c, const LwConfig *cfg, const char *id,
                               const char *stages, LwError *err)
{
  char host[128] = "localhost";
  gethostname(host, sizeof(host) - 1);
  host[sizeof(host) - 1] = '\0';
  char pid[32], started[32], ttl[32];
  snprintf(pid, sizeof(pid), "%ld", (long)getpid());
  snprintf(started, sizeof(started), "%lld", lw_now_ms());
  snprintf(ttl, sizeof(ttl), "%lld", cfg->heartbeat_ttl_s * 1000);
  LwKey worker = lw_key(cfg->prefix, LW_KEY_WORKER, id);
  LW_TRY(run(c, err,
             lw_redis_cmd(c, err, "HSET", worker.s, "host", host, "pid", pid, "stages",
                          stages, "started", started, NULL)));
  LW_TRY(run(c, err, lw_redis_cmd(c, err, "PEXPIRE", worker.s, ttl, NULL)));
  return run(
    c, err,
    lw_redis_cmd(c, err, "SADD", lw_key(cfg->prefix, LW_KEY_WORKERS, NULL).s, id, NULL));
}

LwStatus lw_heartbeat_beat(redisContext *c, const LwConfig *cfg, const char *id,
                           const char *stages, LwError *err)
{
  char ttl[32];
  snprintf(ttl, sizeof(ttl), "%lld", cfg->heartbeat_ttl_s * 1000);
  LwKey worker = lw_key(cfg->prefix, LW_KEY_WORKER, id);
  redisReply *reply = lw_redis_cmd(c, err, "PEXPIRE", worker.s, ttl, NULL);
  if (!reply) {
    return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
  }
  bool alive = reply->type == REDIS_REPLY_INTEGER && reply->integer == 1;
  freeReplyObject(reply);
  if (!alive) {
    return lw_heartbeat_register(c, cfg, id, stages, err);
  }
  /* The reaper may have dropped the id while the worker was stalled (and a
   * fetch re-created the key since): be in the set again, or a later death
   * would go unnoticed. */
  return run(
    c, err,
    lw_redis_cmd(c, err, "SADD", lw_key(cfg->prefix, LW_KEY_WORKERS, NULL).s, id, NULL));
}

/* HSET only when the key exists (never a heartbeat without a TTL), in one
 * round trip: a download among many writes its notes often. */
static LwScript progress_script = {
  "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
  "redis.call('HSET', KEYS[1], 'progress', ARGV[1])\n"
  "return 1\n",
  ""};

LwStatus lw_heartbeat_progress(redisContext *c, const LwConfig *cfg, const char *id,
                               const char *note, LwError *err)
{
  LwKey worker = lw_key(cfg->prefix, LW_KEY_WORKER, id);
  bool set = false;
  LW_TRY(lw_script_run_yes(c, &progress_script, 1, 2, (const char *[]){worker.s, note}, &set,
                           err));
  return set ? LW_OK : LW_NOTHING;
}

LwStatus lw_heartbeat_unregister(redisContext *c, const LwConfig *cfg, const char *id,
                                 LwError *err)
{
  LW_TRY(run(c, err,
             lw_redis_cmd(c, err, "DEL", lw_key(cfg->prefix, LW_KEY_WORKER, id).s, NULL)));
  /* jobs still in flight: stay in the set, so that the reaper gives them back */
  redisReply *len = lw_redis_cmd(c, err, "LLEN", lw_key(cfg->prefix, LW_KEY_INFLIGHT, id).s,
                                 NULL);
  if (!len) {
    return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
  }
  long long held = len->type == REDIS_REPLY_INTEGER ? len->integer : 0;
  freeReplyObject(len);
  if (held > 0) {
    return LW_NOTHING;
  }
  return run(
    c, err,
    lw_redis_cmd(c, err, "SREM", lw_key(cfg->prefix, LW_KEY_WORKERS, NULL).s, id, NULL));
}
