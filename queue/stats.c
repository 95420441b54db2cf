/*
 * Reading the queue's state: the stages, per-stage counts, the status
 * picture `lodwash status` shows, the idle test of --exit-when-idle and the
 * dead list. Nothing here changes the queue.
 */
#include "queue/queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/redis_cmd.h"
#include "queue/seed.h"

/* Frees reply and passes on its absence as the error already in err. */
static LwStatus reply_status(redisReply *reply, LwError *err)
{
  if (!reply) {
    return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
  }
  return LW_OK;
}

LwStatus lw_queue_stages(redisContext *c, const LwConfig *cfg, json_t **out, LwError *err)
{
  *out = NULL;
  redisReply *names = lw_redis_members(c, lw_key(cfg->prefix, LW_KEY_STAGES, NULL).s, err);
  LW_TRY(reply_status(names, err));
  /* sorted, so that output is stable */
  const char **sorted = calloc(names->elements + 1, sizeof(char *));
  json_t *list = json_array();
  if (!sorted || !list) {
    free(sorted);
    json_decref(list);
    freeReplyObject(names);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < names->elements; ++i) {
    const char *s = names->element[i]->str;
    size_t j = i;
    while (j > 0 && strcmp(sorted[j - 1], s) > 0) {
      sorted[j] = sorted[j - 1];
      --j;
    }
    sorted[j] = s;
  }
  for (size_t i = 0; i < names->elements; ++i) {
    json_array_append_new(list, json_string(sorted[i]));
  }
  free(sorted);
  freeReplyObject(names);
  *out = list;
  return LW_OK;
}

LwStatus lw_queue_dead_list(redisContext *c, const LwConfig *cfg, long long limit,
                            json_t **out, long long *total, LwError *err)
{
  *out = NULL;
  if (total) {
    *total = 0;
  }
  char last[32];
  snprintf(last, sizeof(last), "%lld", limit > 0 ? limit - 1 : -1);
  json_t *stages = NULL;
  LW_TRY(lw_queue_stages(c, cfg, &stages, err));
  json_array_append_new(stages, json_string("unknown"));
  json_t *list = json_array();
  LwStatus status = LW_OK;
  size_t i;
  json_t *name;
  json_array_foreach(stages, i, name) {
    LwKey dead = lw_key(cfg->prefix, LW_KEY_DEAD, json_string_value(name));
    redisReply *reply = lw_redis_cmd(c, err, "LRANGE", dead.s, "0", last, NULL);
    status = reply_status(reply, err);
    if (status != LW_OK) {
      break;
    }
    if (total) {
      redisReply *len = lw_redis_cmd(c, err, "LLEN", dead.s, NULL);
      *total += len && len->type == REDIS_REPLY_INTEGER ? len->integer : 0;
      freeReplyObject(len);
    }
    for (size_t j = 0; j < reply->elements; ++j) {
      redisReply *r = reply->element[j];
      json_t *job = json_loadb(r->str, r->len, 0, NULL);
      json_array_append_new(list, job ? job : json_stringn(r->str, r->len));
    }
    freeReplyObject(reply);
  }
  json_decref(stages);
  if (status != LW_OK) {
    json_decref(list);
    return status;
  }
  *out = list;
  return LW_OK;
}

static long long int_reply(redisReply *r)
{
  if (!r) {
    return 0;
  }
  if (r->type == REDIS_REPLY_INTEGER) {
    return r->integer;
  }
  if (r->type == REDIS_REPLY_STRING) {
    return strtoll(r->str, NULL, 10);
  }
  return 0;
}

/* Adds the stage of every job held by a worker to counts (a JSON object
 * stage -> integer); skips except_worker. */
