#include "queue/queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "queue/controls.h"
#include "queue/keys.h"
#include "queue/scripts.h"
#include "queue/seed.h"

/* Frees reply and passes on its absence as the error already in err. */
static LwStatus reply_status(redisReply *reply, LwError *err)
{
  if (!reply) {
    return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
  }
  return LW_OK;
}

static void enqueue_argv(const char *prefix, const LwJob *job, LwPriority priority,
                         LwKey keys[3], const char *argv[7])
{
  keys[0] = lw_key(prefix, LW_KEY_QUEUE, job->stage);
  keys[1] = lw_key(prefix, LW_KEY_QUEUED, job->stage);
  keys[2] = lw_key(prefix, LW_KEY_STAGES, NULL);
  argv[0] = keys[0].s;
  argv[1] = keys[1].s;
  argv[2] = keys[2].s;
  argv[3] = job->raw;
  argv[4] = job->seed;
  argv[5] = priority == LW_PRIORITY_HIGH ? "high" : "normal";
  argv[6] = job->stage;
}

LwStatus lw_queue_push_prefix(redisContext *c, const char *prefix, const LwJob *job,
                              LwPriority priority, LwError *err)
{
  LwKey keys[3];
  const char *argv[7];
  enqueue_argv(prefix, job, priority, keys, argv);
  redisReply *reply = lw_script_run(c, &lw_script_enqueue, 3, 7, argv, NULL, err);
  LW_TRY(reply_status(reply, err));
  LwStatus status = reply->integer == 1 ? LW_OK : LW_NOTHING;
  freeReplyObject(reply);
  return status;
}

LwStatus lw_queue_push(redisContext *c, const LwConfig *cfg, const LwJob *job,
                       LwPriority priority, LwError *err)
{
  return lw_queue_push_prefix(c, cfg->prefix, job, priority, err);
}

LwStatus lw_queue_push_many(redisContext *c, const LwConfig *cfg,
                            LwJob *const *jobs, size_t n, LwPriority priority,
                            size_t *pushed, LwError *err)
{
  enum { BATCH = 1000 };
  size_t count = 0;
  LW_TRY(lw_script_load(c, &lw_script_enqueue, err));
  for (size_t start = 0; start < n; start += BATCH) {
    size_t end = start + BATCH < n ? start + BATCH : n;
    for (size_t i = start; i < end; ++i) {
      LwKey keys[3];
      const char *argv[10] = {"EVALSHA", lw_script_sha(&lw_script_enqueue), "3"};
      enqueue_argv(cfg->prefix, jobs[i], priority, keys, argv + 3);
      redisAppendCommandArgv(c, 10, argv, NULL);
    }
    LwStatus status = LW_OK;
    for (size_t i = start; i < end; ++i) {
      redisReply *reply = NULL;
      if (redisGetReply(c, (void **)&reply) != REDIS_OK || !reply) {
        return lw_error_set(err, LW_ERR_REDIS, "Redis connection lost: %s", c->errstr);
      }
      if (reply->type == REDIS_REPLY_INTEGER) {
        count += reply->integer == 1;
      } else if (status == LW_OK) {
        status = lw_redis_reply_status(reply, err);
      }
      freeReplyObject(reply);
    }
    LW_TRY(status);
  }
  if (pushed) {
    *pushed = count;
  }
  return LW_OK;
}

enum { MAX_STAGES = 64 };

/* The arguments of the fetch script after EVALSHA, sha, numkeys. */
typedef struct {
  LwKey keys[2 + 2 * MAX_STAGES];
  char ttl[32];
  char numkeys[16];
  const char *argv[3 + 4 + 2 * MAX_STAGES];
  int argc;  /* in argv, with EVALSHA, sha and numkeys */
} FetchArgs;

