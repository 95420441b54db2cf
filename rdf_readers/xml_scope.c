#include "rdf_readers/xml_scope.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define MAX_LANG_BYTES 256 /* longer xml:lang values are cut (and invalid) */
#define MAX_BASE_BYTES 8192 /* longer xml:base values are left to raptor */
#define NAME_KEEP 16       /* enough of an attribute name to classify it */

enum {
  X_TEXT,
  X_LT,      /* after '<' */
  X_END_TAG, /* </...> */
  X_PI,      /* <?...?> */
  X_BANG,    /* after "<!": comment, CDATA or declaration? */
  X_COMMENT,
  X_CDATA,
  X_DECL,     /* <!DOCTYPE ...>, with its internal subset */
  X_TAG_NAME, /* the element name of a start tag */
  X_TAG,      /* between attributes */
  X_ATTR_NAME,
  X_ATTR_EQ,   /* after an attribute name: '=' expected */
  X_ATTR_VALUE /* inside a quoted value */
};

typedef struct {
  size_t offset; /* of its language in the arena */
  bool own;      /* the element set it (the arena shrinks when it closes) */
  size_t base;   /* offset of its base in the bases */
  bool base_own;
  bool base_known;   /* false below an xml:base we could not read */
  bool base_changed; /* raptor got a base of ours here or above */
} Level;

struct LwXmlScope {
  unsigned max_depth;
  int state;
  unsigned depth; /* open elements (levels beyond max_depth too) */
  LwBuf levels;   /* Level per tracked open element */
  LwBuf arena;    /* the languages, NUL-terminated; "" first */
  LwBuf bases;    /* the in-scope bases, NUL-terminated; the document's first */
  LwXmlBaseMarks *marks;
  LwBuf replacement; /* the xml:base value raptor gets instead */
  /* the start tag being read */
  size_t tag_start;
  bool tag_open_here; /* tag_start is in the current block */
  bool slash;         /* the last character was '/' */
  bool has_property;  /* an attribute that may be a property */
  bool has_lang;
  bool in_lang; /* reading the value of xml:lang */
  bool has_base;
  bool in_base;       /* reading the value of xml:base */
  bool base_readable; /* short enough, no references */
  LwBuf base_value;
  size_t base_start, base_end; /* its offsets in the block */
  char quote;
  char name[NAME_KEEP + 1];
  size_t name_len;
  char lang[MAX_LANG_BYTES + 1];
  size_t lang_len;
  /* markup endings */
  char bang[8];
  size_t bang_len;
  unsigned dashes;   /* '-' or ']' or '?' just seen */
  unsigned brackets; /* [ ] depth in a declaration */
};

LwXmlScope *lw_xml_scope_new(unsigned max_depth, const char *document_base,
                             LwXmlBaseMarks *marks)
{
  LwXmlScope *s = calloc(1, sizeof(*s));
  if (!s) {
    return NULL;
  }
  s->max_depth = max_depth;
  s->marks = marks;
  if (lw_buf_append_char(&s->arena, '\0') != LW_OK ||
      lw_buf_append(&s->bases, document_base, strlen(document_base) + 1) != LW_OK) {
    lw_xml_scope_free(s);
    return NULL;
  }
  return s;
}

void lw_xml_scope_free(LwXmlScope *s)
{
  if (s) {
    lw_buf_free(&s->levels);
    lw_buf_free(&s->arena);
    lw_buf_free(&s->bases);
    lw_buf_free(&s->replacement);
    lw_buf_free(&s->base_value);
    free(s);
  }
}

static size_t tracked(const LwXmlScope *s)
{
  return s->levels.len / sizeof(Level);
}

static Level top(const LwXmlScope *s)
{
  Level l = {.base_known = true};
  size_t n = tracked(s);
  if (n) {
    memcpy(&l, s->levels.data + (n - 1) * sizeof(Level), sizeof(l));
  }
  return l;
}

