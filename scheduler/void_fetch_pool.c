#include "scheduler/void_fetch_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/http_fetch.h"
#include "queue/redis.h"

struct LwVoidFetchPool {
  const LwConfig *cfg;
  pthread_mutex_t lock;
  pthread_cond_t work;   /* a job was queued, or closing */
  pthread_cond_t done;   /* a job finished */
  LwVoidFetchJob **jobs; /* submitted, in order */
  size_t capacity, submitted, taken;
  LwVoidFetchJob **finished; /* ring of finished jobs not yet handed back */
  size_t fin_head, fin_count;
  size_t handed_back;
  pthread_t *threads;
  int max_threads, threads_started;
  bool closing;
  atomic_bool cancel;
};

/* This thread's Redis connection, for the robots.txt cache: made when
 * first needed and again after a failure. NULL when Redis cannot be had. */
static LwRecords *thread_redis(const LwConfig *cfg, LwRecords **c, LwError *err)
{
  if (*c && lw_records_usable(*c)) {
    return *c;
  }
  if (*c) {
    lw_records_close(*c);
    *c = NULL;
  }
  if (lw_redis_connect(cfg->redis_url, c, err) != LW_OK) {
    *c = NULL;
  }
  return *c;
}

/* One fetch, honouring robots.txt when --robots-ttl is on. */
static void run_job(LwVoidFetchPool *pool, LwVoidFetchJob *job, LwRecords **redis)
{
  lw_error_clear(&job->err);
  LwRecords *c = NULL;
  if (pool->cfg->robots_ttl_s > 0 && !(c = thread_redis(pool->cfg, redis, &job->err))) {
    job->status = LW_ERR_REDIS;
    return;
  }
  job->status = lw_void_fetch_until(job->url, pool->cfg, job->timeout_ms, job->etag,
                                    job->last_modified, &pool->cancel, c, &job->body,
                                    &job->len, &job->info, &job->err);
}

static void *fetch_thread(void *arg)
{
  LwVoidFetchPool *pool = arg;
  LwRecords *redis = NULL;
  pthread_mutex_lock(&pool->lock);
  for (;;) {
    while (pool->taken == pool->submitted && !pool->closing) {
      pthread_cond_wait(&pool->work, &pool->lock);
    }
    if (pool->taken == pool->submitted) {
      break; /* closing and nothing left */
    }
    LwVoidFetchJob *job = pool->jobs[pool->taken++];
    pthread_mutex_unlock(&pool->lock);
    run_job(pool, job, &redis);
    pthread_mutex_lock(&pool->lock);
    pool->finished[(pool->fin_head + pool->fin_count) % pool->capacity] = job;
    ++pool->fin_count;
    pthread_cond_signal(&pool->done);
  }
  pthread_mutex_unlock(&pool->lock);
  if (redis) {
    lw_records_close(redis);
  }
  return NULL;
}

LwVoidFetchPool *lw_void_fetch_pool_new(const LwConfig *cfg, int max_in_flight,
                                        size_t capacity)
{
  LwVoidFetchPool *pool = calloc(1, sizeof(*pool));
  if (!pool) {
    return NULL;
  }
  pool->cfg = cfg;
  pool->capacity = capacity > 0 ? capacity : 1;
  pool->max_threads = max_in_flight > 0 ? max_in_flight : 1;
  pool->jobs = calloc(pool->capacity, sizeof(*pool->jobs));
  pool->finished = calloc(pool->capacity, sizeof(*pool->finished));
  pool->threads = calloc((size_t)pool->max_threads, sizeof(*pool->threads));
  if (!pool->jobs || !pool->finished || !pool->threads) {
    free(pool->jobs);
    free(pool->finished);
    free(pool->threads);
    free(pool);
    return NULL;
  }
  pthread_mutex_init(&pool->lock, NULL);
  pthread_cond_init(&pool->work, NULL);
  pthread_cond_init(&pool->done, NULL);
  atomic_init(&pool->cancel, false);
  lw_fetch_global_init(); /* before any thread calls curl */
  return pool;
}

LwStatus lw_void_fetch_pool_submit(LwVoidFetchPool *pool, LwVoidFetchJob *job)
{
  LwStatus st = LW_OK;
  pthread_mutex_lock(&pool->lock);
  if (pool->submitted == pool->capacity) {
    st = LW_ERR_LIMIT;
  } else {
    job->body = NULL;
    job->len = 0;
    pool->jobs[pool->submitted++] = job;
    /* A new thread only while there are more unfinished jobs than threads. */
    size_t unfinished = pool->submitted - pool->handed_back - pool->fin_count;
    if (pool->threads_started < pool->max_threads &&
        (size_t)pool->threads_started < unfinished) {
      if (pthread_create(&pool->threads[pool->threads_started], NULL, fetch_thread, pool) ==
          0) {
        ++pool->threads_started;
      } else if (pool->threads_started == 0) {
        --pool->submitted;
        st = LW_ERR_NOMEM;
      }
    }
    pthread_cond_signal(&pool->work);
  }
  pthread_mutex_unlock(&pool->lock);
  return st;
}

static void add_ms(struct timespec *ts, long ms)
{
  ts->tv_sec += ms / 1000;
  ts->tv_nsec += (ms % 1000) * 1000000L;
  if (ts->tv_nsec >= 1000000000L) {
    ts->tv_sec += 1;
    ts->tv_nsec -= 1000000000L;
  }
}

LwStatus lw_void_fetch_pool_next(LwVoidFetchPool *pool, long wait_ms,
                                 LwVoidFetchJob **done)
{
  *done = NULL;
  pthread_mutex_lock(&pool->lock);
  if (pool->handed_back == pool->submitted) {
    pthread_mutex_unlock(&pool->lock);
    return LW_NOTHING;
  }
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  add_ms(&until, wait_ms);
  while (pool->fin_count == 0) {
    if (pthread_cond_timedwait(&pool->done, &pool->lock, &until) != 0) {
      break;
    }
  }
  if (pool->fin_count > 0) {
    *done = pool->finished[pool->fin_head];
    pool->fin_head = (pool->fin_head + 1) % pool->capacity;
    --pool->fin_count;
    ++pool->handed_back;
  }
  pthread_mutex_unlock(&pool->lock);
  return LW_OK;
}

size_t lw_void_fetch_pool_pending(const LwVoidFetchPool *pool)
{
  return pool->submitted - pool->handed_back;
}

void lw_void_fetch_pool_free(LwVoidFetchPool *pool)
{
  if (!pool) {
    return;
  }
  atomic_store(&pool->cancel, true);
  pthread_mutex_lock(&pool->lock);
  pool->taken = pool->submitted; /* what has not started never will */
  pool->closing = true;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->lock);
  for (int i = 0; i < pool->threads_started; ++i) {
    pthread_join(pool->threads[i], NULL);
  }
  for (size_t i = 0; i < pool->fin_count; ++i) {
    LwVoidFetchJob *job = pool->finished[(pool->fin_head + i) % pool->capacity];
    free(job->body);
    job->body = NULL;
  }
  pthread_cond_destroy(&pool->work);
  pthread_cond_destroy(&pool->done);
  pthread_mutex_destroy(&pool->lock);
  free(pool->jobs);
  free(pool->finished);
  free(pool->threads);
  free(pool);
}
