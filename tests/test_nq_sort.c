/* External merge sort: order, duplicates, runs on disk, memory. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clean/clean.h"
#include "tests/support/check.h"

/* ---- helpers ------------------------------------------------------------ */

typedef struct {
  char *data;
  size_t len, cap;
  unsigned long long lines;
  int fail_after; /* >0: return an error at that line */
} Collect;

static LwStatus collect_sink(void *handle, const char *line, size_t len)
{
  Collect *c = handle;
  if (c->fail_after && (int)c->lines + 1 == c->fail_after) {
    return LW_ERR_IO;
  }
  if (c->len + len > c->cap) {
    c->cap = (c->len + len) * 2;
    c->data = realloc(c->data, c->cap);
  }
  memcpy(c->data + c->len, line, len);
  c->len += len;
  c->lines++;
  return LW_OK;
}

static uint64_t rng_state = 42;
static uint64_t rnd(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Lines like N-Quads: long shared prefixes, UTF-8, varying lengths. */
static size_t make_line(char *buf, size_t i)
{
  static const char *prefixes[] = {
    "<http://example.org/resource/",
    "<http://example.org/resource/item",
    "<http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "<https://d\xc3\xa9j\xc3\xa0.example/\xe2\x82\xac",
    "\"",
    "<",
  };
  const char *p = prefixes[i % 6];
  unsigned long long v = rnd() % 5000; /* duplicates on purpose */
  int n = snprintf(buf, 256, "%s%llu> <http://p/%llu> \"%.*s\" .\n", p, v, v % 7,
                   (int)(v % 40), "aaaaaaaaaabbbbbbbbbbccccccccccdddddddddd");
  return (size_t)n;
}

static int cmp_str(const void *a, const void *b)
{
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  size_t lx = strlen(x), ly = strlen(y);
  int c = memcmp(x, y, lx < ly ? lx : ly);
  return c ? c : (lx < ly ? -1 : lx > ly);
}

/* The expected output: sorted with memcmp, duplicates removed. */
static char *reference(char **lines, size_t n, size_t *out_len, size_t *distinct)
{
  qsort(lines, n, sizeof(*lines), cmp_str);
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    total += strlen(lines[i]) + 1;
  }
  char *out = malloc(total + 1);
  size_t len = 0;
  *distinct = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i && !strcmp(lines[i], lines[i - 1])) {
      continue;
    }
    size_t l = strlen(lines[i]);
    memcpy(out + len, lines[i], l);
    out[len + l] = '\n';
    len += l + 1;
    ++*distinct;
  }
  *out_len = len;
  return out;
}

static int count_files(const char *dir)
{
  DIR *d = opendir(dir);
  if (!d) {
    return 0;
  }
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      ++n;
    }
  }
  closedir(d);
  return n;
}

/* Sorts n generated lines with budget and checks against the reference. */
static void check_sort(const char *data_dir, size_t n, size_t budget,
                       unsigned expect_min_runs)
{
  rng_state = 42 + n;
  char **lines = malloc(n * sizeof(*lines));
  LwSortOptions opts = {.data_dir = data_dir, .memory_budget = budget};
  LwSorter *s = lw_sorter_new(&opts);
  LwError err = {0};
  char buf[256];
  for (size_t i = 0; i < n; ++i) {
    size_t len = make_line(buf, i);
    CHECK_INT_EQ(lw_sorter_add(s, buf, len, &err), LW_OK);
    buf[len - 1] = '\0';
    lines[i] = strdup(buf);
  }
  Collect c = {0};
  CHECK_INT_EQ(lw_sorter_finish(s, collect_sink, &c, &err), LW_OK);
  LwSortStats st = lw_sorter_stats(s);
  size_t ref_len = 0, distinct = 0;
  char *ref = reference(lines, n, &ref_len, &distinct);
  CHECK_INT_EQ(c.len, ref_len);
  CHECK(c.len == ref_len && !memcmp(c.data, ref, ref_len));
  CHECK_INT_EQ(st.lines_in, n);
  CHECK_INT_EQ(st.lines_out, distinct);
  CHECK_INT_EQ(st.duplicates, n - distinct);
  CHECK_INT_EQ(st.bytes_out, ref_len);
  CHECK(st.runs >= expect_min_runs);
  if (expect_min_runs == 0) {
    CHECK_INT_EQ(st.runs, 0);
  }
  lw_sorter_free(s);
  char tmp[4096];
  snprintf(tmp, sizeof(tmp), "%s/tmp", data_dir);
  CHECK_INT_EQ(count_files(tmp), 0); /* runs removed */
  for (size_t i = 0; i < n; ++i) {
    free(lines[i]);
  }
  free(lines);
  free(ref);
  free(c.data);
}

/* ---- tests -------------------------------------------------------------- */

static void test_free_null(void)
{
  lw_sorter_free(NULL);
  CHECK(true);
}

