/*
 * A real dataset published both as JSON-LD and as Turtle or RDF/XML (W3C
 * DCAT, in the shared test data) gives the same triples: our JSON-LD
 * processor on the .jsonld against serdi's reading of the .ttl or rapper's
 * reading of the .rdf, compared up to blank node labels. (dcat3-external.ttl
 * is dirty on purpose, see DIRTY.md, so its .rdf twin is used.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonld/jsonld.h"
#include "tests/support/check.h"
#include "tests/support/jsonld_nquads_compare.h"

static char *read_all(FILE *f)
{
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 >= cap) {
      cap *= 2;
      buf = realloc(buf, cap);
    }
  }
  buf[n] = 0;
  return buf;
}

static void compare(const char *testdata, const char *name, bool turtle)
{
  char jsonld[4096], ttl[4096], cmd[8192];
  snprintf(jsonld, sizeof(jsonld), "%s/other-vocab/%s.jsonld", testdata, name);
  snprintf(ttl, sizeof(ttl), "%s/other-vocab/%s.%s", testdata, name,
           turtle ? "ttl" : "rdf");
  const char *base = "http://www.w3.org/ns/dcat";

  LwNqSet *ours = lw_nq_set_new();
  LwJsonldOptions opt = {0};
  opt.base_iri = base;
  opt.on_quad = lw_nq_set_sink;
  opt.quad_handle = ours;
  LwReadStats stats = {0};
  LwError err;
  FILE *in = fopen(jsonld, "rb");
  CHECK(in != NULL);
  if (!in) {
    lw_nq_set_free(ours);
    return;
  }
  LwStatus st = lw_jsonld_to_rdf(in, &opt, &stats, &err);
  fclose(in);
  CHECK_STR_EQ(lw_status_name(st), lw_status_name(LW_OK));
  CHECK(stats.statements > 500);
  CHECK_INT_EQ(stats.errors, 0);

  if (turtle) {
    snprintf(cmd, sizeof(cmd), "serdi -q -i turtle -o ntriples '%s' '%s'", ttl, base);
  } else {
    snprintf(cmd, sizeof(cmd), "rapper -q -i rdfxml -o ntriples '%s' '%s'", ttl, base);
  }
  FILE *pipe = popen(cmd, "r");
  CHECK(pipe != NULL);
  char *nt = pipe ? read_all(pipe) : NULL;
  int rc = pipe ? pclose(pipe) : -1;
  CHECK_INT_EQ(rc, 0);
  LwNqSet *theirs = lw_nq_set_new();
  char why[256];
  CHECK(nt && lw_nq_set_parse(theirs, nt, why, sizeof(why)));
  size_t n_ours = lw_nq_set_size(ours);
  bool same = lw_nq_isomorphic(ours, theirs);
  printf("%s: %zu triples from JSON-LD, %zu from %s, %s\n", name, n_ours,
         lw_nq_set_size(theirs), turtle ? "Turtle (serdi)" : "RDF/XML (rapper)",
         same ? "isomorphic" : "DIFFERENT");
  if (!same && getenv("JSONLD_DUMP")) {
    char *a = lw_nq_set_dump(ours), *b = lw_nq_set_dump(theirs);
    FILE *fa = fopen("/tmp/jsonld-ours.nq", "w"), *fb = fopen("/tmp/jsonld-theirs.nq", "w");
    fputs(a, fa);
    fputs(b, fb);
    fclose(fa);
    fclose(fb);
    free(a);
    free(b);
  }
  CHECK(same);
  free(nt);
  lw_nq_set_free(ours);
  lw_nq_set_free(theirs);
}

int main(void)
{
  const char *testdata = lw_test_require_testdata();
  if (system("serdi -v >/dev/null 2>&1") != 0 || system("rapper -v >/dev/null 2>&1") != 0) {
    lw_test_skip("serdi or rapper is not installed");
  }
  compare(testdata, "w3c__dxwg__dcat__rdf__dcat2", true);
  compare(testdata, "w3c__dxwg__dcat__rdf__dcat2", false);
  compare(testdata, "w3c__dxwg__dcat__rdf__dcat3-external", false);
  return lw_test_finish();
}
