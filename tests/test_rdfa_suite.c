/* The RDFa 1.1 test suite (LODWASH_TESTDATA/rdfa-test-suite: manifest.jsonld
 * and test-cases/rdfa1.1/<host>/) read by lodwash's RDFa processor: every
 * case of the manifest for RDFa 1.1 whose page is in the copy, for the host
 * languages html5, xhtml5, html4, xhtml1, svg and xml, compared by graph
 * isomorphism (blank nodes) with its expected Turtle (NNNN.ttl, read by the
 * Turtle reader with the page's URL as base). Every case has its .ttl, also
 * the negative ones (expectedResults false: the .ttl is what must come out
 * instead, empty for most), so the SPARQL ASK queries (NNNN.sparql) are not
 * needed. Not applicable: the cases with a query parameter (rdfagraph=
 * processor: the processor graph, which lodwash does not produce;
 * vocab_expansion=true: RDFa vocabulary expansion, which fetches the
 * vocabulary over the network and is not done).
 *
 * Prints passed / failed / not applicable for each host. The test fails when
 * a case that applies fails and is not in KNOWN below, or when one in KNOWN
 * passes (the list only shrinks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/base.h"
#include "rdf/rdf.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"
#include "tests/support/nquads_compare.h"

typedef struct {
  const char *host;
  const char *num;
  const char *reason;
} Known;

/* Cases that fail for a reason not fixed, each with it. */
static const Known KNOWN[] = {
  {NULL, NULL, NULL},
};

static const struct {
  const char *name;
  const char *ext;
} HOSTS[] = {
  {"html5", ".html"}, {"xhtml5", ".xhtml"}, {"html4", ".html"},
  {"xhtml1", ".xhtml"}, {"svg", ".svg"},    {"xml", ".xml"},
};

static const char *known_reason(const char *host, const char *num)
{
  for (size_t i = 0; KNOWN[i].host; ++i) {
    if (!strcmp(KNOWN[i].host, host) && !strcmp(KNOWN[i].num, num)) {
      return KNOWN[i].reason;
    }
  }
  return NULL;
}

static bool holds(json_t *array, const char *value)
{
  size_t i;
  json_t *v;
  json_array_foreach(array, i, v)
  {
    if (json_is_string(v) && !strcmp(json_string_value(v), value)) {
      return true;
    }
  }
  return false;
}

/* RDFa 1.1, or one of its profiles (rdfa1.1-lite, -proc, -vocab). */
static bool in_rdfa11(json_t *versions)
{
  size_t i;
  json_t *v;
  json_array_foreach(versions, i, v)
  {
    if (json_is_string(v) && !strncmp(json_string_value(v), "rdfa1.1", 7)) {
      return true;
    }
  }
  return false;
}

static bool readable(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (f) {
    fclose(f);
  }
  return f != NULL;
}

/* Reads path in format with base into g; false (why says) when the reader
 * failed. */
static bool read_into(LwTestGraph *g, const char *path, LwFormat format, const char *base,
                      char *why, size_t why_len)
{
  FILE *in = fopen(path, "rb");
  if (!in) {
    snprintf(why, why_len, "cannot open %s", path);
    return false;
  }
  LwReadOptions o = {
    .format = format, .base_iri = base, .on_quad = lw_test_graph_sink, .quad_handle = g};
  LwReadStats stats;
  LwError err = {0};
  LwStatus st = lw_rdf_read(in, &o, &stats, &err);
  fclose(in);
  if (st != LW_OK) {
    snprintf(why, why_len, "%s: %s", path, err.message);
  }
  return st == LW_OK;
}

typedef struct {
  unsigned passed, failed, known, not_applicable, absent;
} Counts;

/* One case: true when the page gives its expected graph. */
static bool run_case(const char *dir, const char *host, const char *ext, const char *num)
{
  char page[4200], ttl[4200], base[256], why[1024] = "";
  snprintf(page, sizeof(page), "%s/%s%s", dir, num, ext);
  snprintf(ttl, sizeof(ttl), "%s/%s.ttl", dir, num);
  snprintf(base, sizeof(base), "http://rdfa.info/test-suite/test-cases/rdfa1.1/%s/%s%s", host,
           num, ext);
  LwTestGraph got = LW_TEST_GRAPH_INIT, want = LW_TEST_GRAPH_INIT;
  bool ok = read_into(&want, ttl, LW_FORMAT_TURTLE, base, why, sizeof(why)) &&
            read_into(&got, page, LW_FORMAT_RDFA, base, why, sizeof(why)) &&
            lw_test_graph_isomorphic(&got, &want, why, sizeof(why));
  if (!ok && !known_reason(host, num)) {
    printf("  FAIL %s %s: %s\n", host, num, why);
    if (getenv("RDFA_SUITE_VERBOSE")) {
      printf("   got:\n");
      lw_test_graph_print(&got, stdout);
      printf("   want:\n");
      lw_test_graph_print(&want, stdout);
    }
  }
  lw_test_graph_free(&got);
  lw_test_graph_free(&want);
  return ok;
}

static void run_host(const char *testdata, json_t *cases, size_t h, Counts *c)
{
  const char *host = HOSTS[h].name;
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s/rdfa-test-suite/test-cases/rdfa1.1/%s", testdata, host);
  size_t i;
  json_t *t;
  json_array_foreach(cases, i, t)
  {
    const char *num = json_string_value(json_object_get(t, "num"));
    if (!num || !holds(json_object_get(t, "hostLanguages"), host) ||
        !in_rdfa11(json_object_get(t, "versions"))) {
      continue;
    }
    char page[4200];
    snprintf(page, sizeof(page), "%s/%s%s", dir, num, HOSTS[h].ext);
    if (!readable(page)) {
      c->absent++; /* held out of this copy */
      continue;
    }
    if (json_object_get(t, "queryParam")) {
      c->not_applicable++;
      continue;
    }
    bool ok = run_case(dir, host, HOSTS[h].ext, num);
    const char *known = known_reason(host, num);
    if (ok && known) {
      printf("  PASS %s %s, listed as a known failure (%s): strike it from KNOWN\n", host,
             num, known);
      c->failed++;
    } else if (ok) {
      c->passed++;
    } else if (known) {
      c->known++;
    } else {
      c->failed++;
    }
  }
  printf("RDFa 1.1 %s: %u passed, %u failed, %u known failures, of %u that apply; "
         "%u not applicable (processor graph, vocabulary expansion); %u not in this copy\n",
         host, c->passed, c->failed, c->known, c->passed + c->failed + c->known,
         c->not_applicable, c->absent);
}

int main(void)
{
  const char *testdata = lw_test_testdata();
  if (!testdata) {
    printf("SKIP shared test data not found (set LODWASH_TESTDATA)\n");
    return 77;
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s/rdfa-test-suite/manifest.jsonld", testdata);
  json_error_t jerr;
  json_t *manifest = json_load_file(path, 0, &jerr);
  json_t *cases = json_object_get(manifest, "@graph");
  if (!json_is_array(cases)) {
    printf("SKIP %s not readable: %s\n", path, jerr.text);
    json_decref(manifest);
    return 77;
  }
  const char *only = getenv("RDFA_SUITE_HOST");
  for (size_t h = 0; h < sizeof(HOSTS) / sizeof(HOSTS[0]); ++h) {
    if (only && strcmp(only, HOSTS[h].name)) {
      continue;
    }
    Counts c = {0};
    run_host(testdata, cases, h, &c);
    CHECK_INT_EQ(c.failed, 0);
    CHECK(c.passed + c.known > 0);
  }
  json_decref(manifest);
  return lw_test_finish();
}
