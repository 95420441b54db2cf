/*
 * A differential test: every Turtle, TriG, N-Triples, N-Quads and RDF/XML
 * file of the shared test data (the W3C suites, serd's extra tests, the
 * suites' expected results, the real dumps and vocabularies) read by
 * lodwash (lw_rdf_read) and by rapper (raptor2-utils, a second parser: for
 * all but RDF/XML independent of serd), and the Turtle, TriG, N-Triples and
 * N-Quads files by serdi too (serd 0.30 alone, strict: what lodwash's
 * corrections change), and the statements
 * compared up to blank node renaming, in canonical form (so that language
 * tags lower-cased by lodwash, which RDF 1.1 Concepts permits, compare
 * equal).
 *
 * Only files the other tool reads without an error are compared (negative tests and
 * broken dumps are checked elsewhere: test_w3c_rdf, test_clean); on those,
 * lodwash must report no error and give the same statements. Differences
 * that are deliberate (lodwash correcting rapper) are listed below with the
 * reason, printed, and not counted as failures; a listed file that stops
 * differing is reported too.
 *
 * Bounded: files above 16 MiB are left out, rapper gets 30 s a file, and the
 * whole run stops after LW_DIFF_SECONDS (default 240) with what it compared.
 * Skipped when rapper or the shared test data is absent.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"
#include "tests/support/dir_list.h"
#include "tests/support/error_count.h"
#include "tests/support/nquads_compare.h"
#include "tests/support/rapper.h"

#define MAX_FILE_BYTES ((off_t)16 << 20)

typedef struct {
  const char *file; /* the end of the path */
  const char *why;
} Listed;

#define RAPTOR_NUL                                                                         \
  "raptor 2.0.15 ends a literal at U+0000; lodwash keeps it "                              \
  "(the W3C result)"

/* Where lodwash differs from rapper on purpose: rapper is wrong (the W3C
 * suite or serd's expected result says so) or lodwash corrects it. */
static const Listed deliberate[] = {
  {"rdf-xml/rdfms-xmllang/test006.rdf",
   "raptor 2.0.15 drops xml:lang on property attributes; lodwash corrects it"},
  {"rdf-turtle/LITERAL1_all_controls.ttl", RAPTOR_NUL},
  {"rdf-turtle/LITERAL1_ascii_boundaries.ttl", RAPTOR_NUL},
  {"rdf-turtle/LITERAL2_ascii_boundaries.ttl", RAPTOR_NUL},
  {"rdf-turtle/LITERAL_LONG1_ascii_boundaries.ttl", RAPTOR_NUL},
  {"rdf-turtle/LITERAL_LONG2_ascii_boundaries.ttl", RAPTOR_NUL},
  {"rdf-trig/LITERAL1_all_controls.trig", RAPTOR_NUL},
  {"rdf-trig/LITERAL1_ascii_boundaries.trig", RAPTOR_NUL},
  {"rdf-trig/LITERAL2_ascii_boundaries.trig", RAPTOR_NUL},
  {"rdf-trig/LITERAL_LONG1_ascii_boundaries.trig", RAPTOR_NUL},
  {"rdf-trig/LITERAL_LONG2_ascii_boundaries.trig", RAPTOR_NUL},
  /* the N-Triples / N-Quads tests and the suites' expected results */
  {"rdf-n-quads/literal_all_controls.nq", RAPTOR_NUL},
  {"rdf-n-quads/literal_ascii_boundaries.nq", RAPTOR_NUL},
  {"rdf-n-triples/literal_all_controls.nt", RAPTOR_NUL},
  {"rdf-n-triples/literal_ascii_boundaries.nt", RAPTOR_NUL},
  {"rdf-trig/LITERAL1_all_controls.nq", RAPTOR_NUL},
  {"rdf-trig/LITERAL1_ascii_boundaries.nq", RAPTOR_NUL},
  {"rdf-trig/LITERAL2_ascii_boundaries.nq", RAPTOR_NUL},
  {"rdf-trig/LITERAL_LONG1_ascii_boundaries.nq", RAPTOR_NUL},
  {"rdf-trig/LITERAL_LONG2_ascii_boundaries.nq", RAPTOR_NUL},
  {"rdf-turtle/LITERAL1_all_controls.nt", RAPTOR_NUL},
  {"rdf-turtle/LITERAL1_ascii_boundaries.nt", RAPTOR_NUL},
  {"rdf-turtle/LITERAL2_ascii_boundaries.nt", RAPTOR_NUL},
  {"rdf-turtle/LITERAL_LONG1_ascii_boundaries.nt", RAPTOR_NUL},
  {"rdf-turtle/LITERAL_LONG2_ascii_boundaries.nt", RAPTOR_NUL},
  {"rdf-turtle/IRI-resolution-08.ttl",
   "raptor 2.0.15 resolves <../xyz> against <http://ab//de/ghi> wrongly; "
   "lodwash gives the W3C result"},
  {"rdf-trig/IRI-resolution-08.trig",
   "raptor 2.0.15 resolves <../xyz> against <http://ab//de/ghi> wrongly; "
   "lodwash gives the W3C result"},
  {"extra/good/test-base-nopath.ttl",
   "raptor 2.0.15 resolves <s> against <http://example.org> to "
   "<http://example.orgs>; lodwash follows RFC 3986 (serd's result)"},
  {"html5-invalid/0295.ttl",
   "raptor 2.0.15 removes dot segments from an absolute IRI "
   "(<http://example.org/foo/..>); lodwash keeps IRIs as written (RDF 1.1)"},
  {NULL, NULL},
};

