/*
 * Test support for the JSON-LD suite: a set of quads filled from an
 * LwQuadSink or from N-Quads text (a small reader for the suite's expected
 * outputs), and a blank-node isomorphism check between two such sets.
 */
#ifndef LW_TEST_JSONLD_NQUADS_COMPARE_H
#define LW_TEST_JSONLD_NQUADS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "rdf/rdf.h"

typedef struct LwNqSet LwNqSet;

LwNqSet *lw_nq_set_new(void);
void lw_nq_set_free(LwNqSet *set); /* NULL-safe */

/* An LwQuadSink: handle is the LwNqSet. */
LwStatus lw_nq_set_sink(void *handle, const LwQuad *quad);

/* Adds the quads of N-Quads text; false (with a message in why) on a syntax
 * error. */
bool lw_nq_set_parse(LwNqSet *set, const char *text, char *why, size_t size);

size_t lw_nq_set_size(const LwNqSet *set);

/* True if a and b are the same set of quads up to blank node labels. */
bool lw_nq_isomorphic(LwNqSet *a, LwNqSet *b);

/* The set as sorted N-Quads-like lines; the caller frees. */
char *lw_nq_set_dump(LwNqSet *set);

#endif
