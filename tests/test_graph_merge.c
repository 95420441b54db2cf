/* The files store's import: subjects in the harvest are replaced, others
 * kept, every quad lands in the provider's graph, the changeset is exact and
 * a second run changes nothing. */
#include "graph_store/graph_store.h"

#include <stdlib.h>

#include "base/base.h"
#include "tests/support/check.h"

static char *dir;

static char *path_of(const char *name)
{
  static char paths[8][4096];
  static int next = 0;
  char *p = paths[next++ % 8];
  snprintf(p, 4096, "%s/%s", dir, name);
  return p;
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* The whole (gzip) file as one string. */
static char *slurp(const char *path)
{
  LwError err;
  LwLineReader *r = lw_line_reader_open(path, 1 << 20, &err);
  if (!r) {
    return strdup("(missing)");
  }
  size_t cap = 1 << 16, len = 0;
  char *s = calloc(cap, 1);
  const char *line;
  size_t n;
  while (lw_line_reader_next(r, &line, &n, &err) == LW_OK && len + n + 2 < cap) {
    memcpy(s + len, line, n);
    len += n;
    s[len++] = '\n';
  }
  lw_line_reader_close(r);
  return s;
}

/* As slurp, for files up to 1 MB. */
static char *slurp_big(const char *path)
{
  LwError err;
  LwLineReader *r = lw_line_reader_open(path, 1 << 20, &err);
  LwBuf s = LW_BUF_INIT;
  const char *line;
  size_t n;
  while (r && lw_line_reader_next(r, &line, &n, &err) == LW_OK) {
    lw_buf_append(&s, line, n);
    lw_buf_append_char(&s, '\n');
  }
  lw_line_reader_close(r);
  lw_buf_append(&s, "", 0);
  return s.data ? s.data : strdup("");
}

#define G "<http://g/p1>"

static LwStatus merge(const char *old, const char *const *news, size_t n, const char *out,
                      LwGraphMergeReport *report)
{
  LwError err;
  LwGraphMergeOptions o = {
    .graph_iri = "http://g/p1",
    .old_path = old,
    .new_paths = news,
    .new_count = n,
    .out_path = out,
    .added_path = path_of("added.nq.gz"),
    .removed_path = path_of("removed.nq.gz"),
  };
  LwStatus st = lw_graph_merge(&o, report, &err);
  if (st) {
    fprintf(stderr, "merge: %s\n", err.message);
  }
  return st;
}

static void test_first_import(void)
{
  char *a = strdup(path_of("a.nq")), *b = strdup(path_of("b.nq"));
  write_file(a, "<http://x/a> <http://p> \"1\" .\n"
                "<http://x/a> <http://p> \"2\" <http://g/other> .\n"
                "<http://x/b> <http://p> <http://x/a> .\n");
  write_file(b, "<http://x/a> <http://p> \"1\" .\n"
                "<http://x/c> <http://p> \"a b\"@en .\n");
  const char *news[] = {a, b};
  LwGraphMergeReport r;
  CHECK_INT_EQ(merge(NULL, news, 2, path_of("g1.nq.gz"), &r), LW_OK);
  char *graph = slurp(path_of("g1.nq.gz"));
  CHECK_STR_EQ(graph, "<http://x/a> <http://p> \"1\" " G " .\n"
                      "<http://x/a> <http://p> \"2\" " G " .\n"
                      "<http://x/b> <http://p> <http://x/a> " G " .\n"
                      "<http://x/c> <http://p> \"a b\"@en " G " .\n");
  CHECK_INT_EQ(r.triples, 4);
  CHECK_INT_EQ(r.subjects, 3);
  CHECK_INT_EQ(r.harvest_subjects, 3);
  CHECK_INT_EQ(r.added, 4);
  CHECK_INT_EQ(r.removed, 0);
  CHECK_INT_EQ(r.foreign_graph, 1);
  free(graph);
  free(a);
  free(b);
}

static void test_partial_update(void)
{
  char *old = strdup(path_of("old.nq"));
  write_file(old, "<http://x/a> <http://p> \"a1\" " G " .\n"
                  "<http://x/b> <http://p> \"b1\" " G " .\n"
                  "<http://x/b> <http://p> \"b2\" " G " .\n"
                  "<http://x/c> <http://p> \"c1\" " G " .\n");
  char *dump = strdup(path_of("dump.nq"));
  write_file(dump, "<http://x/b> <http://p> \"b2\" .\n"
                   "<http://x/b> <http://p> \"b3\" .\n"
                   "<http://x/d> <http://p> \"d1\" .\n");
  const char *news[] = {dump};
  LwGraphMergeReport r;
  char *out = strdup(path_of("g2.nq.gz"));
  CHECK_INT_EQ(merge(old, news, 1, out, &r), LW_OK);
  char *graph = slurp(out);
  CHECK_STR_EQ(graph, "<http://x/a> <http://p> \"a1\" " G " .\n"
                      "<http://x/b> <http://p> \"b2\" " G " .\n"
                      "<http://x/b> <http://p> \"b3\" " G " .\n"
                      "<http://x/c> <http://p> \"c1\" " G " .\n"
                      "<http://x/d> <http://p> \"d1\" " G " .\n");
  char *added = slurp(path_of("added.nq.gz"));
  char *removed = slurp(path_of("removed.nq.gz"));
  CHECK_STR_EQ(added, "<http://x/b> <http://p> \"b3\" " G " .\n"
                      "<http://x/d> <http://p> \"d1\" " G " .\n");
  CHECK_STR_EQ(removed, "<http://x/b> <http://p> \"b1\" " G " .\n");
  CHECK_INT_EQ(r.harvest_subjects, 2);
  CHECK_INT_EQ(r.subjects, 4);

  /* The same harvest again: the same graph, an empty changeset. */
  LwGraphMergeReport r2;
  CHECK_INT_EQ(merge(out, news, 1, path_of("g3.nq.gz"), &r2), LW_OK);
  char *again = slurp(path_of("g3.nq.gz"));
  CHECK_STR_EQ(again, graph);
  CHECK_INT_EQ(r2.added, 0);
  CHECK_INT_EQ(r2.removed, 0);
  free(graph);
  free(again);
  free(added);
  free(removed);
  free(old);
  free(dump);
  free(out);
}

/* Subjects that are prefixes of each other stay apart. */
static void test_subject_prefixes(void)
{
  char *old = strdup(path_of("old2.nq"));
  write_file(old, "<http://x/a/b> <http://p> \"ab\" " G " .\n"
                  "<http://x/a> <http://p> \"a\" " G " .\n"
                  "<http://x/ab> <http://p> \"x\" " G " .\n");
  char *dump = strdup(path_of("dump2.nq"));
  write_file(dump, "<http://x/a> <http://p> \"new\" .\n");
  const char *news[] = {dump};
  LwGraphMergeReport r;
  CHECK_INT_EQ(merge(old, news, 1, path_of("g4.nq.gz"), &r), LW_OK);
  char *graph = slurp(path_of("g4.nq.gz"));
  CHECK_STR_EQ(graph, "<http://x/a/b> <http://p> \"ab\" " G " .\n"
                      "<http://x/a> <http://p> \"new\" " G " .\n"
                      "<http://x/ab> <http://p> \"x\" " G " .\n");
  CHECK_INT_EQ(r.removed, 1);
  free(graph);
  free(old);
  free(dump);
}

static void test_bad_input(void)
{
  char *dump = strdup(path_of("unsorted.nq"));
  write_file(dump, "<http://x/b> <http://p> \"1\" .\n<http://x/a> <http://p> \"1\" .\n");
  const char *news[] = {dump};
  LwGraphMergeReport r;
  LwError err;
  LwGraphMergeOptions o = {.graph_iri = "http://g/p1",
                           .new_paths = news,
                           .new_count = 1,
                           .out_path = path_of("g5.nq.gz")};
  CHECK_INT_EQ(lw_graph_merge(&o, &r, &err), LW_ERR_FORMAT);
  CHECK(strstr(err.message, "not sorted") != NULL);
  write_file(dump, "garbage\n");
  CHECK_INT_EQ(lw_graph_merge(&o, &r, &err), LW_ERR_FORMAT);
  free(dump);
}

/* Several clean files with lines repeated inside one file and across files
 * (the k-way merge's duplicates): the graph is their sorted union, each
 * line once, whichever files the lines came from. */
static void test_many_files_with_repeats(void)
{
  enum { FILES = 4, LINES = 3000 };
  char *paths[FILES];
  FILE *files[FILES];
  for (int f = 0; f < FILES; ++f) {
    char name[32];
    snprintf(name, sizeof(name), "part%d.nq", f);
    paths[f] = strdup(path_of(name));
    files[f] = fopen(paths[f], "w");
  }
  /* Line i goes to some files, sometimes twice: a fixed pseudo-random draw. */
  unsigned long long x = 7;
  LwBuf expected = LW_BUF_INIT;
  for (int i = 0; i < LINES; ++i) {
    bool anywhere = false;
    for (int f = 0; f < FILES; ++f) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      int copies = (int)(x >> 62); /* 0 to 3 */
      for (int c = 0; c < copies; ++c) {
        fprintf(files[f], "<http://x/s%04d> <http://p> \"%05d\" .\n", i / 3, i);
      }
      anywhere = anywhere || copies;
    }
    if (anywhere) {
      lw_buf_appendf(&expected, "<http://x/s%04d> <http://p> \"%05d\" " G " .\n", i / 3, i);
    }
  }
  for (int f = 0; f < FILES; ++f) {
    fclose(files[f]);
  }
  LwGraphMergeReport r;
  CHECK_INT_EQ(merge(NULL, (const char *const *)paths, FILES, path_of("g6.nq.gz"), &r),
               LW_OK);
  char *graph = slurp_big(path_of("g6.nq.gz"));
  CHECK_STR_EQ(graph, expected.data);
  CHECK_INT_EQ(r.added, r.triples);
  free(graph);
  lw_buf_free(&expected);
  for (int f = 0; f < FILES; ++f) {
    free(paths[f]);
  }
}

static void test_split_line(void)
{
  size_t t, gs, gl;
  const char *l1 = "<s> <p> \"a \\\" b\"@en <g> .";
  CHECK(lw_nquads_split_line(l1, strlen(l1), &t, &gs, &gl));
  CHECK_INT_EQ(t, strlen("<s> <p> \"a \\\" b\"@en"));
  CHECK_INT_EQ(gl, 3);
  const char *l2 = "<s> <p> \"x\"^^<http://dt> .";
  CHECK(lw_nquads_split_line(l2, strlen(l2), &t, &gs, &gl));
  CHECK_INT_EQ(gl, 0);
  CHECK(!lw_nquads_split_line("<s> <p>", 7, &t, &gs, &gl));
}

int main(void)
{
  dir = lw_test_tmpdir();
  test_split_line();
  test_first_import();
  test_partial_update();
  test_subject_prefixes();
  test_bad_input();
  test_many_files_with_repeats();
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