/* Where lodwash is wrong and rapper right: known, not fixed yet. */
static const Listed known_bugs[] = {
  {NULL, NULL},
};

/* Where lodwash differs from serdi (serd 0.30.16 alone, strict) on
 * purpose: lodwash corrects serd (docs/parse.md). */
#define SERD_DOT                                                                           \
  "serd 0.30 reads a number right before the final dot (\"9.\") as a plain "            \
  "string; lodwash reads the number and the dot (the W3C result)"
#define SERD_RESOLUTION "serd 0.30 resolves relative IRIs wrongly here; lodwash gives the W3C result"
#define SERD_SURROGATE                                                                     \
  "serd 0.30 takes escaped surrogates (\\ud801\\udc69) as characters; an RDF "             \
  "string holds none: lodwash refuses the statement"

static const Listed serdi_deliberate[] = {
  {"extra/good/test-integer-ends-with-dot.ttl", SERD_DOT},
  {"extra/good/test-trig-syntax-all-rules.trig", SERD_DOT},
  {"extra/good/test-ttl-syntax-all-rules.ttl", SERD_DOT},
  {"rdf-trig/trig-syntax-number-08.trig", SERD_DOT},
  {"rdf-turtle/turtle-syntax-number-08.ttl", SERD_DOT},
  {"rdf-trig/IRI-resolution-01.trig", SERD_RESOLUTION},
  {"rdf-trig/IRI-resolution-02.trig", SERD_RESOLUTION},
  {"rdf-trig/IRI-resolution-07.trig", SERD_RESOLUTION},
  {"rdf-trig/IRI-resolution-08.trig", SERD_RESOLUTION},
  {"rdf-turtle/IRI-resolution-01.ttl", SERD_RESOLUTION},
  {"rdf-turtle/IRI-resolution-02.ttl", SERD_RESOLUTION},
  {"rdf-turtle/IRI-resolution-07.ttl", SERD_RESOLUTION},
  {"rdf-turtle/IRI-resolution-08.ttl", SERD_RESOLUTION},
  {"rdf-turtle/test-38.ttl", SERD_SURROGATE},
  {"rdf-turtle/test-38.nt", SERD_SURROGATE},
  {NULL, NULL},
};

/* Where lodwash is wrong and serdi right: known, not fixed yet. */
static const Listed serdi_known_bugs[] = {
  {NULL, NULL},
};

static const char *listed(const Listed *list, const char *path)
{
  size_t n = strlen(path);
  for (size_t i = 0; list[i].file; ++i) {
    size_t k = strlen(list[i].file);
    if (n >= k && !strcmp(path + n - k, list[i].file)) {
      return list[i].why;
    }
  }
  return NULL;
}

/* Negative tests: serd's bad, eof and lax folders and the W3C "-bad-"
 * files are invalid on purpose (rapper accepts some of them: bad UTF-8,
 * bad escapes); test_serd_extra and test_w3c_rdf check them. */
