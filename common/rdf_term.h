/*
 * RDF terms and quads as every reader hands them on: serd (Turtle, TriG,
 * N-Triples, N-Quads), raptor2 (RDF/XML, RDFa) and the JSON-LD processor all
 * call one LwQuadSink, so the cleaning that follows does not care where a
 * statement came from.
 *
 * Strings are UTF-8, unescaped, NUL-terminated, owned by the caller of the
 * sink and valid only during the call. IRIs are absolute (readers resolve
 * relative ones); a blank node's value is its label without "_:".
 */
#ifndef LW_RDF_TERM_H
#define LW_RDF_TERM_H

#include <stddef.h>

#include "common/status.h"

typedef enum {
  LW_TERM_NONE = 0, /* absent: the default graph */
  LW_TERM_IRI,
  LW_TERM_BLANK,
  LW_TERM_LITERAL
} LwTermType;

typedef struct {
  LwTermType type;
  const char *value;    /* IRI, blank node label or lexical form */
  size_t len;           /* strlen(value) */
  const char *datatype; /* literals: datatype IRI, or NULL (xsd:string / langString) */
  const char *lang;     /* literals: language tag, or NULL */
} LwTerm;

typedef struct {
  LwTerm subject;
  LwTerm predicate;
  LwTerm object;
  LwTerm graph; /* type LW_TERM_NONE for the default graph */
} LwQuad;

/* Where a reader found a statement (1-based; 0 when unknown), for locating
 * what is wrong with its literal: N-Triples / N-Quads, the line and the
 * literal object's opening quote (else column 1); Turtle / TriG, where serd
 * stood when the object ended; RDF/XML and RDFa, the line of the element
 * (libxml2 gives no column); JSON-LD, where the top-level element holding
 * it starts (streamed documents only). */
typedef struct {
  unsigned line;
  unsigned column;
} LwLocation;

/* What a reader (lw_rdf_read, or the JSON-LD processor) counted. */
typedef struct {
  unsigned long long statements; /* passed to on_quad */
  unsigned long long errors;     /* reported to on_error */
} LwReadStats;

/* Receives one statement. Returning an error (> LW_NOTHING) stops the reader. */
typedef LwStatus (*LwQuadSink)(void *handle, const LwQuad *quad);

/* Receives one syntax problem, located in the input (1-based line and column,
 * 0 when unknown). The reader skips the bad statement and goes on. */
typedef void (*LwSyntaxErrorSink)(void *handle, unsigned line, unsigned column,
                                  const char *message);

#endif
