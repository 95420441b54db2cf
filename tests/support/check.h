/*
 * A small test harness for lodwash's C tests: CHECK macros that count and
 * report failures with file:line, a closing "N passed, N failed" line, skips
 * (exit 77, which ctest shows as skipped) and the real servers the tests use.
 */
#ifndef LW_TEST_CHECK_H
#define LW_TEST_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

extern int lw_test_passed;
extern int lw_test_failed;

void lw_test_report(bool ok, const char *file, int line, const char *expr,
                    const char *detail);

#define CHECK(cond) lw_test_report((cond), __FILE__, __LINE__, #cond, NULL)

#define CHECK_STR_EQ(actual, expected)                                                     \
  do {                                                                                     \
    const char *lw_a_ = (actual);                                                          \
    const char *lw_e_ = (expected);                                                        \
    bool lw_ok_ = lw_a_ && lw_e_ ? !strcmp(lw_a_, lw_e_) : lw_a_ == lw_e_;                 \
    lw_test_report(lw_ok_, __FILE__, __LINE__, #actual " == " #expected,                   \
                   lw_ok_  ? NULL                                                          \
                   : lw_a_ ? lw_a_                                                         \
                           : "(null)");                                                    \
  } while (0)

#define CHECK_INT_EQ(actual, expected)                                                     \
  do {                                                                                     \
    long long lw_a_ = (long long)(actual);                                                 \
    long long lw_e_ = (long long)(expected);                                               \
    char lw_d_[64];                                                                        \
    snprintf(lw_d_, sizeof(lw_d_), "got %lld, expected %lld", lw_a_, lw_e_);               \
    lw_test_report(lw_a_ == lw_e_, __FILE__, __LINE__, #actual " == " #expected, lw_d_);   \
  } while (0)

/* Prints the closing "N passed, N failed" line; returns the exit code. */
int lw_test_finish(void);

/* Prints "SKIP: why" and exits 77. */
void lw_test_skip(const char *why) __attribute__((noreturn));

/* The shared test data folder (LODWASH_TESTDATA, else ../shared/testdata
 * beside the source tree), or NULL when it is not there. */
const char *lw_test_testdata(void);

/* The whole file at path, NUL-terminated (free it), or NULL when it cannot
 * be opened. */
char *lw_test_slurp(const char *path);

/* Like lw_test_testdata, but skips the test (saying so) when absent. */
const char *lw_test_require_testdata(void);

/* The Redis URL of the test server (LODWASH_TEST_REDIS, set by scripts/test);
 * skips the test when unset. */
const char *lw_test_require_redis(void);

/* The SPARQL update endpoint of the test Virtuoso (LODWASH_TEST_SPARQL,
 * with LODWASH_TEST_SPARQL_USER and _PASSWORD; set by scripts/test); skips
 * the test when unset. */
const char *lw_test_require_sparql(const char **user, const char **password);

/* A key prefix unique to this test process, such as "lwtest:queue:1234:". */
const char *lw_test_prefix(const char *test_name);

/* A new temporary directory (removed by lw_test_rmtree); caller frees. */
char *lw_test_tmpdir(void);

/* Removes a directory tree (rm -rf). */
void lw_test_rmtree(const char *path);

/* Path of a built program, such as lw_test_program("lodwash-worker"). */
const char *lw_test_program(const char *name);

#include <stdio.h>

#endif