static bool negative_test(const char *path)
{
  const char *name = strrchr(path, '/');
  return strstr(path, "/extra/bad/") || strstr(path, "/extra/eof/") ||
         strstr(path, "/extra/lax/") || (name && strstr(name, "-bad-"));
}

typedef struct {
  unsigned compared, same, known, bugs, differ;
} Count;

typedef struct {
  Count rapper, serdi_count;
  bool serdi; /* serdi is installed */
  unsigned rapper_refused, serdi_refused, too_big, negative;
  time_t deadline;
  bool out_of_time;
} Tally;

static bool ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

/* The format of path by its name (and, for .owl, its first character). */
static LwFormat format_of(const char *path)
{
  if (ends_with(path, ".ttl")) {
    return LW_FORMAT_TURTLE;
  }
  if (ends_with(path, ".trig")) {
    return LW_FORMAT_TRIG;
  }
  if (ends_with(path, ".rdf")) {
    return LW_FORMAT_RDFXML;
  }
  if (ends_with(path, ".nt")) {
    return LW_FORMAT_NTRIPLES;
  }
  if (ends_with(path, ".nq")) {
    return LW_FORMAT_NQUADS;
  }
  if (ends_with(path, ".owl")) {
    FILE *f = fopen(path, "rb");
    int c = ' ';
    while (f && (c = fgetc(f)) != EOF &&
           (c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
    }
    if (f) {
      fclose(f);
    }
    return c == '<' ? LW_FORMAT_RDFXML : LW_FORMAT_TURTLE;
  }
  return LW_FORMAT_UNKNOWN;
}

/* rapper's statements for path into g; false when rapper reports any
 * error or warning (then the file is not compared). */
static bool read_with_rapper(const char *path, LwFormat format, const char *base,
                             LwTestGraph *g)
{
  const char *name = format == LW_FORMAT_RDFXML     ? "rdfxml"
                     : format == LW_FORMAT_TRIG     ? "trig"
                     : format == LW_FORMAT_NTRIPLES ? "ntriples"
                     : format == LW_FORMAT_NQUADS   ? "nquads"
                                                    : "turtle";
  return lw_test_rapper_read(path, name, base, g);
}

/* lodwash's reading of path: its statements into g; false (why said) when
 * it reported an error. */
static bool read_with_lodwash(const char *path, LwFormat format, const char *base,
                              LwTestGraph *g, char *why, size_t size)
{
  FILE *in = fopen(path, "rb");
  LwTestErrors e = {0};
  LwReadOptions o = {.format = format,
                     .base_iri = base,
                     .on_quad = lw_test_graph_sink,
                     .quad_handle = g,
                     .on_error = lw_test_count_error,
                     .error_handle = &e};
  LwReadStats stats;
  LwError err = {0};
  LwStatus status = in ? lw_rdf_read(in, &o, &stats, &err) : LW_ERR_IO;
  if (in) {
    fclose(in);
  }
  if (status != LW_OK || e.errors) {
    snprintf(why, size, "lodwash: %s, %u errors (%s) %s", lw_status_name(status), e.errors,
             e.first, err.message);
    return false;
  }
  return true;
}

/* One comparison's verdict, counted and printed (tool: whose reading). */
static void judge(const char *path, const char *tool, bool same, const char *why,
                  const Listed *deliberate_list, const Listed *bug_list, Count *n)
{
  const char *known = listed(deliberate_list, path);
  const char *bug = listed(bug_list, path);
  ++n->compared;
  if (same) {
    ++n->same;
    if (known || bug) {
      printf("NOTE %s no longer differs from %s: drop it from the list\n", path, tool);
    }
  } else if (known) {
    ++n->known;
    printf("DELIBERATE (%s) %s: %s\n", tool, path, known);
  } else if (bug) {
    ++n->bugs;
    printf("KNOWN BUG (%s) %s: %s\n", tool, path, bug);
  } else {
    ++n->differ;
    printf("DIFFER (%s) %s: %s\n", tool, path, why);
  }
}

/* serdi's statements for path into g; false when serdi reports any error
 * (then the file is not compared with it). */
static bool read_with_serdi(const char *path, LwFormat format, const char *base,
                            LwTestGraph *g)
{
  const char *name = format == LW_FORMAT_TRIG       ? "trig"
                     : format == LW_FORMAT_NTRIPLES ? "ntriples"
                     : format == LW_FORMAT_NQUADS   ? "nquads"
                                                    : "turtle";
  return lw_test_serdi_read(path, name, base, g);
}

static void compare_file(const char *path, Tally *t)
{
  LwFormat format = format_of(path);
  struct stat st;
  if (format == LW_FORMAT_UNKNOWN || stat(path, &st) != 0) {
    return;
  }
  if (negative_test(path)) {
    ++t->negative;
    return;
  }
  if (st.st_size > MAX_FILE_BYTES) {
    ++t->too_big;
    return;
  }
  char base[4200];
  snprintf(base, sizeof(base), "file://%s", path);
  LwTestGraph ours = LW_TEST_GRAPH_INIT;
  char lodwash_why[1024] = "";
  bool clean = read_with_lodwash(path, format, base, &ours, lodwash_why, sizeof(lodwash_why));
  LwTestGraph theirs = LW_TEST_GRAPH_INIT;
  char why[1024] = "";
  if (!read_with_rapper(path, format, base, &theirs)) {
    ++t->rapper_refused;
  } else {
    bool same = clean && lw_test_graph_isomorphic(&ours, &theirs, why, sizeof(why));
    judge(path, "rapper", same, clean ? why : lodwash_why, deliberate, known_bugs,
          &t->rapper);
  }
  lw_test_graph_free(&theirs);
  theirs = (LwTestGraph)LW_TEST_GRAPH_INIT;
  if (t->serdi && format != LW_FORMAT_RDFXML) {
    if (!read_with_serdi(path, format, base, &theirs)) {
      ++t->serdi_refused;
    } else {
      bool same = clean && lw_test_graph_isomorphic(&ours, &theirs, why, sizeof(why));
      judge(path, "serdi", same, clean ? why : lodwash_why, serdi_deliberate,
            serdi_known_bugs, &t->serdi_count);
    }
    lw_test_graph_free(&theirs);
  }
  lw_test_graph_free(&ours);
}

/* Every file under dir, in name order (the run is the same every time). */
static void walk(const char *dir, Tally *t)
{
  LwTestDirList entries;
  lw_test_dir_list(dir, "", &entries);
  for (size_t i = 0; i < entries.count; ++i) {
    char path[4096];
    snprintf(path, sizeof(path), "%.2000s/%.2000s", dir, entries.names[i]);
    struct stat st;
    if (time(NULL) > t->deadline) {
      t->out_of_time = true;
    } else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      walk(path, t);
    } else {
      compare_file(path, t);
    }
  }
  lw_test_dir_list_free(&entries);
}

