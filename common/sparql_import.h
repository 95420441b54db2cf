/*
 * Pushes a harvest into a provider's graph of a SPARQL store, subject group
 * by subject group as the files store's merge (common/graph_merge.h) hands
 * them on: for each batch, every triple about the batch's subjects is
 * deleted (SPARQL Update), then the harvest's triples about them are posted
 * (Graph Store Protocol). A subject's group never straddles two batches, so
 * its delete always precedes its insert; running the import again ends in
 * the same graph.
 */
#ifndef LW_SPARQL_IMPORT_H
#define LW_SPARQL_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/sparql_store.h"

typedef struct LwSparqlImport LwSparqlImport;

/* A new import into graph_iri. delete_batch: subjects per DELETE (0: 1000);
 * insert_batch: triples per POST (0: 100000). NULL when out of memory. */
LwSparqlImport *lw_sparql_import_new(LwSparqlStore *store, const char *graph_iri,
                                     size_t delete_batch, size_t insert_batch);

/* The LwGraphMergeOptions.on_harvest_line callback (handle: the import). */
LwStatus lw_sparql_import_line(void *handle, const char *line, size_t len,
                               bool first_of_subject, LwError *err);

/* Sends what is left. */
LwStatus lw_sparql_import_finish(LwSparqlImport *import, LwError *err);

/* Requests made so far (for logs and benchmarks). */
unsigned long long lw_sparql_import_requests(const LwSparqlImport *import);

/* Frees the import. NULL is safe. */
void lw_sparql_import_free(LwSparqlImport *import);

#endif
