/*
 * The download stage in two halves, for a worker that runs many downloads
 * at once in one thread (--download-transfers, workers/worker.c): the
 * first half (the checks, the seed's move to downloading) adds the
 * transfer to a LwFetchMulti (net/net.h); the second records its outcome
 * once the multi gives it back. Together they do what
 * lw_stage_download_run does, with every fetch rule per transfer; the
 * politeness waits (a host's place and turn) hold only their own transfer.
 *
 *   LwDownload *dl;
 *   st = lw_download_start(ctx, multi, job_run, &dl);
 *   if (st != LW_OK) ... the job ended now: finish it with st
 *   ... later: job_run = lw_fetch_multi_done(multi, &fst);
 *   st = lw_download_end(dl, fst);     ... finish the job with st
 *
 * ctx (and the job, txn and err it points to) must live until
 * lw_download_end; ctx->redis may be replaced meanwhile (a reconnect).
 */
#ifndef LW_WORKERS_DOWNLOAD_MANY_H
#define LW_WORKERS_DOWNLOAD_MANY_H

#include "net/net.h"
#include "workers/stage.h"

typedef struct LwDownload LwDownload;

/* The most transfers one worker runs at once, whatever
 * --download-transfers asks (each holds a socket, a body file and its
 * writer thread). */
#define LW_DOWNLOAD_TRANSFERS_MAX 256

/* LW_OK: the transfer is in multi, with user as its user pointer, and *out
 * is ended by lw_download_end. Else the job ended now with that status (as
 * lw_stage_download_run would have returned it) and *out is NULL. */
LwStatus lw_download_start(LwStageCtx *ctx, LwFetchMulti *multi, void *user,
                           LwDownload **out);

/* Records the outcome of dl's transfer (the status lw_fetch_multi_done
 * gave) and frees dl; returns the stage's status. */
LwStatus lw_download_end(LwDownload *dl, LwStatus fetch_status);

#endif
