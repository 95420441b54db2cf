#include "rdf_readers/rdf_readers.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAME 128
#define BUDGET_BASE ((unsigned long long)16 << 20)
#define BUDGET_RATIO 8ull

typedef struct {
  char *name;
  size_t value_len;
} Entity;

typedef enum {
  X_TEXT,
  X_LT,        /* after '<' */
  X_BANG,      /* after "<!" */
  X_COMMENT,   /* in <!-- --> */
  X_CDATA,     /* in <![CDATA[ ]]> */
  X_DECL,      /* in another <! > */
  X_PI,        /* in <? ?> */
  X_START_TAG, /* in <name ...> */
  X_ATTR,      /* in a quoted attribute value */
  X_END_TAG    /* in </name> */
} XmlState;

struct LwXmlGuard {
  Entity entities[LW_XML_MAX_ENTITIES];
  size_t n_entities;
  /* nesting */
  unsigned max_depth;
  unsigned depth;
  XmlState state;
  char quote;
  int run;       /* closing characters seen: "--", "]]", '?', '/' */
  char name[12]; /* the start of the tag's name, lower-cased */
  size_t name_len;
  /* body watching */
  bool in_ref;
  char ref[MAX_NAME + 1];
  size_t ref_len;
  unsigned long long fed;
  unsigned long long expanded;
};

LwXmlGuard *lw_xml_guard_new(unsigned max_depth)
{
  LwXmlGuard *g = calloc(1, sizeof(LwXmlGuard));
  if (g) {
    g->max_depth = max_depth;
  }
  return g;
}

void lw_xml_guard_free(LwXmlGuard *guard)
{
  if (guard) {
    for (size_t i = 0; i < guard->n_entities; ++i) {
      free(guard->entities[i].name);
    }
    free(guard);
  }
}

/* ---- the prolog ---- */

typedef struct {
  const char *p;
  const char *end;
} Cursor;

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_space(Cursor *c)
{
  while (c->p < c->end && is_space(*c->p)) {
    ++c->p;
  }
}

static bool starts(const Cursor *c, const char *s)
{
  size_t n = strlen(s);
  return (size_t)(c->end - c->p) >= n && !memcmp(c->p, s, n);
}

/* Moves past the next occurrence of s; false when it is not there yet. */
static bool skip_past(Cursor *c, const char *s)
{
  size_t n = strlen(s);
  for (const char *q = c->p; q + n <= c->end; ++q) {
    if (!memcmp(q, s, n)) {
      c->p = q + n;
      return true;
    }
  }
  return false;
}

/* Moves past the '>' ending a declaration, skipping quoted strings. */
static bool skip_decl(Cursor *c)
{
  char quote = 0;
  for (const char *q = c->p; q < c->end; ++q) {
    if (quote) {
      if (*q == quote) {
        quote = 0;
      }
    } else if (*q == '"' || *q == '\'') {
      quote = *q;
    } else if (*q == '>') {
      c->p = q + 1;
      return true;
    }
  }
  return false;
}

typedef enum { P_DONE, P_MORE, P_BAD } Parse;

static Parse refuse(LwError *err, LwStatus st, const char *why)
{
  lw_error_set(err, st, "XML DTD refused: %s", why);
  return P_BAD;
}

static Parse entity_decl(LwXmlGuard *g, Cursor *c, LwError *err)
{
  c->p += strlen("<!ENTITY");
  skip_space(c);
  if (c->p >= c->end) {
    return P_MORE;
  }
  if (*c->p == '%') {
    return refuse(err, LW_ERR_LIMIT, "parameter entity declared");
  }
  const char *name = c->p;
  while (c->p < c->end && !is_space(*c->p) && *c->p != '"' && *c->p != '\'') {
    ++c->p;
  }
  size_t name_len = (size_t)(c->p - name);
  skip_space(c);
  if (c->p >= c->end) {
    return P_MORE;
  }
  char quote = *c->p;
  if (quote != '"' && quote != '\'') {
    return refuse(err, LW_ERR_LIMIT, "external entity declared");
  }
  const char *value = ++c->p;
  const char *close = memchr(value, quote, (size_t)(c->end - value));
  if (!close) {
    return P_MORE;
  }
  size_t value_len = (size_t)(close - value);
  if (memchr(value, '&', value_len) || memchr(value, '%', value_len) ||
      memchr(value, '<', value_len)) {
    return refuse(err, LW_ERR_LIMIT, "entity value refers to entities or markup");
  }
  if (value_len > LW_XML_MAX_ENTITY_BYTES || name_len == 0 || name_len > MAX_NAME) {
    return refuse(err, LW_ERR_LIMIT, "entity too long");
  }
  if (g->n_entities >= LW_XML_MAX_ENTITIES) {
    return refuse(err, LW_ERR_LIMIT, "too many entities");
  }
  c->p = close + 1;
  skip_space(c);
  if (c->p >= c->end) {
    return P_MORE;
  }
  if (*c->p != '>') {
    return refuse(err, LW_ERR_SYNTAX, "bad entity declaration");
  }
  ++c->p;
  Entity *e = &g->entities[g->n_entities];
  if (!(e->name = strndup(name, name_len))) {
    return refuse(err, LW_ERR_NOMEM, "out of memory");
  }
  e->value_len = value_len;
  ++g->n_entities;
  return P_DONE;
}

