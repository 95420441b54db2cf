/*
 * lodwash-scheduler: the one process that decides what to harvest.
 *
 * Each cycle (every --interval seconds, default 60):
 *   1. reads registry.yaml again (a broken file: the last good registry is
 *      kept and the error logged with file:line);
 *   2. visits every enabled provider that is due (its `interval`): fetches
 *      the VoIDs at once, --void-concurrency of them in flight, each within
 *      its timeout (scheduler/void_fetch_pool.h), so that hosts that never
 *      answer cost the cycle one timeout, not one each; for each VoID as it
 *      arrives (conditional GET; a 304 reuses the copy kept in Redis),
 *      reads it (scheduler/void.h), works out its version (dcterms:modified,
 *      else HTTP Last-Modified, else a content hash: a warning says so),
 *      decides (scheduler/decide.h) and, to start a harvest, creates the
 *      harvest record, one seed per dump and their download jobs
 *      (queue/provider_record.h); one log line per provider:
 *        provider=NAME outcome=started|unchanged|busy|error|disabled ...
 *   3. periodic duties: gives back the jobs of dead workers (the reaper),
 *      moves due retries into their queues, re-queues stale seeds for a
 *      conditional download (processed + interval < now, the interval
 *      being the seed's own, else its provider's registry `interval`, else
 *      --seed-interval, 100 days; a bounded slice of the seeds per cycle),
 *      and queues one `export` and one `status` job unless one is still
 *      waiting; trims the dead lists, and every --gc-interval seconds
 *      removes what is no longer needed (queue/retention.h).
 *
 * Exactly one scheduler is active: it holds the Redis key scheduler:lease
 * (its id, with a TTL of two thirds of the interval, at least 2 s) and
 * renews it before each decision, while VoIDs are on their way and while it
 * sleeps. Another scheduler
 * started beside it waits as a hot standby, trying for the lease every third
 * of the interval, so it takes over within one interval after the active
 * one dies; a scheduler that stops cleanly hands the lease back at once.
 */
#ifndef LW_SCHEDULER_H
#define LW_SCHEDULER_H

#include <signal.h>
#include <stdbool.h>

#include "config/config.h"
#include "base/base.h"

typedef struct LwScheduler LwScheduler;

/* Counts of one cycle. */
typedef struct {
  int providers; /* in the registry */
  int started;
  int unchanged;
  int busy;
  int errors;
  int skipped;  /* disabled, not due or held */
  int deferred; /* due, but its host's turn did not come within the interval */
  long long reaped, promoted, stale;
  bool registry_error; /* the file did not load; the last good one was used */
} LwCycleStats;

/* What one visit of a provider ended in. */
typedef struct {
  const char *outcome; /* started, unchanged, busy, error, disabled, not-due, held
                             (an operator's hold: queue/controls.h), deferred (its
                             host's turn did not come within the interval) */
  char harvest[192];   /* started / busy: the harvest id */
  size_t dumps;        /* started: number of dumps */
  bool follow_up;      /* busy: a follow-up harvest is pending */
  char error[LW_ERROR_MESSAGE_MAX];
} LwVisit;

/* A scheduler for cfg (kept by reference; must outlive the scheduler).
 * Connects to Redis lazily. NULL when out of memory. */
LwScheduler *lw_scheduler_new(const LwConfig *cfg);

/* Frees s, handing back the lease if it holds it; NULL is safe. */
void lw_scheduler_free(LwScheduler *s);

/* The scheduler's id ("host-pid-xxxx"), as stored in the lease. */
const char *lw_scheduler_id(const LwScheduler *s);

/* Takes or renews the lease: LW_OK when s holds it now, LW_NOTHING when
 * another scheduler does, LW_ERR_REDIS when Redis is down. */
LwStatus lw_scheduler_lease(LwScheduler *s, LwError *err);

/* Gives the lease back if s holds it. */
void lw_scheduler_release(LwScheduler *s);

/* Reloads the registry: LW_OK with the new one in place, or the load error
 * (logged, the last good registry kept). The registry is s's. */
LwStatus lw_scheduler_reload(LwScheduler *s, LwError *err);

/* The registry in use (the last good one), or NULL before any loaded. */
const LwRegistry *lw_scheduler_registry(const LwScheduler *s);

/* One cycle as described above (the caller holds the lease). */
LwStatus lw_scheduler_cycle(LwScheduler *s, LwCycleStats *stats, LwError *err);

/* Visits one provider now; forced starts a harvest whatever the versions
 * say (or keeps it as the follow-up when one runs), at high priority, also
 * for a disabled or not-due provider. Logs the provider's line. */
LwStatus lw_scheduler_visit(LwScheduler *s, const LwProvider *p, bool forced, LwVisit *out,
                            LwError *err);

/* The periodic duties alone (reaper, retries, stale seeds, export and
 * status jobs). */
LwStatus lw_scheduler_duties(LwScheduler *s, LwCycleStats *stats, LwError *err);

/* The program's loop: waits for the lease, runs a cycle every interval
 * until *stop is set; once: one cycle, then returns (waiting at most one
 * lease period for the lease). Returns the exit code: 0, 1 on a fatal
 * error, 3 when once could not get the lease. */
int lw_scheduler_run(LwScheduler *s, bool once, volatile sig_atomic_t *stop);

#endif