/* Appends raw to s->replacement escaped for a quoted attribute value. */
static bool escape_value(LwXmlScope *s, const char *raw, size_t len)
{
  lw_buf_reset(&s->replacement);
  for (size_t i = 0; i < len; ++i) {
    const char *entity = raw[i] == '&'    ? "&amp;"
                         : raw[i] == '<'  ? "&lt;"
                         : raw[i] == '"'  ? "&quot;"
                         : raw[i] == '\'' ? "&apos;"
                                          : NULL;
    if ((entity ? lw_buf_append_str(&s->replacement, entity)
                : lw_buf_append_char(&s->replacement, raw[i])) != LW_OK) {
      return false;
    }
  }
  return true;
}

/* What raptor is to read instead of the tag's xml:base value (resolved is
 * the base it sets), in s->replacement: a marked base when raptor would
 * resolve against it wrongly (rdf_readers/xml_base_marks.h); the base
 * itself when the value is relative to a base raptor got from us. */
static bool replace_base(LwXmlScope *s, Level parent, const char *resolved, Level *l)
{
  LwBuf raw = {0};
  bool replace = false;
  if (lw_xml_base_mark(s->marks, resolved, &raw)) {
    replace = escape_value(s, raw.data, raw.len);
    l->base_changed = replace;
  } else if (parent.base_changed && !lw_uri_is_absolute(s->base_value.data)) {
    replace = escape_value(s, resolved, strlen(resolved));
  }
  lw_buf_free(&raw);
  return replace;
}

/* The base of the element whose start tag ended, from its xml:base (if
 * any) resolved against the parent's, in l; true when raptor is to read
 * s->replacement for the value. Bases raptor reads as they are written
 * (no query, a path) are left alone. */
static bool tag_base(LwXmlScope *s, Level *l)
{
  Level parent = top(s);
  l->base = parent.base;
  l->base_own = false;
  l->base_known = parent.base_known;
  l->base_changed = parent.base_changed;
  if (!s->has_base) {
    return false;
  }
  l->base_known = false; /* until it is read */
  if (!parent.base_known || !s->base_readable ||
      lw_buf_append_char(&s->base_value, '\0') != LW_OK) {
    return false;
  }
  char *resolved = lw_uri_resolve(s->bases.data + parent.base, s->base_value.data);
  if (!resolved) {
    return false;
  }
  resolved[strcspn(resolved, "#")] = '\0'; /* a base's fragment plays no part */
  bool replace = false;
  if (s->tag_open_here) { /* else its value is in an earlier block */
    replace = replace_base(s, parent, resolved, l);
    size_t at = s->bases.len;
    if (lw_buf_append(&s->bases, resolved, strlen(resolved) + 1) == LW_OK) {
      l->base = at;
      l->base_own = l->base_known = true;
    }
  }
  free(resolved);
  return replace;
}

/* The tag that just ended opens an element: its language and base (in l)
 * become the scope of its content. Out of memory: the parent's language
 * stays. */
static void push(LwXmlScope *s, Level l)
{
  ++s->depth;
  if (s->depth > s->max_depth) {
    if (l.base_own) {
      s->bases.len = l.base;
    }
    return;
  }
  l.offset = top(s).offset;
  if (s->has_lang) {
    l.offset = s->arena.len;
    l.own = true;
    if (lw_buf_append(&s->arena, s->lang, s->lang_len + 1) != LW_OK) {
      l.offset = top(s).offset;
      l.own = false;
    }
  } else {
    l.own = false;
  }
  if (lw_buf_append(&s->levels, &l, sizeof(l)) != LW_OK) {
    if (l.own) {
      s->arena.len = l.offset;
    }
    if (l.base_own) {
      s->bases.len = l.base;
    }
  }
}

static void pop(LwXmlScope *s)
{
  if (s->depth == 0) {
    return;
  }
  if (s->depth-- > s->max_depth || !tracked(s)) {
    return;
  }
  Level l = top(s);
  s->levels.len -= sizeof(Level);
  if (l.own) {
    s->arena.len = l.offset;
  }
  if (l.base_own) {
    s->bases.len = l.base;
  }
}