/* The internal subset, after its '['; ends after the "]". */
static Parse internal_subset(LwXmlGuard *g, Cursor *c, LwError *err)
{
  for (;;) {
    skip_space(c);
    if (c->p >= c->end) {
      return P_MORE;
    }
    Parse r = P_DONE;
    if (*c->p == ']') {
      ++c->p;
      return P_DONE;
    } else if (*c->p == '%') {
      return refuse(err, LW_ERR_LIMIT, "parameter entity reference");
    } else if (starts(c, "<!--")) {
      r = skip_past(c, "-->") ? P_DONE : P_MORE;
    } else if (starts(c, "<?")) {
      r = skip_past(c, "?>") ? P_DONE : P_MORE;
    } else if (starts(c, "<!ENTITY")) {
      r = entity_decl(g, c, err);
    } else if (starts(c, "<!")) {
      r = skip_decl(c) ? P_DONE : P_MORE;
    } else if ((size_t)(c->end - c->p) < 8) {
      return P_MORE;
    } else {
      return refuse(err, LW_ERR_SYNTAX, "unexpected content in DTD");
    }
    if (r != P_DONE) {
      return r;
    }
  }
}

static Parse doctype(LwXmlGuard *g, Cursor *c, LwError *err)
{
  c->p += strlen("<!DOCTYPE");
  char quote = 0;
  while (c->p < c->end) {
    char ch = *c->p++;
    if (quote) {
      quote = ch == quote ? 0 : quote;
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    } else if (ch == '>') {
      return P_DONE;
    } else if (ch == '[') {
      Parse r = internal_subset(g, c, err);
      if (r != P_DONE) {
        return r;
      }
    }
  }
  return P_MORE;
}

LwStatus lw_xml_guard_prolog(LwXmlGuard *g, const char *data, size_t len, bool at_eof,
                             LwError *err)
{
  /* a retry starts over: forget entities from an incomplete pass */
  for (size_t i = 0; i < g->n_entities; ++i) {
    free(g->entities[i].name);
  }
  g->n_entities = 0;
  Cursor c = {data, data + len};
  if (starts(&c, "\xEF\xBB\xBF")) {
    c.p += 3;
  }
  for (;;) {
    skip_space(&c);
    Parse r;
    if ((size_t)(c.end - c.p) < 9) {
      r = P_MORE; /* too short to tell "<!DOCTYPE" from the root */
      if (at_eof) {
        return LW_OK;
      }
    } else if (starts(&c, "<?")) {
      r = skip_past(&c, "?>") ? P_DONE : P_MORE;
    } else if (starts(&c, "<!--")) {
      r = skip_past(&c, "-->") ? P_DONE : P_MORE;
    } else if (starts(&c, "<!DOCTYPE")) {
      r = doctype(g, &c, err);
    } else {
      return LW_OK; /* the root element (or junk libxml2 will report) */
    }
    if (r == P_BAD) {
      return err ? err->status : LW_ERR_LIMIT;
    }
    if (r == P_MORE) {
      if (at_eof) {
        return LW_OK; /* unfinished: libxml2 reports the syntax error */
      }
      if (len >= LW_XML_MAX_PROLOG_BYTES) {
        return lw_error_set(err, LW_ERR_LIMIT, "XML prolog longer than %zu bytes",
                            (size_t)LW_XML_MAX_PROLOG_BYTES);
      }
      return LW_NOTHING;
    }
  }
}

/* ---- the body ---- */

static size_t entity_size(const LwXmlGuard *g, const char *name, size_t len)
{
  for (size_t i = 0; i < g->n_entities; ++i) {
    if (!strncmp(g->entities[i].name, name, len) && g->entities[i].name[len] == '\0') {
      return g->entities[i].value_len;
    }
  }
  return 0;
}

static bool void_element(const LwXmlGuard *g)
{
  static const char *const names[] = {
    "area", "base",  "br",     "col",   "embed", "hr",       "img",   "input",  "link",
    "meta", "param", "source", "track", "wbr",   "basefont", "frame", "keygen",
  };
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    if (g->name_len == strlen(names[i]) && !memcmp(g->name, names[i], g->name_len)) {
      return true;
    }
  }
  return false;
}

