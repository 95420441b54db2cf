/*
 * serd is fed Turtle and TriG in pages, and lodwash reads serd's position
 * from its reader (rdf_readers/rdf_reader_serd.c), the pre-scanner running on
 * a thread of its own (rdf_readers/prescan_thread.c): the results must be
 * those of feeding it one byte at a time, where the bytes handed to serd say
 * where it stands, the pre-scanner in the reader's thread. Every Turtle and TriG file of the shared test data (good and bad:
 * W3C suites, serd's tests, RDFa results, real vocabularies and dumps) is
 * read both ways, as it is, damaged at a few places (a quote, an IRI, an
 * escape, a bracket, bad UTF-8, a NUL... inserted), cut short, with a low
 * nesting cap, and with a sink that stops after a few statements; the
 * statements, every error with its line, column and message, the counts,
 * the status and its message must be the same.
 *
 * The damage is the same on every run and every machine: where and what
 * follows from the file's path under the test data (LW_DIFF_SALT, a number,
 * picks other places, to search for more). Every reading must end: a hang
 * is a failure (the test's time limit).
 *
 * Checks too that pages are used at all with the serd installed here (the
 * serd lodwash was built for). Bounded by LW_DIFF_SECONDS (default 120).
 * Skipped when the shared test data is absent.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "rdf/rdf.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"

#define MAX_FILE_BYTES ((size_t)16 << 20)
#define READING_SECONDS 60 /* the largest file takes a few seconds */

typedef struct {
  LwBuf quads;
  LwBuf errors;
  unsigned long long stop_after; /* 0: never */
  unsigned long long seen;
} Sink;

static LwStatus on_quad(void *handle, const LwQuad *q)
{
  Sink *s = handle;
  if (s->stop_after && ++s->seen > s->stop_after) {
    return LW_ERR_IO;
  }
  return lw_nquads_append(&s->quads, q);
}

static void on_error(void *handle, unsigned line, unsigned column, const char *message)
{
  Sink *s = handle;
  char text[LW_ERROR_MESSAGE_MAX + 64];
  snprintf(text, sizeof(text), "%u:%u: %s\n", line, column, message);
  lw_buf_append_str(&s->errors, text);
}

typedef struct {
  LwFormat format;
  unsigned max_depth;
  unsigned long long stop_after;
} Way;

static size_t data_root_len; /* the test data's path, left out of seeds */
static unsigned long salt;

/* A reading that does not end says which one it is, at once. */
static char reading[4096];

static void on_hang(int signo)
{
  (void)signo;
  static const char head[] = "HANG: a reading did not end: ";
  ssize_t ignored = write(STDOUT_FILENO, head, sizeof(head) - 1);
  ignored = write(STDOUT_FILENO, reading, strlen(reading));
  (void)ignored;
  _exit(1);
}

/* Reads doc one way; the whole outcome as text (to free). */
static char *outcome(const char *doc, size_t len, const Way *w, bool bytewise)
{
  Sink sink = {LW_BUF_INIT, LW_BUF_INIT, w->stop_after, 0};
  LwReadOptions o = {.format = w->format,
                     .base_iri = "http://example.org/t",
                     .on_quad = on_quad,
                     .quad_handle = &sink,
                     .on_error = on_error,
                     .error_handle = &sink,
                     .max_depth = w->max_depth};
  LwReadStats stats = {0, 0};
  LwError err;
  lw_error_clear(&err);
  LwReadContext rc = {.options = &o,
                      .stats = &stats,
                      .err = &err,
                      .max_depth = w->max_depth ? w->max_depth : LW_READ_DEFAULT_MAX_DEPTH,
                      .max_term_bytes = LW_READ_DEFAULT_MAX_TERM_BYTES,
                      .serd_bytewise = bytewise,
                      .prescan_inline = bytewise};
  FILE *in = fmemopen((void *)doc, len, "rb");
  alarm(READING_SECONDS); /* on_hang */
  LwStatus st = len ? lw_rdf_read_serd(in, &rc) : LW_OK;
  alarm(0);
  if (in) {
    fclose(in);
  }
  LwBuf all = LW_BUF_INIT;
  char head[LW_ERROR_MESSAGE_MAX + 128];
  snprintf(head, sizeof(head), "status %d (%s), %llu statements, %llu errors\n", (int)st,
           err.message, stats.statements, stats.errors);
  lw_buf_append_str(&all, head);
  lw_buf_append(&all, sink.errors.data, sink.errors.len);
  lw_buf_append(&all, sink.quads.data, sink.quads.len);
  lw_buf_append_char(&all, '\0');
  lw_buf_free(&sink.quads);
  lw_buf_free(&sink.errors);
  return lw_buf_steal(&all);
}

typedef struct {
  unsigned files, readings, differ;
  time_t deadline;
  bool out_of_time;
} Tally;

static Tally tally;

static void compare(const char *path, const char *what, const char *doc, size_t len,
                    const Way *w)
{
  snprintf(reading, sizeof(reading), "%s (%s, LW_DIFF_SALT=%lu)\n", path + data_root_len,
           what, salt);
  char *paged = outcome(doc, len, w, false);
  char *bytewise = outcome(doc, len, w, true);
  ++tally.readings;
  if (strcmp(paged, bytewise) != 0) {
    ++tally.differ;
    size_t i = 0;
    while (paged[i] && paged[i] == bytewise[i]) {
      ++i;
    }
    size_t from = i > 200 ? i - 200 : 0;
    printf("DIFFER %s (%s): paged [...%.400s] bytewise [...%.400s]\n", path, what,
           paged + from, bytewise + from);
  }
  free(paged);
  free(bytewise);
}

/* Bytes that start or end something in Turtle: each breaks a document in
 * its own way. */
