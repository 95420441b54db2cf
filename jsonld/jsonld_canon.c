/*
 * Canonical JSON for @json literals: the JSON Canonicalization Scheme
 * (RFC 8785). Object keys sorted by UTF-16 code units, no whitespace,
 * minimal string escapes, numbers as ECMAScript's Number::toString.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonld/jsonld_private.h"

typedef struct {
  char *data;
  size_t len, cap;
  bool failed;
} Buf;

static void put(Buf *b, const char *s, size_t n)
{
  if (b->failed) {
    return;
  }
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->len + n + 1) {
      cap *= 2;
    }
    char *d = realloc(b->data, cap);
    if (!d) {
      b->failed = true;
      return;
    }
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

static void puts_(Buf *b, const char *s)
{
  put(b, s, strlen(s));
}

void lw_jld_format_number(double d, char *buf, size_t size)
{
  if (d == 0) {
    snprintf(buf, size, "0");
    return;
  }
  if (!isfinite(d)) {
    snprintf(buf, size, "null");
    return;
  }
  /* shortest round-tripping digits */
  char tmp[40];
  int prec;
  for (prec = 0; prec < 17; prec++) {
    snprintf(tmp, sizeof(tmp), "%.*e", prec, d);
    if (strtod(tmp, NULL) == d) {
      break;
    }
  }
  snprintf(tmp, sizeof(tmp), "%.*e", prec, d);
  bool neg = tmp[0] == '-';
  const char *m = tmp + (neg ? 1 : 0);
  char digits[24];
  int k = 0;
  const char *c;
  for (c = m; *c && *c != 'e'; c++) {
    if (*c >= '0' && *c <= '9') {
      digits[k++] = *c;
    }
  }
  digits[k] = 0;
  while (k > 1 && digits[k - 1] == '0') {
    digits[--k] = 0;
  }
  int e = atoi(c + 1);
  int n = e + 1; /* the decimal point sits after n digits */
  char out[64];
  size_t o = 0;
  if (neg) {
    out[o++] = '-';
  }
  if (k <= n && n <= 21) {
    memcpy(out + o, digits, (size_t)k);
    o += (size_t)k;
    for (int i = 0; i < n - k; i++) {
      out[o++] = '0';
    }
  } else if (0 < n && n <= 21) {
    memcpy(out + o, digits, (size_t)n);
    o += (size_t)n;
    out[o++] = '.';
    memcpy(out + o, digits + n, (size_t)(k - n));
    o += (size_t)(k - n);
  } else if (-6 < n && n <= 0) {
    out[o++] = '0';
    out[o++] = '.';
    for (int i = 0; i < -n; i++) {
      out[o++] = '0';
    }
    memcpy(out + o, digits, (size_t)k);
    o += (size_t)k;
  } else {
    out[o++] = digits[0];
    if (k > 1) {
      out[o++] = '.';
      memcpy(out + o, digits + 1, (size_t)(k - 1));
      o += (size_t)(k - 1);
    }
    o += (size_t)snprintf(out + o, sizeof(out) - o, "e%c%d", e < 0 ? '-' : '+',
                          e < 0 ? -e : e);
  }
  out[o] = 0;
  snprintf(buf, size, "%s", out);
}

static void put_string(Buf *b, const char *s, size_t len)
{
  put(b, "\"", 1);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[8];
    switch (c) {
    case '"':
      puts_(b, "\\\"");
      break;
    case '\\':
      puts_(b, "\\\\");
      break;
    case '\b':
      puts_(b, "\\b");
      break;
    case '\f':
      puts_(b, "\\f");
      break;
    case '\n':
      puts_(b, "\\n");
      break;
    case '\r':
      puts_(b, "\\r");
      break;
    case '\t':
      puts_(b, "\\t");
      break;
    default:
      if (c < 0x20) {
        snprintf(esc, sizeof(esc), "\\u%04x", c);
        puts_(b, esc);
      } else {
        put(b, (const char *)&c, 1);
      }
    }
  }
  put(b, "\"", 1);
}

