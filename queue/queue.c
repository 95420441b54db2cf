#include "queue/queue.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "queue/controls.h"
#include "queue/job_timing.h"
#include "queue/keys.h"
#include "queue/pipeline.h"
#include "queue/redis_cmd.h"
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
                         LwKey keys[3], char member[LW_JOB_MEMBER_MAX], const char *argv[8])
{
  lw_job_member(job, member);
  keys[0] = lw_key(prefix, LW_KEY_QUEUE, job->stage);
  keys[1] = lw_key(prefix, LW_KEY_QUEUED, job->stage);
  keys[2] = lw_key(prefix, LW_KEY_STAGES, NULL);
  argv[0] = keys[0].s;
  argv[1] = keys[1].s;
  argv[2] = keys[2].s;
  argv[3] = job->raw;
  argv[4] = member;
  argv[5] = priority == LW_PRIORITY_HIGH ? "high" : "normal";
  argv[6] = job->stage;
  argv[7] = job->harvest;
}

LwStatus lw_queue_push_prefix(redisContext *c, const char *prefix, const LwJob *job,
                              LwPriority priority, LwError *err)
{
  LwKey keys[3];
  char member[LW_JOB_MEMBER_MAX];
  const char *argv[8];
  enqueue_argv(prefix, job, priority, keys, member, argv);
  redisReply *reply = lw_script_run(c, &lw_script_enqueue, 3, 8, argv, NULL, err);
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

LwStatus lw_queue_push_many(redisContext *c, const LwConfig *cfg, LwJob *const *jobs,
                            size_t n, LwPriority priority, size_t *pushed, LwError *err)
{
  enum { BATCH = 1000 };
  size_t count = 0;
  LW_TRY(lw_script_load(c, &lw_script_enqueue, err));
  for (size_t start = 0; start < n; start += BATCH) {
    size_t end = start + BATCH < n ? start + BATCH : n;
    for (size_t i = start; i < end; ++i) {
      LwKey keys[3];
      char member[LW_JOB_MEMBER_MAX];
      const char *argv[11] = {"EVALSHA", lw_script_sha(&lw_script_enqueue), "3"};
      enqueue_argv(cfg->prefix, jobs[i], priority, keys, member, argv + 3);
      redisAppendCommandArgv(c, 11, argv, NULL);
    }
    LwStatus status = LW_OK;
    size_t unrun[BATCH], n_unrun = 0;
    for (size_t i = start; i < end; ++i) {
      redisReply *reply = NULL;
      if (redisGetReply(c, (void **)&reply) != REDIS_OK || !reply) {
        return lw_error_set(err, LW_ERR_REDIS, "Redis connection lost: %s", c->errstr);
      }
      if (reply->type == REDIS_REPLY_INTEGER) {
        count += reply->integer == 1;
      } else if (lw_reply_is_noscript(reply)) {
        unrun[n_unrun++] = i; /* the script cache was flushed meanwhile */
      } else if (status == LW_OK) {
        status = lw_redis_reply_status(reply, err);
      }
      freeReplyObject(reply);
    }
    LW_TRY(status);
    /* A NOSCRIPT ran nothing: those jobs go again, one by one, each with
     * the script's body if need be. */
    for (size_t k = 0; k < n_unrun; ++k) {
      LwStatus st = lw_queue_push(c, cfg, jobs[unrun[k]], priority, err);
      if (st > LW_NOTHING) {
        return st;
      }
      count += st == LW_OK;
    }
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
  LwKey cap_key;
  char cap_limit[32], cap_lease[32], cap_stage[16];
  const char *argv[3 + 2 + 2 * MAX_STAGES + 2 + 5];
  int argc; /* in argv, with EVALSHA, sha and numkeys */
} FetchArgs;

/* The cap's arguments of the fetch script, when download is among the
 * stages asked (queue/scripts.c, lw_script_fetch). */
static void cap_args(const LwConfig *cfg, const char *const *stages, size_t n,
                     const LwFetchCap *cap, FetchArgs *f)
{
  for (size_t i = 0; cap && i < n; ++i) {
    if (!strcmp(stages[i], "download")) {
      f->cap_key = lw_key(cfg->prefix, LW_KEY_DOWNLOAD_SLOTS, NULL);
      snprintf(f->cap_limit, sizeof(f->cap_limit), "%lld", cap->limit);
      snprintf(f->cap_lease, sizeof(f->cap_lease), "%lld", cap->lease_ms);
      snprintf(f->cap_stage, sizeof(f->cap_stage), "%zu", 3 + 2 * i); /* its queue's KEYS index */
      const char *args[] = {f->cap_key.s, cap->member, f->cap_limit, f->cap_lease, f->cap_stage};
      for (size_t a = 0; a < 5; ++a) {
        f->argv[f->argc++] = args[a];
      }
      return;
    }
  }
}

static LwStatus fetch_args(const LwConfig *cfg, const char *worker_id,
                           const char *const *stages, size_t n, const LwFetchCap *cap,
                           FetchArgs *f, LwError *err)
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
  cap_args(cfg, stages, n, cap, f);
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

/* The paused stages as last read (an operator's pause, queue/controls.h),
 * by this process's worker: the ack with the fetch reads them in the same
 * call, so that the next ask leaves them out without a round trip of its
 * own. Only a hint: a job of a stage found paused is handed back. */
static struct {
  char names[MAX_STAGES][128];
  size_t n;
  pthread_mutex_t lock; /* a stage's thread asks (lw_queue_paused_seen) */
} paused_seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void paused_seen_set(const redisReply *members)
{
  pthread_mutex_lock(&paused_seen.lock);
  paused_seen.n = 0;
  for (size_t i = 0; members->type == REDIS_REPLY_ARRAY && i < members->elements &&
                     paused_seen.n < MAX_STAGES;
       ++i) {
    snprintf(paused_seen.names[paused_seen.n++], sizeof(paused_seen.names[0]), "%s",
             members->element[i]->str);
  }
  pthread_mutex_unlock(&paused_seen.lock);
}

static bool paused_seen_has(const char *stage)
{
  pthread_mutex_lock(&paused_seen.lock);
  bool found = false;
  for (size_t i = 0; i < paused_seen.n && !found; ++i) {
    found = !strcmp(paused_seen.names[i], stage);
  }
  pthread_mutex_unlock(&paused_seen.lock);
  return found;
}

bool lw_queue_paused_seen(const char *stage)
{
  return paused_seen_has(stage);
}

/* Reads the paused set anew (one round trip), kept as the last seen. */
static LwStatus paused_read(redisContext *c, const LwConfig *cfg, LwError *err)
{
  redisReply *paused =
    lw_redis_cmd(c, err, "SMEMBERS", lw_key(cfg->prefix, LW_KEY_PAUSED, NULL).s, NULL);
  LW_TRY(reply_status(paused, err));
  paused_seen_set(paused);
  freeReplyObject(paused);
  return LW_OK;
}

/* The stages of stages[0..*n) not paused as last seen, into open; *n
 * becomes their number. */
static void open_stages(const char *const **stages, size_t *n, const char **open)
{
  if (*n == 0 || *n > MAX_STAGES) {
    return; /* fetch_args says what is wrong */
  }
  size_t kept = 0;
  for (size_t i = 0; i < *n; ++i) {
    if (!paused_seen_has((*stages)[i])) {
      open[kept++] = (*stages)[i];
    }
  }
  *n = kept;
  *stages = open;
}

/* The fetch's arguments with the paused set after its keys (the scripts
 * that read the paused stages in the fetch's call) into argv (room for
 * f->argv's and one more); returns their number. */
static int args_with_paused(const FetchArgs *f, const LwKey *paused, const char **argv)
{
  int nkeys = atoi(f->numkeys);
  int argc = 0;
  for (int i = 0; i < nkeys; ++i) {
    argv[argc++] = f->argv[3 + i];
  }
  argv[argc++] = paused->s;
  for (int i = 3 + nkeys; i < f->argc; ++i) {
    argv[argc++] = f->argv[i];
  }
  return argc;
}

/* The job a fetch took (job: its reply) with the paused stages read in the
 * same call: kept as the last seen, and a job of a stage paused meanwhile
 * handed back (*next NULL then). */
static LwStatus fetched(redisContext *c, const LwConfig *cfg, const char *worker_id,
                        const FetchArgs *f, redisReply *job, const redisReply *paused,
                        LwJob **next, LwError *err)
{
  paused_seen_set(paused);
  LwStatus st = fetch_result(c, cfg, f, job, next, err);
  if (st == LW_OK && paused_seen_has((*next)->stage)) {
    LwError back_err;
    lw_queue_handback(c, cfg, worker_id, *next, &back_err); /* else the reaper */
    lw_job_free(*next);
    *next = NULL;
  }
  return st;
}

LwStatus lw_queue_fetch(redisContext *c, const LwConfig *cfg, const char *worker_id,
                        const char *const *stages, size_t n, const LwFetchCap *cap,
                        LwJob **out, LwError *err)
{
  *out = NULL;
  const char *open[MAX_STAGES];
  const char *const *asked = stages;
  size_t n_asked = n;
  open_stages(&asked, &n_asked, open);
  if (n_asked == 0 && n > 0) {
    /* every stage paused as last seen: the set is read anew, or a resumed
     * stage would never be asked again */
    LW_TRY(paused_read(c, cfg, err));
    asked = stages;
    n_asked = n;
    open_stages(&asked, &n_asked, open);
    if (n_asked == 0) {
      return LW_NOTHING;
    }
  }
  FetchArgs f;
  LW_TRY(fetch_args(cfg, worker_id, asked, n_asked, cap, &f, err));
  LwKey paused = lw_key(cfg->prefix, LW_KEY_PAUSED, NULL);
  const char *argv[sizeof(f.argv) / sizeof(*f.argv) + 1];
  int argc = args_with_paused(&f, &paused, argv);
  redisReply *reply =
    lw_script_run(c, lw_script_fetch_paused(), atoi(f.numkeys) + 1, argc, argv, NULL, err);
  LW_TRY(reply_status(reply, err));
  LwStatus status = LW_NOTHING;
  if (reply->type == REDIS_REPLY_ARRAY && reply->elements >= 2) {
    status = fetched(c, cfg, worker_id, &f, reply->element[0], reply->element[1], out, err);
  }
  freeReplyObject(reply);
  return status == LW_OK && !*out ? LW_NOTHING : status; /* handed back: none taken */
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

/* What every end of a job the worker held writes: the job leaves the
 * in-flight list (`take`, the first op: the fence's check), counts under
 * the stage's stats field `counted`, the worker's record of it is cleared
 * (unless a fetch in the same script call writes it: fetching), and its
 * run time is counted when it ran (timed). */
static void release_ops(LwTxn *core, const LwConfig *cfg, const char *worker_id,
                        const LwJob *job, const char *counted, bool timed, bool fetching)
{
  LwKey stats = lw_key(cfg->prefix, LW_KEY_STATS, job->stage);
  LwKey worker = lw_key(cfg->prefix, LW_KEY_WORKER, worker_id);
  lw_txn_op(core, "take", 0, NULL); /* the in-flight list is the apply's fence */
  lw_txn_command(core, 4, (const char *[]){"HINCRBY", stats.s, counted, "1"}, NULL);
  if (!fetching) {
    lw_txn_command(core, 5, (const char *[]){"HDEL", worker.s, "job", "since", "progress"},
                   NULL);
  }
  if (timed) {
    lw_job_timing_ops(core, cfg->prefix, job->stage, job->ran_ms);
  }
}

/* Releases the job's (stage, seed, harvest) for queueing again. */
static void unqueue_op(LwTxn *core, const LwConfig *cfg, const LwJob *job)
{
  LwKey queued = lw_key(cfg->prefix, LW_KEY_QUEUED, job->stage);
  char member[LW_JOB_MEMBER_MAX];
  lw_job_member(job, member);
  if (*member) {
    lw_txn_command(core, 3, (const char *[]){"SREM", queued.s, member}, NULL);
  }
}

/* The ack's own part, applied once the fence holds: the job leaves the
 * in-flight list, its (stage, seed, harvest) is released and it counts as
 * done (fetching: the fetch of the next job follows in the same call).
 * NULL: out of memory. */
static LwTxn *ack_core(const LwConfig *cfg, const char *worker_id, const LwJob *job,
                       bool fetching)
{
  LwTxn *core = lw_txn_new(cfg->prefix);
  if (core) {
    release_ops(core, cfg, worker_id, job, "done", job->timed, fetching);
    unqueue_op(core, cfg, job);
  }
  return core;
}

LwStatus lw_queue_ack(redisContext *c, const LwConfig *cfg, const char *worker_id,
                      const LwJob *job, LwTxn *txn, LwError *err)
{
  LwTxn *core = ack_core(cfg, worker_id, job, false);
  if (!core) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwKey inflight = lw_key(cfg->prefix, LW_KEY_INFLIGHT, worker_id);
  LwStatus status = lw_txn_apply(c, inflight.s, job->raw, core, txn, NULL, err);
  lw_txn_free(core);
  return status;
}

LwStatus lw_queue_ack_fetch(redisContext *c, const LwConfig *cfg, const char *worker_id,
                            const LwJob *job, LwTxn *txn, const char *const *stages,
                            size_t n, const LwFetchCap *cap, LwJob **next, LwError *err)
{
  *next = NULL;
  const char *open[MAX_STAGES];
  open_stages(&stages, &n, open);
  if (n == 0) {
    /* every stage paused, as last seen: no next job; the worker's own
     * fetch then reads the paused set anew (lw_queue_fetch) */
    return lw_queue_ack(c, cfg, worker_id, job, txn, err);
  }
  FetchArgs f;
  LW_TRY(fetch_args(cfg, worker_id, stages, n, cap, &f, err));
  LwTxn *core = ack_core(cfg, worker_id, job, true);
  if (!core) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwKey paused = lw_key(cfg->prefix, LW_KEY_PAUSED, NULL);
  const char *argv[sizeof(f.argv) / sizeof(*f.argv) + 1];
  int argc = args_with_paused(&f, &paused, argv);
  int nkeys = atoi(f.numkeys);
  LwScript *script = lw_script_ack_fetch();
  redisReply *reply = NULL;
  LwTxnTrailer trailer = {lw_script_sha(script), script->source, nkeys + 1, argc, argv,
                          &reply};
  LwKey inflight = lw_key(cfg->prefix, LW_KEY_INFLIGHT, worker_id);
  LwStatus status = lw_txn_apply(c, inflight.s, job->raw, core, txn, &trailer, err);
  lw_txn_free(core);
  if (reply && reply->elements >= 4) {
    /* the fetch ran whatever the ack's fate */
    LwError fetch_err;
    if (fetched(c, cfg, worker_id, &f, reply->element[2], reply->element[3], next,
                &fetch_err) > LW_NOTHING &&
        status == LW_OK) {
      lw_error_set(err, fetch_err.status, "%s", fetch_err.message);
    }
  }
  freeReplyObject(reply);
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

bool lw_queue_fail_final(const LwConfig *cfg, const LwJob *job, const LwError *failure)
{
  return !lw_status_retryable(failure->status) || job->attempt + 1 >= cfg->max_attempts;
}

/* The failed job as it goes to the delayed set or the dead list. */
static LwJob *failed_job(const LwJob *job, const LwError *failure, long long attempt,
                         LwError *err)
{
  long long now = lw_now_ms();
  json_t *changes = json_pack("{s:I, s:s, s:s, s:I}", "attempt", (json_int_t)attempt,
                              "error", failure->message, "error_kind",
                              lw_status_name(failure->status), "failed", (json_int_t)now);
  if (changes && !json_object_get(job->obj, "first_failed")) {
    json_object_set_new(changes, "first_failed", json_integer(now));
  }
  LwJob *next = changes ? lw_job_with(job, changes, err) : NULL;
  json_decref(changes);
  return next;
}

/* The fail's own part: the job moves to delayed (retry) or dead. */
static void fail_core(LwTxn *core, const LwConfig *cfg, const char *worker_id,
                      const LwJob *job, const LwJob *next, bool retry, long long delay)
{
  release_ops(core, cfg, worker_id, job, "failed", job->timed, false);
  LwKey stats = lw_key(cfg->prefix, LW_KEY_STATS, job->stage);
  if (retry) {
    char ms[32];
    snprintf(ms, sizeof(ms), "%lld", delay);
    LwKey delayed = lw_key(cfg->prefix, LW_KEY_DELAYED, job->stage);
    lw_txn_op(core, "delay", 3, (const char *[]){delayed.s, ms, next->raw});
    lw_txn_command(core, 4, (const char *[]){"HINCRBY", stats.s, "retried", "1"}, NULL);
  } else {
    LwKey dead = lw_key(cfg->prefix, LW_KEY_DEAD, job->stage);
    lw_txn_command(core, 3, (const char *[]){"LPUSH", dead.s, next->raw}, NULL);
    unqueue_op(core, cfg, job);
  }
}

LwStatus lw_queue_fail(redisContext *c, const LwConfig *cfg, const char *worker_id,
                       const LwJob *job, const LwError *failure, LwTxn *results,
                       LwFailOutcome *outcome, long long *delay_ms, LwError *err)
{
  long long attempt = job->attempt + 1;
  bool retry = !lw_queue_fail_final(cfg, job, failure);
  long long delay = retry ? lw_queue_backoff_ms(cfg, attempt) : 0;
  /* A server's Retry-After wins over a shorter backoff (capped like it). */
  if (retry && failure->retry_after_ms > delay) {
    delay = failure->retry_after_ms < cfg->retry_max_ms ? failure->retry_after_ms
                                                        : cfg->retry_max_ms;
  }
  LwJob *next = failed_job(job, failure, attempt, err);
  LwTxn *core = next ? lw_txn_new(cfg->prefix) : NULL;
  LwTxn *own = results ? NULL : lw_txn_new(cfg->prefix);
  LwTxn *res = results ? results : own;
  if (!next || !core || !res) {
    lw_job_free(next);
    lw_txn_free(core);
    lw_txn_free(own);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  fail_core(core, cfg, worker_id, job, next, retry, delay);
  if (job->seed[0]) {
    char message[LW_ERROR_MESSAGE_MAX + 32];
    snprintf(message, sizeof(message), "%s: %s", lw_status_name(failure->status),
             failure->message);
    LwKey seed = lw_key(cfg->prefix, LW_KEY_SEED, job->seed);
    lw_txn_op(res, "hsetx", 3, (const char *[]){seed.s, "error", message});
    if (!retry) {
      /* soft: a seed that is not in a working state keeps its status */
      lw_txn_seed_status_soft(res, job->seed, "failed");
    }
  }
  LwKey inflight = lw_key(cfg->prefix, LW_KEY_INFLIGHT, worker_id);
  LwStatus status = lw_txn_apply(c, inflight.s, job->raw, core, res, NULL, err);
  if (status == LW_ERR_STATE) {
    status = LW_OK; /* the job's move applied; its seed is another harvest's now */
  }
  lw_txn_free(core);
  lw_txn_free(own);
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

LwStatus lw_queue_defer(redisContext *c, const LwConfig *cfg, const char *worker_id,
                        const LwJob *job, long long delay_ms, LwError *err)
{
  LwTxn *core = lw_txn_new(cfg->prefix);
  if (!core) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  /* no request went out: no run time counted */
  release_ops(core, cfg, worker_id, job, "deferred", false, false);
  LwKey delayed = lw_key(cfg->prefix, LW_KEY_DELAYED, job->stage);
  char ms[32];
  snprintf(ms, sizeof(ms), "%lld", delay_ms);
  lw_txn_op(core, "delay", 3, (const char *[]){delayed.s, ms, job->raw});
  LwKey inflight = lw_key(cfg->prefix, LW_KEY_INFLIGHT, worker_id);
  LwStatus status = lw_txn_apply(c, inflight.s, job->raw, core, NULL, NULL, err);
  lw_txn_free(core);
  return status;
}

LwStatus lw_queue_handback(redisContext *c, const LwConfig *cfg, const char *worker_id,
                           const LwJob *job, LwError *err)
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

LwStatus lw_queue_reap_files(redisContext *c, const LwConfig *cfg,
                             const LwReapFanIn *fan_in, long long *returned, LwError *err)
{
  if (returned) {
    *returned = 0;
  }
  size_t n_files = fan_in ? fan_in->n_file_stages : 0;
  if (n_files > 32) {
    return lw_error_set(err, LW_ERR_USAGE, "too many file stages");
  }
  LwKey workers = lw_key(cfg->prefix, LW_KEY_WORKERS, NULL);
  redisReply *ids = lw_redis_members(c, workers.s, err);
  LW_TRY(reply_status(ids, err));
  LwKey heads[6] = {
    lw_key(cfg->prefix, LW_KEY_QUEUE, ""),   lw_key(cfg->prefix, LW_KEY_STATS, ""),
    lw_key(cfg->prefix, LW_KEY_DEAD, ""),    lw_key(cfg->prefix, LW_KEY_QUEUED, ""),
    lw_key(cfg->prefix, LW_KEY_HARVEST, ""), lw_key(cfg->prefix, LW_KEY_SEED, "")};
  LwKey counts = lw_key(cfg->prefix, LW_KEY_SEED_COUNTS, NULL);
  LwKey stages = lw_key(cfg->prefix, LW_KEY_STAGES, NULL);
  char max_attempts[32];
  snprintf(max_attempts, sizeof(max_attempts), "%lld", cfg->max_attempts);
  LwStatus status = LW_OK;
  for (size_t i = 0; i < ids->elements && status == LW_OK; ++i) {
    const char *id = ids->element[i]->str;
    LwKey worker = lw_key(cfg->prefix, LW_KEY_WORKER, id);
    LwKey inflight = lw_key(cfg->prefix, LW_KEY_INFLIGHT, id);
    const char *argv[14 + 32] = {worker.s,
                                 inflight.s,
                                 workers.s,
                                 id,
                                 heads[0].s,
                                 heads[1].s,
                                 heads[2].s,
                                 heads[3].s,
                                 max_attempts,
                                 heads[4].s,
                                 heads[5].s,
                                 counts.s,
                                 fan_in ? fan_in->follow_up : "",
                                 stages.s};
    for (size_t k = 0; k < n_files; ++k) {
      argv[14 + k] = fan_in->file_stages[k];
    }
    redisReply *reply = lw_script_run(c, &lw_script_reap, 3, (int)(14 + n_files), argv,
                                      NULL, err);
    status = reply_status(reply, err);
    if (reply && reply->type == REDIS_REPLY_INTEGER && reply->integer > 0 && returned) {
      *returned += reply->integer;
    }
    freeReplyObject(reply);
  }
  freeReplyObject(ids);
  return status;
}

LwStatus lw_queue_reap(redisContext *c, const LwConfig *cfg, long long *returned,
                       LwError *err)
{
  return lw_queue_reap_files(c, cfg, NULL, returned, err);
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

LwStatus lw_queue_depth(redisContext *c, const LwConfig *cfg, const char *stage, long long *n,
                        LwError *err)
{
  LwKey queue = lw_key(cfg->prefix, LW_KEY_QUEUE, stage);
  const char *argv[] = {queue.s};
  redisReply *reply = lw_script_run(c, &lw_script_depth, 1, 1, argv, NULL, err);
  LW_TRY(reply_status(reply, err));
  *n = reply->type == REDIS_REPLY_INTEGER ? reply->integer : 0;
  freeReplyObject(reply);
  return LW_OK;
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
    LwKey harvest = lw_key(cfg->prefix, LW_KEY_HARVEST, "");
    LwKey provider = lw_key(cfg->prefix, LW_KEY_PROVIDER, "");
    const char *argv[] = {dead.s,
                          queue.s,
                          queued.s,
                          id ? id : "",
                          harvest.s,
                          provider.s,
                          lw_pipeline_is_file_stage(s) ? "1" : "0"};
    redisReply *reply = lw_script_run(c, &lw_script_retry_dead, 3, 7, argv, NULL, err);
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