static const char *const damage[] = {
  "\"",      "'''", "<", ">",    "\\u00",    "\\",  "[",      "]",     "(",
  "{",       "}",   ".", ";",    "#",        "\n",  "_:",     "true.", "false.ish:",
  "@prefix", "^^",  "@", "\xFF", "\xE2\x82", "12.", "\"\"\"",
};

static unsigned long next_random(unsigned long *state)
{
  *state = *state * 6364136223846793005UL + 1442695040888963407UL;
  return *state >> 33;
}

static void compare_damaged(const char *path, const char *doc, size_t len, LwFormat format)
{
  unsigned long seed = 5381 + salt;
  for (const char *p = path + data_root_len; *p; ++p) {
    seed = seed * 33 + (unsigned char)*p;
  }
  size_t n_damage = sizeof(damage) / sizeof(damage[0]);
  Way plain = {format, 0, 0};
  for (int k = 0; k < 4; ++k) {
    size_t at = next_random(&seed) % (len + 1);
    const char *bad = damage[next_random(&seed) % n_damage];
    size_t bad_len = strlen(bad);
    bool with_nul = k == 3; /* a NUL byte is damage too */
    if (with_nul) {
      bad = "\0";
      bad_len = 1;
    }
    char *broken = malloc(len + bad_len);
    memcpy(broken, doc, at);
    memcpy(broken + at, bad, bad_len);
    memcpy(broken + at + bad_len, doc + at, len - at);
    compare(path, "damaged", broken, len + bad_len, &plain);
    free(broken);
  }
  compare(path, "cut short", doc, next_random(&seed) % (len + 1), &plain);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  (void)ftw;
  if (type != FTW_F) {
    return 0;
  }
  if (time(NULL) > tally.deadline) {
    tally.out_of_time = true;
    return 1;
  }
  size_t n = strlen(path);
  LwFormat format = n > 4 && !strcmp(path + n - 4, ".ttl")    ? LW_FORMAT_TURTLE
                    : n > 5 && !strcmp(path + n - 5, ".trig") ? LW_FORMAT_TRIG
                                                              : LW_FORMAT_UNKNOWN;
  if (format == LW_FORMAT_UNKNOWN || (size_t)st->st_size > MAX_FILE_BYTES) {
    return 0;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    return 0;
  }
  size_t len = (size_t)st->st_size;
  char *doc = malloc(len + 1);
  size_t got = fread(doc, 1, len, f);
  fclose(f);
  ++tally.files;
  Way plain = {format, 0, 0};
  Way shallow = {format, 2, 0};
  Way stopping = {format, 0, 5};
  compare(path, "as it is", doc, got, &plain);
  compare(path, "nesting cap 2", doc, got, &shallow);
  compare(path, "sink stops after 5", doc, got, &stopping);
  if (got <= (1u << 20)) {
    compare_damaged(path, doc, got, format);
  }
  free(doc);
  return 0;
}

/* An input that ends in a long string right after a lone quote: serd read
 * the pre-scanner's closing bad escape as part of the string, then on past
 * the end for ever (one byte at a time it hung). Both ways end now, with
 * the one error, located at the end of the input. */
static void test_end_in_long_string(void)
{
  const char *doc = "<http://e/s> <http://e/p> \"\"\"long\n\t\"";
  Way plain = {LW_FORMAT_TURTLE, 0, 0};
  for (int bytewise = 0; bytewise < 2; ++bytewise) {
    char *got = outcome(doc, strlen(doc), &plain, bytewise);
    CHECK_STR_EQ(got, "status 0 (), 0 statements, 1 errors\n"
                      "2:2: end of input inside a long string\n");
    free(got);
  }
}

/* W3C's turtle-syntax-bad-string-04 with ''' put in front: serd skips the
 * first line as an error, then reads a long string the pre-scanner took for
 * closed to the end of the input, fails there, and its recovery reads on
 * past the end until it meets a NUL. One byte at a time it was handed the
 * plain end of input for ever instead, and hung. Both ways end now, with
 * the error at the end of the input (not in the NULs after it). */
static void test_recovery_past_the_end(void)
{
  const char *doc = "'''@prefix : <http://www.w3.org/2013/TurtleTests/> .\n"
                    ":s :p \"\"\"abc''' .\n";
  Way plain = {LW_FORMAT_TURTLE, 0, 0};
  for (int bytewise = 0; bytewise < 2; ++bytewise) {
    char *got = outcome(doc, strlen(doc), &plain, bytewise);
    CHECK_STR_EQ(got, "status 0 (), 0 statements, 2 errors\n"
                      "1:2: bad verb\n"
                      "3:0: end of file in long string\n");
    free(got);
  }
}

int main(void)
{
  CHECK(lw_rdf_serd_paged()); /* the serd this was built for is installed */
  signal(SIGALRM, on_hang);
  snprintf(reading, sizeof(reading), "the tests of its own\n");
  test_end_in_long_string();
  test_recovery_past_the_end();
  const char *data = lw_test_require_testdata();
  data_root_len = strlen(data);
  const char *salt_text = getenv("LW_DIFF_SALT");
  salt = salt_text ? strtoul(salt_text, NULL, 10) : 0;
  const char *limit = getenv("LW_DIFF_SECONDS");
  tally.deadline = time(NULL) + (limit ? atoi(limit) : 120);
  nftw(data, visit, 16, FTW_PHYS);
  printf("paged and bytewise reading: %u files, %u readings compared, %u "
         "differ%s\n",
         tally.files, tally.readings, tally.differ,
         tally.out_of_time ? "; stopped at the time limit" : "");
  CHECK(tally.files > 0);
  CHECK_INT_EQ(tally.differ, 0);
  return lw_test_finish();
}
