/*
 * The files store's graphs: one LMDB environment per provider,
 * DATA/graphs/NAME.lmdb/, holding the provider's triples ("S P O", canonical
 * N-Triples terms, no graph label) as keys in bytewise order, so all
 * triples about one subject are one key range found in O(log N). An import
 * replaces a subject's triples by editing that range (common/graph_merge.h),
 * inside one write transaction: a process killed at any point leaves the
 * graph as it was before the import (docs/design.md, "Files store").
 *
 * Keys: a triple of at most LW_GRAPH_DB_SHORT bytes is its own key; a longer
 * one is keyed by its first LW_GRAPH_DB_SHORT bytes and a 64-bit hash of the
 * whole, with the whole as the value (LMDB keys are at most 511 bytes).
 * Cursors give triples back in exact bytewise order: the few long triples
 * sharing their first LW_GRAPH_DB_SHORT bytes are sorted in memory.
 *
 * Besides the triples, a second database keeps the graph IRI and the counts
 * of triples and distinct subjects, updated in the import's transaction.
 */
#ifndef LW_GRAPH_DB_H
#define LW_GRAPH_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"

#define LW_GRAPH_DB_SHORT 500

typedef struct LwGraphDb LwGraphDb;
typedef struct LwGraphCursor LwGraphCursor;

typedef struct {
  char graph_iri[1024];
  unsigned long long triples;
  unsigned long long subjects;
} LwGraphDbInfo;

/* The environment's folder: "DATA/graphs/NAME.lmdb". */
LwStatus lw_graph_db_path(const char *data_dir, const char *provider, char *buf,
                          size_t size);

/* True when the provider's graph database exists. */
bool lw_graph_db_exists(const char *data_dir, const char *provider);

/* Opens (creating unless read_only) the provider's graph database. Readers
 * see the last committed import. NULL-safe close. */
LwStatus lw_graph_db_open(const char *data_dir, const char *provider, bool read_only,
                          LwGraphDb **out, LwError *err);
void lw_graph_db_close(LwGraphDb *db);

/* Write transaction: begin, put/del any number of times, commit or abort.
 * One writer per provider at a time (one import job per provider). */
LwStatus lw_graph_db_begin(LwGraphDb *db, LwError *err);
LwStatus lw_graph_db_commit(LwGraphDb *db, LwError *err);
void lw_graph_db_abort(LwGraphDb *db);

/* Adds (or removes) one triple "S P O" (no " ." and no graph label). */
LwStatus lw_graph_db_put(LwGraphDb *db, const char *triple, size_t len, LwError *err);
LwStatus lw_graph_db_del(LwGraphDb *db, const char *triple, size_t len, LwError *err);

/* The graph IRI and counts, as of the open transaction (or the last commit
 * when none is open); set them inside a write transaction. */
LwStatus lw_graph_db_info(LwGraphDb *db, LwGraphDbInfo *info, LwError *err);
LwStatus lw_graph_db_set_info(LwGraphDb *db, const LwGraphDbInfo *info, LwError *err);

/* A cursor over the triples starting with prefix (NULL/0: all of them), in
 * bytewise order, in the open write transaction or else a read snapshot of
 * its own. Puts and dels in the write transaction between two steps are
 * allowed (the cursor seeks again after them). */
LwStatus lw_graph_cursor_open(LwGraphDb *db, const char *prefix, size_t len,
                              LwGraphCursor **out, LwError *err);

/* A cursor over the last committed graph, even while a write transaction
 * is open: the import reads each subject's old triples through it, so that
 * its own puts and dels never make it seek again (a subject's key range is
 * read before any write to it). Position it with lw_graph_cursor_seek. */
LwStatus lw_graph_cursor_open_committed(LwGraphDb *db, LwGraphCursor **out, LwError *err);

/* Starts the cursor again on the triples starting with prefix (cheaper
 * than a new cursor: the import moves one cursor from subject to subject). */
LwStatus lw_graph_cursor_seek(LwGraphCursor *cursor, const char *prefix, size_t len,
                              LwError *err);

/* The next triple into *triple (valid until the next call) and *len;
 * LW_NOTHING at the end. */
LwStatus lw_graph_cursor_next(LwGraphCursor *cursor, const char **triple, size_t *len,
                              LwError *err);

/* NULL is safe. */
void lw_graph_cursor_close(LwGraphCursor *cursor);

#endif
