#include "rdf/rdf.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"

#define XSD_STRING "http://www.w3.org/2001/XMLSchema#string"

static const char hex_digits[] = "0123456789ABCDEF";

/* The escape of an ASCII byte that needs one: ECHAR in a literal where
 * there is one, else \u00XX. Returns its length (2 or 6). */
static size_t escape_ascii(char *o, unsigned char c, bool iri)
{
  static const char hex[] = "0123456789ABCDEF";
  char e = 0;
  if (!iri) {
    switch (c) {
    case '\b':
      e = 'b';
      break;
    case '\t':
      e = 't';
      break;
    case '\n':
      e = 'n';
      break;
    case '\f':
      e = 'f';
      break;
    case '\r':
      e = 'r';
      break;
    case '"':
    case '\\':
      e = (char)c;
      break;
    default:
      break;
    }
  }
  if (e) {
    o[0] = '\\';
    o[1] = e;
    return 2;
  }
  char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
  memcpy(o, u, sizeof(u));
  return sizeof(u);
}

/* Appends s with the escapes of an IRI (iri true) or a string literal,
 * copying runs of plain bytes at once and replacing each byte of invalid
 * UTF-8 by U+FFFD. Room is reserved for the plain case (len bytes) and
 * grown only where a byte gets longer. */
static LwStatus append_escaped(LwBuf *out, const char *s, size_t len, bool iri)
{
  const unsigned char *u = (const unsigned char *)s;
  LW_TRY(lw_buf_reserve(out, len));
  size_t i = 0;
  while (i < len) {
    /* plain ASCII, copied as it is; a non-ASCII byte stops it to be
     * checked as UTF-8 */
    size_t run = iri ? lw_span_iri_plain(s + i, len - i, true)
                     : lw_span_literal_plain(s + i, len - i);
    memcpy(out->data + out->len, s + i, run);
    out->len += run;
    i += run;
    if (i == len) {
      break;
    }
    unsigned char c = u[i];
    if (c >= 0x80) {
      uint32_t cp;
      size_t n = lw_utf8_decode(u + i, len - i, &cp);
      if (n) {
        memcpy(out->data + out->len, s + i, n);
        out->len += n;
        i += n;
        continue;
      }
    }
    /* 6 bytes at most for this byte (3 for U+FFFD), the rest as plain */
    LW_TRY(lw_buf_reserve(out, 6 + (len - i - 1)));
    if (c >= 0x80) {
      memcpy(out->data + out->len, "\xEF\xBF\xBD", 3);
      out->len += 3;
    } else {
      out->len += escape_ascii(out->data + out->len, c, iri);
    }
    ++i;
  }
  out->data[out->len] = '\0';
  return LW_OK;
}

static bool label_char(unsigned char c, bool first)
{
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
      c == '_' || c >= 0x80) {
    return true;
  }
  return !first && (c == '-' || c == '.');
}

/* A label N-Triples accepts as it is (non-ASCII letters are trusted: the
 * readers only hand on labels their syntax allowed). */
static bool label_valid(const char *s, size_t len)
{
  if (len == 0 || s[len - 1] == '.' || !lw_utf8_valid(s, len)) {
    return false;
  }
  for (size_t i = 0; i < len; ++i) {
    if (!label_char((unsigned char)s[i], i == 0)) {
      return false;
    }
  }
  return true;
}

static LwStatus append_blank(LwBuf *out, const char *s, size_t len)
{
  LW_TRY(lw_buf_append(out, "_:", 2));
  if (label_valid(s, len)) {
    return lw_buf_append(out, s, len);
  }
  LW_TRY(lw_buf_append(out, "lwx", 3));
  LW_TRY(lw_buf_reserve(out, 2 * len));
  for (size_t i = 0; i < len; ++i) {
    unsigned char c = (unsigned char)s[i];
    out->data[out->len++] = hex_digits[c >> 4];
    out->data[out->len++] = hex_digits[c & 15];
  }
  out->data[out->len] = '\0';
  return LW_OK;
}

static LwStatus append_lang(LwBuf *out, const char *lang)
{
  LW_TRY(lw_buf_append_char(out, '@'));
  size_t len = strlen(lang);
  LW_TRY(lw_buf_reserve(out, len));
  for (size_t i = 0; i < len; ++i) {
    char c = lang[i];
    /* Language tags are ASCII letters, digits and '-'; anything else would
     * break the line, so it is dropped (the readers check tags before). */
    if (c >= 'A' && c <= 'Z') {
      c = (char)(c - 'A' + 'a');
    } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      continue;
    }
    out->data[out->len++] = c;
  }
  out->data[out->len] = '\0';
  return LW_OK;
}

LwStatus lw_nquads_append_term(LwBuf *out, const LwTerm *term)
{
  const char *value = term->value ? term->value : "";
  switch (term->type) {
  case LW_TERM_IRI:
    LW_TRY(lw_buf_append_char(out, '<'));
    LW_TRY(term->canonical ? lw_buf_append(out, value, term->len)
                           : append_escaped(out, value, term->len, true));
    return lw_buf_append_char(out, '>');
  case LW_TERM_BLANK:
    return append_blank(out, value, term->len);
  case LW_TERM_LITERAL:
    LW_TRY(lw_buf_append_char(out, '"'));
    LW_TRY(term->canonical ? lw_buf_append(out, value, term->len)
                           : append_escaped(out, value, term->len, false));
    LW_TRY(lw_buf_append_char(out, '"'));
    if (term->lang && term->lang[0]) {
      return append_lang(out, term->lang);
    }
    if (term->datatype && strcmp(term->datatype, XSD_STRING) != 0) {
      LW_TRY(lw_buf_append(out, "^^<", 3));
      LW_TRY(append_escaped(out, term->datatype, strlen(term->datatype), true));
      return lw_buf_append_char(out, '>');
    }
    return LW_OK;
  case LW_TERM_NONE:
    break;
  }
  return LW_ERR_FORMAT;
}

static bool quad_valid(const LwQuad *q)
{
  return (q->subject.type == LW_TERM_IRI || q->subject.type == LW_TERM_BLANK) &&
         q->predicate.type == LW_TERM_IRI && q->object.type != LW_TERM_NONE &&
         q->graph.type != LW_TERM_LITERAL;
}

static LwStatus append_quad(LwBuf *out, const LwQuad *q)
{
  LW_TRY(lw_nquads_append_term(out, &q->subject));
  LW_TRY(lw_buf_append_char(out, ' '));
  LW_TRY(lw_nquads_append_term(out, &q->predicate));
  LW_TRY(lw_buf_append_char(out, ' '));
  LW_TRY(lw_nquads_append_term(out, &q->object));
  if (q->graph.type != LW_TERM_NONE) {
    LW_TRY(lw_buf_append_char(out, ' '));
    LW_TRY(lw_nquads_append_term(out, &q->graph));
  }
  return lw_buf_append(out, " .\n", 3);
}

LwStatus lw_nquads_append(LwBuf *out, const LwQuad *q)
{
  if (!quad_valid(q)) {
    return LW_ERR_FORMAT;
  }
  size_t mark = out->len;
  LwStatus st = append_quad(out, q);
  if (st != LW_OK) {
    out->len = mark;
    if (out->data) {
      out->data[mark] = '\0';
    }
  }
  return st;
}
