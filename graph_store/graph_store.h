/*
 * lodwash's graph store library: the per-provider graph databases (LMDB), the
 * import that merges a harvest's graphs into them, views and statistics of
 * graphs, the export of a dump with its VoID description, and the SPARQL store
 * client (Graph Store Protocol or SPARQL Update) the import writes to.
 *
 * Uses base and files. Below, one section per module; its code is
 * graph_store/<module>.c.
 */
#ifndef LW_GRAPH_STORE_H
#define LW_GRAPH_STORE_H

#include "base/base.h"

/* ---- graph_db (graph_store/graph_db.c) --------------------------------- */

/*
 * The files store's graphs: one LMDB environment per provider,
 * DATA/graphs/NAME.lmdb/, holding the provider's triples ("S P O", canonical
 * N-Triples terms, no graph label) as keys in bytewise order, so all
 * triples about one subject are one key range found in O(log N). An import
 * replaces a subject's triples by editing that range (graph_store/graph_store.h),
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
#include <stdbool.h>
#include <stddef.h>

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

/* The id of the last committed write transaction (LMDB's), which names the
 * graph's version: the export's view records the one it read. */
unsigned long long lw_graph_db_last_commit(LwGraphDb *db);

/* Write transaction: begin, put/del any number of times, commit or abort.
 * One writer per provider at a time (one import job per provider). */
LwStatus lw_graph_db_begin(LwGraphDb *db, LwError *err);
LwStatus lw_graph_db_commit(LwGraphDb *db, LwError *err);
void lw_graph_db_abort(LwGraphDb *db);

/* Removes every triple, in the open write transaction. */
LwStatus lw_graph_db_clear(LwGraphDb *db, LwError *err);

/* Adds (or removes) one triple "S P O" (no " ." and no graph label). */
LwStatus lw_graph_db_put(LwGraphDb *db, const char *triple, size_t len, LwError *err);
LwStatus lw_graph_db_del(LwGraphDb *db, const char *triple, size_t len, LwError *err);

/* The graph IRI and counts, as of the open transaction (or the last commit
 * when none is open); set them inside a write transaction. */
LwStatus lw_graph_db_info(LwGraphDb *db, LwGraphDbInfo *info, LwError *err);
LwStatus lw_graph_db_set_info(LwGraphDb *db, const LwGraphDbInfo *info, LwError *err);

/* The last import's result, committed in the same transaction as the
 * graph it made (graph_import.c): "" when none. In the open transaction,
 * else the last commit. Set it inside a write transaction. */
LwStatus lw_graph_db_last_import(LwGraphDb *db, char *buf, size_t size, LwError *err);
LwStatus lw_graph_db_set_last_import(LwGraphDb *db, const char *record, LwError *err);

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

/* ---- graph_stats (graph_store/graph_stats.c) --------------------------- */

/*
 * What the files store knows about one provider graph, kept beside it as
 * DATA/graphs/NAME.stats.json: the graph IRI, triples, distinct subjects and
 * when it last changed. The import writes it; export and status read it.
 */
typedef struct {
  char graph_iri[1024];
  unsigned long long triples;
  unsigned long long subjects;
  long long modified; /* seconds since the epoch */
  /* distinct predicates, counted by the export's view refresh (the import
   * does not know them) into DATA/graphs/NAME.view.json: read with the stats
   * when that view is of the same graph (as many triples); else
   * has_properties is false */
  bool has_properties;
  unsigned long long properties;
} LwGraphStats;

/* Writes the stats file atomically (temporary file + rename). */
LwStatus lw_graph_stats_write(const char *path, const LwGraphStats *stats, LwError *err);

/* Reads a stats file (and NAME.view.json beside it, for the properties);
 * LW_NOTHING when it does not exist. */
LwStatus lw_graph_stats_read(const char *path, LwGraphStats *stats, LwError *err);

/* ---- graph_view (graph_store/graph_view.c) ----------------------------- */

/*
 * Views of a provider's graph database (graph_store/graph_store.h) as N-Quads, in
 * the provider's graph, sorted bytewise:
 *
 * - DATA/graphs/NAME.nq.gz, the graph file of the earlier layout, kept as an
 *   exported view for what reads it (the export's dump, scripts): rewritten
 *   by the export job when the database changed since (an O(N) streaming
 *   read, off the import's path, so an import costs what its change costs).
 *   DATA/graphs/NAME.view.json says which commit of the database it shows
 *   (lw_graph_db_last_commit when its read began: an import that commits
 *   during the read leaves it stale, for the next export) and what it
 *   counted: triples and distinct predicates (void:properties);
 * - one subject's triples or the whole graph, to a stream (`lodwash graph`).
 */
