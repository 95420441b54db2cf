/*
 * Streaming RDF readers: one entry point for every serialization, calling an
 * LwQuadSink for each statement (see common/rdf_term.h).
 *
 * Readers are lax: a bad statement is reported through on_error with its
 * line and column, skipped, and reading goes on. They never crash or exhaust
 * memory on hostile input: nesting depth, term size and line size are capped,
 * XML external entities and entity expansion are off. Relative IRIs are
 * resolved against base_iri with lodwash's own RFC 3986 code.
 */
#ifndef LW_RDF_READER_H
#define LW_RDF_READER_H

#include <stdio.h>

#include "common/rdf_format.h"
#include "common/rdf_term.h"
#include "common/status.h"

typedef struct {
  LwFormat format;
  const char *base_iri;        /* resolves relative IRIs; NULL: none */
  LwQuadSink on_quad;
  void *quad_handle;
  LwSyntaxErrorSink on_error;  /* may be NULL */
  void *error_handle;
  unsigned max_depth;          /* [ ( { nesting; 0: default (256) */
  size_t max_term_bytes;       /* one IRI, literal or tag; 0: default (16 MiB) */
  /* JSON-LD only: fetches remote contexts (an LwJsonldLoadFn, see
   * common/jsonld.h); NULL: a document naming a remote context fails. */
  LwStatus (*load_document)(void *handle, const char *url, char **body, size_t *len,
                            char **document_url, LwError *err);
  void *load_handle;
} LwReadOptions;

typedef struct {
  unsigned long long statements; /* passed to on_quad */
  unsigned long long errors;     /* reported to on_error */
} LwReadStats;

/* Reads all of in (UTF-8) in options->format. Returns LW_OK when the input
 * was read to its end, even with skipped statements (counted in stats);
 * LW_ERR_LIMIT when a cap was hit, LW_ERR_SYNTAX when nothing past some point
 * could be read; whatever on_quad returned when it stopped the reader. */
LwStatus lw_rdf_read(FILE *in, const LwReadOptions *options,
                     LwReadStats *stats, LwError *err);

#endif