static LwStatus fetch_args(const LwConfig *cfg, const char *worker_id,
                           const char *const *stages, size_t n, FetchArgs *f,
                           LwError *err)
{
  if (n == 0 || n > MAX_STAGES) {
    return lw_error_set(err, LW_ERR_USAGE, "a worker serves 1 to %d stages", MAX_STAGES);
  }
  f->keys[0] = lw_key(cfg->prefix, LW_KEY_WORKER, worker_id);
  f->keys[1] = lw_key(cfg->prefix, LW_KEY_INFLIGHT, worker_id);
  for (size_t i = 0; i < n; ++i) {
    f->keys[2 + 2 * i] = lw_key(cfg->prefix, LW_KEY_QUEUE, stages[i]);
    f->keys[3 + 2 * i] = lw_key(cfg->prefix, LW_KEY_DELAYED, stages[i]);
  }
  int nkeys = (int)(2 + 2 * n);
  snprintf(f->numkeys, sizeof(f->numkeys), "%d", nkeys);
  snprintf(f->ttl, sizeof(f->ttl), "%lld", cfg->heartbeat_ttl_s * 1000);
  f->argc = 0;
  f->argv[f->argc++] = "EVALSHA";
  f->argv[f->argc++] = lw_script_sha(&lw_script_fetch);
  f->argv[f->argc++] = f->numkeys;
  for (int i = 0; i < nkeys; ++i) {
    f->argv[f->argc++] = f->keys[i].s;
  }
  f->argv[f->argc++] = f->ttl;
  /* due retries are moved at most every 100 ms per process */
  static long long last_promote_ms = 0;
  long long now = lw_now_ms();
  bool promote = now - last_promote_ms >= 100 || now < last_promote_ms;
  if (promote) {
    last_promote_ms = now;
  }
  f->argv[f->argc++] = promote ? "1" : "0";
  return LW_OK;
}

/* Turns the fetch script's reply into a job (LW_NOTHING: none). A reply
 * that is not a job is parked in dead:unknown rather than looped on. */
static LwStatus fetch_result(redisContext *c, const LwConfig *cfg, const FetchArgs *f,
                             redisReply *reply, LwJob **out, LwError *err)
{
  if (reply->type != REDIS_REPLY_STRING) {
    return LW_NOTHING;
  }
  LwStatus status = lw_job_parse(reply->str, reply->len, out, err);
  if (status != LW_OK) {
    lw_warn("msg=\"not a job, parked in %s\" error=\"%s\"",
            lw_key(cfg->prefix, LW_KEY_DEAD, "unknown").s, err ? err->message : "");
    const char *drop[] = {"LREM", f->keys[1].s, "1", reply->str};
    size_t lens[] = {4, strlen(f->keys[1].s), 1, reply->len};
    LwKey dead = lw_key(cfg->prefix, LW_KEY_DEAD, "unknown");
    redisReply *r = lw_redis_argv(c, 4, drop, lens, NULL);
    freeReplyObject(r);
    const char *park[] = {"LPUSH", dead.s, reply->str};
    size_t park_lens[] = {5, strlen(dead.s), reply->len};
    r = lw_redis_argv(c, 3, park, park_lens, NULL);
    freeReplyObject(r);
  }
  return status;
}

/* An operator's pause (queue/controls.h): the stages of stages[0..*n) that
 * are not paused, into open; *n becomes their number. */
static LwStatus open_stages(redisContext *c, const LwConfig *cfg, const char *const **stages,
                            size_t *n, const char **open, LwError *err)
{
  if (*n == 0 || *n > MAX_STAGES) {
    return LW_OK; /* fetch_args says what is wrong */
  }
  LW_TRY(lw_controls_unpaused(c, cfg->prefix, *stages, *n, open, n, err));
  *stages = open;
  return LW_OK;
}

LwStatus lw_queue_fetch(redisContext *c, const LwConfig *cfg, const char *worker_id,
                        const char *const *stages, size_t n, LwJob **out,
                        LwError *err)
{
  *out = NULL;
  const char *open[MAX_STAGES];
  LW_TRY(open_stages(c, cfg, &stages, &n, open, err));
  if (n == 0) {
    return LW_NOTHING; /* every stage paused */
  }
  FetchArgs f;
  LW_TRY(fetch_args(cfg, worker_id, stages, n, &f, err));
  /* lw_script_run adds EVALSHA, sha and numkeys itself */
  redisReply *reply = lw_script_run(c, &lw_script_fetch, (int)(2 + 2 * n), f.argc - 3,
                                    f.argv + 3, NULL, err);
  LW_TRY(reply_status(reply, err));
  LwStatus status = fetch_result(c, cfg, &f, reply, out, err);
  freeReplyObject(reply);
  return status;
}

