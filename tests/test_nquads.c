/* The canonical N-Quads serializer and the byte buffer under it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "rdf/rdf.h"
#include "tests/support/check.h"

#define XSD "http://www.w3.org/2001/XMLSchema#"

static LwTerm iri(const char *v)
{
  return (LwTerm){LW_TERM_IRI, v, strlen(v), NULL, NULL, false};
}

static LwTerm blank(const char *v)
{
  return (LwTerm){LW_TERM_BLANK, v, strlen(v), NULL, NULL, false};
}

static LwTerm lit(const char *v, size_t len, const char *dt, const char *lang)
{
  return (LwTerm){LW_TERM_LITERAL, v, len, dt, lang, false};
}

/* The line for <http://s> <http://p> object (graph). */
static const char *line(LwBuf *b, LwTerm object, LwTerm graph)
{
  LwQuad q = {iri("http://s"), iri("http://p"), object, graph};
  lw_buf_reset(b);
  LwStatus st = lw_nquads_append(b, &q);
  return st == LW_OK ? b->data : "(error)";
}

static void test_buf(void)
{
  LwBuf b = LW_BUF_INIT;
  CHECK(lw_buf_append_str(&b, "abc") == LW_OK);
  CHECK(lw_buf_append_char(&b, '-') == LW_OK);
  CHECK(lw_buf_appendf(&b, "%d:%s", 42, "x") == LW_OK);
  CHECK_STR_EQ(b.data, "abc-42:x");
  CHECK_INT_EQ(b.len, 8);
  for (int i = 0; i < 10000; ++i) {
    CHECK(lw_buf_append(&b, "0123456789", 10) == LW_OK || i < 0);
  }
  CHECK_INT_EQ(b.len, 100008);
  lw_buf_reset(&b);
  CHECK_INT_EQ(b.len, 0);
  CHECK_STR_EQ(b.data, "");
  lw_buf_append_str(&b, "kept");
  char *s = lw_buf_steal(&b);
  CHECK_STR_EQ(s, "kept");
  CHECK(b.data == NULL && b.len == 0);
  free(s);
  lw_buf_free(&b);
  lw_buf_free(&b); /* twice is fine */
  lw_buf_free(NULL);
  LwBuf empty = LW_BUF_INIT;
  s = lw_buf_steal(&empty);
  CHECK_STR_EQ(s, "");
  free(s);
}

static void test_terms(void)
{
  LwBuf b = LW_BUF_INIT;
  LwTerm none = {0};
  CHECK_STR_EQ(line(&b, iri("http://o"), none), "<http://s> <http://p> <http://o> .\n");
  CHECK_STR_EQ(line(&b, blank("b1"), iri("http://g")),
               "<http://s> <http://p> _:b1 <http://g> .\n");
  CHECK_STR_EQ(line(&b, lit("x", 1, NULL, NULL), blank("g")),
               "<http://s> <http://p> \"x\" _:g .\n");
  /* xsd:string is left out, other datatypes kept, tags lower-cased */
  CHECK_STR_EQ(line(&b, lit("x", 1, XSD "string", NULL), none),
               "<http://s> <http://p> \"x\" .\n");
  CHECK_STR_EQ(line(&b, lit("1", 1, XSD "integer", NULL), none),
               "<http://s> <http://p> \"1\"^^<" XSD "integer> .\n");
  CHECK_STR_EQ(line(&b, lit("chat", 4, NULL, "fr-BE"), none),
               "<http://s> <http://p> \"chat\"@fr-be .\n");
  lw_buf_free(&b);
}