static bool name_char(char ch)
{
  return !is_space(ch) && ch != '/' && ch != '>' && ch != '"' && ch != '\'';
}

/* One byte of markup; false when the depth is exceeded. */
static bool markup(LwXmlGuard *g, char ch)
{
  switch (g->state) {
  case X_TEXT:
    if (ch == '<') {
      g->state = X_LT;
    }
    break;
  case X_LT:
    g->run = 0;
    if (ch == '/') {
      g->state = X_END_TAG;
    } else if (ch == '!') {
      g->state = X_BANG;
    } else if (ch == '?') {
      g->state = X_PI;
    } else if (name_char(ch)) {
      g->state = X_START_TAG;
      g->name[0] = (char)(ch | 0x20);
      g->name_len = 1;
      if (++g->depth > g->max_depth) {
        return false;
      }
    } else {
      g->state = X_TEXT;
    }
    break;
  case X_BANG:
    g->state = ch == '-' ? X_COMMENT : ch == '[' ? X_CDATA : X_DECL;
    g->run = 0;
    break;
  case X_COMMENT:
    if (ch == '>' && g->run >= 2) {
      g->state = X_TEXT;
    }
    g->run = ch == '-' ? g->run + 1 : 0;
    break;
  case X_CDATA:
    if (ch == '>' && g->run >= 2) {
      g->state = X_TEXT;
    }
    g->run = ch == ']' ? g->run + 1 : 0;
    break;
  case X_DECL:
    if (ch == '>') {
      g->state = X_TEXT;
    }
    break;
  case X_PI:
    if (ch == '>' && g->run) {
      g->state = X_TEXT;
    }
    g->run = ch == '?';
    break;
  case X_START_TAG:
    if (g->name_len && name_char(ch)) {
      if (g->name_len < sizeof(g->name) - 1) {
        g->name[g->name_len++] = (char)(ch | 0x20);
      }
      break;
    }
    if (g->name_len) {
      g->name[g->name_len] = '\0';
      if (void_element(g)) {
        --g->depth;  /* <br> never opens anything */
        g->run = -1; /* and must not be closed twice */
      }
      g->name_len = 0;
    }
    if (ch == '"' || ch == '\'') {
      g->quote = ch;
      g->state = X_ATTR;
    } else if (ch == '>') {
      if (g->run == 1 && g->depth > 0) {
        --g->depth; /* <empty/> */
      }
      g->state = X_TEXT;
    } else if (g->run != -1) {
      g->run = ch == '/';
    }
    break;
  case X_ATTR:
    if (ch == g->quote) {
      g->state = X_START_TAG;
    }
    break;
  case X_END_TAG:
    if (ch == '>') {
      if (g->depth > 0) {
        --g->depth;
      }
      g->state = X_TEXT;
    }
    break;
  }
  return true;
}

/* ---- empty default namespace declarations ---- */

/* How many bytes from data on change nothing the guard watches: text up to
 * the next '<', a quoted value up to its quote (each up to the next '&'
 * when entities are declared, whose references are counted). */
static size_t plain_run(const LwXmlGuard *g, const char *data, size_t len)
{
  if (g->in_ref || (g->state != X_TEXT && g->state != X_ATTR)) {
    return 0;
  }
  char stop = g->state == X_TEXT ? '<' : g->quote;
  const char *end = memchr(data, stop, len);
  size_t n = end ? (size_t)(end - data) : len;
  const char *ref = g->n_entities ? memchr(data, '&', n) : NULL;
  return ref ? (size_t)(ref - data) : n;
}

LwStatus lw_xml_guard_feed(LwXmlGuard *g, char *data, size_t len, size_t seen, LwError *err)
{
  g->fed += len - seen;
  for (size_t i = seen; i < len; ++i) {
    size_t run = plain_run(g, data + i, len - i);
    if (run) {
      i += run;
      if (i == len) {
        break;
      }
    }
    char ch = data[i];
    if (!markup(g, ch)) {
      return lw_error_set(err, LW_ERR_LIMIT, "XML elements nested deeper than %u levels",
                          g->max_depth);
    }
    if (g->n_entities == 0) {
      continue;
    }
    if (ch == '&') {
      g->in_ref = true;
      g->ref_len = 0;
    } else if (g->in_ref) {
      if (ch == ';') {
        g->in_ref = false;
        g->expanded += entity_size(g, g->ref, g->ref_len);
        if (g->expanded > BUDGET_BASE + BUDGET_RATIO * g->fed) {
          return lw_error_set(err, LW_ERR_LIMIT, "XML entity expansion over %llu bytes",
                              g->expanded);
        }
      } else if (g->ref_len < MAX_NAME && !is_space(ch) && ch != '<') {
        g->ref[g->ref_len++] = ch;
      } else {
        g->in_ref = false;
      }
    }
  }
  return LW_OK;
}
