#include "workers/worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "queue/heartbeat.h"
#include "queue/pipeline.h"
#include "queue/queue.h"
#include "queue/redis.h"
#include "workers/download_cap.h"
#include "workers/download_many.h"
#include "workers/stage.h"

struct LwWorker {
  const LwWorkerOptions *opts;
  const LwConfig *cfg;
  char id[256];
  char stages_csv[1024];
  LwRecords *redis;
  long long progress_ms;     /* last progress write */
  const char *progress_fmt; /* its kind (format) */

  /* the heartbeat thread */
  pthread_t beat_thread;
  pthread_mutex_t beat_lock;
  pthread_cond_t beat_cond;
  bool beat_quit;
  /* the job that runs, for the heartbeat thread's time limit (beat_lock) */
  const LwJob *running;
  long long running_since; /* ms */
  bool writes_refused;     /* Redis refused a write: wait before the next job */
  bool many;               /* running many downloads at once (run_downloads) */
  bool orphans_unchecked;  /* reconnected meanwhile: hand back orphans after */
};

const char *lw_worker_id(const LwWorker *w)
{
  return w->id;
}

bool lw_stage_may_fold(const LwStageCtx *ctx, const char *stage)
{
  const LwWorker *w = ctx->worker;
  if (!w || lw_queue_paused_seen(stage)) {
    return false;
  }
  for (size_t i = 0; i < w->opts->n_stages; ++i) {
    if (!strcmp(w->opts->stages[i], stage)) {
      return true;
    }
  }
  return false;
}

static bool stopping(const LwWorker *w)
{
  return w->opts->stop && *w->opts->stop;
}

