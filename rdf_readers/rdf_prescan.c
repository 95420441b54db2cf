#include "rdf_readers/rdf_readers.h"

#include <string.h>

enum {
  S_NORMAL = 0,
  S_COMMENT,
  S_IRI,
  S_OPEN, /* after one or two quotes in Turtle: "", " or """ ? */
  S_STR,  /* a short string */
  S_LSTR, /* a long string */
  S_ESC,  /* after a backslash in a string or IRI */
  S_HEX,  /* in the hex digits of \u or \U */
  S_NESC  /* after a backslash outside strings (PN_LOCAL_ESC) */
};

#define NON_ASCII 0x80 /* what the state machine sees for any other char */
#define FFFD "\xEF\xBF\xBD"

void lw_scanner_init(LwScanner *s, bool long_strings, unsigned max_depth,
                     size_t max_term_bytes, LwScanErrorFunc on_error, void *error_handle)
{
  *s = (LwScanner){0};
  s->long_strings = long_strings;
  s->max_depth = max_depth;
  s->max_term_bytes = max_term_bytes;
  s->on_error = on_error;
  s->error_handle = error_handle;
  s->state = S_NORMAL;
  s->line = 1;
}

void lw_scanner_sync(LwScanner *s)
{
  s->reported_line = 0;
  s->state = S_NORMAL;
  s->term_len = 0;
  s->quotes_seen = 0;
  s->in_token = false;
  s->dots = 0;
  s->label_state = 0;
  s->held_b = 0;
  s->bool_state = 0;
  s->bool_len = 0;
  s->after_caret = false;
  s->tag_len = 0;
}

static int hex_value(unsigned c)
{
  if (c >= '0' && c <= '9') {
    return (int)c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return (int)c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return (int)c - 'A' + 10;
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
  return cp <= 0x20 || cp == '<' || cp == '>' || cp == '"' || cp == '{' || cp == '}' ||
         cp == '|' || cp == '^' || cp == '`' || cp == '\\';
}

static bool is_delimiter(unsigned c)
{
  switch (c) {
  case ' ':
  case '\t':
  case '\n':
  case '\r':
  case '<':
  case '"':
  case '\'':
  case '#':
  case '[':
  case ']':
  case '(':
  case ')':
  case '{':
  case '}':
  case ',':
  case ';':
  case 0:
    return true;
  default:
    return false;
  }
}

static bool is_token_char(unsigned c)
{
  return c != '.' && !is_delimiter(c);
}

/* The length of the UTF-8 character at s: complete (a valid character), or
 * the maximal invalid subpart (at least 1), or 0 when avail bytes are a valid
 * start that needs more bytes to decide. */
static size_t utf8_subpart(const unsigned char *s, size_t avail, bool *complete)
{
  unsigned char c = s[0];
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  *complete = false;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    lo = c == 0xE0 ? 0xA0 : 0x80;
    hi = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    lo = c == 0xF0 ? 0x90 : 0x80;
    hi = c == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 1;
  }
  for (size_t j = 1; j < n; ++j) {
    if (j >= avail) {
      return 0;
    }
    unsigned char b = s[j];
    if (b < (j == 1 ? lo : 0x80) || b > (j == 1 ? hi : 0xBF)) {
      return j;
    }
  }
  *complete = true;
  return n;
}

typedef struct {
  char *o; /* where the next output byte goes (room reserved) */
} Out;

static void emit(Out *out, const char *bytes, size_t n)
{
  memcpy(out->o, bytes, n);
  out->o += n;
}

static void emit_bool_held(LwScanner *s, Out *out, bool extra_z);

static void emit_dots(LwScanner *s, Out *out, bool space)
{
  if (s->bool_len) { /* a boolean before the end of a statement */
    emit_bool_held(s, out, false);
  }
  if (space) {
    *out->o++ = ' ';
  }
  for (; s->dots; --s->dots) {
    *out->o++ = '.';
  }
}

static void emit_held_b(LwScanner *s, Out *out, bool extra)
{
  if (extra) {
    *out->o++ = 'B';
  }
  for (; s->held_b; --s->held_b) {
    *out->o++ = 'B';
  }
}

/* The quotes held back in a long string. serd 0.30 takes the character
 * after a lone quote as it is, so that an escape there is not decoded
 * ("""a"\\nb""" gave a backslash and a newline): a lone quote before a
 * backslash goes out escaped (\"), and serd reads the escape after it. */