static LwStatus count_inflight(redisContext *c, const LwConfig *cfg, json_t *counts,
                               const char *except_worker, LwError *err)
{
  redisReply *ids = lw_redis_members(c, lw_key(cfg->prefix, LW_KEY_WORKERS, NULL).s, err);
  LW_TRY(reply_status(ids, err));
  LwStatus status = LW_OK;
  for (size_t i = 0; i < ids->elements && status == LW_OK; ++i) {
    if (except_worker && !strcmp(ids->element[i]->str, except_worker)) {
      continue;
    }
    LwKey inflight = lw_key(cfg->prefix, LW_KEY_INFLIGHT, ids->element[i]->str);
    redisReply *jobs = lw_redis_cmd(c, err, "LRANGE", inflight.s, "0", "-1", NULL);
    status = reply_status(jobs, err);
    for (size_t j = 0; jobs && j < jobs->elements; ++j) {
      LwJob *job = NULL;
      if (lw_job_parse(jobs->element[j]->str, jobs->element[j]->len, &job, NULL) == LW_OK) {
        json_t *n = json_object_get(counts, job->stage);
        json_object_set_new(counts, job->stage,
                            json_integer(n ? json_integer_value(n) + 1 : 1));
      }
      lw_job_free(job);
    }
    freeReplyObject(jobs);
  }
  freeReplyObject(ids);
  return status;
}

static LwStatus stage_counts(redisContext *c, const LwConfig *cfg, const char *stage,
                             json_t *inflight, LwStageCounts *out, LwError *err)
{
  memset(out, 0, sizeof(*out));
  LW_TRY(lw_queue_depth(c, cfg, stage, &out->queued, err));
  LwKey delayed = lw_key(cfg->prefix, LW_KEY_DELAYED, stage);
  LwKey dead = lw_key(cfg->prefix, LW_KEY_DEAD, stage);
  LwKey stats = lw_key(cfg->prefix, LW_KEY_STATS, stage);
  redisAppendCommand(c, "ZCARD %s", delayed.s);
  redisAppendCommand(c, "LLEN %s", dead.s);
  redisAppendCommand(c, "HMGET %s done failed", stats.s);
  long long *fields[] = {&out->delayed, &out->dead};
  LwStatus status = LW_OK;
  for (int i = 0; i < 3; ++i) {
    redisReply *r = NULL;
    if (redisGetReply(c, (void **)&r) != REDIS_OK || !r) {
      return lw_error_set(err, LW_ERR_REDIS, "Redis connection lost: %s", c->errstr);
    }
    if (r->type == REDIS_REPLY_ERROR) {
      status = lw_redis_reply_status(r, err);
    } else if (i < 2) {
      *fields[i] = int_reply(r);
    } else if (r->type == REDIS_REPLY_ARRAY && r->elements == 2) {
      out->done = int_reply(r->element[0]);
      out->failed = int_reply(r->element[1]);
    }
    freeReplyObject(r);
  }
  json_t *n = json_object_get(inflight, stage);
  out->inflight = n ? json_integer_value(n) : 0;
  return status;
}

LwStatus lw_queue_counts(redisContext *c, const LwConfig *cfg, const char *stage,
                         LwStageCounts *out, LwError *err)
{
  json_t *inflight = json_object();
  LwStatus status = count_inflight(c, cfg, inflight, NULL, err);
  if (status == LW_OK) {
    status = stage_counts(c, cfg, stage, inflight, out, err);
  }
  json_decref(inflight);
  return status;
}