#include <stdio.h>

/* Writes the provider's graph, or only its triples about subject (an IRI
 * without <>, or "_:label"; NULL: all), to out as N-Quads. LW_NOTHING when
 * the provider has no graph. */
LwStatus lw_graph_view_print(const char *data_dir, const char *provider,
                             const char *subject, FILE *out, LwError *err);

/* Rewrites DATA/graphs/NAME.nq.gz for every graph database newer than its
 * view (temporary file, then rename). *refreshed (may be NULL) counts them. */
LwStatus lw_graph_view_refresh_all(const char *data_dir, unsigned *refreshed, LwError *err);

/* ---- graph_merge (graph_store/graph_merge.c) --------------------------- */

/*
 * The `files` store's import: one streaming pass over the clean files of a
 * harvest that replaces their subjects' triples in a provider's graph,
 * either a graph database (graph_store/graph_store.h: only the harvest's subjects
 * are read and edited, O(S log N)) or a sorted graph file (rewritten whole).
 *
 * The rule (GeoLink harvester proposal): S = every subject in the harvest's
 * clean files; every triple whose subject is in S is replaced by the
 * harvest's triples about it; subjects not in S keep their triples. Every
 * quad goes into the provider's graph, whatever graph the dump named.
 *
 * Why one pass suffices: clean files and graph files are canonical N-Quads
 * sorted bytewise, and all lines about one subject share the prefix
 * "SUBJECT " — so they are contiguous, and subject groups appear in the
 * same order in every file. A merge-join on that prefix finds S, the
 * replaced groups and the changeset (added, removed) at once, in memory
 * bounded by one line per input.
 */
#include <stdbool.h>
#include <stddef.h>

typedef struct {
  const char *graph_iri;        /* the provider's graph, without <> */
  LwGraphDb *db;                /* the graph, edited in its open write
                                  transaction (the caller commits), which
                                  must hold no writes yet: the old triples
                                  are read from the last commit; NULL:
                                  old_path and out_path instead */
  const char *old_path;         /* current graph file; NULL or missing: empty */
  const char *const *new_paths; /* the harvest's clean files (gzip or plain) */
  size_t new_count;
  const char *data_dir;     /* a harvest of more than 64 clean files is
                               merged 64 at a time, in rounds, through
                               files in DATA/tmp; NULL: $TMPDIR (or /tmp)
                               as DATA */
  const char *out_path;     /* the new graph file (gzip), written in place:
                                  give a temporary path and rename it */
  const char *added_path;   /* changeset: lines added (gzip); NULL: none */
  const char *removed_path; /* changeset: lines removed (gzip); NULL: none */
  size_t max_line;          /* longest line accepted; 0: 64 MiB */
  /* Called for every line of the harvest, in order, after it is written,
   * with its triple ("S P O": no graph, no " ."; len bytes, not
   * NUL-terminated); first_of_subject is true on the first line of each
   * subject, and
   * subject_in_old says whether the old graph had triples about that
   * subject. The sparql store pushes the harvest to the triple store from
   * here. May be NULL. */
  LwStatus (*on_harvest_line)(void *handle, const char *triple, size_t len,
                              bool first_of_subject, bool subject_in_old, LwError *err);
  /* Called after each harvest subject's lines: changed says whether its
   * triples differ from the old graph's (the sparql store then sends
   * nothing for it). May be NULL. */
  LwStatus (*on_subject_end)(void *handle, bool changed, LwError *err);
  void *handle;
  /* Called every 65,536 harvest lines merged, with the count so far (for a
   * worker's progress note). May be NULL. */
  void (*progress)(void *progress_handle, unsigned long long lines);
  void *progress_handle;
} LwGraphMergeOptions;

typedef struct {
  unsigned long long triples;          /* triples in the new graph */
  unsigned long long subjects;         /* distinct subjects in the new graph */
  unsigned long long harvest_subjects; /* |S| */
  unsigned long long added;
  unsigned long long removed;
  unsigned long long foreign_graph; /* harvest quads that named another graph */
} LwGraphMergeReport;