static void emit_quotes(LwScanner *s, Out *out, bool backslash_next)
{
  if (s->quotes_seen == 1 && backslash_next) {
    *out->o++ = '\\';
  }
  for (; s->quotes_seen; --s->quotes_seen) {
    *out->o++ = (char)s->quote;
  }
}

/* Boolean-like prefixes (Turtle / TriG): "Z...Z" + "true" or "false", held
 * back until the next character says whether a prefixed name goes on. */
enum { BOOL_NONE = 0, BOOL_ZS, BOOL_WORD };

/* The bytes of a character that is PN_CHARS, not PN_CHARS_BASE, and not
 * ASCII: U+00B7, U+0300-036F, U+203F-2040. */
static bool name_inner_char(const unsigned char *p, size_t n)
{
  unsigned c = p[0];
  if (n >= 2 && c == 0xC2 && p[1] == 0xB7) {
    return true;
  }
  if (n >= 2 && (c == 0xCC || (c == 0xCD && p[1] <= 0xAF))) {
    return true;
  }
  return n >= 3 && c == 0xE2 &&
         ((p[1] == 0x80 && p[2] == 0xBF) || (p[1] == 0x81 && p[2] == 0x80));
}

/* After "true" / "false": the bytes of a character that is PN_CHARS but not
 * PN_CHARS_BASE ('-', '_', digits, U+00B7, U+0300-036F, U+203F-2040), or ':'
 * or '.'. serd 0.30 stops the word there and reads the boolean. */
static bool name_goes_on(const unsigned char *p, size_t n)
{
  unsigned c = p[0];
  if (c == '-' || c == '_' || c == ':' || c == '.' || (c >= '0' && c <= '9')) {
    return true;
  }
  return name_inner_char(p, n);
}

/* Follows the letters a bare token starts with (see LwScanNameCharFunc). */
static void name_letters(LwScanner *s, unsigned c, bool token_start, const char *bytes,
                         size_t n)
{
  bool letter = c == NON_ASCII || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  if (token_start) {
    s->name_letters = true;
  }
  s->name_letters = s->name_letters && letter;
  if (s->name_letters && c == NON_ASCII && s->on_name_char &&
      name_inner_char((const unsigned char *)bytes, n)) {
    s->on_name_char(s->name_char_handle, s->line, token_start);
  }
}

const char *lw_scanner_written_name(const char *name)
{
  size_t z = strspn(name, "Z");
  if (z == 0) {
    return name;
  }
  const char *word = name + z;
  size_t k = !strncmp(word, "true", 4) ? 4 : !strncmp(word, "false", 5) ? 5 : 0;
  if (k && word[k] && name_goes_on((const unsigned char *)word + k, strlen(word + k))) {
    return name + 1;
  }
  return name;
}

static const char *bool_word(const LwScanner *s)
{
  return s->bool_held[0] == 't' ? "true" : "false";
}

/* The held letters go out, after one more 'Z' when a prefixed name goes on. */
static void emit_bool_held(LwScanner *s, Out *out, bool extra_z)
{
  if (extra_z) {
    *out->o++ = 'Z';
  }
  emit(out, s->bool_held, s->bool_len);
  s->bool_len = 0;
  s->bool_state = BOOL_NONE;
}

/* Called for each character in the NORMAL state, before the dot rule.
 * Returns true when c was held back. */
static bool boolean_like(LwScanner *s, unsigned c, bool token_start, const char *bytes,
                         size_t n, Out *out)
{
  if (!s->long_strings) {
    return false;
  }
  if (s->bool_state == BOOL_WORD) {
    const char *word = bool_word(s);
    if (s->bool_len < strlen(word)) {
      if (c == (unsigned char)word[s->bool_len]) {
        s->bool_held[s->bool_len++] = (char)c;
        return true;
      }
      emit_bool_held(s, out, false);
      return false;
    }
    if (c == '.') {
      return false; /* the dot rule holds it: a dot before white space ends
                       the statement, before a name character it goes on */
    }
    bool goes_on = s->dots ? is_token_char(c) && c != '^' && c != '@'
                           : name_goes_on((const unsigned char *)bytes, n);
    emit_bool_held(s, out, goes_on);
    return false;
  }
  if (s->bool_state == BOOL_NONE && token_start) {
    s->bool_state = BOOL_ZS;
  }
  if (s->bool_state == BOOL_ZS) {
    if (c == 't' || c == 'f') {
      s->bool_held[0] = (char)c;
      s->bool_len = 1;
      s->bool_state = BOOL_WORD;
      s->in_token = true;
      return true;
    }
    if (c != 'Z') {
      s->bool_state = BOOL_NONE;
    }
  }
  return false;
}

