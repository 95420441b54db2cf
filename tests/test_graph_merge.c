/* The files store's import: subjects in the harvest are replaced, others
 * kept, every quad lands in the provider's graph, the changeset is exact and
 * a second run changes nothing. */
#include "graph_store/graph_store.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/base.h"
#include "tests/support/check.h"
#include "tests/support/dir_list.h"

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
    .data_dir = dir,
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

/* How many times clean file f of n holds line i: 0 to 3 with a few files,
 * in about two files of many (a fixed pseudo-random draw). */
static int copies_of(int i, int f, int n)
{
  unsigned long long x = (unsigned long long)i * 1000003ULL + (unsigned long long)f + 7;
  for (int k = 0; k < 3; ++k) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  if (n <= 4) {
    return (int)(x >> 62);
  }
  return (x >> 33) % (unsigned long long)n < 2 ? 1 + (int)(x >> 62) % 2 : 0;
}

/* The files in a folder (0 when it does not exist). */
static int count_entries(const char *path)
{
  LwTestDirList list;
  lw_test_dir_list(path, "", &list);
  int n = (int)list.count;
  lw_test_dir_list_free(&list);
  return n;
}

/* A harvest of n clean files, lines repeated inside and across them (the
 * k-way merge's duplicates), every seventh line once in another graph: the
 * graph is their sorted union, each line once, in the provider's graph.
 * More than 64 files are merged in rounds through DATA/tmp (4,200: two
 * rounds), which must leave nothing there, and with 256 descriptors (4,200
 * files read at once would need more). */
static void many_files(int n, int lines)
{
  char **paths = calloc((size_t)n, sizeof(char *));
  unsigned long long foreign = 0;
  for (int f = 0; f < n; ++f) {
    char name[32];
    snprintf(name, sizeof(name), "part%d.nq", f);
    paths[f] = strdup(path_of(name));
    FILE *file = fopen(paths[f], "w");
    for (int i = 0; i < lines; ++i) {
      for (int c = copies_of(i, f, n); c > 0; --c) {
        bool other = i % 7 == 0 && c == 1;
        fprintf(file, "<http://x/s%04d> <http://p> \"%05d\"%s .\n", i / 3, i,
                other ? " <http://other/g>" : "");
        foreign += other;
      }
    }
    fclose(file);
  }
  LwBuf expected = LW_BUF_INIT;
  for (int i = 0; i < lines; ++i) {
    bool anywhere = false;
    for (int f = 0; f < n && !anywhere; ++f) {
      anywhere = copies_of(i, f, n) > 0;
    }
    if (anywhere) {
      lw_buf_appendf(&expected, "<http://x/s%04d> <http://p> \"%05d\" " G " .\n", i / 3, i);
    }
  }
  /* At most 256 descriptors: what a merge of all files at once would pass. */
  struct rlimit before, low;
  getrlimit(RLIMIT_NOFILE, &before);
  low = before;
  low.rlim_cur = before.rlim_cur < 256 ? before.rlim_cur : 256;
  setrlimit(RLIMIT_NOFILE, &low);
  LwGraphMergeReport r;
  CHECK_INT_EQ(merge(NULL, (const char *const *)paths, (size_t)n, path_of("g6.nq.gz"), &r),
               LW_OK);
  setrlimit(RLIMIT_NOFILE, &before);
  char *graph = slurp_big(path_of("g6.nq.gz"));
  CHECK_STR_EQ(graph, expected.data ? expected.data : "");
  CHECK_INT_EQ(r.added, r.triples);
  CHECK_INT_EQ(r.foreign_graph, foreign);
  CHECK_INT_EQ(count_entries(path_of("tmp")), 0);
  free(graph);
  lw_buf_free(&expected);
  for (int f = 0; f < n; ++f) {
    unlink(paths[f]);
    free(paths[f]);
  }
  free(paths);
}

/* One bad file among many, read in a round: the merge fails naming it,
 * and leaves nothing in DATA/tmp. */
static void test_many_files_one_bad(void)
{
  enum { N = 100 };
  char *paths[N];
  for (int f = 0; f < N; ++f) {
    char name[32];
    snprintf(name, sizeof(name), "bad%d.nq", f);
    paths[f] = strdup(path_of(name));
    write_file(paths[f], f == 70 ? "<http://x/s> <http://p> not a line\n"
                                 : "<http://x/s> <http://p> \"v\" .\n");
  }
  LwError err = {0};
  LwGraphMergeOptions o = {.graph_iri = "http://g/p1",
                           .new_paths = (const char *const *)paths,
                           .new_count = N,
                           .data_dir = dir,
                           .out_path = path_of("g7.nq.gz")};
  LwGraphMergeReport r;
  CHECK_INT_EQ(lw_graph_merge(&o, &r, &err), LW_ERR_FORMAT);
  CHECK(strstr(err.message, "bad70.nq") != NULL);
  CHECK_INT_EQ(count_entries(path_of("tmp")), 0);
  for (int f = 0; f < N; ++f) {
    unlink(paths[f]);
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
  many_files(4, 3000);
  many_files(150, 3000);
  many_files(4200, 4300);
  test_many_files_one_bad();
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
