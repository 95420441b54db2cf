/*
 * Slow hosts must not occupy every worker: with --download-workers N, at
 * most N workers are in the download stage at once. A worker whose stages
 * include download takes one of N places (downloadslots, member = worker
 * id, score = lease expiry) before it asks the queues for work; without a
 * place it asks only for its other stages, so it takes an unpack, parse or
 * import job instead of sitting in a transfer. The place is given back as
 * soon as the job it got is not a download; after a download it is kept
 * for the next ask (the ack's fetch), so a run of downloads takes it once;
 * a dead worker's place expires by itself (a running download, and each
 * ask that keeps it, refresh it).
 * A worker that serves download alone is not capped.
 *
 *   const char *ask[LW_DOWNLOAD_CAP_MAX_STAGES];
 *   size_t n = lw_download_cap_stages(c, cfg, worker_id, stages, n_stages, ask);
 *   ... fetch a job of ask[0..n) ...
 *   lw_download_cap_keep(c, cfg, job ? job->stage : NULL);
 */
#ifndef LW_WORKERS_DOWNLOAD_CAP_H
#define LW_WORKERS_DOWNLOAD_CAP_H

#include "queue/redis.h"
#include <stddef.h>

#include "config/config.h"

#define LW_DOWNLOAD_CAP_MAX_STAGES 64

/* Keeps the place this process holds (after a download), or gives it back
 * and tries to take one; copies stages[0..n) into out
 * (room for LW_DOWNLOAD_CAP_MAX_STAGES), leaving "download" out when no
 * place is free; returns how many. Without a cap, for a worker serving
 * download alone, or when Redis fails: all of them. */
size_t lw_download_cap_stages(LwRecords *c, const LwConfig *cfg, const char *worker_id,
                              const char *const *stages, size_t n, const char **out);

/* After the fetch: keeps the place when the job got is a download, else
 * gives it back. stage NULL: no job. */
void lw_download_cap_keep(LwRecords *c, const LwConfig *cfg, const char *stage);

/* Renews the place's lease during a long download (cheap: at most every
 * 10 s). */
void lw_download_cap_refresh(LwRecords *c, const LwConfig *cfg);

#endif
