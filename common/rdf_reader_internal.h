/*
 * What the format readers behind lw_rdf_read share (not a public header):
 * the read context with its effective limits, and error reporting.
 */
#ifndef LW_RDF_READER_INTERNAL_H
#define LW_RDF_READER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/rdf_reader.h"

#define LW_READ_DEFAULT_MAX_DEPTH 256u
#define LW_READ_DEFAULT_MAX_TERM_BYTES ((size_t)16 << 20)

typedef struct {
  const LwReadOptions *options;
  LwReadStats *stats;
  LwError *err;
  unsigned max_depth;      /* options->max_depth or the default */
  size_t max_term_bytes;   /* options->max_term_bytes or the default */
  bool serd_bytewise;      /* tests: Turtle / TriG fed to serd one byte at a
                              time, not in pages (same results) */
} LwReadContext;

/* Counts one syntax error and passes it to options->on_error. */
void lw_read_report(LwReadContext *ctx, unsigned line, unsigned column,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Hands one statement, found at line and column, to options->on_quad and
 * counts it. */
LwStatus lw_read_emit(LwReadContext *ctx, const LwQuad *quad, unsigned line,
                      unsigned column);

/* True when s (len bytes) may go out as an IRI: absolute, and none of the
 * characters IRIREF forbids (controls, space, <>"{}|^`\). */
bool lw_read_iri_ok(const char *s, size_t len);

/* True when s holds none of the characters IRIREF forbids. */
bool lw_read_iri_chars_ok(const char *s, size_t len);

/* Turtle, TriG, N-Triples, N-Quads (serd). */
LwStatus lw_rdf_read_serd(FILE *in, LwReadContext *ctx);

/* Whether serd can be fed Turtle and TriG in pages: its reader is laid out
 * as the serd lodwash was built for, whose position lodwash reads (else serd
 * is fed one byte at a time, slower, with the same results). */
bool lw_rdf_serd_paged(void);

/* RDF/XML and RDFa (raptor2). */
LwStatus lw_rdf_read_raptor(FILE *in, LwReadContext *ctx);

#endif
