#include "queue/controls.h"

#include <string.h>

#include "base/base.h"
#include "queue/harvest.h"
#include "queue/job.h"
#include "queue/keys.h"
#include "queue/queue.h"
#include "queue/redis_cmd.h"
#include "queue/scripts.h"

static LwStatus reply_error(LwError *err)
{
  return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
}

/* SADD or SREM member: LW_OK when it changed the set, else LW_NOTHING. */
static LwStatus set_member(redisContext *c, const char *key, const char *member, bool in,
                           LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, in ? "SADD" : "SREM", key, member, NULL);
  if (!r) {
    return reply_error(err);
  }
  LwStatus st = r->type == REDIS_REPLY_INTEGER && r->integer > 0 ? LW_OK : LW_NOTHING;
  freeReplyObject(r);
  return st;
}

LwStatus lw_controls_stage_pause(redisContext *c, const char *prefix, const char *stage,
                                 bool pause, LwError *err)
{
  return set_member(c, lw_key(prefix, LW_KEY_PAUSED, NULL).s, stage, pause, err);
}

LwStatus lw_controls_paused(redisContext *c, const char *prefix, json_t **out, LwError *err)
{
  *out = NULL;
  redisReply *r = lw_redis_cmd(c, err, "SMEMBERS", lw_key(prefix, LW_KEY_PAUSED, NULL).s,
                               NULL);
  if (!r) {
    return reply_error(err);
  }
  json_t *list = json_array();
  for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; ++i) {
    json_array_append_new(list, json_stringn(r->element[i]->str, r->element[i]->len));
  }
  freeReplyObject(r);
  *out = list;
  return LW_OK;
}

LwStatus lw_controls_provider_hold(redisContext *c, const char *prefix, const char *name,
                                   bool hold, LwError *err)
{
  return set_member(c, lw_key(prefix, LW_KEY_HELD, NULL).s, name, hold, err);
}

LwStatus lw_controls_provider_held(redisContext *c, const char *prefix, const char *name,
                                   bool *held, LwError *err)
{
  *held = false;
  redisReply *r = lw_redis_cmd(c, err, "SISMEMBER", lw_key(prefix, LW_KEY_HELD, NULL).s,
                               name, NULL);
  if (!r) {
    return reply_error(err);
  }
  *held = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  freeReplyObject(r);
  return LW_OK;
}

/* Runs MULTI, cmds..., EXEC and returns EXEC's reply (caller frees). */
static redisReply *transaction(redisContext *c, const char *const *cmds, const char *key,
                               size_t n, LwError *err)
{
  redisAppendCommand(c, "MULTI");
  for (size_t i = 0; i < n; ++i) {
    redisAppendCommand(c, cmds[i], key);
  }
  redisAppendCommand(c, "EXEC");
  redisReply *exec = NULL;
  for (size_t i = 0; i < n + 2; ++i) {
    redisReply *r = NULL;
    if (redisGetReply(c, (void **)&r) != REDIS_OK || !r) {
      freeReplyObject(exec);
      lw_error_set(err, LW_ERR_REDIS, "Redis connection lost: %s", c->errstr);
      return NULL;
    }
    if (i == n + 1 && r->type == REDIS_REPLY_ARRAY && r->elements == n) {
      exec = r;
    } else {
      freeReplyObject(r);
    }
  }
  if (!exec) {
    lw_error_set(err, LW_ERR_REDIS, "a transaction on %s failed", key);
  }
  return exec;
}

/* A purged or dropped job leaves its (stage, seed, harvest) free to be
 * queued again, and when it works on a file of a harvest (its seed is the
 * file's; the follow-up's seed is the harvest id itself) the file is
 * finished as failed, so the harvest's fan-in still ends: follow_up (NULL
 * for none) is the stage the last file queues. */
static void forget_job(redisContext *c, const char *prefix, const char *raw, size_t len,
                       const char *follow_up)
{
  LwJob *job = NULL;
  if (lw_job_parse(raw, len, &job, NULL) != LW_OK) {
    return;
  }
  LwError err;
  char member[LW_JOB_MEMBER_MAX];
  lw_job_member(job, member);
  freeReplyObject(lw_redis_cmd(c, &err, "SREM", lw_key(prefix, LW_KEY_QUEUED, job->stage).s,
                               member, NULL));
  if (follow_up && *job->harvest && *job->seed && strcmp(job->seed, job->harvest)) {
    LwTxn *txn = lw_txn_new(prefix);
    if (txn) {
      lw_txn_harvest_finish_file(txn, job->harvest, job->seed, true, follow_up);
      if (lw_txn_exec(c, txn, &err) > LW_NOTHING) {
        lw_warn("harvest=%s seed=%s msg=\"purged file not counted\" error=\"%s\"",
                job->harvest, job->seed, err.message);
      }
      lw_txn_free(txn);
    }
  }
  lw_job_free(job);
}

static long long take_all(redisContext *c, const char *prefix, const char *key,
                          const char *const *cmds, const char *follow_up, LwError *err)
{
  redisReply *exec = transaction(c, cmds, key, 2, err);
  if (!exec) {
    return -1;
  }
  redisReply *jobs = exec->element[0];
  long long n = 0;
  for (size_t i = 0; jobs->type == REDIS_REPLY_ARRAY && i < jobs->elements; ++i, ++n) {
    forget_job(c, prefix, jobs->element[i]->str, jobs->element[i]->len, follow_up);
  }
  freeReplyObject(exec);
  return n;
}

