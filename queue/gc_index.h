/*
 * The collection's indexes (queue/retention.h): what it reads instead of
 * walking the keyspace with SCAN, so that a collection costs the records
 * it looks at, however many other keys Redis holds.
 *
 *   seeds:index  zset  every seed with a status, scored by its `updated`
 *                      (written with it, by the reap script too when it
 *                      fails a dead job's seed), so the sweep reads only
 *                      the seeds unchanged for the grace period; but
 *                      not a seed of the re-check index (rechecks, scored
 *                      by `processed`: queue/recheck_index.h), which the
 *                      collection walks too. A seed has one entry (about
 *                      136 bytes): the status-moving scripts add none for
 *                      a seed there, the re-check index's entry takes it
 *                      out, its pruning puts it back
 *   harvests     zset  every harvest record, scored by its `started`
 *   providers    set   the providers whose record has a `harvest` (the
 *                      claim) or `void_dumps` (a VoID visit)
 *   cleanofs     set   the content keys of the cleanof: entries
 *   unpacked     set   the harvests with an unpack budget (the budget over
 *                      all harvests already kept it: queue/unpack_budget.h)
 *
 * Kept as the records are written, in the same script call: a seed's
 * status change (the apply script's status op and the transition script,
 * queue/scripts.c, which derive the index's name from the counts key's;
 * lw_seed_record), the harvest's record (lw_harvest_start, lw_reclean),
 * the claim and a VoID visit's record (queue/provider_record.c,
 * queue/provider_visit.c), a cleanof entry (lw_txn_clean_of_set), a
 * budget's reservation and settlement. The collection's delete scripts
 * remove the record and its entry together; nothing else deletes these
 * records. An entry whose record is gone anyway is pruned when the
 * collection meets it.
 *
 * Records written before the indexes: lw_gc_index_upgrade, run by the
 * first collection, walks seed:*, harvest:*, provider:*, cleanof:* and
 * unpacked:* once with SCAN, indexes what it finds, and marks the indexes
 * built (PREFIXindexes, field "gc"), so that no later collection scans.
 * Seeds indexed in both by a version before (field "gc_one_entry"
 * missing): the first collection walks the re-check index once and takes
 * its seeds out of seeds:index.
 */
#ifndef LW_QUEUE_GC_INDEX_H
#define LW_QUEUE_GC_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"
#include "queue/redis.h"
#include "queue/txn.h"

/* The harvest index's entry for harvest id started at started (ms, text),
 * added to txn: written with the harvest's record. */
void lw_txn_gc_index_harvest(LwTxn *txn, const char *id, const char *started);

/* Takes seeds[0..n) out of the collection's seed index (they are in the
 * re-check index: one entry a seed); *removed (may be NULL) grows by how
 * many were there. One ZREM. */
LwStatus lw_gc_index_seeds_out(LwRecords *c, const char *prefix, const char *const *seeds,
                               size_t n, long long *removed, LwError *err);

/* What the upgrade indexed. */
typedef struct {
  long long seeds, harvests, providers, cleanof, budgets;
  long long one_entry; /* seeds of both indexes taken out of seeds:index */
} LwGcIndexBuilt;

/* Builds the indexes from the records unless they are marked built: one
 * SCAN of each pattern. *built says whether this call built them (and
 * logs it); *added what it indexed. */
LwStatus lw_gc_index_upgrade(LwRecords *c, const char *prefix, LwGcIndexBuilt *added,
                             bool *built, LwError *err);

/* Called with each page of an index's members (ids, not keys). */
typedef LwStatus (*LwGcIndexPageFn)(void *arg, const char *const *members, size_t n);

/* Walks an index (its full key), a page of about 1,000 members at a time:
 * a zset by score, its members scored up to max_score (LLONG_MAX: all),
 * each met once; a set with SSCAN, every member there for the whole walk
 * met at least once (twice, rarely, while Redis resizes the set). */
LwStatus lw_gc_index_walk(LwRecords *c, const char *index, bool zset, long long max_score,
                          LwGcIndexPageFn fn, void *arg, LwError *err);

/* Walks the names of the providers known to Redis: the providers index
 * once built, else (records from before it, the collection not run yet)
 * one SCAN of provider:*. */
LwStatus lw_gc_index_providers_walk(LwRecords *c, const char *prefix, LwGcIndexPageFn fn,
                                    void *arg, LwError *err);

#endif
