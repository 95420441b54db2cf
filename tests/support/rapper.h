/*
 * Test support: rapper (raptor2-utils) as a second parser, for the
 * differential tests (test_differential, test_fuzz_turtle).
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

#endif
