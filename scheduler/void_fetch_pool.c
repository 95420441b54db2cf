#include "scheduler/void_fetch_pool.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/net.h"
#include "queue/job.h"
#include "queue/lease_set.h"
#include "queue/redis.h"
#include "politeness/politeness.h"

/* A host of the VoIDs, for politeness: its fetches in flight and when the
 * next may start (its pace as last seen; Redis has the shared truth); and
 * whether it answered this cycle. A host not heard from yet gets one fetch
 * at a time (its first is a probe); the origin of a probe that got no
 * answer at all is silent for the rest of the cycle: its other providers
 * end at once with the probe's error (those on the host's other ports go
 * on), so a host that never answers costs one timeout a
 * cycle, not one per provider, and holds one thread, not per-host-concurrency
 * of them. */
typedef struct {
  char name[256];
  int in_flight;
  long long not_before_ms;
  long long gap_ms;
  bool heard; /* answered this cycle (robots.txt read, or any HTTP status) */
  /* The origin that gave no answer to a fetch before the host was heard
   * ("scheme://host:port", as robots.txt is kept; "": none), silence why:
   * a dead port says nothing of the host's other ports. */
  char silent_origin[300];
  LwError silence;
} Host;

struct LwVoidFetchPool {
  const LwConfig *cfg;
  LwNetGuard *guard; /* for robots.txt */
  pthread_mutex_t lock;
  pthread_cond_t work;   /* a job was queued, a host has room, or closing */
  pthread_cond_t done;   /* a job finished */
  LwVoidFetchJob **jobs; /* submitted, in order */
  size_t *job_host;      /* each job's host (index into hosts) */
  bool *job_taken;
  size_t capacity, submitted, first_untaken;
  long long start_by_ms; /* a job whose host must wait then is deferred (0: none) */
  Host *hosts;
  size_t host_count, host_capacity;
  json_t *host_index;        /* name -> index into hosts */
  int per_host;              /* fetches in flight per host at most */
  LwVoidFetchJob **finished; /* ring of finished jobs not yet handed back */
  size_t fin_head, fin_count;
  size_t handed_back;
  pthread_t *threads;
  int max_threads, threads_started;
  bool closing;
  atomic_bool cancel;
  int busy;                   /* threads on a job now */
  int next_slot;              /* each thread's number, as it starts */
  long long *probe_since;     /* per thread: when its probe began (0: none) */
  bool probes_full;           /* slow probes hold half the threads: no new probe */
  LwVoidFetchPoolStats stats; /* under the lock */
};

/* A job in flight: what its hooks need. */
typedef struct {
  LwVoidFetchPool *pool;
  LwVoidFetchJob *job;
  size_t host; /* the host whose place it holds */
  LwRecords *redis;
  char shared_host[256]; /* the host of its shared place ("" none) */
  char member[17];       /* its name in the hosts' shared places */
  bool no_answer;        /* its host's robots.txt could not be read */
  long long place_wait_ms, policy_ms, turn_wait_ms; /* this job's, for the stats */
  int slot; /* its thread's number */
} InFlight;

static long long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

/* The index of host name, added when new; SIZE_MAX when out of memory.
 * Under the lock. */
static size_t host_find(LwVoidFetchPool *pool, const char *name)
{
  json_t *known = json_object_get(pool->host_index, name);
  if (known) {
    return (size_t)json_integer_value(known);
  }
  if (pool->host_count == pool->host_capacity) {
    size_t n = pool->host_capacity ? pool->host_capacity * 2 : 16;
    Host *grown = realloc(pool->hosts, n * sizeof(*grown));
    if (!grown) {
      return SIZE_MAX;
    }
    pool->hosts = grown;
    pool->host_capacity = n;
  }
  Host *h = &pool->hosts[pool->host_count];
  memset(h, 0, sizeof(*h));
  snprintf(h->name, sizeof(h->name), "%s", name);
  h->gap_ms = pool->cfg->host_interval_ms > 0 ? pool->cfg->host_interval_ms : 0;
  if (json_object_set_new(pool->host_index, name,
                          json_integer((json_int_t)pool->host_count))) {
    return SIZE_MAX;
  }
  return pool->host_count++;
}

