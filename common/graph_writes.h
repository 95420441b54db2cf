/*
 * The puts and dels an import makes in a graph database (common/graph_db.h),
 * handed from the merge's thread to the thread that owns the write
 * transaction (LMDB ties a write transaction to the thread that began it),
 * in batches through a bounded queue. So the merge (reading and parsing the
 * harvest, finding each subject's old triples, writing the changesets) and
 * LMDB's B-tree work run side by side on two cores.
 *
 * Order is kept: the writes are applied in the order they were queued (the
 * merge's order, which is the keys' order). Memory: at most
 * LW_GRAPH_WRITES_BATCHES batches of about LW_GRAPH_WRITES_BYTES each,
 * whatever the harvest's size.
 */
#ifndef LW_GRAPH_WRITES_H
#define LW_GRAPH_WRITES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/graph_db.h"
#include "common/status.h"

#define LW_GRAPH_WRITES_BATCHES 4
#define LW_GRAPH_WRITES_BYTES ((size_t)1 << 20)

typedef struct LwGraphWrites LwGraphWrites;

/* A new, empty queue. NULL when out of memory. */
LwGraphWrites *lw_graph_writes_new(void);

/* Producer (the merge's thread): queues a put (or del) of the triple
 * "S P O". Blocks while the queue is full. Fails (without queuing) once
 * the consumer gave up: stop merging then. */
LwStatus lw_graph_writes_put(LwGraphWrites *w, const char *triple, size_t len, LwError *err);
LwStatus lw_graph_writes_del(LwGraphWrites *w, const char *triple, size_t len, LwError *err);

/* Producer: no more writes; hands on what is queued. Call it exactly once,
 * also when the merge failed (the consumer then returns). */
void lw_graph_writes_finish(LwGraphWrites *w);

/* Consumer (the thread of db's write transaction): applies the batches as
 * they come until the producer finishes. On a failure it stops applying,
 * tells the producer, and returns the failure once the producer finished. */
LwStatus lw_graph_writes_apply(LwGraphWrites *w, LwGraphDb *db, LwError *err);

/* Frees the queue (after both sides are done). NULL is safe. */
void lw_graph_writes_free(LwGraphWrites *w);

#endif