LwStatus lw_graph_merge(const LwGraphMergeOptions *options, LwGraphMergeReport *report,
                        LwError *err);

/* Parses a canonical N-Quads line: the length of "S P O" (without the graph
 * label and " ."), and the graph label's position and length (0 when the
 * line names no graph). Returns false when the line is not canonical. */
bool lw_nquads_split_line(const char *line, size_t len, size_t *triple_len,
                          size_t *graph_start, size_t *graph_len);

/* ---- graph_writes (graph_store/graph_writes.c) ------------------------- */

/*
 * The puts and dels an import makes in a graph database (graph_store/graph_store.h),
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
#include <stdbool.h>
#include <stddef.h>

#define LW_GRAPH_WRITES_BATCHES 4
#define LW_GRAPH_WRITES_BYTES ((size_t)1 << 20)

typedef struct LwGraphWrites LwGraphWrites;

/* A new, empty queue. NULL when out of memory. */
LwGraphWrites *lw_graph_writes_new(void);

/* Producer (the merge's thread): queues a put (or del) of the triple
 * "S P O". Blocks while the queue is full. Fails (without queuing) once
 * the consumer gave up: stop merging then. */
LwStatus lw_graph_writes_put(LwGraphWrites *w, const char *triple, size_t len,
                             LwError *err);
LwStatus lw_graph_writes_del(LwGraphWrites *w, const char *triple, size_t len,
                             LwError *err);

/* Producer: no more writes; hands on what is queued. Call it exactly once,
 * also when the merge failed (the consumer then returns). */
void lw_graph_writes_finish(LwGraphWrites *w);

/* Consumer (the thread of db's write transaction): applies the batches as
 * they come until the producer finishes. On a failure it stops applying,
 * tells the producer, and returns the failure once the producer finished. */
LwStatus lw_graph_writes_apply(LwGraphWrites *w, LwGraphDb *db, LwError *err);

/* Frees the queue (after both sides are done). NULL is safe. */
void lw_graph_writes_free(LwGraphWrites *w);

/* ---- sparql_store (graph_store/sparql_store.c) ------------------------- */

/*
 * A SPARQL 1.1 store over HTTP (tested with Virtuoso and Oxigraph): updates
 * through the SPARQL Update endpoint; bulk inserts through the Graph Store
 * Protocol (mode gsp) or, for stores without one, batched INSERT DATA
 * (mode update); digest or basic authentication.
 *
 * Why GSP by default: Virtuoso takes N-Triples POSTs about twenty times
 * faster than INSERT DATA, and its SPARQL parser refuses some valid
 * N-Triples terms; but deleting by subject needs SPARQL Update. Batches are
 * sized for what Virtuoso 7.2 accepts (about 1,000 subjects per DELETE, 100k
 * triples per POST).
 */
#include <stdbool.h>
#include <stddef.h>

typedef enum {
  LW_SPARQL_GSP,    /* inserts: Graph Store Protocol POST of N-Triples */
  LW_SPARQL_UPDATE, /* inserts: SPARQL Update INSERT DATA */
} LwSparqlMode;

typedef struct {
  const char *update_url; /* SPARQL Update endpoint, e.g. http://h:8890/sparql-auth */
  const char *gsp_url;    /* Graph Store endpoint; NULL: update_url with its last
                             path segment replaced by "sparql-graph-crud-auth" */
  const char *query_url;  /* SPARQL Query endpoint; NULL: update_url */
  const char *user;       /* NULL: no authentication */
  const char *password;
  long timeout_seconds; /* per request; 0: 600 */
  LwSparqlMode mode;
  size_t connections; /* requests at once (one curl handle each); 0: 2 */
  int deadlock_tries; /* sends of a request refused as deadlocked; 0: 8 */
} LwSparqlOptions;

typedef struct LwSparqlStore LwSparqlStore;

/* Returns a new store handle (no request is made), or NULL with err set.
 * The options' strings are copied. */
LwSparqlStore *lw_sparql_open(const LwSparqlOptions *options, LwError *err);

/* Frees the handle. NULL is safe. */
void lw_sparql_close(LwSparqlStore *store);

/* The functions below may be called from several threads at once: each
 * request takes an idle connection, waiting for one when all are busy. A
 * request the store refuses as deadlocked with a concurrent one (Virtuoso's
 * SQL state 40001; the store rolled it back) is sent again after a short,
 * growing wait (deadlock_tries sends in all). */

