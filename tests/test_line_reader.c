/* Line reader: every line back exactly, whatever its length and wherever it
 * falls against the reading thread's chunks (256 KB), gzip or plain; a line
 * over the cap refused; a last line without "\n" kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/base.h"
#include "tests/support/check.h"

#define KB 1024u

/* Line i's length: mostly short, some across a chunk, a few longer than
 * two chunks, some empty. */
static size_t length_of(size_t i)
{
  static const size_t lengths[] = {0, 1, 90, 255 * KB, 3, 600 * KB, 80, 0, 256 * KB - 1,
                                   256 * KB, 1, 7 * KB};
  return lengths[i % (sizeof(lengths) / sizeof(lengths[0]))];
}

static char byte_of(size_t line, size_t at)
{
  return (char)('a' + (line * 31 + at) % 26);
}

/* Writes lines lines (plain or gzip); the last without "\n" if open_end. */
static void write_lines(const char *path, size_t lines, bool gzip, bool open_end)
{
  gzFile f = gzopen(path, gzip ? "wb1" : "wbT");
  CHECK(f != NULL);
  for (size_t i = 0; i < lines; ++i) {
    for (size_t k = 0; k < length_of(i); ++k) {
      gzputc(f, byte_of(i, k));
    }
    if (i + 1 < lines || !open_end) {
      gzputc(f, '\n');
    }
  }
  gzclose(f);
}

static bool line_is(size_t i, const char *line, size_t len)
{
  if (len != length_of(i)) {
    return false;
  }
  for (size_t k = 0; k < len; ++k) {
    if (line[k] != byte_of(i, k)) {
      return false;
    }
  }
  return true;
}

static void test_read_back(const char *dir, bool gzip, bool open_end)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/lines%s", dir, gzip ? ".gz" : "");
  size_t lines = 60; /* about 14 MB: many chunks, lines across each */
  write_lines(path, lines, gzip, open_end);
  LwError err = {0};
  LwLineReader *r = lw_line_reader_open(path, 1u << 20, &err);
  CHECK(r != NULL);
  const char *line;
  size_t len, n = 0, wrong = 0;
  LwStatus st;
  while ((st = lw_line_reader_next(r, &line, &len, &err)) == LW_OK) {
    wrong += !line_is(n, line, len);
    ++n;
  }
  CHECK_INT_EQ(st, LW_NOTHING);
  /* An open end with an empty last line is no line at all. */
  size_t expected = open_end && length_of(lines - 1) == 0 ? lines - 1 : lines;
  CHECK_INT_EQ((long long)n, (long long)expected);
  CHECK_INT_EQ((long long)wrong, 0);
  CHECK_INT_EQ(lw_line_reader_next(r, &line, &len, &err), LW_NOTHING);
  lw_line_reader_close(r);
}

static void test_cap(const char *dir)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/long.gz", dir);
  write_lines(path, 6, true, false); /* line 5 is 600 KB */
  LwError err = {0};
  LwLineReader *r = lw_line_reader_open(path, 300 * KB, &err);
  const char *line;
  size_t len;
  LwStatus st;
  size_t n = 0;
  while ((st = lw_line_reader_next(r, &line, &len, &err)) == LW_OK) {
    ++n;
  }
  CHECK_INT_EQ(st, LW_ERR_LIMIT);
  CHECK_INT_EQ((long long)n, 5);
  CHECK(strstr(err.message, "line longer than") != NULL);
  lw_line_reader_close(r);
}

static void test_small_empty_and_missing(const char *dir)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/empty", dir);
  FILE *f = fopen(path, "w");
  fclose(f);
  LwError err = {0};
  LwLineReader *r = lw_line_reader_open(path, KB, &err);
  const char *line;
  size_t len;
  CHECK_INT_EQ(lw_line_reader_next(r, &line, &len, &err), LW_NOTHING);
  lw_line_reader_close(r);
  /* A small file: its only chunk ends with the last line's "\n". */
  f = fopen(path, "w");
  fputs("a\nbc\n", f);
  fclose(f);
  r = lw_line_reader_open(path, KB, &err);
  CHECK_INT_EQ(lw_line_reader_next(r, &line, &len, &err), LW_OK);
  CHECK(len == 1 && line[0] == 'a');
  CHECK_INT_EQ(lw_line_reader_next(r, &line, &len, &err), LW_OK);
  CHECK(len == 2 && !memcmp(line, "bc", 2));
  CHECK_INT_EQ(lw_line_reader_next(r, &line, &len, &err), LW_NOTHING);
  lw_line_reader_close(r);
  snprintf(path, sizeof(path), "%s/missing", dir);
  CHECK(lw_line_reader_open(path, KB, &err) == NULL);
  CHECK_INT_EQ(err.status, LW_ERR_IO);
}

int main(void)
{
  char *dir = lw_test_tmpdir();
  test_read_back(dir, true, false);
  test_read_back(dir, false, false);
  test_read_back(dir, true, true);
  test_cap(dir);
  test_small_empty_and_missing(dir);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
