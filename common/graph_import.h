/*
 * Imports one harvest into a provider's graph: the files store's merge
 * (common/graph_merge.h) always runs, editing the graph database
 * DATA/graphs/NAME.lmdb (common/graph_db.h) in one write transaction and
 * writing the harvest's changeset and DATA/graphs/NAME.stats.json; with a
 * SPARQL store configured, the same pass pushes the harvest to the store
 * (common/sparql_import.h) before the transaction commits. So an import
 * killed half way and run again sees the same old graph, computes the same
 * result, and sends the same deletes and inserts: the store ends in the same
 * graph. A DATA/graphs/NAME.nq.gz of the earlier layout, with no database
 * yet, is loaded first.
 */
#ifndef LW_GRAPH_IMPORT_H
#define LW_GRAPH_IMPORT_H

#include <stddef.h>

#include "common/graph_merge.h"
#include "common/sparql_store.h"

typedef struct {
  const char *data_dir;
  const char *provider;          /* [A-Za-z0-9]+ */
  const char *graph_iri;
  const char *harvest_id;        /* names the changeset files */
  const char *const *clean_paths;/* the harvest's clean files */
  size_t clean_count;
  LwSparqlStore *store;          /* NULL: the files store only */
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

LwStatus lw_graph_import(const LwGraphImportOptions *options,
                         LwGraphImportReport *report, LwError *err);

#endif