/* Runs one SPARQL Update request. */
LwStatus lw_sparql_update(LwSparqlStore *store, const char *update, LwError *err);

/* Adds N-Triples to graph through the Graph Store Protocol (POST). */
LwStatus lw_sparql_post(LwSparqlStore *store, const char *graph_iri, const char *ntriples,
                        size_t len, LwError *err);

/* The store's insert mode. */
LwSparqlMode lw_sparql_mode(const LwSparqlStore *store);

/* The connections of the store (requests it may have at once). */
size_t lw_sparql_connections(const LwSparqlStore *store);

/* Whether an answer (HTTP status and body) says the request was rolled back
 * as deadlocked with a concurrent one, and may simply be sent again. */
bool lw_sparql_is_deadlock(long http_code, const char *answer);

/* Parses "gsp" or "update" into *mode; false for anything else. */
bool lw_sparql_mode_parse(const char *text, LwSparqlMode *mode);

/* Runs a SELECT query and returns its result as CSV (a new string the caller
 * frees) in *csv. */
LwStatus lw_sparql_select_csv(LwSparqlStore *store, const char *query, char **csv,
                              LwError *err);

/* Runs a SELECT query whose result is one number (such as COUNT(*)). */
LwStatus lw_sparql_count(LwSparqlStore *store, const char *query, unsigned long long *count,
                         LwError *err);

/* ---- sparql_import (graph_store/sparql_import.c) ----------------------- */

/*
 * Pushes a harvest into a provider's graph of a SPARQL store, subject group
 * by subject group as the files store's import hands them on: for each
 * batch, every triple about the batch's subjects is deleted (SPARQL Update),
 * then the harvest's triples about them are inserted (Graph Store POST, or
 * in the store's update mode an INSERT DATA in the same request as the
 * DELETE). A subject's group never straddles two batches, so
 * its delete always precedes its insert; running the import again ends in
 * the same graph. A subject whose triples are the old graph's is not sent at
 * all: a harvest costs the store what it changes. Subjects the files
 * store's old graph did not have are not deleted: the store holds what that
 * graph holds (every import keeps them equal), and deleting is what costs
 * most in Virtuoso (about 15k triples/s, against 65k/s for a Graph Store
 * POST).
 */
#include <stdbool.h>
#include <stddef.h>

typedef struct LwSparqlImport LwSparqlImport;

/* A new import into graph_iri. A batch is up to insert_batch triples (0:
 * 100000 for a POST, 10000 for an INSERT DATA) of whole subject groups; its
 * deletes go delete_batch subjects a request (0: 500). Batches go over
 * the store's connections at once (lw_sparql_connections), at most one
 * per connection plus the one filling. NULL when out of memory. */
LwSparqlImport *lw_sparql_import_new(LwSparqlStore *store, const char *graph_iri,
                                     size_t delete_batch, size_t insert_batch);

/* The LwGraphMergeOptions.on_harvest_line callback (handle: the import). */
LwStatus lw_sparql_import_line(void *handle, const char *triple, size_t len,
                               bool first_of_subject, bool subject_in_old, LwError *err);

/* The LwGraphMergeOptions.on_subject_end callback: drops an unchanged
 * subject's delete and triples from the batch. */
LwStatus lw_sparql_import_subject_end(void *handle, bool changed, LwError *err);

/* Sends what is left. */
LwStatus lw_sparql_import_finish(LwSparqlImport *import, LwError *err);

/* Requests made so far (for logs and benchmarks). */
unsigned long long lw_sparql_import_requests(const LwSparqlImport *import);

/* Frees the import. NULL is safe. */
void lw_sparql_import_free(LwSparqlImport *import);

/* ---- graph_import (graph_store/graph_import.c) ------------------------- */