static void start_tag(LwXmlScope *s)
{
  s->state = X_TAG_NAME;
  s->slash = false;
  s->has_property = false;
  s->has_lang = false;
  s->in_lang = false;
  s->has_base = false;
  s->in_base = false;
  s->name_len = 0;
  s->lang_len = 0;
}

/* An attribute name is complete: is it xml:lang, or a possible property? */
static void attribute_named(LwXmlScope *s)
{
  s->name[s->name_len < NAME_KEEP ? s->name_len : NAME_KEEP] = '\0';
  bool xmlns = !strncmp(s->name, "xmlns", 5) && (s->name_len == 5 || s->name[5] == ':');
  bool xml = !strncmp(s->name, "xml:", 4);
  s->in_lang = s->name_len == 8 && !strcmp(s->name, "xml:lang");
  if (s->in_lang) {
    s->has_lang = true;
    s->lang_len = 0;
  }
  s->in_base = s->name_len == 8 && !strcmp(s->name, "xml:base");
  if (s->in_base) {
    s->has_base = true;
    s->base_readable = true;
    lw_buf_reset(&s->base_value);
  }
  if (!xmlns && !xml) {
    s->has_property = true;
  }
  s->name_len = 0;
}

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The '>' of a start tag: true when the tag matters (see the header). */
static bool end_start_tag(LwXmlScope *s, LwXmlScopeTag *out)
{
  bool empty = s->slash;
  s->state = X_TEXT;
  const char *lang;
  if (s->has_lang) {
    s->lang[s->lang_len] = '\0';
    lang = s->lang;
  } else {
    lang = s->arena.data + top(s).offset;
  }
  *out = (LwXmlScopeTag){.lang = s->has_property && *lang ? lang : NULL};
  Level l = {0};
  if (tag_base(s, &l)) {
    out->base = s->replacement.data;
    out->base_len = s->replacement.len;
    out->base_start = s->base_start;
    out->base_end = s->base_end;
  }
  if (!empty) {
    push(s, l);
  } else if (l.base_own) {
    s->bases.len = l.base;
  }
  return out->lang || out->base;
}

/* A character of an attribute value. */
static void in_value(LwXmlScope *s, char c, size_t i)
{
  if (c == s->quote) {
    s->state = X_TAG;
    s->in_lang = false;
    if (s->in_base) {
      s->base_end = i;
      s->in_base = false;
    }
  } else if (s->in_lang && s->lang_len < MAX_LANG_BYTES) {
    s->lang[s->lang_len++] = c;
  } else if (s->in_base && s->base_readable) {
    s->base_readable = c != '&' && s->base_value.len < MAX_BASE_BYTES &&
                       lw_buf_append_char(&s->base_value, c) == LW_OK;
  }
}

/* Inside a start tag (c at offset i of the block); true when c is its '>'
 * and the tag matters. */
static bool in_start_tag(LwXmlScope *s, char c, size_t i, LwXmlScopeTag *out)
{
  switch (s->state) {
  case X_ATTR_VALUE:
    in_value(s, c, i);
    return false;
  case X_ATTR_NAME:
    if (c == '=' || is_space(c)) {
      attribute_named(s);
      s->state = X_ATTR_EQ;
      return false;
    }
    if (s->name_len < NAME_KEEP) {
      s->name[s->name_len] = c;
    }
    ++s->name_len;
    return false;
  case X_ATTR_EQ:
    if (c == '"' || c == '\'') {
      s->quote = c;
      s->state = X_ATTR_VALUE;
      if (s->in_base) {
        s->base_start = i + 1;
      }
    }
    return false;
  default: /* X_TAG_NAME, X_TAG */
    break;
  }
  if (c == '>') {
    return end_start_tag(s, out);
  }
  s->slash = c == '/';
  if (is_space(c)) {
    s->state = X_TAG;
  } else if (s->state == X_TAG && c != '/') {
    s->state = X_ATTR_NAME;
    s->name[0] = c;
    s->name_len = 1;
  }
  return false;
}

