#include "rdf/rdf.h"

#include <pthread.h>
#include <string.h>

#include "base/base.h"

#define XSD_STRING "http://www.w3.org/2001/XMLSchema#string"

/* Byte classes, one table lookup per byte. */
enum {
  C_IRI = 1,    /* may stand in an IRI as it is */
  C_LIT = 2,    /* may stand in a literal as it is */
  C_SCHEME = 4, /* ALPHA / DIGIT / "+" / "-" / "." */
  C_ALPHA = 8,
  C_LANG = 16, /* a-z */
  C_LANGX = 32 /* a-z 0-9 */
};

static unsigned char classes[256];
static pthread_once_t classes_once = PTHREAD_ONCE_INIT;

static void init_classes(void)
{
  for (int c = 0; c < 256; ++c) {
    unsigned char k = 0;
    if (c > 0x20 && c != 0x7F && !strchr("<>\"{}|^`\\", c)) {
      k |= C_IRI;
    }
    if (c >= 0x20 && c != 0x7F && c != '"' && c != '\\') {
      k |= C_LIT;
    }
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    bool digit = c >= '0' && c <= '9';
    if (alpha) {
      k |= C_ALPHA;
    }
    if (alpha || digit || c == '+' || c == '-' || c == '.') {
      k |= C_SCHEME;
    }
    if (c >= 'a' && c <= 'z') {
      k |= C_LANG | C_LANGX;
    }
    if (digit) {
      k |= C_LANGX;
    }
    classes[c] = k;
  }
}

/* p at '<': returns the byte after '>' of an absolute canonical IRI, or NULL. */
static const unsigned char *scan_iri(const unsigned char *p, const unsigned char *end)
{
  if (p >= end || *p != '<') {
    return NULL;
  }
  ++p;
  if (p >= end || !(classes[*p] & C_ALPHA)) {
    return NULL;
  }
  ++p;
  while (p < end && (classes[*p] & C_SCHEME)) {
    ++p;
  }
  if (p >= end || *p != ':') {
    return NULL;
  }
  for (; p < end; ++p) {
    if (*p == '>') {
      return p + 1;
    }
    if (!(classes[*p] & C_IRI)) {
      return NULL;
    }
  }
  return NULL;
}

static const unsigned char *scan_lang(const unsigned char *p, const unsigned char *end)
{
  const unsigned char *start = p;
  while (p < end && (classes[*p] & C_LANG)) {
    ++p;
  }
  if (p == start) {
    return NULL;
  }
  while (p < end && *p == '-') {
    const unsigned char *sub = ++p;
    while (p < end && (classes[*p] & C_LANGX)) {
      ++p;
    }
    if (p == sub) {
      return NULL;
    }
  }
  return p;
}

/* p at '"': scans a canonical literal with its language tag or datatype. */
static const unsigned char *scan_literal(const unsigned char *p, const unsigned char *end,
                                         LwNtFastObject *o)
{
  const unsigned char *lex = ++p;
  while (p < end && (classes[*p] & C_LIT)) {
    ++p;
  }
  if (p >= end || *p != '"') {
    return NULL;
  }
  o->is_literal = true;
  o->lexical = (const char *)lex;
  o->lexical_len = (size_t)(p - lex);
  ++p;
  if (p < end && *p == '@') {
    const unsigned char *tag = p + 1;
    p = scan_lang(tag, end);
    if (!p) {
      return NULL;
    }
    o->lang = (const char *)tag;
    o->lang_len = (size_t)(p - tag);
  } else if (p + 1 < end && p[0] == '^' && p[1] == '^') {
    const unsigned char *dt = p + 2;
    p = scan_iri(dt, end);
    if (!p) {
      return NULL;
    }
    o->datatype = (const char *)dt + 1;
    o->datatype_len = (size_t)(p - dt) - 2;
    if (o->datatype_len == sizeof(XSD_STRING) - 1 &&
        !memcmp(o->datatype, XSD_STRING, o->datatype_len)) {
      return NULL; /* the canonical form leaves xsd:string out */
    }
  }
  return p;
}

bool lw_nt_fast_check(const char *line, size_t len, bool quads, LwNtFastObject *object)
{
  pthread_once(&classes_once, init_classes);
  memset(object, 0, sizeof(*object));
  const unsigned char *p = (const unsigned char *)line;
  const unsigned char *end = p + len;
  if (len < 4 || memcmp(end - 2, " .", 2) != 0) {
    return false;
  }
  end -= 2;
  p = scan_iri(p, end);
  if (!p || p >= end || *p++ != ' ') {
    return false;
  }
  p = scan_iri(p, end);
  if (!p || p >= end || *p++ != ' ') {
    return false;
  }
  if (p < end && *p == '"') {
    p = scan_literal(p, end, object);
  } else {
    p = scan_iri(p, end);
  }
  if (!p) {
    return false;
  }
  if (p < end) {
    if (!quads || *p++ != ' ') {
      return false;
    }
    p = scan_iri(p, end);
    if (p != end) {
      return false;
    }
  }
  /* Non-ASCII bytes passed the tables: the whole line must be UTF-8. */
  for (const unsigned char *q = (const unsigned char *)line; q < end; ++q) {
    if (*q >= 0x80) {
      return lw_utf8_valid(line, len);
    }
  }
  return true;
}