/*
 * Imports one harvest into a provider's graph: the files store's merge
 * (graph_store/graph_store.h) always runs, editing the graph database
 * DATA/graphs/NAME.lmdb (graph_store/graph_store.h) in one write transaction and
 * writing the harvest's changeset and DATA/graphs/NAME.stats.json; with a
 * SPARQL store configured, the same pass pushes the harvest to the store
 * (graph_store/graph_store.h) before the transaction commits. So an import
 * killed half way and run again sees the same old graph, computes the same
 * result, and sends the same deletes and inserts: the store ends in the same
 * graph. A DATA/graphs/NAME.nq.gz of the earlier layout, with no database
 * yet, is loaded first.
 *
 * The import's result (its harvest id and counts; the changeset files are
 * named by the harvest id) is committed in the same transaction as the
 * graph. An import of the same harvest run again after that commit (its
 * acknowledgement refused or lost, its worker killed after the commit)
 * finds it and returns it, touching neither the graph, the store nor the
 * changeset: the report and changeset of the one real run, never "+0 -0"
 * and empty changeset files.
 */
#include <stddef.h>

typedef struct {
  const char *data_dir;
  const char *provider; /* [A-Za-z0-9]+ */
  const char *graph_iri;
  const char *harvest_id;         /* names the changeset files */
  const char *const *clean_paths; /* the harvest's clean files */
  size_t clean_count;
  LwSparqlStore *store; /* NULL: the files store only */
  /* Called now and then during the import (every 65,536 harvest triples
   * merged) with the triples merged so far and the requests sent to the
   * SPARQL store (0 without one). May be NULL. */
  void (*progress)(void *progress_handle, unsigned long long triples,
                   unsigned long long requests);
  void *progress_handle;
} LwGraphImportOptions;

typedef struct {
  LwGraphMergeReport merge;
  char added_path[4096];   /* DATA/changesets/NAME/HARVEST.added.nq.gz */
  char removed_path[4096]; /* DATA/changesets/NAME/HARVEST.removed.nq.gz */
  unsigned long long store_requests;
} LwGraphImportReport;

LwStatus lw_graph_import(const LwGraphImportOptions *options, LwGraphImportReport *report,
                         LwError *err);

/* ---- graph_replace (graph_store/graph_replace.c) ----------------------- */

/*
 * A graph of the files store replaced whole by sorted canonical N-Quads
 * lines (every line's triple, whatever graph it names), in one write
 * transaction: readers see the old graph or the new one. For the metadata
 * graph (meta/meta.h), kept as DATA/graphs/lodwash-meta.lmdb beside the
 * providers' (`lodwash graph lodwash-meta`): a name that is no provider's,
 * whose graph is neither in the export's dump nor given a view. Its cost is
 * the new graph's size (the old tree is dropped whole). begin, line, commit
 * or abort, all on one thread (LMDB ties a write transaction to it).
 */
typedef struct LwGraphReplace LwGraphReplace;
LwStatus lw_graph_replace_begin(const char *data_dir, const char *name, const char *graph_iri,
                                LwGraphReplace **out, LwError *err);
LwStatus lw_graph_replace_line(LwGraphReplace *r, const char *line, size_t len, LwError *err);
/* Commits and frees r. */
LwStatus lw_graph_replace_commit(LwGraphReplace *r, LwError *err);
/* Leaves the graph as it was and frees r; NULL is safe. */
void lw_graph_replace_abort(LwGraphReplace *r);

/* True for a provider's graph name ([A-Za-z0-9]+): the graphs the export
 * dumps and gives views. */
bool lw_graph_name_is_provider(const char *name);

/* ---- graph_export (graph_store/graph_export.c) ------------------------- */

/*
 * The export: every provider graph of the files store combined into one
 * N-Quads dump, DATA/export/all.nq.gz, with a VoID description beside it,
 * DATA/export/void.ttl (void:dataDump, dcterms:modified, triples and distinct
 * subjects per graph, one void:subset per provider). Both are replaced
 * atomically: readers see the old pair or the new one.
 *
 * First the graph files (DATA/graphs/NAME.nq.gz) of graphs whose database
 * changed are rewritten from it (graph_store/graph_store.h).
 *
 * Why the dump is cheap: graph files are gzip files and a sequence of gzip members
 * is itself a gzip file, so the dump is the graph files' bytes one after the
 * other, never decompressed; the counts come from each graph's stats file.
 */
#include <stdbool.h>

typedef struct {
  unsigned graphs;
  unsigned long long triples;
  unsigned long long bytes;
  bool written; /* false: nothing changed since the last export */
} LwExportReport;

/* Exports DATA/graphs into DATA/export. Unless force, does nothing (LW_NOTHING)
 * when no graph changed since the last export. */
LwStatus lw_export(const char *data_dir, bool force, LwExportReport *report, LwError *err);

#endif