LwStatus lw_queue_release_orphans(redisContext *c, const LwConfig *cfg,
                                  const char *worker_id, const LwJob *except,
                                  long long *released, LwError *err)
{
  if (released) {
    *released = 0;
  }
  LwKey inflight = lw_key(cfg->prefix, LW_KEY_INFLIGHT, worker_id);
  redisReply *jobs = lw_redis_cmd(c, err, "LRANGE", inflight.s, "0", "-1", NULL);
  LW_TRY(reply_status(jobs, err));
  LwStatus status = LW_OK;
  bool skipped = false;
  for (size_t i = 0; i < jobs->elements && status == LW_OK; ++i) {
    redisReply *r = jobs->element[i];
    if (except && !skipped && !strcmp(r->str, except->raw)) {
      skipped = true; /* the one the worker knows it holds */
      continue;
    }
    LwJob *job = NULL;
    if (lw_job_parse(r->str, r->len, &job, NULL) == LW_OK) {
      status = lw_queue_handback(c, cfg, worker_id, job, err);
      if (status == LW_OK && released) {
        ++*released;
      }
    }
    lw_job_free(job);
  }
  freeReplyObject(jobs);
  return status;
}

/* The ack's own part: the job leaves the in-flight list, its (stage, seed)
 * is released and it counts as done (lw_script_ack). NULL: out of memory. */
static LwTxn *ack_txn(const LwConfig *cfg, const char *worker_id, const LwJob *job)
{
  LwTxn *core = lw_txn_new(cfg->prefix);
  if (!core) {
    return NULL;
  }
  LwKey inflight = lw_key(cfg->prefix, LW_KEY_INFLIGHT, worker_id);
  LwKey queued = lw_key(cfg->prefix, LW_KEY_QUEUED, job->stage);
  LwKey stats = lw_key(cfg->prefix, LW_KEY_STATS, job->stage);
  LwKey worker = lw_key(cfg->prefix, LW_KEY_WORKER, worker_id);
  const char *argv[] = {"EVALSHA", lw_script_sha(&lw_script_ack), "4", inflight.s,
                        queued.s, stats.s, worker.s, job->raw, job->seed};
  lw_txn_command(core, 9, argv, NULL);
  return core;
}

LwStatus lw_queue_ack(redisContext *c, const LwConfig *cfg, const char *worker_id,
                      const LwJob *job, LwTxn *txn, LwError *err)
{
  LwTxn *core = ack_txn(cfg, worker_id, job);
  if (!core) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwStatus status = lw_txn_exec_with(c, core, txn, NULL, err);
  lw_txn_free(core);
  return status;
}

LwStatus lw_queue_ack_fetch(redisContext *c, const LwConfig *cfg, const char *worker_id,
                            const LwJob *job, LwTxn *txn, const char *const *stages,
                            size_t n, LwJob **next, LwError *err)
{
  *next = NULL;
  const char *open[MAX_STAGES];
  LW_TRY(open_stages(c, cfg, &stages, &n, open, err));
  if (n == 0) {
    return lw_queue_ack(c, cfg, worker_id, job, txn, err); /* every stage paused */
  }
  FetchArgs f;
  LW_TRY(fetch_args(cfg, worker_id, stages, n, &f, err));
  LwTxn *core = ack_txn(cfg, worker_id, job);
  if (!core) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  redisReply *after = NULL;
  LwStatus status = lw_txn_exec_then(c, core, txn, NULL, f.argc, f.argv, NULL, &after, err);
  lw_txn_free(core);
  if (after) {
    /* the fetch ran whatever the ack's fate; a NOSCRIPT or other error
     * reply means no job was taken */
    LwError fetch_err;
    if (fetch_result(c, cfg, &f, after, next, &fetch_err) > LW_NOTHING && status == LW_OK) {
      lw_error_set(err, fetch_err.status, "%s", fetch_err.message);
    }
    freeReplyObject(after);
  }
  return status;
}

long long lw_queue_backoff_ms(const LwConfig *cfg, long long attempt)
{
  long long delay = cfg->retry_base_ms > 0 ? cfg->retry_base_ms : 1;
  for (long long i = 1; i < attempt && delay < cfg->retry_max_ms; ++i) {
    delay *= 2;
  }
  return delay < cfg->retry_max_ms ? delay : cfg->retry_max_ms;
}