static void test_edges(const char *dir)
{
  LwSortOptions opts = {.data_dir = dir, .memory_budget = 0};
  LwSorter *s = lw_sorter_new(&opts);
  LwError err = {0};
  const char *in[] = {"b\n",
                      "ab\n",
                      "a\n",
                      "\n",
                      "a",
                      "ab\n",
                      "abcdefgh\n",
                      "abcdefg\n",
                      "abcdefgh\n",
                      "abcdefghijklmnopq\n",
                      "abcdefghijklmnop\n",
                      "\xc3\xa9\n",
                      "z\n"};
  for (size_t i = 0; i < sizeof(in) / sizeof(*in); ++i) {
    CHECK_INT_EQ(lw_sorter_add(s, in[i], strlen(in[i]), &err), LW_OK);
  }
  lw_sorter_add(s, "", 0, &err); /* nothing: not a line */
  Collect c = {0};
  CHECK_INT_EQ(lw_sorter_finish(s, collect_sink, &c, &err), LW_OK);
  const char *want = "\na\nab\nabcdefg\nabcdefgh\nabcdefghijklmnop\n"
                     "abcdefghijklmnopq\nb\nz\n\xc3\xa9\n";
  CHECK(c.len == strlen(want) && !memcmp(c.data, want, c.len));
  LwSortStats st = lw_sorter_stats(s);
  CHECK_INT_EQ(st.lines_in, 13);
  CHECK_INT_EQ(st.lines_out, 10);
  CHECK_INT_EQ(st.duplicates, 3);
  CHECK_INT_EQ(st.runs, 0);
  CHECK_INT_EQ(st.merge_passes, 0);
  lw_sorter_free(s);
  free(c.data);
}

/* Lines that agree on hundreds of bytes and many equal lines: the deep
 * slices and the all-equal groups. */
static void test_long_prefixes(const char *dir)
{
  LwSortOptions opts = {.data_dir = dir, .memory_budget = 1 << 20};
  LwSorter *s = lw_sorter_new(&opts);
  LwError err = {0};
  char line[700];
  memset(line, 'x', 600);
  size_t n = 3000;
  char **lines = malloc(n * sizeof(*lines));
  rng_state = 7;
  for (size_t i = 0; i < n; ++i) {
    int k = snprintf(line + 600, 100, "%llu\n", (unsigned long long)(rnd() % 500));
    CHECK_INT_EQ(lw_sorter_add(s, line, 600 + (size_t)k, &err), LW_OK);
    line[600 + k - 1] = '\0';
    lines[i] = strdup(line);
  }
  Collect c = {0};
  CHECK_INT_EQ(lw_sorter_finish(s, collect_sink, &c, &err), LW_OK);
  size_t ref_len, distinct;
  char *ref = reference(lines, n, &ref_len, &distinct);
  CHECK(c.len == ref_len && !memcmp(c.data, ref, ref_len));
  CHECK(lw_sorter_stats(s).runs >= 1);
  lw_sorter_free(s);
  for (size_t i = 0; i < n; ++i) {
    free(lines[i]);
  }
  free(lines);
  free(ref);
  free(c.data);
}

/* A line longer than the whole budget becomes a run of its own. */
static void test_giant_line(const char *dir)
{
  LwSortOptions opts = {.data_dir = dir, .memory_budget = 64 << 10};
  LwSorter *s = lw_sorter_new(&opts);
  LwError err = {0};
  size_t big = 200 << 10;
  char *giant = malloc(big + 1);
  memset(giant, 'm', big);
  giant[big] = '\n';
  CHECK_INT_EQ(lw_sorter_add(s, "z\n", 2, &err), LW_OK);
  CHECK_INT_EQ(lw_sorter_add(s, giant, big + 1, &err), LW_OK);
  CHECK_INT_EQ(lw_sorter_add(s, "a\n", 2, &err), LW_OK);
  CHECK_INT_EQ(lw_sorter_add(s, giant, big + 1, &err), LW_OK);
  Collect c = {0};
  CHECK_INT_EQ(lw_sorter_finish(s, collect_sink, &c, &err), LW_OK);
  CHECK_INT_EQ(c.lines, 3);
  CHECK_INT_EQ(c.len, 2 + big + 1 + 2);
  CHECK(c.len > 2 && c.data[0] == 'a' && c.data[2] == 'm' && c.data[c.len - 2] == 'z');
  CHECK_INT_EQ(lw_sorter_stats(s).duplicates, 1);
  lw_sorter_free(s);
  free(giant);
  free(c.data);
}

/* A failing sink stops the merge; the runs are still removed. */
static void test_error_removes_runs(const char *dir)
{
  LwSortOptions opts = {.data_dir = dir, .memory_budget = 64 << 10};
  LwSorter *s = lw_sorter_new(&opts);
  LwError err = {0};
  char buf[256];
  rng_state = 3;
  for (size_t i = 0; i < 20000; ++i) {
    size_t len = make_line(buf, i);
    lw_sorter_add(s, buf, len, &err);
  }
  char tmp[4096];
  snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
  CHECK(count_files(tmp) > 1);
  Collect c = {.fail_after = 100};
  CHECK(lw_sorter_finish(s, collect_sink, &c, &err) > LW_NOTHING);
  CHECK(err.message[0] != '\0');
  lw_sorter_free(s);
  CHECK_INT_EQ(count_files(tmp), 0);
  free(c.data);
}

