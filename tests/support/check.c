#define _XOPEN_SOURCE 700
#include "tests/support/check.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

int lw_test_passed = 0;
int lw_test_failed = 0;

void lw_test_report(bool ok, const char *file, int line, const char *expr,
                    const char *detail)
{
  if (ok) {
    ++lw_test_passed;
    return;
  }
  ++lw_test_failed;
  fprintf(stderr, "%s:%d: FAILED: %s%s%s\n", file, line, expr, detail ? ": " : "",
          detail ? detail : "");
}

int lw_test_finish(void)
{
  printf("%d passed, %d failed\n", lw_test_passed, lw_test_failed);
  fflush(stdout);
  return lw_test_failed ? 1 : 0;
}

void lw_test_skip(const char *why)
{
  printf("SKIP: %s\n", why);
  fflush(stdout);
  exit(77);
}

const char *lw_test_testdata(void)
{
  static char path[4096];
  const char *env = getenv("LODWASH_TESTDATA");
  if (env && *env) {
    snprintf(path, sizeof(path), "%s", env);
  } else {
    snprintf(path, sizeof(path), "%s/../shared/testdata", LODWASH_SOURCE_DIR);
  }
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? path : NULL;
}

const char *lw_test_require_testdata(void)
{
  const char *dir = lw_test_testdata();
  if (!dir) {
    lw_test_skip("shared test data not found (set LODWASH_TESTDATA)");
  }
  return dir;
}

const char *lw_test_require_redis(void)
{
  const char *url = getenv("LODWASH_TEST_REDIS");
  if (!url || !*url) {
    lw_test_skip("no test Redis (LODWASH_TEST_REDIS unset; run scripts/test)");
  }
  return url;
}

const char *lw_test_require_sparql(const char **user, const char **password)
{
  const char *url = getenv("LODWASH_TEST_SPARQL");
  if (!url || !*url) {
    lw_test_skip("no test SPARQL store (LODWASH_TEST_SPARQL unset; run scripts/test)");
  }
  *user = getenv("LODWASH_TEST_SPARQL_USER");
  *password = getenv("LODWASH_TEST_SPARQL_PASSWORD");
  return url;
}

const char *lw_test_prefix(const char *test_name)
{
  static char prefix[256];
  snprintf(prefix, sizeof(prefix), "lwtest:%s:%ld:", test_name, (long)getpid());
  return prefix;
}

char *lw_test_tmpdir(void)
{
  const char *base = getenv("TMPDIR");
  char *path = malloc(4096);
  snprintf(path, 4096, "%s/lodwash-test-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(path)) {
    perror("mkdtemp");
    exit(1);
  }
  return path;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

void lw_test_rmtree(const char *path)
{
  nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *lw_test_program(const char *name)
{
  static char path[4096];
  snprintf(path, sizeof(path), "%s/%s", LODWASH_BINARY_DIR, name);
  return path;
}

char *lw_test_slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  LwBuf b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
    lw_buf_append(&b, chunk, n);
  }
  fclose(f);
  lw_buf_append_str(&b, ""); /* an empty file gives "" */
  return lw_buf_steal(&b);
}
