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
  return (LwTerm){LW_TERM_IRI, v, strlen(v), NULL, NULL};
}

static LwTerm blank(const char *v)
{
  return (LwTerm){LW_TERM_BLANK, v, strlen(v), NULL, NULL};
}

static LwTerm lit(const char *v, size_t len, const char *dt, const char *lang)
{
  return (LwTerm){LW_TERM_LITERAL, v, len, dt, lang};
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

/* What each span stops at, written from the grammars, byte by byte. */
static bool iri_stop(unsigned char c, bool high)
{
  return c <= 0x20 || (c < 0x80 && strchr("<>\"{}|^`\\", c) && c) || (high && c >= 0x80);
}

static bool literal_stop(unsigned char c)
{
  return c < 0x20 || c == '"' || c == '\\' || c == 0x7F || c >= 0x80;
}

static size_t reference_span(const unsigned char *u, size_t len, int kind)
{
  size_t i = 0;
  for (; i < len; ++i) {
    unsigned char c = u[i];
    bool stop = kind == 0   ? iri_stop(c, true)
                : kind == 1 ? iri_stop(c, false)
                : kind == 2 ? literal_stop(c)
                : kind == 3 ? c >= 0x80
                            : c < 0x20 || c >= 0x80 || c == '>' || c == '\\';
    if (stop) {
      break;
    }
  }
  return i;
}

static size_t span_of(const char *s, size_t len, int kind)
{
  switch (kind) {
  case 0:
    return lw_span_iri_plain(s, len, true);
  case 1:
    return lw_span_iri_plain(s, len, false);
  case 2:
    return lw_span_literal_plain(s, len);
  case 3:
    return lw_span_ascii(s, len);
  default:
    return lw_span_printable_except(s, len, '>', '\\');
  }
}

/* The spans (sixteen bytes a step where the machine can) stop where the
 * grammar says: every byte value at every place of a 16-byte step and of the
 * tail, and random strings; each read from a buffer of exactly its length
 * (the sanitizer build sees a read past it). */
static void test_byte_spans(void)
{
  for (int kind = 0; kind < 5; ++kind) {
    int wrong = 0;
    for (unsigned b = 0; b < 256; ++b) {
      for (size_t len = 1; len <= 40; ++len) {
        for (size_t at = 0; at < len; ++at) {
          char *s = malloc(len);
          memset(s, 'a', len);
          s[at] = (char)b;
          wrong += span_of(s, len, kind) != reference_span((unsigned char *)s, len, kind);
          free(s);
        }
      }
    }
    CHECK_INT_EQ(wrong, 0);
  }
  srand(7);
  int wrong = 0;
  for (int n = 0; n < 20000; ++n) {
    size_t len = (size_t)(rand() % 70);
    unsigned char *u = malloc(len ? len : 1);
    for (size_t i = 0; i < len; ++i) {
      /* mostly plain letters, now and then anything */
      u[i] = rand() % 8 ? (unsigned char)('a' + rand() % 26) : (unsigned char)(rand() % 256);
    }
    for (int kind = 0; kind < 5; ++kind) {
      wrong += span_of((char *)u, len, kind) != reference_span(u, len, kind);
    }
    free(u);
  }
  CHECK_INT_EQ(wrong, 0);
}

int main(void)
{
  test_buf();
  test_byte_spans();
  test_terms();
  test_escapes();
  test_invalid();
  test_utf8();
  return lw_test_finish();
}
