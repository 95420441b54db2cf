/* The byte spans (base/byte_spans.c): the build's own (SSE2 on x86-64) and
 * the table-only one other machines get, compiled here from the same source
 * without SSE2 under other names. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "tests/support/check.h"

#undef __SSE2__
#define lw_span_iri_plain table_span_iri_plain
#define lw_span_literal_plain table_span_literal_plain
#define lw_span_ascii table_span_ascii
#define lw_span_printable_except table_span_printable_except
size_t lw_span_iri_plain(const char *s, size_t len, bool stop_at_high);
size_t lw_span_literal_plain(const char *s, size_t len);
size_t lw_span_ascii(const char *s, size_t len);
size_t lw_span_printable_except(const char *s, size_t len, char a, char b);
#include "base/byte_spans.c"
#undef lw_span_iri_plain
#undef lw_span_literal_plain
#undef lw_span_ascii
#undef lw_span_printable_except

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

static size_t span_of(const char *s, size_t len, int kind, bool table)
{
  switch (kind) {
  case 0:
    return table ? table_span_iri_plain(s, len, true) : lw_span_iri_plain(s, len, true);
  case 1:
    return table ? table_span_iri_plain(s, len, false) : lw_span_iri_plain(s, len, false);
  case 2:
    return table ? table_span_literal_plain(s, len) : lw_span_literal_plain(s, len);
  case 3:
    return table ? table_span_ascii(s, len) : lw_span_ascii(s, len);
  default:
    return table ? table_span_printable_except(s, len, '>', '\\')
                 : lw_span_printable_except(s, len, '>', '\\');
  }
}

/* The spans stop where the grammar says, sixteen bytes a step (where the
 * machine can) and a byte at a time (table): every byte value at every
 * place of a 16-byte step and of the tail, and random strings; each read
 * from a buffer of exactly its length (the sanitizer build sees a read past
 * it). */
static void test_byte_spans(bool table)
{
  for (int kind = 0; kind < 5; ++kind) {
    int wrong = 0;
    for (unsigned b = 0; b < 256; ++b) {
      for (size_t len = 1; len <= 40; ++len) {
        for (size_t at = 0; at < len; ++at) {
          char *s = malloc(len);
          memset(s, 'a', len);
          s[at] = (char)b;
          wrong += span_of(s, len, kind, table) !=
                   reference_span((unsigned char *)s, len, kind);
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
      u[i] = rand() % 8 ? (unsigned char)('a' + rand() % 26)
                        : (unsigned char)(rand() % 256);
    }
    for (int kind = 0; kind < 5; ++kind) {
      wrong += span_of((char *)u, len, kind, table) != reference_span(u, len, kind);
    }
    free(u);
  }
  CHECK_INT_EQ(wrong, 0);
}

int main(void)
{
  test_byte_spans(false);
  test_byte_spans(true);
  return lw_test_finish();
}
