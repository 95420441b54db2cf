/*
 * Test support: rapper (raptor2-utils) and serdi (serd's own tool, strict)
 * as second parsers, for the differential tests (test_differential,
 * test_fuzz_turtle).
 */
#ifndef LW_TEST_RAPPER_H
#define LW_TEST_RAPPER_H

#include <stdbool.h>

#include "tests/support/nquads_compare.h"

/* True when rapper can be run. */
bool lw_test_rapper_available(void);

/* rapper's statements for the file at path (syntax: turtle, trig, rdfxml)
 * with base into g. False when rapper reports any error or warning, or
 * takes more than 30 s. */
bool lw_test_rapper_read(const char *path, const char *syntax, const char *base,
                         LwTestGraph *g);

/* True when serdi can be run. */
bool lw_test_serdi_available(void);

/* serdi's statements (strict: serd 0.30 as it is, without lodwash's
 * corrections) for the file at path (syntax: turtle, trig, ntriples,
 * nquads) with base into g. False when serdi reports anything, or takes
 * more than 30 s. */
bool lw_test_serdi_read(const char *path, const char *syntax, const char *base,
                        LwTestGraph *g);

#endif
