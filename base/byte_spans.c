/* Spans of bytes that need no attention: the inner loops of writing
 * canonical N-Quads and of checking what the parsers hand over, where every
 * byte of every IRI and literal passes. Sixteen bytes a step with SSE2 (every
 * x86-64), one table lookup a byte elsewhere and for the last few bytes. */
#include "base/base.h"

#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define LW_SPANS_SSE2 1
#endif

enum { B_IRI = 1, B_LIT = 2, B_HIGH = 4, B_LOW = 8 };

/* B_IRI: what IRIREF forbids (ASCII up to the space and <>"{}|^`\);
 * B_LIT: what a canonical literal escapes (controls, '"', '\', DEL);
 * B_HIGH: the bytes of non-ASCII characters;
 * B_LOW: ASCII below the space. */
/* clang-format off */
static const unsigned char byte_class[256] = {
  11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11,
  11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11,
   1,  0,  3,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  1,  0,  1,  0,
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  3,  0,  1,  0,
   1,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  1,  1,  1,  0,  2,
   4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
   4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
   4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
   4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
   4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
   4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
   4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
   4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
};
/* clang-format on */

/* A span's stop bytes: the classes of `classes`, and the bytes a and b
 * when `pair`. */
typedef struct {
  unsigned char classes;
  bool pair;
  char a, b;
} Stops;

static size_t tail_span(const unsigned char *u, size_t i, size_t len, Stops st)
{
  while (i < len && !(byte_class[u[i]] & st.classes) &&
         !(st.pair && (u[i] == (unsigned char)st.a || u[i] == (unsigned char)st.b))) {
    ++i;
  }
  return i;
}

#ifdef LW_SPANS_SSE2
static inline __m128i eq(__m128i v, char c)
{
  return _mm_cmpeq_epi8(v, _mm_set1_epi8(c));
}

/* One bit for each of the 16 bytes of v that is a stop (the table's
 * classes, computed). */
static inline int stop_bits(__m128i v, Stops st)
{
  unsigned char stop = st.classes;
  __m128i m = _mm_setzero_si128();
  if (stop & B_IRI) { /* up to the space (unsigned), or one of <>"{}|^`\ */
    m = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x20)), v);
    m = _mm_or_si128(m, _mm_or_si128(_mm_or_si128(eq(v, '<'), eq(v, '>')), eq(v, '"')));
    m = _mm_or_si128(m, _mm_or_si128(_mm_or_si128(eq(v, '{'), eq(v, '}')), eq(v, '|')));
    m = _mm_or_si128(m, _mm_or_si128(_mm_or_si128(eq(v, '^'), eq(v, '`')), eq(v, '\\')));
  }
  if (stop & B_LIT) { /* below 0x20 (and, signed, 0x80 up), '"', '\', DEL */
    m = _mm_or_si128(m, _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    m = _mm_or_si128(m, _mm_or_si128(_mm_or_si128(eq(v, '"'), eq(v, '\\')), eq(v, 0x7F)));
  }
  if (stop & B_LOW) { /* below 0x20 (and, signed, 0x80 up) */
    m = _mm_or_si128(m, _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
  }
  if (st.pair) {
    m = _mm_or_si128(m, _mm_or_si128(eq(v, st.a), eq(v, st.b)));
  }
  int bits = _mm_movemask_epi8(m);
  if (stop & B_HIGH) {
    bits |= _mm_movemask_epi8(v); /* the top bit of each byte */
  } else if (stop & (B_LIT | B_LOW)) {
    bits &= ~_mm_movemask_epi8(v); /* the signed compare's high bytes */
  }
  return bits;
}
#endif

/* How many bytes from u on are no stop. Inlined into each caller, where
 * the classes are constants. */
static inline __attribute__((always_inline)) size_t span(const unsigned char *u, size_t len,
                                                         Stops stop)
{
  size_t i = 0;
#ifdef LW_SPANS_SSE2
  if (len >= 16) {
    for (; i + 16 <= len; i += 16) {
      int bits = stop_bits(_mm_loadu_si128((const __m128i *)(u + i)), stop);
      if (bits) {
        return i + (size_t)__builtin_ctz((unsigned)bits);
      }
    }
    if (i < len) { /* the last 16 bytes, overlapping those seen */
      size_t last = len - 16;
      int bits = stop_bits(_mm_loadu_si128((const __m128i *)(u + last)), stop);
      bits &= ~((1 << (i - last)) - 1);
      return bits ? last + (size_t)__builtin_ctz((unsigned)bits) : len;
    }
    return len;
  }
#endif
  return tail_span(u, i, len, stop);
}

size_t lw_span_iri_plain(const char *s, size_t len, bool stop_at_high)
{
  const unsigned char *u = (const unsigned char *)s;
  return stop_at_high ? span(u, len, (Stops){.classes = B_IRI | B_HIGH})
                      : span(u, len, (Stops){.classes = B_IRI});
}

size_t lw_span_literal_plain(const char *s, size_t len)
{
  return span((const unsigned char *)s, len, (Stops){.classes = B_LIT | B_HIGH});
}

size_t lw_span_ascii(const char *s, size_t len)
{
  return span((const unsigned char *)s, len, (Stops){.classes = B_HIGH});
}

size_t lw_span_printable_except(const char *s, size_t len, char a, char b)
{
  return span((const unsigned char *)s, len,
              (Stops){.classes = B_LOW | B_HIGH, .pair = true, .a = a, .b = b});
}