/* Blank node labels in Turtle / TriG: "_:" then 'B's held back until we see
 * whether a digit follows. Returns true when c was held. */
static bool blank_label(LwScanner *s, unsigned c, Out *out)
{
  switch (s->label_state) {
  case 1: /* after '_' */
    s->label_state = c == ':' ? 2 : 0;
    return false;
  case 2:           /* after "_:" */
  case 3:           /* after "_:B..." */
    if (c == 'B') { /* bounded by max_term_bytes */
      ++s->held_b;
      s->label_state = 3;
      return true;
    }
    emit_held_b(s, out, s->held_b && c >= '0' && c <= '9');
    s->label_state = 0;
    return false;
  default:
    if (c == '_' && !s->in_token && s->long_strings) {
      s->label_state = 1;
    }
    return false;
  }
}

static bool is_letter(unsigned c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* After "@" started a token: true when its word is @forAll or @forSome
 * (decided at the first character that is no letter). */
static bool n3_quantifier(LwScanner *s, unsigned c)
{
  if (is_letter(c) && s->n3_word_len < sizeof(s->n3_word) - 1) {
    s->n3_word[s->n3_word_len++] = (char)c;
    return false;
  }
  s->n3_in_at = false;
  s->n3_word[s->n3_word_len] = '\0';
  return !strcmp(s->n3_word, "forAll") || !strcmp(s->n3_word, "forSome");
}

/* After a '}' closed the outermost bracket: TriG goes on with a statement
 * of its own (three terms, or a graph label and '{'); N3 may go on with a
 * predicate and an object (the formula is the subject), or with ". ; , ] )
 * =" (it is an object, or a rule's premise). Counts the terms at depth 0
 * until it can tell. */
static const char *after_block(LwScanner *s, unsigned c, bool token_start)
{
  if (s->depth > 0) {
    return NULL;
  }
  bool ends = c == '.' || c == ';' || c == ',';
  if ((ends || c == ']' || c == ')' || c == '=') && s->n3_block_terms == 0) {
    return c == '=' ? "an N3 rule ('=>')" : "a formula { ... } as an object";
  }
  if (ends || c == '{' || c == '}' || (c == '@' && token_start)) {
    /* '@': a directive (@prefix, @base) */
    s->n3_after_block = false;
    return ends && s->n3_block_terms == 2 ? "a formula { ... } as a subject" : NULL;
  }
  bool term = (token_start && is_token_char(c) && c != '@' && c != '^' &&
               !s->after_caret) ||
              c == '<' || c == '"' || c == '\'' || c == '[' || c == '(';
  if (term && ++s->n3_block_terms > 2) {
    s->n3_after_block = false;
  }
  return NULL;
}

/* The N3 construct that c (in the NORMAL state) completes, or NULL (see
 * rdf_readers.h). */
static const char *n3_construct(LwScanner *s, unsigned c, bool token_start)
{
  if (s->n3_in_at && n3_quantifier(s, c)) {
    return "an @forAll / @forSome quantifier";
  }
  if (s->n3_eq) {
    s->n3_eq = false;
    if (c == '>') {
      return "an N3 rule ('=>')";
    }
  }
  bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
  if (space) {
    return NULL;
  }
  const char *found = s->n3_after_block ? after_block(s, c, token_start) : NULL;
  if (found) {
    return found;
  }
  if (c == '}' && s->depth == 1) {
    s->n3_after_block = true;
    s->n3_block_terms = 0;
  }
  if (c == '{' && s->depth > 0) {
    return "a formula { ... } inside a statement";
  }
  if (token_start && c == '=') {
    s->n3_eq = true;
  }
  if (token_start && c == '@' && s->prev_sig != '"' && s->prev_sig != '\'') {
    s->n3_in_at = true;
    s->n3_word_len = 0;
  }
  s->prev_sig = (unsigned char)c;
  return NULL;
}

/* Writes the language tag held back; as "@-..." when "^^" follows it (see
 * rdf_readers.h). The tag was a token: what follows goes on from there. */
static void emit_tag(LwScanner *s, Out *out, bool datatype_follows)
{
  emit(out, "@", 1);
  if (datatype_follows) {
    emit(out, "-", 1);
    ++s->tags_refused;
  }
  emit(out, s->tag_held + 1, s->tag_len - 1);
  s->tag_len = 0;
  s->in_token = true;
}

/* Turtle / TriG: holds a language tag ('@' right after a string) back until
 * the character after it. Returns true when c was held. */
static bool held_tag(LwScanner *s, unsigned c, bool token_start, Out *out)
{
  if (s->tag_len) {
    bool tag_char = is_letter(c) || (c >= '0' && c <= '9') || c == '-';
    if (tag_char && s->tag_len < sizeof(s->tag_held)) {
      s->tag_held[s->tag_len++] = (char)c;
      return true;
    }
    emit_tag(s, out, c == '^');
    return false;
  }
  if (c == '@' && token_start && (s->prev_sig == '"' || s->prev_sig == '\'')) {
    s->tag_held[0] = '@';
    s->tag_len = 1;
    return true;
  }
  return false;
}

/* The NORMAL state: whitespace, punctuation, brackets and bare tokens. */
static LwScanResult normal(LwScanner *s, unsigned c, const char *bytes, size_t n, Out *out)
{
  bool token_start = !s->in_token || s->after_caret; /* "^^" + a name */
  if (s->long_strings) {
    name_letters(s, c, token_start, bytes, n);
    if (held_tag(s, c, token_start, out)) {
      return LW_SCAN_OK;
    }
    token_start = !s->in_token || s->after_caret; /* a tag went out before c */
    if (!s->n3 && (s->n3 = n3_construct(s, c, token_start))) {
      return LW_SCAN_N3;
    }
  }
  s->after_caret = c == '^';
  if (blank_label(s, c, out) || boolean_like(s, c, token_start, bytes, n, out)) {
    return LW_SCAN_OK;
  }
  if (c == '.' && (s->in_token || s->dots)) {
    /* held back until we know whether the token goes on (a long run of
     * dots is no token: let it go) */
    if (++s->dots == 64) {
      emit_dots(s, out, true);
      s->in_token = false;
    }
    return LW_SCAN_OK;
  }
  if (s->dots) {
    emit_dots(s, out, !is_token_char(c));
  }
  s->in_token = is_token_char(c);
  if (!s->in_token) {
    s->term_len = 0;
  }
  switch (c) {
  case 0:
    emit(out, "\\u000Z", 6); /* a syntax error where serd stands */
    return LW_SCAN_OK;
  case '#':
    s->state = S_COMMENT;
    break;
  case '<':
    s->state = S_IRI;
    break;
  case '"':
  case '\'':
    if (c == '\'' && !s->long_strings) {
      break;
    }
    s->quote = (int)c;
    s->quotes_seen = 1;
    s->state = s->long_strings ? S_OPEN : S_STR;
    break;
  case '[':
  case '(':
  case '{':
    if (++s->depth > s->max_depth) {
      return LW_SCAN_DEPTH;
    }
    break;
  case ']':
  case ')':
  case '}':
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
  emit(out, bytes, n);
  return LW_SCAN_OK;
}

/* One character (c: the ASCII byte, or NON_ASCII) whose bytes are given. */
static LwScanResult step(LwScanner *s, unsigned c, const char *bytes, size_t n, Out *out)
{
  if (s->state != S_NORMAL && s->state != S_COMMENT) {
    s->term_len += n;
  } else if (s->state == S_NORMAL && is_token_char(c)) {
    s->term_len += n;
  }
  if (s->term_len > s->max_term_bytes) {
    return LW_SCAN_TERM;
  }
again:
  switch (s->state) {
  case S_NORMAL:
    return normal(s, c, bytes, n, out);
  case S_COMMENT:
    if (c == '\n' || c == '\r') {
      s->state = S_NORMAL;
    }
    if (c == 0) {
      return LW_SCAN_OK; /* dropped: harmless in a comment */
    }
    break;
  case S_NESC:
    s->state = S_NORMAL;
    if (c == 0) {
      emit(out, "Z", 1);
      return LW_SCAN_OK;
    }
    break;
  case S_IRI:
    if (c == '>') {
      s->state = S_NORMAL;
      s->term_len = 0;
    } else if (c == '\\') {
      s->ret_state = S_IRI;
      s->state = S_ESC;
    } else if (c == 0) {
      emit(out, "\\u000Z", 6);
      return LW_SCAN_OK;
    }
    break;
  case S_OPEN:
    if (c == (unsigned)s->quote) {
      if (++s->quotes_seen == 3) {
        s->state = S_LSTR;
        s->quotes_seen = 0;
      }
      break;
    }
    s->state = s->quotes_seen == 1 ? S_STR : S_NORMAL; /* "" is empty */
    s->quotes_seen = 0;
    if (s->state == S_NORMAL) {
      s->term_len = 0;
      s->in_token = false;
    }
    goto again;
  case S_STR:
    if (c == (unsigned)s->quote) {
      s->state = S_NORMAL;
      s->term_len = 0;
      s->in_token = false;
      break;
    }
    goto string_char;
  case S_LSTR:
    if (c == (unsigned)s->quote) {
      if (++s->quotes_seen == 3) { /* the end: the held quotes go out */
        emit_quotes(s, out, false);
        s->state = S_NORMAL;
        s->term_len = 0;
        s->in_token = false;
        return LW_SCAN_OK;
      }
      return LW_SCAN_OK; /* held back until we know what follows */
    }
    emit_quotes(s, out, c == '\\');
  string_char:
    if (s->state == S_STR && (c == '\n' || c == '\r')) {
      /* a short string cannot hold a line break: serd gives up on the
       * line there too, so the scanner follows it */
      s->state = S_NORMAL;
      s->term_len = 0;
      s->in_token = false;
    } else if (c == '\\') {
      s->ret_state = s->state;
      s->state = S_ESC;
    } else if (c == 0) {
      emit(out, "\\u0000", 6); /* allowed in a literal */
      return LW_SCAN_OK;
    }
    break;
  case S_ESC:
    if (c == 'u' || c == 'U') {
      s->state = S_HEX;
      s->esc_left = c == 'u' ? 4 : 8;
      s->esc_value = 0;
    } else {
      s->state = s->ret_state;
      if (c == 0) {
        emit(out, "Z", 1);
        return LW_SCAN_OK;
      }
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
      s->state = s->ret_state;
      if (bad_code_point(s->esc_value, s->ret_state == S_IRI)) {
        emit(out, "Z", 1); /* serd: "invalid hex escape", here */
        size_t k = s->escapes_refused++ % (sizeof(s->refused) / sizeof(s->refused[0]));
        s->refused[k].line = s->line;
        s->refused[k].code_point = s->esc_value;
        s->refused[k].in_iri = s->ret_state == S_IRI;
        return LW_SCAN_OK;
      }
    }
    break;
  }
  default:
    s->state = S_NORMAL;
    break;
  }
  emit(out, bytes, n);
  return LW_SCAN_OK;
}

static void advance(LwScanner *s, unsigned c, size_t n)
{
  if (c == '\n') {
    ++s->line;
    s->column = 0;
  } else {
    s->column += n;
  }
}

/* One character from the input, valid UTF-8 or not. */
static LwScanResult one_char(LwScanner *s, const unsigned char *p, size_t k, bool complete,
                             Out *out)
{
  LwScanResult r;
  if (complete) {
    r = step(s, NON_ASCII, (const char *)p, k, out);
  } else if (s->state == S_COMMENT) {
    r = step(s, NON_ASCII, FFFD, 3, out); /* harmless there */
  } else {
    /* a bad statement: make serd skip it as it skips any syntax error */
    if (s->on_error && s->reported_line != s->line) {
      s->on_error(s->error_handle, s->line, s->column + 1, "invalid UTF-8");
      s->reported_line = s->line;
    }
    bool in_escape = s->state == S_ESC || s->state == S_HEX || s->state == S_NESC;
    r = in_escape ? step(s, NON_ASCII, "Z", 1, out) : step(s, NON_ASCII, "\\Z", 2, out);
  }
  if (r == LW_SCAN_OK) {
    advance(s, NON_ASCII, k);
  }
  return r;
}

static LwScanResult stopped(LwScanner *s, LwScanResult r, LwBuf *out, Out *o, char *mark)
{
  s->stop_line = s->line;
  s->stop_column = s->column + 1;
  o->o = mark;
  out->len = (size_t)(o->o - out->data);
  out->data[out->len] = '\0';
  return r;
}

/* Completes a UTF-8 sequence held over from the last block. Returns the
 * input bytes used (*r set), or len when all went into the carry. */
static size_t finish_carry(LwScanner *s, const unsigned char *in, size_t len, Out *o,
                           LwScanResult *r)
{
  size_t used = 0;
  *r = LW_SCAN_OK;
  while (s->carry_len && used < len) {
    unsigned char tmp[8];
    size_t had = s->carry_len;
    size_t add = len - used < 4 ? len - used : 4;
    memcpy(tmp, s->carry, had);
    memcpy(tmp + had, in + used, add);
    bool complete;
    size_t k = utf8_subpart(tmp, had + add, &complete);
    if (k == 0) { /* still not enough: keep it all */
      memcpy(s->carry, tmp, had + add);
      s->carry_len = had + add;
      return len;
    }
    if ((*r = one_char(s, tmp, k, complete, o)) != LW_SCAN_OK) {
      return used;
    }
    if (k < had) {
      memmove(s->carry, s->carry + k, had - k);
      s->carry_len = had - k;
    } else {
      s->carry_len = 0;
      used += k - had;
    }
  }
  return used;
}

/* Byte classes for the fast path in comments and bare tokens: which bytes
 * change no state there. (In an IRI or a string the plain bytes are ASCII
 * from the space up but the closing character and '\\':
 * lw_span_printable_except.) */
enum {
  P_COMMENT = 1, /* plain in a comment */
  P_TOKEN = 2    /* plain in a bare token (not '.', '_', 'B', '#', '\\') */
};

/* generated from the rules above: printable ASCII minus the bytes that end
 * the state (the tab only for comments) */
static const unsigned char plain[256] = {
  0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 3, 1, 3, 1, 3,
  3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1,
  1, 3, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
  3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1,
  1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
  3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* How many bytes from in[0] on are plain content of the current string,
 * IRI, comment or bare token: ASCII that changes no state (the common case,
 * copied as one run). */
static size_t plain_run(const LwScanner *s, const unsigned char *in, size_t len)
{
  unsigned char mask;
  switch (s->state) {
  case S_IRI: /* the long runs: sixteen bytes a step */
    return lw_span_printable_except((const char *)in, len, '>', '\\');
  case S_LSTR:
    if (s->quotes_seen) {
      return 0; /* step() decides how the held quotes go out */
    }
    /* fall through */
  case S_STR:
    return lw_span_printable_except((const char *)in, len, (char)s->quote, '\\');
  case S_COMMENT:
    mask = P_COMMENT;
    break;
  case S_NORMAL:
    if (!s->in_token || s->dots || s->label_state || s->bool_state || s->after_caret ||
        s->n3_in_at || s->n3_eq || s->tag_len) {
      return 0;
    }
    mask = P_TOKEN;
    break;
  default:
    return 0;
  }
  size_t j = 0;
  while (j < len && (plain[in[j]] & mask)) {
    ++j;
  }
  return j;
}

/* How many bytes from in[0] on are white space between terms that changes
 * nothing but the position (indentation, the blanks around terms, line
 * ends): outside a token, with nothing held back, a blank only ends a
 * name's letters (name_letters) and moves the line and column, as step()
 * would. Copied as one run. */
static size_t blank_run(LwScanner *s, const unsigned char *in, size_t len)
{
  if (s->state != S_NORMAL || s->in_token || s->after_caret || s->dots || s->label_state ||
      s->held_b || s->bool_state != BOOL_NONE || s->tag_len || s->n3_in_at || s->n3_eq) {
    return 0;
  }
  size_t j = 0;
  for (; j < len; ++j) {
    unsigned char c = in[j];
    if (c == '\n') {
      ++s->line;
      s->column = 0;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++s->column;
    } else {
      break;
    }
  }
  if (j) {
    s->name_letters = false;
    s->term_len = 0;
  }
  return j;
}

LwScanResult lw_scanner_feed(LwScanner *s, const char *data, size_t len, LwBuf *out)
{
  /* each input byte gives at most 6 output bytes (NUL -> \u0000) */
  if (lw_buf_reserve(out, 6 * (len + sizeof(s->carry)) + 16 + s->dots + s->held_b +
                            sizeof(s->bool_held) + sizeof(s->tag_held) + 2) != LW_OK) {
    return LW_SCAN_NOMEM;
  }
  Out o = {out->data + out->len};
  const unsigned char *in = (const unsigned char *)data;
  LwScanResult r;
  size_t i = finish_carry(s, in, len, &o, &r);
  char *mark = o.o;
  if (r != LW_SCAN_OK) {
    return stopped(s, r, out, &o, mark);
  }
  while (i < len) {
    size_t run = plain_run(s, in + i, len - i);
    if (run) {
      if (s->state != S_COMMENT) {
        size_t room = s->max_term_bytes - s->term_len; /* step() stops past it */
        run = run < room ? run : room;
        s->term_len += run;
      }
      if (run) {
        memcpy(o.o, in + i, run);
        o.o += run;
        s->column += run;
        i += run;
        continue;
      }
    }
    size_t blanks = blank_run(s, in + i, len - i);
    if (blanks) {
      memcpy(o.o, in + i, blanks);
      o.o += blanks;
      i += blanks;
      continue;
    }
    unsigned c = in[i];
    mark = o.o;
    if (c < 0x80) {
      char byte = (char)c;
      if ((r = step(s, c, &byte, 1, &o)) != LW_SCAN_OK) {
        return stopped(s, r, out, &o, mark);
      }
      advance(s, c, 1);
      ++i;
      continue;
    }
    bool complete;
    size_t k = utf8_subpart(in + i, len - i, &complete);
    if (k == 0) { /* cut by the end of the block: keep it for the next */
      memcpy(s->carry, in + i, len - i);
      s->carry_len = len - i;
      break;
    }
    if ((r = one_char(s, in + i, k, complete, &o)) != LW_SCAN_OK) {
      return stopped(s, r, out, &o, mark);
    }
    i += k;
  }
  out->len = (size_t)(o.o - out->data);
  out->data[out->len] = '\0';
  return LW_SCAN_OK;
}

/* What the input ends inside, for the message at its end: serd names a
 * character there that is not in the input (the '|' of the trailer, the
 * pre-scanner's 'Z', '?' for its own end of input). */
static const char *ends_inside(const LwScanner *s)
{
  switch (s->state) {
  case S_IRI:
    return "an IRI";
  case S_OPEN:
    return s->quotes_seen == 1 ? "a string" : NULL; /* "" is a string */
  case S_STR:
    return "a string";
  case S_LSTR:
    return "a long string";
  case S_ESC:
  case S_HEX:
    return s->ret_state == S_IRI ? "an escape in an IRI" : "an escape in a string";
  case S_NESC:
    return "an escape in a name";
  default:
    return NULL;
  }
}

LwScanResult lw_scanner_finish(LwScanner *s, LwBuf *out)
{
  s->end_inside = ends_inside(s);
  if (lw_buf_reserve(out, 17 + s->dots + s->held_b + sizeof(s->bool_held) +
                            sizeof(s->tag_held) + 1) != LW_OK) {
    return LW_SCAN_NOMEM;
  }
  Out o = {out->data + out->len};
  if (s->carry_len) { /* a sequence cut by the end of the input */
    s->carry_len = 0;
    if (lw_buf_reserve(out, 16 + s->dots) != LW_OK) {
      return LW_SCAN_NOMEM;
    }
    o.o = out->data + out->len;
    LwScanResult r = one_char(s, s->carry, 1, false, &o);
    if (r != LW_SCAN_OK) {
      return stopped(s, r, out, &o, out->data + out->len);
    }
  }
  emit_held_b(s, &o, false);
  if (s->tag_len) {
    emit_tag(s, &o, false); /* a language tag at the very end */
  }
  if (s->bool_len) {
    emit_bool_held(s, &o, false); /* "true" or "false" at the very end */
  }
  if (s->state == S_LSTR) {
    /* an unterminated long string: "\\Z" follows, so a lone quote goes out
     * as \" (else serd took the backslash as it is, read on past the end
     * in the string, and never came back) */
    emit_quotes(s, &o, true);
  }
  /* The input ends inside a string or an escape: a bad escape makes serd
   * give up on the statement there (reading on, it would take what follows
   * the end for part of the string) */
  if (s->state == S_STR || s->state == S_LSTR) {
    emit(&o, "\\Z", 2);
  } else if (s->state == S_ESC || s->state == S_HEX || s->state == S_NESC) {
    emit(&o, "Z", 1);
  }
  if (s->state != S_IRI && s->state != S_COMMENT) {
    s->state = S_NORMAL;
  }
  s->label_state = 0;
  if (s->dots) {
    emit_dots(s, &o, true);
  }
  out->len = (size_t)(o.o - out->data);
  out->data[out->len] = '\0';
  return LW_SCAN_OK;
}