/* Takes the waiting jobs of stage out of its queue (queue/keys.h: its
 * lanes), those of harvest or all of them (harvest NULL), and forgets them.
 * Returns how many, or -1 on error. */
static long long drain(redisContext *c, const LwConfig *cfg, const char *stage,
                       const char *harvest, const char *follow_up, LwError *err)
{
  LwKey queue = lw_key(cfg->prefix, LW_KEY_QUEUE, stage);
  const char *argv[] = {queue.s, harvest};
  redisReply *jobs = lw_script_run(c, &lw_script_drain, 1, harvest ? 2 : 1, argv, NULL, err);
  if (!jobs) {
    return -1;
  }
  long long n = 0;
  for (size_t i = 0; jobs->type == REDIS_REPLY_ARRAY && i < jobs->elements; ++i, ++n) {
    forget_job(c, cfg->prefix, jobs->element[i]->str, jobs->element[i]->len, follow_up);
  }
  freeReplyObject(jobs);
  return n;
}

LwStatus lw_controls_purge(redisContext *c, const LwConfig *cfg, const char *stage,
                           const char *follow_up, long long *purged, LwError *err)
{
  *purged = 0;
  static const char *const zset[] = {"ZRANGE %s 0 -1", "DEL %s"};
  long long a = drain(c, cfg, stage, NULL, follow_up, err);
  long long b = a < 0
                  ? -1
                  : take_all(c, cfg->prefix, lw_key(cfg->prefix, LW_KEY_DELAYED, stage).s,
                             zset, follow_up, err);
  if (a < 0 || b < 0) {
    return reply_error(err);
  }
  *purged = a + b;
  return *purged ? LW_OK : LW_NOTHING;
}

/* Removes from the list or zset key every member whose job matches (id or
 * harvest); forgets the jobs when forget. */
static LwStatus remove_matching(redisContext *c, const char *prefix, const char *key,
                                bool zset, const char *id, const char *harvest, bool forget,
                                long long *removed, LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, zset ? "ZRANGE" : "LRANGE", key, "0", "-1", NULL);
  if (!r) {
    return reply_error(err);
  }
  for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; ++i) {
    redisReply *e = r->element[i];
    LwJob *job = NULL;
    if (lw_job_parse(e->str, e->len, &job, NULL) != LW_OK) {
      continue;
    }
    bool match = id ? !strcmp(job->id, id) : harvest && !strcmp(job->harvest, harvest);
    lw_job_free(job);
    if (!match) {
      continue;
    }
    /* the member exactly as stored: ZREM key member / LREM key 1 member */
    const char *argv[] = {zset ? "ZREM" : "LREM", key, zset ? e->str : "1", e->str};
    size_t lens[] = {4, strlen(key), zset ? e->len : 1, e->len};
    redisReply *del = lw_redis_argv(c, zset ? 3 : 4, argv, lens, err);
    if (del && del->type == REDIS_REPLY_INTEGER && del->integer > 0) {
      ++*removed; /* else another took it meanwhile */
      if (forget) {
        forget_job(c, prefix, e->str, e->len, NULL);
      }
    }
    freeReplyObject(del);
  }
  freeReplyObject(r);
  return LW_OK;
}

LwStatus lw_controls_dead_delete(redisContext *c, const LwConfig *cfg, const char *id,
                                 long long *deleted, LwError *err)
{
  *deleted = 0;
  json_t *stages = NULL;
  LW_TRY(lw_queue_stages(c, cfg, &stages, err));
  json_array_append_new(stages, json_string("unknown"));
  LwStatus st = LW_OK;
  size_t i;
  json_t *name;
  json_array_foreach(stages, i, name) {
    LwKey dead = lw_key(cfg->prefix, LW_KEY_DEAD, json_string_value(name));
    if (id) {
      st = remove_matching(c, cfg->prefix, dead.s, false, id, NULL, false, deleted, err);
    } else {
      static const char *const cmds[] = {"LLEN %s", "DEL %s"};
      redisReply *exec = transaction(c, cmds, dead.s, 2, err);
      st = exec ? LW_OK : reply_error(err);
      *deleted += exec ? exec->element[0]->integer : 0;
      freeReplyObject(exec);
    }
    if (st != LW_OK) {
      break;
    }
  }
  json_decref(stages);
  LW_TRY(st);
  return *deleted ? LW_OK : LW_NOTHING;
}

LwStatus lw_controls_drop_harvest(redisContext *c, const LwConfig *cfg, const char *id,
                                  long long *dropped, LwError *err)
{
  *dropped = 0;
  json_t *stages = NULL;
  LW_TRY(lw_queue_stages(c, cfg, &stages, err));
  LwStatus st = LW_OK;
  size_t i;
  json_t *name;
  json_array_foreach(stages, i, name) {
    const char *stage = json_string_value(name);
    long long n = drain(c, cfg, stage, id, NULL, err);
    st = n < 0 ? reply_error(err) : LW_OK;
    *dropped += n > 0 ? n : 0;
    if (st == LW_OK) {
      st = remove_matching(c, cfg->prefix, lw_key(cfg->prefix, LW_KEY_DELAYED, stage).s,
                           true, NULL, id, true, dropped, err);
    }
    if (st != LW_OK) {
      break;
    }
  }
  json_decref(stages);
  return st;
}