/* Decodes one UTF-8 code point (input is valid UTF-8: jansson checked it). */
static unsigned long next_cp(const unsigned char **s)
{
  const unsigned char *p = *s;
  unsigned long cp;
  int n;
  if (p[0] < 0x80) {
    cp = p[0];
    n = 1;
  } else if (p[0] < 0xE0) {
    cp = p[0] & 0x1F;
    n = 2;
  } else if (p[0] < 0xF0) {
    cp = p[0] & 0x0F;
    n = 3;
  } else {
    cp = p[0] & 0x07;
    n = 4;
  }
  for (int i = 1; i < n && p[i]; i++) {
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  *s = p + n;
  return cp;
}

/* Compares keys by UTF-16 code units, as RFC 8785 asks. */
static int cmp_utf16(const void *a, const void *b)
{
  const unsigned char *x = *(const unsigned char *const *)a;
  const unsigned char *y = *(const unsigned char *const *)b;
  while (*x && *y) {
    unsigned long cx = next_cp(&x), cy = next_cp(&y);
    unsigned long ux = cx >= 0x10000 ? 0xD800 + ((cx - 0x10000) >> 10) : cx;
    unsigned long uy = cy >= 0x10000 ? 0xD800 + ((cy - 0x10000) >> 10) : cy;
    if (ux != uy) {
      return ux < uy ? -1 : 1;
    }
    if (cx != cy) {
      return cx < cy ? -1 : 1;
    }
  }
  return *x ? 1 : *y ? -1 : 0;
}

static void put_value(Buf *b, const json_t *v)
{
  char num[64];
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    size_t n = json_object_size(v), i = 0;
    const char **keys = malloc((n + 1) * sizeof(*keys));
    if (!keys) {
      b->failed = true;
      return;
    }
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) {
      keys[i++] = k;
    }
    qsort(keys, n, sizeof(*keys), cmp_utf16);
    put(b, "{", 1);
    for (i = 0; i < n; i++) {
      if (i) {
        put(b, ",", 1);
      }
      put_string(b, keys[i], strlen(keys[i]));
      put(b, ":", 1);
      put_value(b, json_object_get(v, keys[i]));
    }
    put(b, "}", 1);
    free(keys);
    break;
  }
  case JSON_ARRAY: {
    put(b, "[", 1);
    for (size_t i = 0; i < json_array_size(v); i++) {
      if (i) {
        put(b, ",", 1);
      }
      put_value(b, json_array_get(v, i));
    }
    put(b, "]", 1);
    break;
  }
  case JSON_STRING:
    put_string(b, json_string_value(v), json_string_length(v));
    break;
  case JSON_INTEGER:
    lw_jld_format_number((double)json_integer_value(v), num, sizeof(num));
    puts_(b, num);
    break;
  case JSON_REAL:
    lw_jld_format_number(json_real_value(v), num, sizeof(num));
    puts_(b, num);
    break;
  case JSON_TRUE:
    puts_(b, "true");
    break;
  case JSON_FALSE:
    puts_(b, "false");
    break;
  case JSON_NULL:
    puts_(b, "null");
    break;
  }
}

char *lw_jld_canonical(const json_t *v)
{
  Buf b = {0};
  put_value(&b, v);
  if (b.failed) {
    free(b.data);
    return NULL;
  }
  if (!b.data) {
    return strdup("");
  }
  return b.data;
}

char *lw_jsonld_canonical_json(const char *json, LwError *err)
{
  json_error_t jerr;
  json_t *v = json_loads(json, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &jerr);
  if (!v) {
    lw_error_set(err, LW_ERR_SYNTAX, "line %d, column %d: %s", jerr.line, jerr.column,
                 jerr.text);
    return NULL;
  }
  char *r = lw_jld_canonical(v);
  json_decref(v);
  if (!r) {
    lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  return r;
}
