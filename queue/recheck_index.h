/*
 * The re-check index: PREFIXrechecks, a sorted set of seed hashes scored by
 * their `processed` time (ms). The scheduler's staleness check
 * (scheduler/scheduler.c, requeue_stale) reads the seeds processed longer
 * ago than the shortest interval from it, a page at a time, instead of
 * walking the keyspace with SCAN: a cycle costs one ZRANGEBYSCORE and one
 * pipelined HMGET per page, however many other keys Redis holds.
 *
 * Kept as the records are written: lw_txn_seed_set adds the ZADD to the
 * same transaction (one script call) whenever it writes `processed`, so the
 * index and the records never disagree; the collection's delete script
 * removes a seed from both (queue/retention.c). The collection walks this
 * index too: a seed in it leaves the collection's own (seeds:index,
 * queue/gc_index.h) in the same call, and goes back there when pruned. Archive entries (a parent)
 * are left out as they are written; a seed that can never be re-checked
 * and still is in it (gone, relative, a parent set later) is pruned when a
 * page meets it (by a script that checks the record again).
 *
 * Records written before the index existed: lw_recheck_index_upgrade, run
 * once by the scheduler at its first cycle, walks the seeds once with SCAN
 * and indexes them, then marks the index built (PREFIXindexes, field
 * "rechecks"), so that no later cycle scans.
 */
#ifndef LW_QUEUE_RECHECK_INDEX_H
#define LW_QUEUE_RECHECK_INDEX_H

#include <stdbool.h>

#include "base/base.h"
#include "queue/redis.h"
#include "queue/seed_scan.h"
#include "queue/txn.h"

/* The index's entry for seed processed at ms (decimal text), added to txn
 * (none when the seed has a parent, checked as the txn applies). */
void lw_txn_recheck_index(LwTxn *txn, const char *seed, const char *processed_ms);

/* Builds the index from the seed records unless it is marked built: one
 * SCAN over seed:*. *indexed gets the number of seeds added (0 when it was
 * built already), *built whether this call built it. */
LwStatus lw_recheck_index_upgrade(LwRecords *c, const char *prefix, long long *indexed,
                                  bool *built, LwError *err);

/* Where a walk of the index stands: the score to go on from ("-inf" to
 * start; "(N" is exclusive). */
typedef struct {
  char from[40];
} LwRecheckCursor;

/* Starts cur at the beginning of the index. */
void lw_recheck_cursor_reset(LwRecheckCursor *cur);

/* One page of at most count seeds from cur, processed at or before until_ms,
 * their fields read in one pipeline and given to fn (as lw_seed_scan_step;
 * nfields <= LW_SEED_SCAN_FIELDS_MAX - 3). Seeds that can never be
 * re-checked (gone, an archive entry, relative) are pruned instead. cur
 * advances; it is reset when the page ended the walk (*done true). */
LwStatus lw_recheck_index_step(LwRecords *c, const char *prefix, LwRecheckCursor *cur,
                               long long until_ms, long count, const char *const *fields,
                               size_t nfields, LwSeedScanFn fn, void *arg, bool *done,
                               LwError *err);

#endif
