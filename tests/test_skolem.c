/* Skolemization: well-known IRIs, stable and collision-free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf.h"
#include "base/base.h"
#include "tests/support/check.h"

static const char *iri_of(LwBuf *b, const char *base, const char *seed, const char *label,
                          size_t len)
{
  lw_buf_reset(b);
  return lw_skolem_append_iri(b, base, seed, label, len) == LW_OK ? b->data : "(error)";
}

static void test_iris(void)
{
  LwBuf b = LW_BUF_INIT;
  const char *seed = "0123456789abcdef0123456789abcdef";
  CHECK_STR_EQ(iri_of(&b, "https://lw.example", seed, "b1", 2),
               "https://lw.example/.well-known/genid/"
               "0123456789abcdef0123456789abcdef/b1");
  /* a trailing slash on the base is not doubled */
  CHECK_STR_EQ(iri_of(&b, "https://lw.example/", seed, "b1", 2),
               "https://lw.example/.well-known/genid/"
               "0123456789abcdef0123456789abcdef/b1");
  /* everything but unreserved characters is percent-encoded */
  CHECK_STR_EQ(iri_of(&b, "http://x", "s", "a b/%\xc3\xa9~._-", 11),
               "http://x/.well-known/genid/s/a%20b%2F%25%C3%A9~._-");
  /* labels that differ give IRIs that differ, even where naive escaping
   * would merge them */
  const char *pairs[][2] = {{"a%20", "a "}, {"a/b", "a%2Fb"}, {"A", "a"}, {"x", "x "}};
  for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); ++i) {
    char first[256];
    snprintf(first, sizeof(first), "%s",
             iri_of(&b, "http://x", "s", pairs[i][0], strlen(pairs[i][0])));
    CHECK(strcmp(first, iri_of(&b, "http://x", "s", pairs[i][1], strlen(pairs[i][1]))) !=
          0);
  }
  /* the IRI is already normal: normalizing it changes nothing */
  iri_of(&b, "http://x", "s", "a~b c", 5);
  char *norm = lw_uri_normalize(b.data);
  CHECK_STR_EQ(norm, b.data);
  free(norm);
  lw_buf_free(&b);
}

static void test_quads(void)
{
  LwSkolem sk;
  lw_skolem_init(&sk, "http://lw.example", "h1");
  LwQuad in = {{LW_TERM_BLANK, "s", 1, NULL, NULL, false},
               {LW_TERM_IRI, "http://p", 8, NULL, NULL, false},
               {LW_TERM_BLANK, "o", 1, NULL, NULL, false},
               {LW_TERM_BLANK, "g", 1, NULL, NULL, false}};
  LwQuad out;
  CHECK(lw_skolem_quad(&sk, &in, &out) == LW_OK);
  LwBuf line = LW_BUF_INIT;
  CHECK(lw_nquads_append(&line, &out) == LW_OK);
  CHECK_STR_EQ(line.data, "<http://lw.example/.well-known/genid/h1/s> <http://p> "
                          "<http://lw.example/.well-known/genid/h1/o> "
                          "<http://lw.example/.well-known/genid/h1/g> .\n");
  CHECK(out.subject.canonical && out.object.canonical && out.graph.canonical);
  /* a base with a character to escape: its IRIs are escaped when written */
  LwSkolem odd;
  lw_skolem_init(&odd, "http://lw.example/caf\xC3\xA9 x", "h1");
  LwQuad oddq;
  CHECK(lw_skolem_quad(&odd, &in, &oddq) == LW_OK);
  CHECK(!oddq.subject.canonical);
  lw_buf_reset(&line);
  CHECK(lw_nquads_append_term(&line, &oddq.subject) == LW_OK);
  CHECK_STR_EQ(line.data, "<http://lw.example/caf\xC3\xA9\\u0020x/.well-known/genid/h1/s>");
  lw_skolem_free(&odd);
  /* the same file cleaned again: the same IRIs; another file: others */
  LwSkolem other;
  lw_skolem_init(&other, "http://lw.example", "h2");
  LwQuad out2;
  CHECK(lw_skolem_quad(&other, &in, &out2) == LW_OK);
  CHECK(strcmp(out.subject.value, out2.subject.value) != 0);
  /* literals and IRIs pass through */
  LwQuad lit = {{LW_TERM_IRI, "http://s", 8, NULL, NULL, false},
                {LW_TERM_IRI, "http://p", 8, NULL, NULL, false},
                {LW_TERM_LITERAL, "x", 1, NULL, "en", false},
                {LW_TERM_NONE, NULL, 0, NULL, NULL, false}};
  CHECK(lw_skolem_quad(&sk, &lit, &out) == LW_OK);
  CHECK_STR_EQ(out.object.value, "x");
  CHECK_STR_EQ(out.object.lang, "en");
  CHECK(out.graph.type == LW_TERM_NONE);
  lw_buf_free(&line);
  lw_skolem_free(&sk);
  lw_skolem_free(&other);
  lw_skolem_free(NULL);
}

int main(void)
{
  test_iris();
  test_quads();
  return lw_test_finish();
}
