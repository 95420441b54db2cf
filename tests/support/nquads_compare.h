/*
 * Test support: RDF datasets in memory and a blank-node isomorphism check,
 * to compare what a reader produced with an expected N-Triples / N-Quads
 * file (the W3C suites, cross-format tests).
 *
 * A dataset holds each quad once, its terms in canonical N-Triples form
 * (rdf/rdf.h), so that literals written differently but equal (escapes,
 * xsd:string, language tag case) compare equal. The N-Quads line reader here
 * is independent of serd, so the readers under test are not their own judge.
 */
#ifndef LW_TEST_NQUADS_COMPARE_H
#define LW_TEST_NQUADS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "rdf/rdf.h"
#include "base/base.h"

typedef struct {
  char *s, *p, *o, *g; /* canonical terms; g is "" for the default graph */
} LwTestQuad;

typedef struct {
  LwTestQuad *quads;
  size_t n, cap;
} LwTestGraph;

#define LW_TEST_GRAPH_INIT                                                                 \
  {                                                                                        \
    NULL, 0, 0                                                                             \
  }

/* Frees the quads; the graph is empty (and reusable) afterwards. */
void lw_test_graph_free(LwTestGraph *g);

/* Adds one quad (duplicates are removed when comparing). */
LwStatus lw_test_graph_add(LwTestGraph *g, const LwQuad *q);

/* An LwQuadSink that adds to the LwTestGraph in handle. */
LwStatus lw_test_graph_sink(void *handle, const LwQuad *q);

/* Parses N-Triples or N-Quads text into g. On a syntax error returns false
 * with "line N: why" in why. */
bool lw_test_graph_parse(LwTestGraph *g, const char *text, size_t len, char *why,
                         size_t why_len);

/* Reads an N-Triples or N-Quads file into g (see lw_test_graph_parse). */
bool lw_test_graph_load(LwTestGraph *g, const char *path, char *why, size_t why_len);

/* True when a and b hold the same quads up to a renaming of blank nodes.
 * When not, why says what differs (a quad of one missing in the other, or
 * the counts). Sorts and dedupes both graphs. */
bool lw_test_graph_isomorphic(LwTestGraph *a, LwTestGraph *b, char *why, size_t why_len);

/* Writes g as N-Quads lines to stream (for failure reports). */
void lw_test_graph_print(const LwTestGraph *g, void *stream);

#endif