/* A probe not answered within this is slow: hosts that answer at all
 * answer their robots.txt sooner. */
#define PROBE_SLOW_MS 1000

/* Fetches on h at once: one until it has answered this cycle, none while
 * slow probes hold half the threads (so that hosts that never answer,
 * each holding a thread for a timeout, leave the other half to the hosts
 * that do). */
static int host_room(const LwVoidFetchPool *pool, const Host *h)
{
  return h->heard ? pool->per_host : pool->probes_full ? 0 : 1;
}

/* Sets probes_full: are half the threads (at least one) in a probe
 * without an answer for PROBE_SLOW_MS? Under the lock. */
static void count_slow_probes(LwVoidFetchPool *pool, long long now)
{
  int slow = 0;
  for (int i = 0; i < pool->next_slot; ++i) {
    slow += pool->probe_since[i] && now - pool->probe_since[i] >= PROBE_SLOW_MS;
  }
  pool->probes_full = slow >= (pool->max_threads / 2 > 0 ? pool->max_threads / 2 : 1);
}

/* Job i ends unfetched (its status and err set by the caller), to be
 * handed back. Under the lock. */
static void finish_unfetched(LwVoidFetchPool *pool, size_t i)
{
  pool->job_taken[i] = true;
  pool->finished[(pool->fin_head + pool->fin_count) % pool->capacity] = pool->jobs[i];
  ++pool->fin_count;
  pthread_cond_signal(&pool->done);
}

/* Whether job i asks the origin of its host that gave no answer. */
static bool asks_silent_origin(const LwVoidFetchPool *pool, size_t i)
{
  const Host *h = &pool->hosts[pool->job_host[i]];
  char origin[sizeof(h->silent_origin)];
  return h->silent_origin[0] && lw_url_origin(pool->jobs[i]->url, origin, sizeof(origin)) &&
         !strcmp(origin, h->silent_origin);
}

/* Job i's origin did not answer this cycle: the job ends with the same
 * error, without a fetch of its own. Under the lock. */
static void fail_as_silent(LwVoidFetchPool *pool, size_t i)
{
  const Host *h = &pool->hosts[pool->job_host[i]];
  LwVoidFetchJob *job = pool->jobs[i];
  memset(&job->info, 0, sizeof(job->info));
  job->status = lw_error_set(&job->err, h->silence.status,
                             "%s gave no answer this cycle, not asked again until the "
                             "next: %.900s",
                             h->silent_origin, h->silence.message);
  ++pool->stats.spared;
  finish_unfetched(pool, i);
}

/* The jobs not started on host's origin that did not answer: they end at
 * once. Under the lock. */
static void fail_host_jobs(LwVoidFetchPool *pool, size_t host)
{
  for (size_t i = pool->first_untaken; i < pool->submitted; ++i) {
    if (!pool->job_taken[i] && pool->job_host[i] == host && asks_silent_origin(pool, i)) {
      fail_as_silent(pool, i);
    }
  }
}

/* Once the start deadline has passed, the jobs not started whose host
 * has no room or whose turn has not come are finished unfetched, to be
 * handed back (those waiting only for a free thread still start: they are
 * bounded by --void-concurrency, not by a host). Under the lock. */
static void defer_unstarted(LwVoidFetchPool *pool, long long now)
{
  if (!pool->start_by_ms || now < pool->start_by_ms) {
    return;
  }
  count_slow_probes(pool, now);
  for (size_t i = pool->first_untaken; i < pool->submitted; ++i) {
    const Host *h = &pool->hosts[pool->job_host[i]];
    if (pool->job_taken[i] || (h->in_flight < host_room(pool, h) && h->not_before_ms <= now)) {
      continue;
    }
    LwVoidFetchJob *job = pool->jobs[i];
    job->deferred = true;
    job->status = lw_error_set(&job->err, LW_ERR_LIMIT, "not started by the deadline");
    finish_unfetched(pool, i);
  }
}

/* The next job to start, in submission order among the hosts with room
 * whose next turn has come: a host that is busy or keeps a long pace delays
 * only its own providers. -1 when none; *wake_ms: when a paced host's turn
 * comes, or the start deadline if that is sooner (0: no job waits for a
 * turn, only for a host's room, which a finishing fetch signals). Under
 * the lock. */
