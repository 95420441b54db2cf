/*
 * Many VoID fetches at once, so that no provider's network wait sits on the
 * scheduler's cycle.
 *
 * The scheduler submits one fetch per due provider; a bounded number of
 * threads (max_in_flight) run lw_void_fetch, each with its own timeout, and
 * hand each result back as soon as it is there, while the scheduler's thread
 * (the only one that talks to Redis) decides for the providers whose VoID
 * has arrived. With 3 providers that never answer among 100 quick ones, a
 * cycle lasts about one fetch timeout, not three.
 *
 * Polite per host (the host name of the VoID URL, then of each redirect):
 * at most --per-host-concurrency fetches in flight on a host, each after
 * the host's robots.txt and pace (--host-interval-ms or its Crawl-delay,
 * shared with the workers' downloads through Redis: politeness/politeness.h).
 * A thread takes the next job in submission order whose host has room and
 * whose turn has come, so a slow or paced host delays only its own
 * providers; a thread waits for a turn only when the workers took it.
 *
 * A host that never answers costs one timeout, not one per provider: a
 * host not heard from yet gets one fetch at a time (a probe); its robots.txt
 * read or any HTTP status opens its other places, while a probe that gets
 * no answer at all (timeout before a status line, connection refused,
 * robots.txt unreachable) makes the host silent for the rest of the pool's
 * life (a cycle): its other jobs end at once with the probe's error
 * (LW_ERR_NET), without a connection or a thread of their own. A probe
 * without an answer after a second is slow; slow probes hold half the
 * threads at most, so silent hosts leave the rest to hosts that answer.
 *
 * A start deadline (lw_void_fetch_pool_start_within) keeps a crowded host
 * from holding the caller: the jobs not started by then are handed back
 * unfetched (deferred) instead of being waited for. The scheduler submits
 * its providers longest unvisited first, so the ones a deadline left over
 * are the first of their host next cycle, and a host's providers are all
 * visited in turn at its pace.
 *
 * Why threads around lw_void_fetch rather than curl's multi interface: the
 * fetch rules (netguard on every connected socket, redirects followed and
 * checked one by one, decoding, size caps) live in net/http_fetch.c on
 * easy handles; a thread per fetch in flight reuses them unchanged, and a
 * thread that waits in poll() costs no CPU (docs/scale.md has the figures).
 *
 *   LwVoidFetchPool *pool = lw_void_fetch_pool_new(cfg, 64, n);
 *   lw_void_fetch_pool_start_within(pool, 60000);  // optional
 *   lw_void_fetch_pool_submit(pool, &jobs[i]);  ... for each provider
 *   LwVoidFetchJob *done;
 *   while ((st = lw_void_fetch_pool_next(pool, 500, &done)) != LW_NOTHING) {
 *     if (done) ... use done->status, done->body, done->info ...
 *     else ... half a second passed: renew the lease ...
 *   }
 *   lw_void_fetch_pool_free(pool);  // cancels what still runs, joins
 */
#ifndef LW_SCHEDULER_VOID_FETCH_POOL_H
#define LW_SCHEDULER_VOID_FETCH_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "base/base.h"
#include "scheduler/void_fetch.h"

/* One fetch: inputs set by the caller, outputs by the pool. The job must
 * stay where it is until the pool hands it back or is freed. */
typedef struct {
  /* in */
  const char *url;
  long timeout_ms;
  char etag[256];         /* "" none */
  char last_modified[64]; /* "" none */
  void *user;             /* the caller's, untouched */
  /* Instead of fetching url: reads a whole source on the pool's thread,
   * every request through hooks (its host's places, robots.txt and pace),
   * the result in *result (status and err as for a fetch). NULL: fetch. */
  LwStatus (*read)(void *read_user, const LwConfig *cfg, const LwVoidFetchHooks *hooks,
                   long timeout_ms, void **result, LwError *err);
  void *read_user;
  void *result;                /* the read's, the caller's once handed back */
  void (*free_result)(void *); /* frees a result never handed back */
  /* out: as lw_void_fetch, unless deferred */
  bool deferred; /* not started by the start deadline, or no place on its
                    host came free within its timeout (workers held them) */
  LwStatus status;
  char *body; /* caller frees */
  size_t len;
  LwVoidFetchInfo info;
  LwError err;
} LwVoidFetchJob;

typedef struct LwVoidFetchPool LwVoidFetchPool;

/* A pool for at most capacity jobs, max_in_flight fetches at once (at
 * least 1), cfg->per_host_concurrency per host. NULL when out of memory or
 * cfg->allow_net is not valid. cfg is borrowed. */
LwVoidFetchPool *lw_void_fetch_pool_new(const LwConfig *cfg, int max_in_flight,
                                        size_t capacity);

/* Queues job (LW_ERR_LIMIT beyond capacity, LW_ERR_NOMEM if a thread cannot
 * start). Fetching starts at once. */
LwStatus lw_void_fetch_pool_submit(LwVoidFetchPool *pool, LwVoidFetchJob *job);

/* Jobs not started within ms from now will not start: they are handed
 * back deferred (status LW_ERR_LIMIT) once that time has come (fetches already
 * started go on). 0 or less: no deadline (the default). */
void lw_void_fetch_pool_start_within(LwVoidFetchPool *pool, long ms);

/* Waits at most wait_ms for a finished job: LW_OK with *done set (or NULL
 * when the wait ran out), LW_NOTHING when every submitted job has been
 * handed back. */
LwStatus lw_void_fetch_pool_next(LwVoidFetchPool *pool, long wait_ms,
                                 LwVoidFetchJob **done);

/* Where a pool's threads spent their time, for the cycle's log line (the
 * times are summed over the threads, in milliseconds). */
typedef struct {
  long long fetched;       /* jobs run on a thread */
  long long thread_ms;     /* time the threads spent on them */
  long long place_wait_ms; /* of which waiting for a place the workers held */
  long long policy_ms;     /* of which reading robots.txt (or its cache) and the pace */
  long long turn_wait_ms;  /* of which waiting for the host's turn */
  long long no_answer;     /* jobs that got no answer at all (timeout, refused) */
  long long silent_hosts;  /* hosts found silent */
  long long spared;        /* jobs ended without a fetch: their host was silent */
  int busy_max;            /* threads on a job at once, at most */
} LwVoidFetchPoolStats;

/* The pool's figures so far. */
void lw_void_fetch_pool_stats(LwVoidFetchPool *pool, LwVoidFetchPoolStats *out);

/* Jobs submitted and not yet handed back. */
size_t lw_void_fetch_pool_pending(const LwVoidFetchPool *pool);

/* Stops the fetches still running (within about a second: libcurl's
 * progress callback), joins the threads and frees the pool; the bodies of
 * jobs never handed back are freed. NULL safe. */
void lw_void_fetch_pool_free(LwVoidFetchPool *pool);

#endif
