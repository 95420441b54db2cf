/*
 * The harvest fan-in: which files a harvest waits for, and the one job
 * queued when all of them are finished.
 *
 * Records (after the prefix; keys in queue/keys.h):
 *   harvest:<id>            hash  the harvest (queue/provider_record.h lists its
 *                                 fields); the fan-in keeps `pending`
 *                                 (expected files not finished), `failed`
 *                                 (files that failed), `progress` (ms of the
 *                                 last change) and `follow_up_queued` (ms)
 *   harvest:<id>:expected   set   seed hashes of the files it waits for: its
 *                                 dumps, and the entries of its archives
 *   harvest:<id>:finished   set   those of them that are finished: cleaned,
 *                                 found unchanged, an archive unpacked, or
 *                                 failed for good
 *   harvest:<id>:failed     set   those that failed for good
 *
 * Both changes are set additions inside the job's fenced ack (queue/txn.h),
 * so a job that runs twice, or an ack sent twice, counts once. When the
 * finished set covers the expected set and the harvest is still running,
 * the follow-up job (the worker frame names its stage from the stage
 * table) is queued, exactly once (HSETNX follow_up_queued in the same
 * script). A file whose job goes dead is finished as failed in the same
 * script that moves the job to the dead list.
 */
#ifndef LW_QUEUE_HARVEST_H
#define LW_QUEUE_HARVEST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"
#include "queue/keys.h"
#include "queue/redis.h"
#include "queue/txn.h"

/* The harvest waits for files[0..n) too. */
void lw_txn_harvest_expect_files(LwTxn *txn, const char *harvest, const char *const *files,
                                 size_t n);

/* File (a seed hash) of the harvest is finished (failed: for good); the last
 * one queues a job of follow_up_stage about the harvest. */
void lw_txn_harvest_finish_file(LwTxn *txn, const char *harvest, const char *file,
                                bool failed, const char *follow_up_stage);

/* The seed still belongs to harvest (re-harvests move seeds to their new
 * harvest): else the txn is refused, nothing of it applied. */
void lw_txn_harvest_owns(LwTxn *txn, const char *harvest, const char *seed);

/* lw_txn_harvest_owns, where a seed of no harvest passes too. */
void lw_txn_harvest_owns_or_none(LwTxn *txn, const char *harvest, const char *seed);

/* How many of the files the harvest waits for are not finished (expected
 * but not finished), and one of them in first (its seed hash; "" when
 * none). The import finishes a harvest only when there is none. */
LwStatus lw_harvest_unfinished(LwRecords *c, const char *prefix, const char *harvest,
                               size_t *count, char first[64], LwError *err);

/* The harvest is still running (not ended, e.g. timed out): else the txn
 * is refused, nothing of it applied. */
void lw_txn_harvest_running(LwTxn *txn, const char *harvest);


#endif