static long pick_job(LwVoidFetchPool *pool, long long now, long long *wake_ms)
{
  *wake_ms = 0;
  defer_unstarted(pool, now);
  count_slow_probes(pool, now);
  while (pool->first_untaken < pool->submitted && pool->job_taken[pool->first_untaken]) {
    ++pool->first_untaken;
  }
  for (size_t i = pool->first_untaken; i < pool->submitted; ++i) {
    if (pool->job_taken[i]) {
      continue;
    }
    const Host *h = &pool->hosts[pool->job_host[i]];
    if (h->in_flight >= host_room(pool, h)) {
      continue;
    }
    if (h->not_before_ms <= now) {
      return (long)i;
    }
    /* Wake at the host's turn, or at the deadline when its turn comes
     * after it (then this job is deferred). Never sleep without a time:
     * a turn that came after the deadline, seen by nobody before it came,
     * left the job neither deferred (its host was ready by then) nor
     * started (every thread asleep with no one to wake it), and the cycle
     * waited for it for good. */
    long long when = h->not_before_ms;
    if (pool->start_by_ms && when > pool->start_by_ms) {
      when = pool->start_by_ms;
    }
    if (!*wake_ms || when < *wake_ms) {
      *wake_ms = when;
    }
  }
  return -1;
}

/* This thread's Redis connection, for robots.txt and the hosts' pace: made
 * when first needed and again after a failure. NULL when Redis cannot be
 * had. */
static LwRecords *thread_redis(const LwConfig *cfg, LwRecords **c, LwError *err)
{
  lw_records_ensure(cfg->redis_url, c, err);
  return *c;
}

static bool not_cancelled(void *user)
{
  const LwVoidFetchPool *pool = user;
  return !atomic_load(&pool->cancel);
}

/* A redirect to another host: the place moves there (given back first, so
 * that two fetches redirected towards each other's host never wait on each
 * other), waiting for room. */
static LwStatus move_place(InFlight *f, const char *name, LwError *err)
{
  LwVoidFetchPool *pool = f->pool;
  LwStatus st = LW_OK;
  pthread_mutex_lock(&pool->lock);
  --pool->hosts[f->host].in_flight;
  pthread_cond_broadcast(&pool->work);
  size_t h = host_find(pool, name);
  while (h != SIZE_MAX && pool->hosts[h].in_flight >= pool->per_host &&
         !atomic_load(&pool->cancel)) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    add_ms(&until, 100);
    pthread_cond_timedwait(&pool->work, &pool->lock, &until);
  }
  if (h == SIZE_MAX) {
    st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    h = f->host;
  } else if (atomic_load(&pool->cancel)) {
    st = lw_error_set(err, LW_ERR_NET, "stopped");
    h = f->host;
  }
  ++pool->hosts[h].in_flight;
  f->host = h;
  pthread_mutex_unlock(&pool->lock);
  return st;
}

static void shared_release(InFlight *f)
{
  if (f->shared_host[0]) {
    lw_host_slot_release(f->redis, f->pool->cfg->prefix, f->shared_host, f->member);
    f->shared_host[0] = '\0';
  }
}

/* The fetch's place among everyone's requests to host: the same lease
 * set as the download workers' (queue/lease_set.h), so that VoID fetches
 * and downloads together stay within --per-host-concurrency. The local
 * count (move_place, pick_job) keeps the pool's own threads apart without
 * asking Redis; this one waits while workers hold the host's places, up to
 * the fetch's timeout, then gives the fetch up as deferred (as one whose
 * turn did not come by the cycle's deadline). The lease outlives the fetch
 * (bounded by the same timeout); a scheduler killed mid-fetch leaves a
 * place that frees itself. */
