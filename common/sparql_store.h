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
#ifndef LW_SPARQL_STORE_H
#define LW_SPARQL_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"

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
  long timeout_seconds;   /* per request; 0: 600 */
  LwSparqlMode mode;
} LwSparqlOptions;

typedef struct LwSparqlStore LwSparqlStore;

/* Returns a new store handle (no request is made), or NULL with err set.
 * The options' strings are copied. */
LwSparqlStore *lw_sparql_open(const LwSparqlOptions *options, LwError *err);

/* Frees the handle. NULL is safe. */
void lw_sparql_close(LwSparqlStore *store);

/* Runs one SPARQL Update request. */
LwStatus lw_sparql_update(LwSparqlStore *store, const char *update, LwError *err);

/* Adds N-Triples to graph through the Graph Store Protocol (POST). */
LwStatus lw_sparql_post(LwSparqlStore *store, const char *graph_iri,
                        const char *ntriples, size_t len, LwError *err);

/* The store's insert mode. */
LwSparqlMode lw_sparql_mode(const LwSparqlStore *store);

/* Parses "gsp" or "update" into *mode; false for anything else. */
bool lw_sparql_mode_parse(const char *text, LwSparqlMode *mode);

/* Runs a SELECT query and returns its result as CSV (a new string the caller
 * frees) in *csv. */
LwStatus lw_sparql_select_csv(LwSparqlStore *store, const char *query,
                              char **csv, LwError *err);

/* Runs a SELECT query whose result is one number (such as COUNT(*)). */
LwStatus lw_sparql_count(LwSparqlStore *store, const char *query,
                         unsigned long long *count, LwError *err);

#endif
