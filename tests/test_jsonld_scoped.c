/* JSON-LD type-scoped contexts cost what the document is worth (issue 24,
 * item 5). The context bomb: one node with N types, each with a scoped
 * context of its own, cost O(N^2) or worse (10,000 types, 835 KB: 145 s).
 * Now scoped contexts are cached per (context, scoped context) and capped
 * (LW_JSONLD_MAX_SCOPED per node, LW_JSONLD_MAX_SCOPED_DEPTH nested): the
 * bomb fails at once with a clear error; a document within the caps gives
 * the statements of an undisturbed run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "jsonld/jsonld.h"
#include "tests/support/check.h"

/* The statements of a run, one N-Triples-like line each, sorted. */
typedef struct {
  LwBuf lines;
  size_t count;
} Quads;

static LwStatus keep_quad(void *handle, const LwQuad *q)
{
  Quads *k = handle;
  ++k->count;
  lw_buf_appendf(&k->lines, "%s %s %s\n", q->subject.value, q->predicate.value,
                 q->object.value);
  return LW_OK;
}

static int cmp_line(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* k's lines sorted, as one string (caller frees). */
static char *sorted(Quads *k)
{
  char *text = lw_buf_steal(&k->lines);
  size_t n = 0;
  for (char *c = text; c && *c; ++c) {
    n += *c == '\n';
  }
  char **lines = calloc(n + 1, sizeof(*lines));
  size_t i = 0;
  for (char *save = NULL, *l = text ? strtok_r(text, "\n", &save) : NULL; l;
       l = strtok_r(NULL, "\n", &save)) {
    lines[i++] = l;
  }
  qsort(lines, i, sizeof(*lines), cmp_line);
  LwBuf out = LW_BUF_INIT;
  for (size_t j = 0; j < i; ++j) {
    lw_buf_appendf(&out, "%s\n", lines[j]);
  }
  free(lines);
  free(text);
  char *s = lw_buf_steal(&out);
  return s ? s : strdup("");
}

/* Converts doc: status, statements (sorted; caller frees), CPU seconds. */
static LwStatus convert(const char *doc, char **quads, size_t *count, double *cpu,
                        LwError *err)
{
  Quads k = {LW_BUF_INIT, 0};
  LwJsonldOptions o = {0};
  o.on_quad = keep_quad;
  o.quad_handle = &k;
  lw_error_clear(err);
  struct timespec a, b;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
  LwStatus st = lw_jsonld_to_rdf_buffer(doc, strlen(doc), &o, NULL, err);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
  *cpu = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
  *count = k.count;
  *quads = sorted(&k);
  return st;
}

/* The document: nodes nodes, each with types types; type Ti has a
 * scoped context defining pi (scoped), or pi is defined beside the types
 * (!scoped: the undisturbed twin, the same statements). Every node has p0. */
static char *types_doc(size_t types, size_t nodes, bool scoped)
{
  LwBuf b = LW_BUF_INIT;
  lw_buf_append_str(&b, "{\"@context\":{");
  for (size_t i = 0; i < types; ++i) {
    if (scoped) {
      lw_buf_appendf(&b,
                     "%s\"T%zu\":{\"@id\":\"http://x/T%zu\",\"@context\":{\"p%zu\":"
                     "\"http://x/p%zu\"}}",
                     i ? "," : "", i, i, i, i);
    } else {
      lw_buf_appendf(&b, "%s\"T%zu\":\"http://x/T%zu\",\"p%zu\":\"http://x/p%zu\"",
                     i ? "," : "", i, i, i, i);
    }
  }
  lw_buf_append_str(&b, "},\"@graph\":[");
  for (size_t n = 0; n < nodes; ++n) {
    lw_buf_appendf(&b, "%s{\"@id\":\"http://x/n%zu\",\"@type\":[", n ? "," : "", n);
    for (size_t i = 0; i < types; ++i) {
      lw_buf_appendf(&b, "%s\"T%zu\"", i ? "," : "", i);
    }
    lw_buf_append_str(&b, "],\"p0\":\"v\"}");
  }
  lw_buf_append_str(&b, "]}");
  return lw_buf_steal(&b);
}

/* Within the caps: the statements of the twin without scoped contexts. */
static void test_within_caps(void)
{
  char *a = types_doc(LW_JSONLD_MAX_TYPE_SCOPED, 3, true);
  char *b = types_doc(LW_JSONLD_MAX_TYPE_SCOPED, 3, false);
  char *qa, *qb;
  size_t na, nb;
  double cpu;
  LwError err;
  CHECK_INT_EQ(convert(a, &qa, &na, &cpu, &err), LW_OK);
  CHECK_INT_EQ(convert(b, &qb, &nb, &cpu, &err), LW_OK);
  CHECK_INT_EQ(na, 3 * (LW_JSONLD_MAX_TYPE_SCOPED + 1));
  CHECK_STR_EQ(qa, qb);
  free(a);
  free(b);
  free(qa);
  free(qb);
}

/* The bomb: 10,000 types with contexts on one node (835 KB in the issue):
 * 145 s before; now the clear error, at once. */
static void test_bomb(void)
{
  char *doc = types_doc(10000, 1, true);
  char *q;
  size_t n;
  double cpu;
  LwError err;
  CHECK_INT_EQ(convert(doc, &q, &n, &cpu, &err), LW_ERR_LIMIT);
  CHECK_STR_EQ(
    err.message,
    "context overflow: a node with more than 64 types that have scoped contexts");
  CHECK_INT_EQ(n, 0);
  fprintf(stderr, "10,000 types (%zu KB): %.2f s of CPU: %s\n", strlen(doc) / 1024, cpu,
          err.message);
  CHECK(cpu < 10.0); /* generous: a loaded machine; it was 145 s */
  free(doc);
  free(q);
}

/* Many nodes applying the same large scoped context: processed once
 * (cached), the statements of the twin without it. */
static void test_cache(void)
{
  LwBuf b = LW_BUF_INIT, t = LW_BUF_INIT;
  lw_buf_append_str(&b, "{\"@context\":{\"T\":{\"@id\":\"http://x/T\",\"@context\":{");
  lw_buf_append_str(&t, "{\"@context\":{\"T\":\"http://x/T\",");
  for (int i = 0; i < 500; ++i) {
    lw_buf_appendf(&b, "%s\"q%d\":\"http://x/q%d\"", i ? "," : "", i, i);
    lw_buf_appendf(&t, "%s\"q%d\":\"http://x/q%d\"", i ? "," : "", i, i);
  }
  lw_buf_append_str(&b, "}}},\"@graph\":[");
  lw_buf_append_str(&t, "},\"@graph\":[");
  for (int n = 0; n < 20000; ++n) {
    lw_buf_appendf(&b, "%s{\"@id\":\"http://x/m%d\",\"@type\":\"T\",\"q%d\":1}",
                   n ? "," : "", n, n % 500);
    lw_buf_appendf(&t, "%s{\"@id\":\"http://x/m%d\",\"@type\":\"T\",\"q%d\":1}",
                   n ? "," : "", n, n % 500);
  }
  lw_buf_append_str(&b, "]}");
  lw_buf_append_str(&t, "]}");
  char *doc = lw_buf_steal(&b), *twin = lw_buf_steal(&t);
  char *qa, *qb;
  size_t na, nb;
  double cpu, cpu_twin;
  LwError err;
  CHECK_INT_EQ(convert(doc, &qa, &na, &cpu, &err), LW_OK);
  CHECK_INT_EQ(convert(twin, &qb, &nb, &cpu_twin, &err), LW_OK);
  CHECK_INT_EQ(na, 40000);
  CHECK_STR_EQ(qa, qb);
  fprintf(stderr,
          "20,000 nodes, one scoped context of 500 terms: %.2f s (without it %.2f s)\n",
          cpu, cpu_twin);
  CHECK(cpu < 10.0); /* generous; uncached it processed 10,000,000 terms */
  free(doc);
  free(twin);
  free(qa);
  free(qb);
}

/* Property-scoped contexts nested along the path: depth levels of
 * {"p": {...}}, each applying p's scoped context over the one before. */
static char *nested_doc(int depth)
{
  LwBuf b = LW_BUF_INIT;
  lw_buf_append_str(&b, "{\"@context\":{\"p\":{\"@id\":\"http://x/p\",\"@context\":{\"q\":"
                        "\"http://x/q\"}}},\"@id\":\"http://x/r\"");
  for (int i = 0; i < depth; ++i) {
    lw_buf_append_str(&b, ",\"p\":{\"q\":\"v\"");
  }
  for (int i = 0; i < depth; ++i) {
    lw_buf_append_str(&b, "}");
  }
  lw_buf_append_str(&b, "}");
  return lw_buf_steal(&b);
}

static void test_depth(void)
{
  char *ok = nested_doc(LW_JSONLD_MAX_SCOPED_DEPTH - 10);
  char *deep = nested_doc(LW_JSONLD_MAX_SCOPED_DEPTH + 10);
  char *q;
  size_t n;
  double cpu;
  LwError err;
  CHECK_INT_EQ(convert(ok, &q, &n, &cpu, &err), LW_OK);
  CHECK_INT_EQ(n, 2 * (LW_JSONLD_MAX_SCOPED_DEPTH - 10));
  free(q);
  CHECK_INT_EQ(convert(deep, &q, &n, &cpu, &err), LW_ERR_LIMIT);
  CHECK_STR_EQ(err.message,
               "context overflow: more than 256 scoped contexts in effect at once");
  free(q);
  free(ok);
  free(deep);
}

int main(void)
{
  test_within_caps();
  test_bomb();
  test_cache();
  test_depth();
  return lw_test_finish();
}
