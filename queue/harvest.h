/*
 * Harvest records: PREFIXharvest:<id>, one Redis hash per harvest of a
 * provider, and the fan-in that queues its import.
 *
 * A harvest waits for files: `pending` starts at the number of dumps, grows
 * by n-1 when unpack finds an archive of n entries (the archive is replaced
 * by its entries), and shrinks by one when a file is cleaned, found
 * unchanged, or fails for good. The change that brings it to zero queues
 * exactly one `import` job (a Lua script: decrement, then HSETNX
 * import_queued), even when several workers finish at the same moment.
 * Every change rides in the job's ack (LwTxn), so a job that runs twice
 * counts once.
 *
 * The record itself is made by the scheduler (scheduler/harvest.h lists
 * its fields); the fan-in adds `failed` (files that failed) and
 * `import_queued`, and the import adds its report.
 */
#ifndef LW_QUEUE_HARVEST_H
#define LW_QUEUE_HARVEST_H

#include <hiredis/hiredis.h>

#include "common/status.h"
#include "queue/keys.h"
#include "queue/txn.h"


/* Adds delta (may be negative) to the harvest's pending files. */
void lw_txn_harvest_expect(LwTxn *txn, const char *harvest, long long delta);

/* One file of the harvest is finished (cleaned, unchanged or failed: failed
 * also counts it in `failed`); the last one queues the import job. */
void lw_txn_harvest_file_done(LwTxn *txn, const char *harvest, bool failed);

/* The same, now, outside a job's ack (for a seed whose job went dead). */
LwStatus lw_harvest_file_done_now(redisContext *c, const char *prefix,
                                  const char *harvest, bool failed, LwError *err);

#endif