/* The live workers, as JSON objects. */
static LwStatus workers_json(redisContext *c, const LwConfig *cfg, json_t *list,
                             LwError *err)
{
  redisReply *ids = lw_redis_members(c, lw_key(cfg->prefix, LW_KEY_WORKERS, NULL).s, err);
  LW_TRY(reply_status(ids, err));
  LwStatus status = LW_OK;
  for (size_t i = 0; i < ids->elements && status == LW_OK; ++i) {
    const char *id = ids->element[i]->str;
    LwKey worker = lw_key(cfg->prefix, LW_KEY_WORKER, id);
    redisReply *r = lw_redis_cmd(c, err, "HMGET", worker.s, "host", "pid", "stages",
                                 "started", "job", "since", "progress", NULL);
    status = reply_status(r, err);
    if (status != LW_OK || r->type != REDIS_REPLY_ARRAY || r->elements != 7 ||
        r->element[0]->type != REDIS_REPLY_STRING) {
      freeReplyObject(r); /* no heartbeat: dead, the reaper's business */
      continue;
    }
    redisReply **e = r->element;
    json_t *w = json_object();
    json_object_set_new(w, "id", json_string(id));
    json_object_set_new(w, "host", json_string(e[0]->str));
    json_object_set_new(w, "pid", json_integer(int_reply(e[1])));
    json_object_set_new(w, "stages", json_string(e[2]->str ? e[2]->str : ""));
    json_object_set_new(w, "started", json_integer(int_reply(e[3])));
    json_t *job = e[4]->type == REDIS_REPLY_STRING
                    ? json_loadb(e[4]->str, e[4]->len, 0, NULL)
                    : NULL;
    json_object_set_new(w, "job", job ? job : json_null());
    json_object_set_new(w, "since",
                        e[5]->type == REDIS_REPLY_STRING ? json_integer(int_reply(e[5]))
                                                         : json_null());
    /* "" is no progress yet: the fetch clears it so */
    json_object_set_new(w, "progress",
                        e[6]->type == REDIS_REPLY_STRING && e[6]->len > 0
                          ? json_string(e[6]->str)
                          : json_null());
    json_array_append_new(list, w);
    freeReplyObject(r);
  }
  freeReplyObject(ids);
  return status;
}

static LwStatus seeds_json(redisContext *c, const LwConfig *cfg, json_t *seeds,
                           LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, "HGETALL",
                               lw_key(cfg->prefix, LW_KEY_SEED_COUNTS, NULL).s, NULL);
  LW_TRY(reply_status(r, err));
  for (const char *const *s = lw_seed_statuses; *s; ++s) {
    long long n = 0;
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
      if (!strcmp(r->element[i]->str, *s)) {
        n = int_reply(r->element[i + 1]);
      }
    }
    json_object_set_new(seeds, *s, json_integer(n));
  }
  freeReplyObject(r);
  return LW_OK;
}

LwStatus lw_queue_status(redisContext *c, const LwConfig *cfg, json_t **out, LwError *err)
{
  *out = NULL;
  json_t *names = NULL;
  LW_TRY(lw_queue_stages(c, cfg, &names, err));
  json_t *result = json_pack("{s:o, s:o, s:o}", "stages", json_object(), "workers",
                             json_array(), "seeds", json_object());
  json_t *inflight = json_object();
  LwStatus status = count_inflight(c, cfg, inflight, NULL, err);
  size_t i;
  json_t *name;
  json_array_foreach(names, i, name) {
    if (status != LW_OK) {
      break;
    }
    LwStageCounts n;
    status = stage_counts(c, cfg, json_string_value(name), inflight, &n, err);
    json_object_set_new(json_object_get(result, "stages"), json_string_value(name),
                        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "queued",
                                  (json_int_t)n.queued, "inflight", (json_int_t)n.inflight,
                                  "delayed", (json_int_t)n.delayed, "dead",
                                  (json_int_t)n.dead, "done", (json_int_t)n.done, "failed",
                                  (json_int_t)n.failed));
  }
  if (status == LW_OK) {
    status = workers_json(c, cfg, json_object_get(result, "workers"), err);
  }
  if (status == LW_OK) {
    status = seeds_json(c, cfg, json_object_get(result, "seeds"), err);
  }
  json_decref(inflight);
  json_decref(names);
  if (status != LW_OK) {
    json_decref(result);
    return status;
  }
  *out = result;
  return LW_OK;
}

LwStatus lw_queue_idle(redisContext *c, const LwConfig *cfg, const char *const *stages,
                       size_t n, const char *except_worker, bool *idle, LwError *err)
{
  *idle = false;
  json_t *inflight = json_object();
  LwStatus status = count_inflight(c, cfg, inflight, except_worker, err);
  bool busy = false;
  for (size_t i = 0; i < n && status == LW_OK && !busy; ++i) {
    LwStageCounts counts;
    status = stage_counts(c, cfg, stages[i], inflight, &counts, err);
    busy = counts.queued || counts.delayed || counts.inflight;
  }
  json_decref(inflight);
  LW_TRY(status);
  *idle = !busy;
  return LW_OK;
}