LwStatus lw_queue_fail(redisContext *c, const LwConfig *cfg, const char *worker_id,
                       const LwJob *job, const LwError *failure,
                       LwFailOutcome *outcome, long long *delay_ms, LwError *err)
{
  long long attempt = job->attempt + 1;
  bool retry = lw_status_retryable(failure->status) && attempt < cfg->max_attempts;
  long long delay = retry ? lw_queue_backoff_ms(cfg, attempt) : 0;
  /* A server's Retry-After wins over a shorter backoff (capped like it). */
  if (retry && failure->retry_after_ms > delay) {
    delay = failure->retry_after_ms < cfg->retry_max_ms ? failure->retry_after_ms
                                                         : cfg->retry_max_ms;
  }
  long long now = lw_now_ms();

  json_t *changes = json_pack("{s:I, s:s, s:s, s:I}", "attempt", (json_int_t)attempt,
                              "error", failure->message, "error_kind",
                              lw_status_name(failure->status), "failed", (json_int_t)now);
  if (changes && !json_object_get(job->obj, "first_failed")) {
    json_object_set_new(changes, "first_failed", json_integer(now));
  }
  LwJob *next = changes ? lw_job_with(job, changes, err) : NULL;
  json_decref(changes);
  if (!next) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }

  LwTxn *txn = lw_txn_new(cfg->prefix);
  if (!txn) {
    lw_job_free(next);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwKey k[7] = {lw_key(cfg->prefix, LW_KEY_INFLIGHT, worker_id),
                lw_key(cfg->prefix, LW_KEY_DELAYED, job->stage),
                lw_key(cfg->prefix, LW_KEY_DEAD, job->stage),
                lw_key(cfg->prefix, LW_KEY_QUEUED, job->stage),
                lw_key(cfg->prefix, LW_KEY_STATS, job->stage),
                lw_key(cfg->prefix, LW_KEY_WORKER, worker_id),
                lw_key(cfg->prefix, LW_KEY_SEED, job->seed)};
  char delay_text[32];
  snprintf(delay_text, sizeof(delay_text), "%lld", delay);
  char message[LW_ERROR_MESSAGE_MAX + 32];
  snprintf(message, sizeof(message), "%s: %s", lw_status_name(failure->status),
           failure->message);
  const char *argv[] = {"EVALSHA", lw_script_sha(&lw_script_fail), "7",
                        k[0].s, k[1].s, k[2].s, k[3].s, k[4].s, k[5].s, k[6].s,
                        job->raw, next->raw, retry ? "retry" : "dead", delay_text,
                        job->seed, message};
  lw_txn_command(txn, 16, argv, NULL);
  if (!retry && job->seed[0]) {
    /* soft: a seed that is not in a working state keeps its status */
    const char *targv[32];
    int targc = lw_seed_transition_argv(cfg->prefix, job->seed, "failed", false, targv, 32);
    if (targc > 0) {
      lw_txn_command(txn, targc, targv, NULL);
      lw_seed_transition_argv_free(targv, targc);
    }
  }
  LwStatus status = lw_txn_exec(c, txn, err);
  lw_txn_free(txn);
  lw_job_free(next);
  if (status == LW_OK) {
    if (outcome) {
      *outcome = retry ? LW_FAIL_RETRY : LW_FAIL_DEAD;
    }
    if (delay_ms) {
      *delay_ms = delay;
    }
  }
  return status;
}

LwStatus lw_queue_handback(redisContext *c, const LwConfig *cfg,
                           const char *worker_id, const LwJob *job, LwError *err)
{
  LwKey inflight = lw_key(cfg->prefix, LW_KEY_INFLIGHT, worker_id);
  LwKey queue = lw_key(cfg->prefix, LW_KEY_QUEUE, job->stage);
  LwKey worker = lw_key(cfg->prefix, LW_KEY_WORKER, worker_id);
  const char *argv[] = {inflight.s, queue.s, worker.s, job->raw};
  redisReply *reply = lw_script_run(c, &lw_script_handback, 3, 4, argv, NULL, err);
  LW_TRY(reply_status(reply, err));
  freeReplyObject(reply);
  return LW_OK;
}

/* SMEMBERS key as a reply (caller frees), or NULL with err. */
static redisReply *members(redisContext *c, const char *key, LwError *err)
{
  redisReply *reply = lw_redis_cmd(c, err, "SMEMBERS", key, NULL);
  if (reply && reply->type != REDIS_REPLY_ARRAY) {
    freeReplyObject(reply);
    lw_error_set(err, LW_ERR_REDIS, "%s is not a set", key);
    return NULL;
  }
  return reply;
}

