#include "common/rdf_prescan.h"

enum {
  S_NORMAL = 0,
  S_COMMENT,
  S_IRI,
  S_OPEN,   /* after one or two quotes in Turtle: "", " or """ ? */
  S_STR,    /* a short string */
  S_LSTR,   /* a long string */
  S_ESC,    /* after a backslash in a string or IRI */
  S_HEX,    /* in the hex digits of \u or \U */
  S_NESC    /* after a backslash outside strings (PN_LOCAL_ESC) */
};

void lw_scanner_init(LwScanner *s, bool long_strings, unsigned max_depth,
                     size_t max_term_bytes, size_t max_line_bytes)
{
  *s = (LwScanner){0};
  s->long_strings = long_strings;
  s->max_depth = max_depth;
  s->max_term_bytes = max_term_bytes;
  s->max_line_bytes = max_line_bytes;
  s->state = S_NORMAL;
  s->line = 1;
}

void lw_scanner_sync(LwScanner *s)
{
  s->state = S_NORMAL;
  s->term_len = 0;
  s->quotes_seen = 0;
}

static int hex_value(unsigned char c)
{
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

/* Escaped code points serd would accept but that are not characters, or
 * that IRIREF forbids (an IRI with an escaped space is no IRI). */
static bool bad_code_point(uint32_t cp, bool in_iri)
{
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    return true;
  }
  if (!in_iri) {
    return false;
  }
  return cp <= 0x20 || cp == '<' || cp == '>' || cp == '"' || cp == '{' ||
         cp == '}' || cp == '|' || cp == '^' || cp == '`' || cp == '\\';
}

static bool is_delimiter(unsigned char c)
{
  switch (c) {
  case ' ': case '\t': case '\n': case '\r': case '<': case '"': case '\'':
  case '#': case '[': case ']': case '(': case ')': case '{': case '}':
  case ',': case ';':
    return true;
  default:
    return false;
  }
}

static bool is_term_state(int state)
{
  return state == S_IRI || state == S_STR || state == S_LSTR ||
         state == S_ESC || state == S_HEX || state == S_OPEN;
}

static LwScanResult stop(LwScanner *s, LwScanResult why, size_t i,
                         size_t *used)
{
  s->stop_line = s->line;
  s->stop_column = s->column;
  *used = i;
  return why;
}

/* The NORMAL state: whitespace, punctuation, brackets and bare tokens. */
static LwScanResult scan_normal(LwScanner *s, unsigned char c)
{
  switch (c) {
  case '#':
    s->state = S_COMMENT;
    s->term_len = 0;
    return LW_SCAN_OK;
  case '<':
    s->state = S_IRI;
    s->term_len = 0;
    return LW_SCAN_OK;
  case '"':
  case '\'':
    if (c == '\'' && !s->long_strings) {
      break;
    }
    s->quote = c;
    s->quotes_seen = 1;
    s->state = s->long_strings ? S_OPEN : S_STR;
    s->term_len = 0;
    return LW_SCAN_OK;
  case '[': case '(': case '{':
    if (++s->depth > s->max_depth) {
      return LW_SCAN_DEPTH;
    }
    break;
  case ']': case ')': case '}':
    if (s->depth > 0) {
      --s->depth;
    }
    break;
  case '\\':
    s->state = S_NESC;
    break;
  default:
    break;
  }
  if (is_delimiter(c)) {
    s->term_len = 0;
  }
  return LW_SCAN_OK;
}

LwScanResult lw_scanner_feed(LwScanner *s, char *data, size_t len,
                             size_t *used)
{
  for (size_t i = 0; i < len; ++i) {
    unsigned char c = (unsigned char)data[i];
    if (c == '\n' || c == '\r') {
      s->line_len = 0;
    } else if (s->max_line_bytes && ++s->line_len > s->max_line_bytes) {
      return stop(s, LW_SCAN_LINE, i, used);
    }
    if (is_term_state(s->state) || (s->state == S_NORMAL && !is_delimiter(c))) {
      if (++s->term_len > s->max_term_bytes) {
        return stop(s, LW_SCAN_TERM, i, used);
      }
    }
  again:
    switch (s->state) {
    case S_NORMAL: {
      LwScanResult r = scan_normal(s, c);
      if (r != LW_SCAN_OK) {
        return stop(s, r, i, used);
      }
      break;
    }
    case S_COMMENT:
      if (c == '\n' || c == '\r') {
        s->state = S_NORMAL;
      }
      break;
    case S_NESC:
      s->state = S_NORMAL;
      break;
    case S_IRI:
      if (c == '>' || c == '\n' || c == '\r') {
        s->state = S_NORMAL;
        s->term_len = 0;
      } else if (c == '\\') {
        s->ret_state = S_IRI;
        s->state = S_ESC;
      }
      break;
    case S_OPEN:
      if (c == (unsigned char)s->quote) {
        if (++s->quotes_seen == 3) {
          s->state = S_LSTR;
          s->quotes_seen = 0;
        }
        break;
      }
      s->state = s->quotes_seen == 1 ? S_STR : S_NORMAL; /* "" is empty */
      if (s->state == S_NORMAL) {
        s->term_len = 0;
      }
      goto again;
    case S_STR:
      if (c == (unsigned char)s->quote || c == '\n' || c == '\r') {
        /* a short string cannot hold a line break: serd gives up on the
         * line there too, so the scanner follows it */
        s->state = S_NORMAL;
        s->term_len = 0;
      } else if (c == '\\') {
        s->ret_state = S_STR;
        s->state = S_ESC;
      }
      break;
    case S_LSTR:
      if (c == (unsigned char)s->quote) {
        if (++s->quotes_seen == 3) {
          s->state = S_NORMAL;
          s->term_len = 0;
        }
        break;
      }
      s->quotes_seen = 0;
      if (c == '\\') {
        s->ret_state = S_LSTR;
        s->state = S_ESC;
      }
      break;
    case S_ESC:
      if (c == 'u' || c == 'U') {
        s->state = S_HEX;
        s->esc_left = c == 'u' ? 4 : 8;
        s->esc_value = 0;
      } else {
        s->state = s->ret_state;
      }
      break;
    case S_HEX: {
      int v = hex_value(c);
      if (v < 0) { /* serd reports the short escape itself */
        s->state = s->ret_state;
        goto again;
      }
      s->esc_value = (s->esc_value << 4) | (uint32_t)v;
      if (--s->esc_left == 0) {
        if (bad_code_point(s->esc_value, s->ret_state == S_IRI)) {
          data[i] = 'Z'; /* serd: "invalid hex escape", here */
        }
        s->state = s->ret_state;
      }
      break;
    }
    default:
      s->state = S_NORMAL;
      break;
    }
    if (c == '\n') {
      ++s->line;
      s->column = 0;
    } else {
      ++s->column;
    }
  }
  *used = len;
  return LW_SCAN_OK;
}