static void test_escapes(void)
{
  LwBuf b = LW_BUF_INIT;
  LwTerm none = {0};
  /* ECHAR for \t \n \r \" \\ \b \f; \u00XX for other controls; raw UTF-8 */
  const char s[] = "a\tb\nc\rd\"e\\f\bg\fh\x01i\x7fj\x1f\xc3\xa9\xe2\x82\xac";
  CHECK_STR_EQ(line(&b, lit(s, sizeof(s) - 1, NULL, NULL), none),
               "<http://s> <http://p> \"a\\tb\\nc\\rd\\\"e\\\\f\\bg\\fh"
               "\\u0001i\\u007Fj\\u001F\xc3\xa9\xe2\x82\xac\" .\n");
  /* a NUL inside a literal */
  CHECK_STR_EQ(line(&b, lit("a\0b", 3, NULL, NULL), none),
               "<http://s> <http://p> \"a\\u0000b\" .\n");
  /* IRIs: what IRIREF forbids becomes \u00XX, the rest stays */
  CHECK_STR_EQ(line(&b, iri("http://o/a b<c>\"{|}^`\\\xc3\xa9"), none),
               "<http://s> <http://p> <http://o/a\\u0020b\\u003Cc\\u003E"
               "\\u0022\\u007B\\u007C\\u007D\\u005E\\u0060\\u005C\xc3\xa9> .\n");
  /* invalid UTF-8 never gets out */
  const char *bad = line(&b, lit("a\xff\xc3(b\xed\xa0\x80", 8, NULL, NULL), none);
  CHECK(lw_utf8_valid(bad, strlen(bad)));
  CHECK_STR_EQ(bad, "<http://s> <http://p> \"a\xEF\xBF\xBD\xEF\xBF\xBD(b"
                    "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\" .\n");
  /* blank node labels that N-Triples would not accept */
  CHECK_STR_EQ(line(&b, blank("a b"), none), "<http://s> <http://p> _:lwx612062 .\n");
  CHECK_STR_EQ(line(&b, blank("x.y"), none), "<http://s> <http://p> _:x.y .\n");
  CHECK_STR_EQ(line(&b, blank("x."), none), "<http://s> <http://p> _:lwx782E .\n");
  lw_buf_free(&b);
}

static void test_invalid(void)
{
  LwBuf b = LW_BUF_INIT;
  lw_buf_append_str(&b, "before\n");
  LwTerm none = {0};
  LwQuad q = {lit("x", 1, NULL, NULL), iri("http://p"), iri("http://o"), none};
  CHECK(lw_nquads_append(&b, &q) == LW_ERR_FORMAT);
  q = (LwQuad){iri("http://s"), blank("p"), iri("http://o"), none};
  CHECK(lw_nquads_append(&b, &q) == LW_ERR_FORMAT);
  q = (LwQuad){iri("http://s"), iri("http://p"), none, none};
  CHECK(lw_nquads_append(&b, &q) == LW_ERR_FORMAT);
  q = (LwQuad){iri("http://s"), iri("http://p"), iri("http://o"), lit("g", 1, NULL, NULL)};
  CHECK(lw_nquads_append(&b, &q) == LW_ERR_FORMAT);
  CHECK_STR_EQ(b.data, "before\n"); /* left as it was */
  lw_buf_free(&b);
}

static void test_utf8(void)
{
  CHECK(lw_utf8_valid("", 0));
  CHECK(lw_utf8_valid("a\xc3\xa9\xf0\x9f\x98\x80", 7));
  CHECK(!lw_utf8_valid("\xc0\xaf", 2));         /* overlong */
  CHECK(!lw_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
  CHECK(!lw_utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
  CHECK(!lw_utf8_valid("\xe2\x82", 2));         /* cut off */
  CHECK_INT_EQ(lw_utf8_valid_prefix("ab\xff", 3), 2);
  char out[4];
  CHECK_INT_EQ(lw_utf8_encode(0x20AC, out), 3);
  CHECK(!memcmp(out, "\xe2\x82\xac", 3));
  CHECK_INT_EQ(lw_utf8_encode(0xD800, out), 0);
  CHECK_INT_EQ(lw_utf8_encode(0x110000, out), 0);
}

int main(void)
{
  test_buf();
  test_terms();
  test_escapes();
  test_invalid();
  test_utf8();
  return lw_test_finish();
}
