#include "base/base.h"

#include <string.h>

size_t lw_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
  if (len == 0) {
    return 0;
  }
  unsigned char c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t n;
  uint32_t v;
  uint32_t min;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, v = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, v = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0; /* continuation byte, C0/C1 (overlong) or F5..FF */
  }
  if (len < n) {
    return 0;
  }
  for (size_t i = 1; i < n; ++i) {
    if ((s[i] & 0xC0) != 0x80) {
      return 0;
    }
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
    return 0;
  }
  *cp = v;
  return n;
}

size_t lw_utf8_valid_prefix(const char *s, size_t len)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  while (i < len) {
    if (u[i] < 0x80) { /* ASCII runs are the common case */
      i += lw_span_ascii(s + i, len - i);
      continue;
    }
    uint32_t cp;
    size_t n = lw_utf8_decode(u + i, len - i, &cp);
    if (n == 0) {
      return i;
    }
    i += n;
  }
  return len;
}

bool lw_utf8_valid(const char *s, size_t len)
{
  return lw_utf8_valid_prefix(s, len) == len;
}

size_t lw_utf8_encode(uint32_t cp, char out[4])
{
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp >= 0xD800 && cp <= 0xDFFF) {
    return 0;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  if (cp <= 0x10FFFF) {
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
  }
  return 0;
}