static LwStatus shared_take(InFlight *f, const char *host, LwError *err)
{
  if (!strcmp(f->shared_host, host)) {
    return LW_OK;
  }
  shared_release(f);
  LwVoidFetchPool *pool = f->pool;
  int got = lw_host_slot_wait(f->redis, pool->cfg->prefix, host, f->member, pool->per_host,
                              f->job->timeout_ms + 60000, f->job->timeout_ms, not_cancelled,
                              pool, err);
  if (got == 1) {
    snprintf(f->shared_host, sizeof(f->shared_host), "%s", host);
    return LW_OK;
  }
  if (got == -1) {
    return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
  }
  if (got == -2) {
    return lw_error_set(err, LW_ERR_NET, "stopped");
  }
  /* Not the provider's fault: visited first on its host next cycle. */
  f->job->deferred = true;
  return lw_error_set(err, LW_ERR_LIMIT,
                      "host busy: %d requests to %s already running (per-host-concurrency)",
                      pool->per_host, host);
}

/* Before each request of a fetch: a place on the host asked (a redirect
 * moves it), locally and among everyone's requests, then its robots.txt and
 * pace, shared with the workers through Redis; the host's next local turn
 * is noted before waiting for this one, so no other thread waits on the
 * same host meanwhile. */
static LwStatus pool_hop(void *user, const char *url, LwError *err)
{
  InFlight *f = user;
  LwVoidFetchPool *pool = f->pool;
  char name[256];
  if (!lw_url_host(url, name, sizeof(name))) {
    return lw_error_set(err, LW_ERR_USAGE, "not a URL with a host: %.300s", url);
  }
  pthread_mutex_lock(&pool->lock);
  bool moved = strcmp(name, pool->hosts[f->host].name) != 0;
  pthread_mutex_unlock(&pool->lock);
  if (moved) {
    LW_TRY(move_place(f, name, err));
  }
  long long began = now_ms();
  LwStatus got = shared_take(f, name, err);
  f->place_wait_ms += now_ms() - began;
  LW_TRY(got);
  bool polite = pool->cfg->robots_ttl_s > 0 || pool->cfg->host_interval_ms > 0;
  if (!polite) {
    return LW_OK; /* neither robots.txt nor a pace (both turned off) */
  }
  LwHostTurn turn;
  began = now_ms();
  LwStatus st = lw_host_turn_take(f->redis, pool->cfg, pool->guard, url, f->job->timeout_ms,
                                  &turn, err);
  f->policy_ms += now_ms() - began;
  f->no_answer = st == LW_ERR_NET; /* its robots.txt: read now or cached as unreachable */
  /* its robots.txt was read, also when it disallows the VoID: the host
   * answered (a disallowed first VoID left it unheard, and its other
   * providers went one at a time) */
  if ((st == LW_OK || st == LW_ERR_REFUSED) && pool->cfg->robots_ttl_s > 0) {
    pthread_mutex_lock(&pool->lock);
    pool->hosts[f->host].heard = true;
    pool->probe_since[f->slot] = 0; /* answered: no longer a probe */
    pthread_mutex_unlock(&pool->lock);
  }
  LW_TRY(st);
  pthread_mutex_lock(&pool->lock);
  Host *h = &pool->hosts[f->host];
  long long next = now_ms() + turn.wait_ms + turn.gap_ms;
  h->gap_ms = turn.gap_ms;
  h->not_before_ms = next > h->not_before_ms ? next : h->not_before_ms;
  pthread_mutex_unlock(&pool->lock);
  began = now_ms();
  st = lw_host_turn_wait(f->redis, pool->cfg, &turn, not_cancelled, pool, err);
  f->turn_wait_ms += now_ms() - began;
  return st;
}

/* After a fetch: its host answered (any HTTP status, robots.txt read), or
 * gave no answer at all to a host not heard from yet this cycle (connect
 * or read timeout before a status line, refused, robots.txt unreachable),
 * which makes it silent for the rest of the cycle. A fetch stopped or
 * deferred says nothing of its host. Under the lock. */
static void note_answer(LwVoidFetchPool *pool, const InFlight *f)
{
  const LwVoidFetchJob *job = f->job;
  Host *h = &pool->hosts[f->host];
  bool answered = job->status == LW_OK || job->status == LW_NOTHING ||
                  (!job->read && job->info.status != 0);
  if (answered && !f->no_answer) {
    h->heard = true;
    return;
  }
  bool silence = job->status == LW_ERR_NET && !job->deferred && !atomic_load(&pool->cancel) &&
                 (f->no_answer || (!job->read && job->info.status == 0));
  pool->stats.no_answer += silence;
  if (silence && !h->heard && !h->silent_origin[0] &&
      lw_url_origin(job->url, h->silent_origin, sizeof(h->silent_origin))) {
    ++pool->stats.silent_hosts;
    h->silence = job->err;
    fail_host_jobs(pool, f->host); /* its other providers end now */
  }
}

