/*
 * Slow hosts must not occupy every worker: with --download-workers N, at
 * most N workers are in the download stage at once. A worker whose stages
 * include download asks for a download only with one of N places
 * (downloadslots, member = worker id, score = lease expiry); without one it
 * asks only for its other stages, so it takes an unpack, parse or import
 * job instead of sitting in a transfer. The place is given back as soon as
 * the job it got is not a download; after a download it is kept for the
 * next ask (the ack's fetch), which renews it. The fetch script takes,
 * renews and gives back the place itself (LwFetchCap, queue/queue.h): the
 * cap costs no round trip of its own. A dead worker's place expires by
 * itself (a running download refreshes it); so does the place of a worker
 * whose every stage is paused (no fetch runs to give it back).
 * A worker that serves download alone is not capped.
 *
 *   LwFetchCap cap;
 *   const LwFetchCap *capped = lw_download_cap(cfg, worker_id, stages, n, &cap);
 *   ... lw_queue_fetch(..., stages, n, capped, &job, ...) ...
 *   lw_download_cap_got(capped, job ? job->stage : NULL);
 */
#ifndef LW_WORKERS_DOWNLOAD_CAP_H
#define LW_WORKERS_DOWNLOAD_CAP_H

#include "queue/queue.h"
#include "queue/redis.h"
#include <stddef.h>

#include "config/config.h"

/* The cap for a fetch of worker_id serving stages[0..n), in *out: out, or
 * NULL when it has none (no --download-workers, download not among its
 * stages, or download alone). */
const LwFetchCap *lw_download_cap(const LwConfig *cfg, const char *worker_id,
                                  const char *const *stages, size_t n, LwFetchCap *out);

/* After a fetch with cap (NULL: none): the place is this process's while
 * the job got is a download (stage NULL: no job). */
void lw_download_cap_got(const LwFetchCap *cap, const char *stage);

/* Renews the place's lease during a long download (cheap: at most every
 * 10 s). */
void lw_download_cap_refresh(LwRecords *c, const LwConfig *cfg);

#endif