/* After "<!": decides between a comment, a CDATA section and a
 * declaration from the first characters. */
static void bang(LwXmlScope *s, char c)
{
  static const char cdata[] = "[CDATA[";
  s->bang[s->bang_len++] = c;
  if (s->bang_len == 2 && !memcmp(s->bang, "--", 2)) {
    s->state = X_COMMENT;
    s->dashes = 0;
  } else if (!strncmp(s->bang, cdata, s->bang_len)) {
    if (s->bang_len == sizeof(cdata) - 1) {
      s->state = X_CDATA;
      s->dashes = 0;
    }
  } else if (s->bang_len >= 2 || s->bang[0] != '-') {
    s->state = X_DECL;
    s->brackets = c == '[';
    s->quote = 0;
  }
}

/* The end of other markup: "-->", "]]>", "?>", '>' outside [ ] and quotes. */
static void other_markup(LwXmlScope *s, char c)
{
  switch (s->state) {
  case X_COMMENT:
  case X_CDATA: {
    char mark = s->state == X_COMMENT ? '-' : ']';
    if (c == '>' && s->dashes >= 2) {
      s->state = X_TEXT;
    }
    s->dashes = c == mark ? s->dashes + 1 : 0;
    break;
  }
  case X_PI:
    if (c == '>' && s->dashes) {
      s->state = X_TEXT;
    }
    s->dashes = c == '?';
    break;
  case X_END_TAG:
    if (c == '>') {
      s->state = X_TEXT;
      pop(s);
    }
    break;
  case X_DECL:
    if (s->quote) {
      s->quote = c == s->quote ? 0 : s->quote;
    } else if (c == '"' || c == '\'') {
      s->quote = c;
    } else if (c == '[') {
      ++s->brackets;
    } else if (c == ']' && s->brackets) {
      --s->brackets;
    } else if (c == '>' && !s->brackets) {
      s->state = X_TEXT;
    }
    break;
  default:
    break;
  }
}

bool lw_xml_scope_next(LwXmlScope *s, const char *data, size_t len, size_t *pos, size_t *tag,
                       LwXmlScopeTag *out)
{
  if (*pos == 0 && s->state >= X_TAG_NAME) {
    s->tag_open_here = false; /* a tag begun in an earlier block */
  }
  for (size_t i = *pos; i < len; ++i) {
    if (s->state == X_TEXT || (s->state == X_ATTR_VALUE && !s->in_lang && !s->in_base)) {
      /* nothing to see up to the next '<', or the value's closing quote */
      const char *next = memchr(data + i, s->state == X_TEXT ? '<' : s->quote, len - i);
      if (!next) {
        break;
      }
      i = (size_t)(next - data);
    }
    char c = data[i];
    switch (s->state) {
    case X_TEXT:
      if (c == '<') {
        s->state = X_LT;
        s->tag_start = i;
        s->tag_open_here = true;
      }
      break;
    case X_LT:
      if (c == '/') {
        s->state = X_END_TAG;
      } else if (c == '?') {
        s->state = X_PI;
        s->dashes = 0;
      } else if (c == '!') {
        s->state = X_BANG;
        s->bang_len = 0;
      } else {
        start_tag(s);
      }
      break;
    case X_BANG:
      bang(s, c);
      break;
    case X_TAG_NAME:
    case X_TAG:
    case X_ATTR_NAME:
    case X_ATTR_EQ:
    case X_ATTR_VALUE:
      if (in_start_tag(s, c, i, out)) {
        *pos = i + 1;
        *tag = s->tag_open_here ? s->tag_start : 0;
        return true;
      }
      break;
    default:
      other_markup(s, c);
      break;
    }
  }
  *pos = len;
  return false;
}

bool lw_xml_scope_open_tag(const LwXmlScope *s, size_t *tag)
{
  if (s->state < X_TAG_NAME || !s->tag_open_here) {
    return false;
  }
  *tag = s->tag_start;
  return true;
}

void lw_xml_scope_restart_tag(LwXmlScope *s)
{
  s->state = X_TEXT;
}