/* One fetch, honouring the host's shared places, robots.txt and pace. */
static void run_job(LwVoidFetchPool *pool, InFlight *f, LwRecords **redis)
{
  LwVoidFetchJob *job = f->job;
  lw_error_clear(&job->err);
  if (!(f->redis = thread_redis(pool->cfg, redis, &job->err))) {
    job->status = LW_ERR_REDIS;
    return;
  }
  lw_job_new_id(f->member);
  f->no_answer = false;
  f->place_wait_ms = f->policy_ms = f->turn_wait_ms = 0;
  LwVoidFetchHooks hooks = {&pool->cancel, f->redis, pool_hop, f, NULL};
  if (job->read) {
    job->status = job->read(job->read_user, pool->cfg, &hooks, job->timeout_ms,
                            &job->result, &job->err);
  } else {
    job->status = lw_void_fetch_until(job->url, pool->cfg, job->timeout_ms, job->etag,
                                      job->last_modified, &hooks, &job->body, &job->len,
                                      &job->info, &job->err);
  }
  shared_release(f);
}

/* Takes the next job that may start, waiting for one: LW_OK with *f set,
 * LW_NOTHING when closing. Under the lock. */
static LwStatus take_job(LwVoidFetchPool *pool, InFlight *f)
{
  for (;;) {
    if (pool->closing) {
      return LW_NOTHING;
    }
    long long now = now_ms(), wake = 0;
    long i = pick_job(pool, now, &wake);
    if (i >= 0) {
      pool->job_taken[i] = true;
      Host *h = &pool->hosts[pool->job_host[i]];
      ++h->in_flight;
      /* the host's pace as last seen; its hook corrects it */
      h->not_before_ms = now + h->gap_ms;
      f->job = pool->jobs[i];
      f->host = pool->job_host[i];
      pool->probe_since[f->slot] = h->heard ? 0 : now;
      return LW_OK;
    }
    if (wake) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      add_ms(&until, (long)(wake - now));
      pthread_cond_timedwait(&pool->work, &pool->lock, &until);
    } else {
      pthread_cond_wait(&pool->work, &pool->lock);
    }
  }
}

static void *fetch_thread(void *arg)
{
  LwVoidFetchPool *pool = arg;
  LwRecords *redis = NULL;
  InFlight f = {.pool = pool};
  pthread_mutex_lock(&pool->lock);
  f.slot = pool->next_slot++;
  while (take_job(pool, &f) == LW_OK) {
    if (++pool->busy > pool->stats.busy_max) {
      pool->stats.busy_max = pool->busy;
    }
    pthread_mutex_unlock(&pool->lock);
    long long began = now_ms();
    run_job(pool, &f, &redis);
    long long took = now_ms() - began;
    pthread_mutex_lock(&pool->lock);
    --pool->busy;
    pool->probe_since[f.slot] = 0;
    ++pool->stats.fetched;
    pool->stats.thread_ms += took;
    pool->stats.place_wait_ms += f.place_wait_ms;
    pool->stats.policy_ms += f.policy_ms;
    pool->stats.turn_wait_ms += f.turn_wait_ms;
    --pool->hosts[f.host].in_flight;
    note_answer(pool, &f);
    pool->finished[(pool->fin_head + pool->fin_count) % pool->capacity] = f.job;
    ++pool->fin_count;
    pthread_cond_signal(&pool->done);
    pthread_cond_broadcast(&pool->work); /* the host has room again */
  }
  pthread_mutex_unlock(&pool->lock);
  if (redis) {
    lw_records_close(redis);
  }
  return NULL;
}