int main(void)
{
  const char *data = lw_test_require_testdata();
  if (!lw_test_rapper_available()) {
    lw_test_skip("rapper (raptor2-utils) is not installed");
  }
  char root[4096];
  if (!realpath(data, root)) {
    lw_test_skip("shared test data not readable");
  }
  const char *limit = getenv("LW_DIFF_SECONDS");
  Tally t = {0};
  t.serdi = lw_test_serdi_available();
  t.deadline = time(NULL) + (limit ? atoi(limit) : 240);
  walk(root, &t);
  printf("differential: %u files compared with rapper: %u same, %u deliberate "
         "differences, %u known bugs, %u differ; not compared: %u negative "
         "tests, %u rapper refused, %u over 16 MiB%s\n",
         t.rapper.compared, t.rapper.same, t.rapper.known, t.rapper.bugs, t.rapper.differ,
         t.negative, t.rapper_refused, t.too_big,
         t.out_of_time ? "; stopped at the time limit" : "");
  printf("differential: %u files compared with serdi (strict)%s: %u same, %u deliberate "
         "differences, %u known bugs, %u differ; %u serdi refused\n",
         t.serdi_count.compared, t.serdi ? "" : " (not installed)", t.serdi_count.same,
         t.serdi_count.known, t.serdi_count.bugs, t.serdi_count.differ, t.serdi_refused);
  CHECK(t.rapper.compared > 0);
  CHECK_INT_EQ(t.rapper.differ, 0);
  CHECK_INT_EQ(t.serdi_count.differ, 0);
  return lw_test_finish();
}