LwStatus lw_queue_reap(redisContext *c, const LwConfig *cfg, long long *returned,
                       LwError *err)
{
  if (returned) {
    *returned = 0;
  }
  LwKey workers = lw_key(cfg->prefix, LW_KEY_WORKERS, NULL);
  redisReply *ids = members(c, workers.s, err);
  LW_TRY(reply_status(ids, err));
  LwKey heads[4] = {lw_key(cfg->prefix, LW_KEY_QUEUE, ""),
                    lw_key(cfg->prefix, LW_KEY_STATS, ""),
                    lw_key(cfg->prefix, LW_KEY_DEAD, ""),
                    lw_key(cfg->prefix, LW_KEY_QUEUED, "")};
  char max_attempts[32];
  snprintf(max_attempts, sizeof(max_attempts), "%lld", cfg->max_attempts);
  LwStatus status = LW_OK;
  for (size_t i = 0; i < ids->elements && status == LW_OK; ++i) {
    const char *id = ids->element[i]->str;
    LwKey worker = lw_key(cfg->prefix, LW_KEY_WORKER, id);
    LwKey inflight = lw_key(cfg->prefix, LW_KEY_INFLIGHT, id);
    const char *argv[] = {worker.s, inflight.s, workers.s, id, heads[0].s,
                          heads[1].s, heads[2].s, heads[3].s, max_attempts};
    redisReply *reply = lw_script_run(c, &lw_script_reap, 3, 9, argv, NULL, err);
    status = reply_status(reply, err);
    if (reply && reply->type == REDIS_REPLY_INTEGER && reply->integer > 0 && returned) {
      *returned += reply->integer;
    }
    freeReplyObject(reply);
  }
  freeReplyObject(ids);
  return status;
}

/* [stage], or every stage a job was ever queued for when stage is NULL. */
static LwStatus stages_or_all(redisContext *c, const LwConfig *cfg, const char *stage,
                              json_t **out, LwError *err)
{
  if (!stage) {
    return lw_queue_stages(c, cfg, out, err);
  }
  *out = json_pack("[s]", stage);
  return *out ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
}

LwStatus lw_queue_promote(redisContext *c, const LwConfig *cfg, const char *stage,
                          long long *moved, LwError *err)
{
  if (moved) {
    *moved = 0;
  }
  json_t *stages = NULL;
  LW_TRY(stages_or_all(c, cfg, stage, &stages, err));
  LwStatus status = LW_OK;
  size_t i;
  json_t *name;
  json_array_foreach(stages, i, name) {
    LwKey delayed = lw_key(cfg->prefix, LW_KEY_DELAYED, json_string_value(name));
    LwKey queue = lw_key(cfg->prefix, LW_KEY_QUEUE, json_string_value(name));
    const char *argv[] = {delayed.s, queue.s};
    redisReply *reply = lw_script_run(c, &lw_script_promote, 2, 2, argv, NULL, err);
    status = reply_status(reply, err);
    if (status != LW_OK) {
      break;
    }
    if (moved && reply->type == REDIS_REPLY_INTEGER) {
      *moved += reply->integer;
    }
    freeReplyObject(reply);
  }
  json_decref(stages);
  return status;
}

LwStatus lw_queue_retry_dead(redisContext *c, const LwConfig *cfg, const char *stage,
                             const char *id, long long *moved, LwError *err)
{
  long long total = 0;
  json_t *stages = NULL;
  LW_TRY(stages_or_all(c, cfg, stage, &stages, err));
  LwStatus status = LW_OK;
  size_t i;
  json_t *name;
  json_array_foreach(stages, i, name) {
    const char *s = json_string_value(name);
    LwKey dead = lw_key(cfg->prefix, LW_KEY_DEAD, s);
    LwKey queue = lw_key(cfg->prefix, LW_KEY_QUEUE, s);
    LwKey queued = lw_key(cfg->prefix, LW_KEY_QUEUED, s);
    const char *argv[] = {dead.s, queue.s, queued.s, id ? id : ""};
    redisReply *reply = lw_script_run(c, &lw_script_retry_dead, 3, 4, argv, NULL, err);
    status = reply_status(reply, err);
    if (status != LW_OK) {
      break;
    }
    total += reply->type == REDIS_REPLY_INTEGER ? reply->integer : 0;
    freeReplyObject(reply);
  }
  json_decref(stages);
  if (moved) {
    *moved = total;
  }
  LW_TRY(status);
  return total ? LW_OK : LW_NOTHING;
}
