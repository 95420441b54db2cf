/*
 * Test support: an LwSyntaxErrorSink that counts errors and keeps the first
 * ("LINE:COLUMN message"), for tests that read many documents.
 */
#ifndef LW_TEST_ERROR_COUNT_H
#define LW_TEST_ERROR_COUNT_H

typedef struct {
  unsigned errors;
  char first[256];
} LwTestErrors;

/* The sink; handle is an LwTestErrors. */
void lw_test_count_error(void *handle, unsigned line, unsigned column, const char *message);

#endif
