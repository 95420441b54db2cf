/*
 * A job: one unit of work for one stage, usually about one seed.
 *
 * On Redis a job is a small JSON object, stored verbatim in the stage's list:
 *
 *   {"id":"5f0c2a...","stage":"download","seed":"<seed hash>",
 *    "harvest":"geo:2024-01-01T00:00:00Z","attempt":0,"queued":1700000000123}
 *
 *   id       16 hex digits, random, unique enough to name the job in `jobs`
 *   stage    the stage that runs it (a row of workers/stages.c)
 *   seed     the seed hash it is about ("" for jobs about no seed, such as
 *            export); (stage, seed, harvest) is queued at most once at a
 *            time (lw_job_member)
 *   harvest  the harvest it belongs to ("" if none)
 *   attempt  runs that failed so far (0 on the first run)
 *   queued   when it was first queued, ms since the epoch
 *
 * Any other field is the stage's business (e.g. noop's "sleep_ms"); the queue
 * keeps them. When a job fails the queue adds "error", "error_kind" (the
 * lw_status_name) and "failed" (ms); a dead job also has "first_failed".
 *
 * Life cycle (disque-style, at-least-once):
 *
 *   enqueue --> queue:<stage> --fetch--> inflight:<worker> --ack--> (gone,
 *                  ^   ^                      |    |                 result
 *                  |   |                      |    |                 recorded)
 *                  |   +--- hand back (SIGTERM) ---+
 *                  |   +--- reaper (worker heartbeat expired) ---+
 *                  |                          |
 *     due (promote)|               fail, retryable, attempts left
 *                  |                          v
 *             delayed:<stage> <---------------+
 *                                             | permanent, or attempts used up
 *                                             v
 *                                        dead:<stage> --jobs retry--> queue
 *
 * The JSON text is what the queue compares (LREM by value), so a fetched job
 * keeps its exact raw text (LwJob.raw) until it is acked.
 */
#ifndef LW_QUEUE_JOB_H
#define LW_QUEUE_JOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"

typedef enum { LW_PRIORITY_NORMAL = 0, LW_PRIORITY_HIGH = 1 } LwPriority;

typedef struct {
  char *raw;   /* the JSON text as stored on Redis (owned) */
  json_t *obj; /* the parsed object (owned), for extra fields */
  /* borrowed from obj, never NULL (empty string when absent): */
  const char *id;
  const char *stage;
  const char *seed;
  const char *harvest;
  long long attempt;
  long long queued_ms;
  /* Set by the worker frame once the job has run (timed true): its ack or
   * fail counts ran_ms in timing:<stage> (queue/job_timing.h) in the same
   * script call, so that timing costs no round trip of its own. */
  bool timed;
  long long ran_ms;
} LwJob;

/* A new job for stage about seed (NULL or "" for none) of harvest (NULL or
 * ""). extra, if not NULL, is a JSON object whose fields are added (e.g.
 * {"sleep_ms":5}); the caller keeps its reference. Returns NULL with err set
 * when stage is empty or an argument is invalid. Caller frees. */
LwJob *lw_job_new(const char *stage, const char *seed, const char *harvest,
                  const json_t *extra, LwError *err);

/* Parses raw JSON text (len bytes) into a job. LW_ERR_FORMAT when it is not
 * a job object (no string "stage"). *out is the caller's. */
LwStatus lw_job_parse(const char *raw, size_t len, LwJob **out, LwError *err);

/* A copy of job with extra fields set (fields of changes replace job's):
 * the failure path uses it to add error and attempt. Caller frees. */
LwJob *lw_job_with(const LwJob *job, const json_t *changes, LwError *err);

/* Integer / string field of the job, or def when absent or mistyped. */
long long lw_job_get_int(const LwJob *job, const char *field, long long def);
const char *lw_job_get_string(const LwJob *job, const char *field, const char *def);

/* The job's duplicate-suppression member of queued:<stage>: "seed harvest",
 * or the seed when the job has no harvest, "" when it has no seed (never
 * suppressed). Two providers' harvests, or two harvests of one provider,
 * never suppress each other's jobs. */
#define LW_JOB_MEMBER_MAX 512
void lw_job_member(const LwJob *job, char out[LW_JOB_MEMBER_MAX]);

/* A fresh random job id (16 lowercase hex digits and a NUL). */
void lw_job_new_id(char out[17]);

/* Milliseconds since the epoch (wall clock). */
long long lw_now_ms(void);

void lw_job_free(LwJob *job);

#endif
