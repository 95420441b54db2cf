/*
 * Pushes a harvest into a provider's graph of a SPARQL store, subject group
 * by subject group as the files store's import hands them on: for each
 * batch, every triple about the batch's subjects is deleted (SPARQL Update),
 * then the harvest's triples about them are inserted (Graph Store POST, or
 * in the store's update mode an INSERT DATA in the same request as the
 * DELETE). A subject's group never straddles two batches, so
 * its delete always precedes its insert; running the import again ends in
 * the same graph. A subject whose triples are the old graph's is not sent at
 * all: a harvest costs the store what it changes. Subjects the files store's old graph did not have are not
 * deleted: the store holds what that graph holds (every import keeps them
 * equal), and deleting is what costs most in Virtuoso (about 15k triples/s,
 * against 65k/s for a Graph Store POST).
 */
#ifndef LW_SPARQL_IMPORT_H
#define LW_SPARQL_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/sparql_store.h"

typedef struct LwSparqlImport LwSparqlImport;

/* A new import into graph_iri. delete_batch: subjects per DELETE (0: 1000);
 * insert_batch: triples per insert (0: 100000 per POST, 10000 per INSERT
 * DATA). NULL when out of memory. */
LwSparqlImport *lw_sparql_import_new(LwSparqlStore *store, const char *graph_iri,
                                     size_t delete_batch, size_t insert_batch);

/* The LwGraphMergeOptions.on_harvest_line callback (handle: the import). */
LwStatus lw_sparql_import_line(void *handle, const char *line, size_t len,
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

#endif