/* Sleeps ms, waking early when asked to stop. */
static void nap(const LwWorker *w, long long ms)
{
  while (ms > 0 && !stopping(w)) {
    long long step = ms < 50 ? ms : 50;
    struct timespec ts = {(time_t)(step / 1000), (long)(step % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    ms -= step;
  }
}

size_t lw_worker_parse_stages(const char *list, const char **names, size_t max,
                              LwError *err)
{
  size_t n = 0;
  if (!list || !*list || !strcmp(list, "all")) {
    /* Work already started finishes first: a dump's later stages come
     * before the downloads that start new work (a slow host's transfers then
     * delay only downloads), then the other stages in table order. */
    static const char *const preferred[] = {"import", "parse", "guess", "unpack",
                                            "download"};
    for (size_t i = 0; i < sizeof(preferred) / sizeof(*preferred) && n < max; ++i) {
      const LwStage *stage = lw_stage_find(preferred[i]);
      if (stage) {
        names[n++] = stage->name;
      }
    }
    for (size_t i = 0; i < lw_stage_count && n < max; ++i) {
      bool listed = false;
      for (size_t j = 0; j < n; ++j) {
        listed = listed || names[j] == lw_stages[i].name;
      }
      if (!listed) {
        names[n++] = lw_stages[i].name;
      }
    }
    return n;
  }
  const char *p = list;
  while (*p) {
    size_t len = strcspn(p, ",");
    char name[128];
    snprintf(name, sizeof(name), "%.*s", (int)(len < 127 ? len : 127), p);
    const LwStage *stage = lw_stage_find(name);
    if (!stage) {
      lw_error_set(err, LW_ERR_USAGE, "unknown stage '%s' (known: see --help)", name);
      return 0;
    }
    bool dup = false;
    for (size_t i = 0; i < n; ++i) {
      dup = dup || names[i] == stage->name;
    }
    if (!dup && n < max) {
      names[n++] = stage->name;
    }
    p += len;
    if (*p == ',') {
      ++p;
    }
  }
  if (!n) {
    lw_error_set(err, LW_ERR_USAGE, "no stage given");
  }
  return n;
}

/* (Re)connects and registers, retrying with backoff until it works or the
 * worker is stopped. Jobs in the worker's in-flight list other than holding
 * (the one it is finishing, may be NULL) are handed back: their fetch
 * replies were lost with the old connection. */
static bool connect_redis(LwWorker *w, const LwJob *holding)
{
  lw_records_close(w->redis);
  w->redis = NULL;
  long long backoff = 100;
  bool warned = false;
  while (!stopping(w)) {
    LwError err;
    /* With many downloads running, every job of the in-flight list may be
     * one of them: orphans are handed back once they ended. */
    w->orphans_unchecked = w->orphans_unchecked || w->many;
    if (lw_redis_connect(w->cfg->redis_url, &w->redis, &err) == LW_OK &&
        lw_heartbeat_register(w->redis, w->cfg, w->id, w->stages_csv, &err) == LW_OK &&
        (w->many ||
         lw_queue_release_orphans(w->redis, w->cfg, w->id, holding, NULL, &err) == LW_OK)) {
      if (warned) {
        lw_info("msg=\"reconnected to Redis\" worker=%s", w->id);
      }
      return true;
    }
    lw_records_close(w->redis);
    w->redis = NULL;
    lw_warn("msg=\"Redis unavailable, retrying\" error=\"%s\" retry_ms=%lld", err.message,
            backoff);
    warned = true;
    nap(w, backoff);
    backoff = backoff * 2 < 5000 ? backoff * 2 : 5000;
  }
  return false;
}

/* The job ran past the time limit: a stage's thread cannot be stopped from
 * outside (it may be stuck in a library's loop on hostile input), so the job
 * is failed from here (fenced like any fail: a no-op if its own outcome came
 * first), with a clear error on its seed, and the process exits for its
 * supervisor to start a fresh one. Called with beat_lock held, so that the
 * job cannot end and be freed meanwhile; does not return. */
static void give_up_job(LwWorker *w, LwRecords *c)
{
  const LwJob *job = w->running;
  long long limit = w->cfg->job_time_limit_s;
  LwError failure, err;
  lw_error_set(&failure, LW_ERR_LIMIT, "the job ran longer than the job time limit (%lld s)",
               limit);
  lw_error("stage=%s seed=%s job=%s msg=\"job time limit reached: the job fails and the "
           "worker exits (exit code %d)\" limit_s=%lld",
           job->stage, job->seed, job->id, LW_WORKER_EXIT_TIME_LIMIT, limit);
  LwTxn *results = lw_stage_fail_fan_in(w->cfg, job, &failure);
  LwFailOutcome outcome = LW_FAIL_DEAD;
  long long delay = 0;
  if (!c || lw_queue_fail(c, w->cfg, w->id, job, &failure, results, &outcome, &delay,
                          &err) > LW_NOTHING) {
    lw_error("job=%s msg=\"could not fail the job: the reaper will give it back\" "
             "error=\"%s\"",
             job->id, c ? err.message : "no Redis connection");
  } else {
    if (outcome == LW_FAIL_DEAD) {
      lw_stage_dead_ends_harvest(c, w->cfg, job, &failure);
    }
    lw_heartbeat_unregister(c, w->cfg, w->id, &err);
  }
  _exit(LW_WORKER_EXIT_TIME_LIMIT); /* no atexit handlers: the job's thread runs on */
}

static void check_time_limit(LwWorker *w, LwRecords *c)
{
  long long limit_ms = w->cfg->job_time_limit_s * 1000;
  pthread_mutex_lock(&w->beat_lock);
  if (w->running && limit_ms > 0 && lw_now_ms() - w->running_since > limit_ms) {
    give_up_job(w, c);
  }
  pthread_mutex_unlock(&w->beat_lock);
}

/* The job the worker works on since `since` (NULL: none; with many
 * downloads, the oldest), for check_time_limit. */
static void set_running(LwWorker *w, const LwJob *job, long long since)
{
  pthread_mutex_lock(&w->beat_lock);
  w->running = job;
  w->running_since = since;
  pthread_mutex_unlock(&w->beat_lock);
}

static void *beat_main(void *arg)
{
  LwWorker *w = arg;
  LwRecords *c = NULL;
  long long period_ms = w->cfg->heartbeat_ttl_s * 1000 / 3;
  if (period_ms < 100) {
    period_ms = 100;
  }
  pthread_mutex_lock(&w->beat_lock);
  while (!w->beat_quit) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += period_ms / 1000;
    until.tv_nsec += (period_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec += 1;
      until.tv_nsec -= 1000000000L;
    }
    int rc = 0;
    while (!w->beat_quit && rc != ETIMEDOUT) {
      rc = pthread_cond_timedwait(&w->beat_cond, &w->beat_lock, &until);
    }
    if (w->beat_quit) {
      break;
    }
    pthread_mutex_unlock(&w->beat_lock);
    LwError err;
    if (!lw_records_usable(c)) {
      lw_records_close(c);
      c = NULL;
      if (lw_redis_connect(w->cfg->redis_url, &c, &err) != LW_OK) {
        lw_debug("msg=\"heartbeat: Redis unavailable\" error=\"%s\"", err.message);
      }
    }
    if (c && lw_heartbeat_beat(c, w->cfg, w->id, w->stages_csv, &err) != LW_OK) {
      lw_debug("msg=\"heartbeat failed\" error=\"%s\"", err.message);
    }
    check_time_limit(w, lw_records_usable(c) ? c : NULL);
    pthread_mutex_lock(&w->beat_lock);
  }
  pthread_mutex_unlock(&w->beat_lock);
  lw_records_close(c);
  return NULL;
}

static bool beat_start(LwWorker *w)
{
  pthread_mutex_init(&w->beat_lock, NULL);
  pthread_cond_init(&w->beat_cond, NULL);
  w->beat_quit = false;
  /* signals go to the main thread, which owns the stop flag */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int rc = pthread_create(&w->beat_thread, NULL, beat_main, w);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc == 0;
}

static void beat_stop(LwWorker *w)
{
  pthread_mutex_lock(&w->beat_lock);
  w->beat_quit = true;
  pthread_cond_signal(&w->beat_cond);
  pthread_mutex_unlock(&w->beat_lock);
  pthread_join(w->beat_thread, NULL);
  pthread_cond_destroy(&w->beat_cond);
  pthread_mutex_destroy(&w->beat_lock);
}

/* A note of a new kind (a new phase, the merge's first count) is written at
 * once, so that it is seen however short the phase; the same kind again at
 * most once a second. Among many transfers the notes of one download or
 * another take turns: any note at most once a second (each is a round
 * trip, and the transfers' kinds alternate all the time). */
void lw_stage_progress(LwStageCtx *ctx, const char *fmt, ...)
{
  LwWorker *w = ctx->worker;
  long long now = lw_now_ms();
  if (!w || ((fmt == w->progress_fmt || w->many) && now - w->progress_ms < 1000)) {
    return;
  }
  w->progress_ms = now;
  w->progress_fmt = fmt;
  char note[256];
  va_list args;
  va_start(args, fmt);
  vsnprintf(note, sizeof(note), fmt, args);
  va_end(args);
  lw_heartbeat_progress(ctx->redis, w->cfg, w->id, note, NULL);
}

bool lw_stage_stopping(const LwStageCtx *ctx)
{
  return ctx->worker && stopping(ctx->worker);
}

/* While Redis refuses writes (out of memory, a read-only replica, ...) no
 * job is taken: it would fail for no fault of its own and spend an attempt
 * (scripts still run then, so jobs would still be handed out). Probes with
 * a plain write once a second; false when asked to stop meanwhile. */
static bool wait_writable(LwWorker *w)
{
  bool said = false;
  while (!stopping(w)) {
    LwError err;
    lw_error_clear(&err);
    if (!lw_records_usable(w->redis) && !connect_redis(w, NULL)) {
      return false;
    }
    LwStatus st = lw_redis_write_probe(w->redis, w->cfg->prefix, &err);
    if (st == LW_OK || !lw_redis_refused_write(&err)) {
      if (said) {
        lw_info("msg=\"Redis accepts writes again: taking jobs\"");
      }
      w->writes_refused = false;
      return true; /* (another error: the caller's loop deals with it) */
    }
    if (!said) {
      lw_warn("msg=\"Redis refuses writes: no job is taken until it accepts them\" "
              "error=\"%s\"",
              err.message);
      said = true;
    }
    nap(w, 1000);
  }
  return false;
}

typedef enum { FINISH_ACK, FINISH_FAIL, FINISH_HANDBACK, FINISH_DEFER } Finish;

/* Sends the job's outcome, reconnecting as often as needed: a job's result
 * must not be lost because Redis restarted meanwhile. Gives up only when the
 * worker is stopped while Redis is away (the reaper then returns the job). */
static LwStatus finish_job(LwWorker *w, Finish how, const LwJob *job, LwTxn *txn,
                           const LwError *failure, LwFailOutcome *outcome, long long *delay,
                           LwJob **next, LwError *err)
{
  for (;;) {
    LwStatus st;
    if (how == FINISH_ACK && next) {
      /* the next job comes back in the same round trip as the ack */
      if (w->many) { /* another download for the transfer that ended */
        static const char *const download[] = {"download"};
        st = lw_queue_ack_fetch(w->redis, w->cfg, w->id, job, txn, download, 1, NULL, next,
                                err);
      } else {
        LwFetchCap cap;
        const LwFetchCap *capped =
          lw_download_cap(w->cfg, w->id, w->opts->stages, w->opts->n_stages, &cap);
        st = lw_queue_ack_fetch(w->redis, w->cfg, w->id, job, txn, w->opts->stages,
                                w->opts->n_stages, capped, next, err);
        lw_download_cap_got(capped, *next ? (*next)->stage : NULL);
      }
    } else if (how == FINISH_ACK) {
      st = lw_queue_ack(w->redis, w->cfg, w->id, job, txn, err);
    } else if (how == FINISH_FAIL) {
      st = lw_queue_fail(w->redis, w->cfg, w->id, job, failure, txn, outcome, delay, err);
    } else if (how == FINISH_DEFER) {
      st = lw_queue_defer(w->redis, w->cfg, w->id, job, failure->defer_ms, err);
    } else {
      st = lw_queue_handback(w->redis, w->cfg, w->id, job, err);
    }
    if (st == LW_ERR_REDIS && lw_redis_refused_write(err) && w->redis &&
        lw_records_usable(w->redis)) {
      if (!wait_writable(w)) {
        return st; /* stopped: the reaper returns the job */
      }
      continue; /* the outcome is sent once Redis takes writes again */
    }
    if (st != LW_ERR_REDIS || !w->redis || lw_records_usable(w->redis)) {
      return st; /* done, or Redis answered with an error: not a lost link */
    }
    lw_warn("msg=\"lost Redis while finishing a job\" job=%s error=\"%s\"", job->id,
            err->message);
    if (!connect_redis(w, job)) {
      return st;
    }
  }
}

/* One job from its start to its outcome. */
typedef struct {
  LwJob *job; /* owned */
  long long t0;
  LwTxn *txn;
  LwError failure;
  LwStageCtx ctx;
  struct LwDownload *download; /* its transfer, with many downloads at once */
} JobRun;

/* The job's context for its stage; LW_OK, or the status it fails with. */
static LwStatus job_begin(LwWorker *w, LwJob *job, JobRun *r)
{
  memset(r, 0, sizeof(*r));
  r->job = job;
  r->t0 = lw_now_ms();
  lw_error_clear(&r->failure);
  r->txn = lw_txn_new(w->cfg->prefix);
  r->ctx = (LwStageCtx){.config = w->cfg,
                        .redis = w->redis,
                        .job = job,
                        .txn = r->txn,
                        .err = &r->failure,
                        .worker = w,
                        .outcome = LW_STAGE_DONE};
  if (!r->txn) {
    return lw_error_set(&r->failure, LW_ERR_NOMEM, "out of memory");
  }
  if (!lw_stage_find(job->stage)) {
    return lw_error_set(&r->failure, LW_ERR_USAGE, "no stage '%s' in this worker",
                        job->stage);
  }
  return LW_OK;
}

/* The stage ended with status: sends the job's outcome (the ack with its
 * results, a failure or a hand-back) and logs it. Returns the next job when
 * want_next and it came with the ack (caller frees), else NULL. Frees the
 * txn, not the job. */
static LwJob *job_end(LwWorker *w, JobRun *r, LwStatus status, bool want_next)
{
  LwJob *job = r->job;
  if (status > LW_NOTHING && r->failure.status == LW_OK) {
    lw_error_set(&r->failure, status, "%s", lw_status_name(status));
  }
  r->failure.status = status;
  LwError *failure = &r->failure;
  LwTxn *txn = r->txn;
  LwJob *next = NULL;
  /* the handler may have broken the connection: make sure it is usable */
  if (!lw_records_usable(w->redis)) {
    connect_redis(w, job);
  }
  r->ctx.redis = w->redis;

  /* counted with the outcome, in its script call (a handback does not) */
  job->timed = true;
  job->ran_ms = lw_now_ms() - r->t0;
  const char *outcome_name = "done";
  bool handed_back = false;
  LwError err;
  lw_error_clear(&err);
  LwFailOutcome outcome = LW_FAIL_DEAD;
  long long delay = 0;
  LwStatus fin;
  if (status <= LW_NOTHING) {
    lw_stage_results(&r->ctx, status);
    fin = finish_job(w, FINISH_ACK, job, txn, NULL, NULL, NULL,
                     stopping(w) || !want_next ? NULL : &next, &err);
    if (fin == LW_ERR_STATE || (fin > LW_NOTHING && fin != LW_ERR_REDIS)) {
      /* the results were refused (an illegal seed transition): a bug in the
       * handler or a race with a re-harvest; the job is done regardless */
      lw_warn("stage=%s seed=%s job=%s msg=\"results refused\" error=\"%s\"", job->stage,
              job->seed, job->id, err.message);
    }
  } else if (stopping(w) || lw_redis_refused_write(failure)) {
    /* Redis refused one of the job's writes: not the job's fault, so no
     * attempt is spent; it goes back to its queue, and this worker takes
     * no job until Redis accepts writes again. */
    w->writes_refused = !stopping(w);
    handed_back = true;
    outcome_name = "handed-back";
    fin = finish_job(w, FINISH_HANDBACK, job, NULL, NULL, NULL, NULL, NULL, &err);
  } else if (failure->defer_ms > 0) {
    /* its host is full with other downloads: not the job's doing, so no
     * attempt is spent, and this worker goes on with other jobs rather
     * than wait (docs/download.md, host turns) */
    handed_back = true;
    outcome_name = "deferred";
    fin = finish_job(w, FINISH_DEFER, job, NULL, failure, NULL, NULL, NULL, &err);
  } else {
    LwTxn *results = lw_stage_fail_fan_in(w->cfg, job, failure);
    fin = finish_job(w, FINISH_FAIL, job, results, failure, &outcome, &delay, NULL, &err);
    lw_txn_free(results);
    outcome_name = outcome == LW_FAIL_RETRY ? "retry" : "dead";
    if (fin == LW_OK && outcome == LW_FAIL_DEAD) {
      lw_stage_dead_ends_harvest(w->redis, w->cfg, job, failure);
    }
  }
  if (fin == LW_ERR_REDIS) {
    outcome_name = "lost-redis";
  } else if (fin == LW_NOTHING) {
    /* reaped while it ran (and given to another worker), or this outcome
     * already applied and its reply was lost: nothing was applied now */
    outcome_name = "lost";
    lw_warn("stage=%s seed=%s job=%s msg=\"lost the job: it is no longer this worker's, "
            "nothing recorded\"",
            job->stage, job->seed, job->id);
  }
  long long ms = lw_now_ms() - r->t0;
  if (status <= LW_NOTHING || handed_back) {
    lw_info("stage=%s seed=%s job=%s outcome=%s ms=%lld", job->stage, job->seed, job->id,
            outcome_name, ms);
  } else {
    lw_warn("stage=%s seed=%s job=%s outcome=%s ms=%lld attempt=%lld retry_ms=%lld "
            "error_kind=%s error=\"%s\"",
            job->stage, job->seed, job->id, outcome_name, ms, job->attempt + 1, delay,
            lw_status_name(failure->status), failure->message);
  }
  lw_txn_free(txn);
  r->txn = NULL;
  return next;
}

/* Runs job and sends its outcome; returns the next job when it came with
 * the ack (caller frees), else NULL. */
static LwJob *run_job(LwWorker *w, LwJob *job)
{
  JobRun r;
  LwStatus status = job_begin(w, job, &r);
  set_running(w, job, r.t0);
  if (status == LW_OK) {
    status = lw_stage_find(job->stage)->run(&r.ctx);
  }
  LwJob *next = job_end(w, &r, status, true);
  set_running(w, NULL, 0);
  return next;
}

/* ---- many downloads at once (--download-transfers N) --------------------
 *
 * A download job spends its time waiting: for the host's turn, for the
 * server's answer, for its bytes. One thread runs up to N of them in a
 * LwFetchMulti (net/net.h): each job is fenced, acked, failed or handed
 * back on its own, exactly as run_job does it, when its transfer ends, and
 * the transfer that ended takes the next download with its ack. A slow
 * host holds one transfer, never the worker. The worker takes only
 * downloads while it has transfers running, and goes back to its other
 * stages once they ended (--download-workers keeps workers for them). */
typedef struct {
  LwFetchMulti *multi;
  JobRun *runs[LW_DOWNLOAD_TRANSFERS_MAX];
  size_t n;
  size_t max;
  bool draining; /* the transfers are stopped: take no next job */
} Transfers;

static void transfers_note_oldest(LwWorker *w, const Transfers *t)
{
  const JobRun *oldest = NULL;
  for (size_t i = 0; i < t->n; ++i) {
    if (!oldest || t->runs[i]->t0 < oldest->t0) {
      oldest = t->runs[i];
    }
  }
  set_running(w, oldest ? oldest->job : NULL, oldest ? oldest->t0 : 0);
}

static void transfers_drop(LwWorker *w, Transfers *t, JobRun *r)
{
  for (size_t i = 0; i < t->n; ++i) {
    if (t->runs[i] == r) {
      t->runs[i] = t->runs[--t->n];
      break;
    }
  }
  transfers_note_oldest(w, t); /* before the job is freed */
  lw_job_free(r->job);
  free(r);
}

/* Starts job's transfer (the download stage's first half); a job that ends
 * at once (its seed is past download, a bad URI, ...) is finished now. */
static void transfers_start(LwWorker *w, Transfers *t, LwJob *job)
{
  JobRun *r = malloc(sizeof(*r));
  if (!r) {
    LwError err;
    lw_queue_handback(w->redis, w->cfg, w->id, job, &err);
    lw_job_free(job);
    return;
  }
  LwStatus st = job_begin(w, job, r);
  if (st == LW_OK && strcmp(job->stage, "download") != 0) {
    st = lw_error_set(&r->failure, LW_ERR_USAGE, "not a download: %s", job->stage);
  }
  if (st == LW_OK) {
    st = lw_download_start(&r->ctx, t->multi, r, &r->download);
  }
  t->runs[t->n++] = r;
  transfers_note_oldest(w, t);
  if (st != LW_OK) {
    job_end(w, r, st, false);
    transfers_drop(w, t, r);
  }
}

/* Transfers that ended: each job's outcome, and the next download for its
 * place when one is queued. */
static void transfers_finish(LwWorker *w, Transfers *t, long long *jobs)
{
  LwStatus fetch_status;
  JobRun *r;
  while ((r = lw_fetch_multi_done(t->multi, &fetch_status)) != NULL) {
    r->ctx.redis = w->redis;
    LwStatus st = lw_download_end(r->download, fetch_status);
    r->download = NULL;
    LwJob *next = job_end(w, r, st, !t->draining);
    transfers_drop(w, t, r);
    ++*jobs;
    if (next) {
      transfers_start(w, t, next);
    }
  }
}

/* Whether downloads run many at once here. A worker among many transfers
 * takes only downloads until they have all ended, so it must not be the
 * only kind of worker left for the later stages: a flood of downloads would
 * hold back every unpack, parse and import (three such workers beside
 * 3,000 queued downloads: an archive never unpacked). So many transfers
 * run in a worker that serves only downloads (--stages download), or when
 * --download-workers caps the workers downloading, leaving the others to
 * the later stages. */
static bool many_transfers(const LwWorker *w)
{
  if (w->cfg->download_transfers <= 1) {
    return false;
  }
  bool only_downloads = w->opts->n_stages == 1 && !strcmp(w->opts->stages[0], "download");
  return only_downloads || w->cfg->download_workers > 0;
}

/* Takes queued downloads for the free places: false when none is queued. */
static bool transfers_fill(LwWorker *w, Transfers *t)
{
  static const char *const download[] = {"download"};
  while (t->n < t->max && !stopping(w) && !w->writes_refused) {
    LwJob *job = NULL;
    LwError err;
    if (lw_queue_fetch(w->redis, w->cfg, w->id, download, 1, NULL, &job, &err) != LW_OK ||
        !job) {
      return false;
    }
    transfers_start(w, t, job);
  }
  return true;
}

#define FILL_EVERY_MS 200 /* an empty queue is asked again this often */

/* Runs first and the downloads queued after it, up to --download-transfers
 * at once, until none is left running. */
static void run_downloads(LwWorker *w, LwJob *first, long long *jobs)
{
  Transfers t = {0};
  t.max = (size_t)w->cfg->download_transfers;
  t.max = t.max > LW_DOWNLOAD_TRANSFERS_MAX ? LW_DOWNLOAD_TRANSFERS_MAX : t.max;
  t.multi = lw_fetch_multi_new();
  if (!t.multi) {
    LwJob *next = run_job(w, first); /* one at a time, then */
    lw_job_free(first);
    if (next) {
      LwError err;
      lw_queue_handback(w->redis, w->cfg, w->id, next, &err);
      lw_job_free(next);
    }
    ++*jobs;
    return;
  }
  w->many = true;
  transfers_start(w, &t, first);
  long long filled_ms = 0;
  while (lw_fetch_multi_count(t.multi) > 0) {
    long long now = lw_now_ms();
    if (t.n < t.max && now - filled_ms >= FILL_EVERY_MS && !transfers_fill(w, &t)) {
      filled_ms = now;
    }
    for (size_t i = 0; i < t.n; ++i) {
      t.runs[i]->ctx.redis = w->redis; /* a reconnect replaced it */
    }
    LwError err;
    if (lw_fetch_multi_run(t.multi, 100, &err) != LW_OK) {
      lw_warn("msg=\"transfers failed\" error=\"%s\"", err.message);
      break;
    }
    transfers_finish(w, &t, jobs);
  }
  /* no next job with an ack from here on: one added to the stopped
   * transfers would be freed with them, its job left in flight */
  t.draining = true;
  lw_fetch_multi_stop(t.multi); /* what is left (libcurl failed) ends as */
  transfers_finish(w, &t, jobs); /* stopped: failed, to be retried */
  lw_fetch_multi_free(t.multi);
  w->many = false;
  if (w->orphans_unchecked && lw_records_usable(w->redis)) {
    LwError err;
    lw_queue_release_orphans(w->redis, w->cfg, w->id, NULL, NULL, &err);
  }
  w->orphans_unchecked = false;
  set_running(w, NULL, 0);
}

/* Waits for work: returns false when the worker should exit (idle with
 * --exit-when-idle). */
static bool idle_round(LwWorker *w, long long *sleep_ms, long long *last_reap)
{
  LwError err;
  long long now = lw_now_ms();
  bool reap_due = w->opts->exit_when_idle ||
                  now - *last_reap >= w->cfg->heartbeat_ttl_s * 1000;
  if (reap_due) {
    long long returned = 0;
    if (lw_pipeline_reap(w->redis, w->cfg, &returned, &err) == LW_OK && returned) {
      lw_info("msg=\"gave back jobs of dead workers\" jobs=%lld", returned);
      *sleep_ms = 1;
      return true;
    }
    *last_reap = now;
  }
  if (w->opts->exit_when_idle) {
    bool idle = false;
    if (lw_queue_idle(w->redis, w->cfg, w->opts->stages, w->opts->n_stages, w->id, &idle,
                      &err) == LW_OK &&
        idle) {
      return false;
    }
  }
  nap(w, *sleep_ms);
  *sleep_ms = *sleep_ms * 2 < w->cfg->poll_max_ms ? *sleep_ms * 2 : w->cfg->poll_max_ms;
  if (*sleep_ms < 1) {
    *sleep_ms = 1;
  }
  return true;
}

int lw_worker_run(const LwWorkerOptions *opts)
{
  LwWorker w;
  memset(&w, 0, sizeof(w));
  w.opts = opts;
  w.cfg = opts->config;
  lw_worker_id_new(w.id, sizeof(w.id));
  size_t n = 0;
  for (size_t i = 0; i < opts->n_stages; ++i) {
    n += (size_t)snprintf(w.stages_csv + n, sizeof(w.stages_csv) - n, "%s%s", i ? "," : "",
                          opts->stages[i]);
    if (n >= sizeof(w.stages_csv)) {
      break;
    }
  }
  if (!connect_redis(&w, NULL)) {
    return 0; /* stopped before Redis came */
  }
  if (!beat_start(&w)) {
    lw_error("msg=\"cannot start the heartbeat thread\"");
    lw_records_close(w.redis);
    return 1;
  }
  lw_info("msg=\"worker started\" worker=%s stages=%s", w.id, w.stages_csv);

  long long sleep_ms = 1;
  long long last_reap = 0;
  long long jobs = 0;
  LwJob *job = NULL; /* a job that came with the previous ack */
  while (!stopping(&w)) {
    LwError err;
    LwStatus st = LW_OK;
    if (w.writes_refused && !job && !wait_writable(&w)) {
      break;
    }
    if (!job) {
      LwFetchCap cap;
      const LwFetchCap *capped = lw_download_cap(w.cfg, w.id, opts->stages, opts->n_stages, &cap);
      st = lw_queue_fetch(w.redis, w.cfg, w.id, opts->stages, opts->n_stages, capped, &job, &err);
      lw_download_cap_got(capped, st == LW_OK && job ? job->stage : NULL);
    }
    if (st == LW_OK && job && many_transfers(&w) && !strcmp(job->stage, "download")) {
      sleep_ms = 1;
      run_downloads(&w, job, &jobs); /* frees job */
      job = NULL;
    } else if (st == LW_OK && job) {
      sleep_ms = 1;
      LwJob *next = run_job(&w, job);
      lw_job_free(job);
      job = next;
      ++jobs;
    } else if (st == LW_NOTHING) {
      if (!idle_round(&w, &sleep_ms, &last_reap)) {
        break;
      }
    } else if (lw_redis_refused_write(&err) && lw_records_usable(w.redis)) {
      w.writes_refused = true; /* waits before the next fetch */
    } else if (lw_records_usable(w.redis)) {
      lw_warn("msg=\"fetch failed\" error=\"%s\"", err.message); /* e.g. a bad job */
      nap(&w, 100);
    } else {
      lw_warn("msg=\"lost Redis\" error=\"%s\"", err.message);
      connect_redis(&w, NULL);
    }
  }
  if (job) { /* fetched with the last ack, then told to stop */
    LwError err;
    if (lw_queue_handback(w.redis, w.cfg, w.id, job, &err) == LW_OK) {
      lw_info("stage=%s seed=%s job=%s outcome=handed-back ms=0", job->stage, job->seed,
              job->id);
    }
    lw_job_free(job);
  }
  beat_stop(&w);
  if (lw_records_usable(w.redis)) {
    lw_heartbeat_unregister(w.redis, w.cfg, w.id, NULL);
  }
  lw_records_close(w.redis);
  lw_info("msg=\"worker stopped\" worker=%s jobs=%lld", w.id, jobs);
  return 0;
}