/* The same lines through `LC_ALL=C sort -u`: byte for byte the same. */
static void test_against_sort_u(const char *dir)
{
  char in_path[4096], out_path[4096], cmd[9000];
  snprintf(in_path, sizeof(in_path), "%s/in.txt", dir);
  snprintf(out_path, sizeof(out_path), "%s/sorted.txt", dir);
  FILE *f = fopen(in_path, "wb");
  LwSortOptions opts = {.data_dir = dir, .memory_budget = 128 << 10};
  LwSorter *s = lw_sorter_new(&opts);
  LwError err = {0};
  char buf[256];
  rng_state = 99;
  for (size_t i = 0; i < 30000; ++i) {
    size_t len = make_line(buf, i);
    fwrite(buf, 1, len, f);
    lw_sorter_add(s, buf, len, &err);
  }
  fclose(f);
  snprintf(cmd, sizeof(cmd), "LC_ALL=C sort -u '%s' > '%s'", in_path, out_path);
  if (system(cmd) != 0) {
    lw_sorter_free(s);
    CHECK(!"sort -u failed");
    return;
  }
  Collect c = {0};
  CHECK_INT_EQ(lw_sorter_finish(s, collect_sink, &c, &err), LW_OK);
  f = fopen(out_path, "rb");
  char *want = malloc(c.len + 1);
  size_t n = fread(want, 1, c.len + 1, f);
  fclose(f);
  CHECK_INT_EQ(n, c.len);
  CHECK(n == c.len && !memcmp(want, c.data, n));
  CHECK(lw_sorter_stats(s).merge_passes >= 1);
  lw_sorter_free(s);
  free(want);
  free(c.data);
  remove(in_path);
  remove(out_path);
}

/* ---- peak memory, in a child process ----------------------------------- */

static LwStatus count_sink(void *handle, const char *line, size_t len)
{
  (void)line;
  *(unsigned long long *)handle += len;
  return LW_OK;
}

/* Child: sorts `megabytes` MiB of distinct lines with the given budget. */
static int rss_child(const char *dir, size_t budget, size_t megabytes)
{
  LwSortOptions opts = {.data_dir = dir, .memory_budget = budget};
  LwSorter *s = lw_sorter_new(&opts);
  LwError err = {0};
  char buf[256];
  size_t total = 0;
  rng_state = 5;
  for (unsigned long long i = 0; total < megabytes << 20; ++i) {
    int n = snprintf(buf, sizeof(buf),
                     "<http://example.org/r/%llu> <http://example.org/p> "
                     "\"value %llu of a literal long enough to matter\" .\n",
                     (unsigned long long)rnd() % 100000000ULL, i);
    if (lw_sorter_add(s, buf, (size_t)n, &err) != LW_OK) {
      return 2;
    }
    total += (size_t)n;
  }
  unsigned long long out = 0;
  LwStatus st = lw_sorter_finish(s, count_sink, &out, &err);
  lw_sorter_free(s);
  return st == LW_OK && out > 0 ? 0 : 3;
}

static long child_peak_kib(const char *self, const char *dir, size_t budget,
                           size_t megabytes)
{
  char b[32], m[32];
  snprintf(b, sizeof(b), "%zu", budget);
  snprintf(m, sizeof(m), "%zu", megabytes);
  pid_t pid = fork();
  if (pid == 0) {
    execl(self, self, "--rss-child", dir, b, m, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    return -1;
  }
  return ru.ru_maxrss;
}

static void test_peak_memory(const char *dir)
{
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) {
    return;
  }
  self[n] = '\0';
  size_t budget = 4 << 20;
  long small = child_peak_kib(self, dir, budget, 1);
  long large = child_peak_kib(self, dir, budget, 48); /* 12 x the budget */
  printf("peak RSS: 1 MiB input %ld KiB, 48 MiB input %ld KiB (budget %zu KiB)\n", small,
         large, budget >> 10);
  CHECK(small > 0 && large > 0);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  puts("(sanitizer build: shadow memory makes RSS meaningless; not checked)");
  return;
#endif
  /* Within the budget plus a small constant, whatever the input size. */
  CHECK(large <= small + (long)(budget >> 10) + 2048);
  CHECK(large < 48 * 1024);
}

int main(int argc, char **argv)
{
  if (argc == 5 && !strcmp(argv[1], "--rss-child")) {
    return rss_child(argv[2], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10));
  }
  char *dir = lw_test_tmpdir();
  /* First, while this process is small: a forked child's ru_maxrss starts
   * from its parent's size. */
  test_peak_memory(dir);
  test_free_null();
  test_edges(dir);
  check_sort(dir, 5000, 0, 0);          /* in memory */
  check_sort(dir, 60000, 0, 0);         /* in memory, sorted in segments */
  check_sort(dir, 100000, 1 << 20, 2);  /* segments within each run */
  check_sort(dir, 40000, 256 << 10, 2); /* several runs, one merge */
  check_sort(dir, 40000, 64 << 10, 20); /* many runs, several passes */
  test_long_prefixes(dir);
  test_giant_line(dir);
  test_error_removes_runs(dir);
  test_against_sort_u(dir);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