/* Frees the pool's memory (the threads are joined). */
static void pool_release(LwVoidFetchPool *pool)
{
  lw_netguard_free(pool->guard);
  json_decref(pool->host_index);
  free(pool->hosts);
  free(pool->jobs);
  free(pool->job_host);
  free(pool->job_taken);
  free(pool->finished);
  free(pool->threads);
  free(pool->probe_since);
  free(pool);
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
  pool->per_host = cfg->per_host_concurrency > 0 ? (int)cfg->per_host_concurrency : 1;
  pool->jobs = calloc(pool->capacity, sizeof(*pool->jobs));
  pool->job_host = calloc(pool->capacity, sizeof(*pool->job_host));
  pool->job_taken = calloc(pool->capacity, sizeof(*pool->job_taken));
  pool->finished = calloc(pool->capacity, sizeof(*pool->finished));
  pool->threads = calloc((size_t)pool->max_threads, sizeof(*pool->threads));
  pool->probe_since = calloc((size_t)pool->max_threads, sizeof(*pool->probe_since));
  pool->host_index = json_object();
  LwError err;
  bool guarded = lw_netguard_new(cfg->allow_net ? cfg->allow_net : "", &pool->guard,
                                 &err) == LW_OK;
  if (!guarded || !pool->jobs || !pool->job_host || !pool->job_taken || !pool->finished ||
      !pool->threads || !pool->probe_since || !pool->host_index) {
    pool_release(pool);
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
  char name[256];
  size_t host = SIZE_MAX;
  if (pool->submitted == pool->capacity) {
    st = LW_ERR_LIMIT;
  } else if ((host = host_find(
                pool, lw_url_host(job->url, name, sizeof(name)) ? name : "")) == SIZE_MAX) {
    st = LW_ERR_NOMEM;
  } else {
    job->body = NULL;
    job->len = 0;
    job->deferred = false;
    pool->job_host[pool->submitted] = host;
    pool->jobs[pool->submitted++] = job;
    if (asks_silent_origin(pool, pool->submitted - 1)) {
      fail_as_silent(pool, pool->submitted - 1);
    }
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
    pthread_cond_broadcast(&pool->work);
  }
  pthread_mutex_unlock(&pool->lock);
  return st;
}

void lw_void_fetch_pool_start_within(LwVoidFetchPool *pool, long ms)
{
  pthread_mutex_lock(&pool->lock);
  pool->start_by_ms = ms > 0 ? now_ms() + ms : 0;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->lock);
}

LwStatus lw_void_fetch_pool_next(LwVoidFetchPool *pool, long wait_ms, LwVoidFetchJob **done)
{
  *done = NULL;
  pthread_mutex_lock(&pool->lock);
  defer_unstarted(pool, now_ms());
  if (pool->handed_back == pool->submitted) {
    pthread_mutex_unlock(&pool->lock);
    return LW_NOTHING;
  }
  long long left = pool->start_by_ms - now_ms(); /* wake at the deadline too */
  if (pool->start_by_ms && left > 0 && left < wait_ms) {
    wait_ms = (long)left;
  }
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  add_ms(&until, wait_ms);
  while (pool->fin_count == 0) {
    if (pthread_cond_timedwait(&pool->done, &pool->lock, &until) != 0) {
      break;
    }
  }
  defer_unstarted(pool, now_ms());
  if (pool->fin_count > 0) {
    *done = pool->finished[pool->fin_head];
    pool->fin_head = (pool->fin_head + 1) % pool->capacity;
    --pool->fin_count;
    ++pool->handed_back;
  }
  pthread_mutex_unlock(&pool->lock);
  return LW_OK;
}

void lw_void_fetch_pool_stats(LwVoidFetchPool *pool, LwVoidFetchPoolStats *out)
{
  pthread_mutex_lock(&pool->lock);
  *out = pool->stats;
  pthread_mutex_unlock(&pool->lock);
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
  pool->closing = true; /* what has not started never will */
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->lock);
  for (int i = 0; i < pool->threads_started; ++i) {
    pthread_join(pool->threads[i], NULL);
  }
  for (size_t i = 0; i < pool->fin_count; ++i) {
    LwVoidFetchJob *job = pool->finished[(pool->fin_head + i) % pool->capacity];
    free(job->body);
    job->body = NULL;
    if (job->result && job->free_result) {
      job->free_result(job->result);
      job->result = NULL;
    }
  }
  pthread_cond_destroy(&pool->work);
  pthread_cond_destroy(&pool->done);
  pthread_mutex_destroy(&pool->lock);
  pool_release(pool);
}
