#include "rdf_readers/xml_lang_scope.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define MAX_LANG_BYTES 256 /* longer xml:lang values are cut (and invalid) */
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
} Level;

struct LwXmlLangScope {
  unsigned max_depth;
  int state;
  unsigned depth; /* open elements (levels beyond max_depth too) */
  LwBuf levels;   /* Level per tracked open element */
  LwBuf arena;    /* the languages, NUL-terminated; "" first */
  /* the start tag being read */
  size_t tag_start;
  bool tag_open_here; /* tag_start is in the current block */
  bool slash;         /* the last character was '/' */
  bool has_property;  /* an attribute that may be a property */
  bool has_lang;
  bool in_lang; /* reading the value of xml:lang */
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

LwXmlLangScope *lw_xml_lang_scope_new(unsigned max_depth)
{
  LwXmlLangScope *s = calloc(1, sizeof(*s));
  if (!s) {
    return NULL;
  }
  s->max_depth = max_depth;
  if (lw_buf_append_char(&s->arena, '\0') != LW_OK) {
    free(s);
    return NULL;
  }
  return s;
}

void lw_xml_lang_scope_free(LwXmlLangScope *s)
{
  if (s) {
    lw_buf_free(&s->levels);
    lw_buf_free(&s->arena);
    free(s);
  }
}

static size_t tracked(const LwXmlLangScope *s)
{
  return s->levels.len / sizeof(Level);
}

static Level top(const LwXmlLangScope *s)
{
  Level l = {0, false};
  size_t n = tracked(s);
  if (n) {
    memcpy(&l, s->levels.data + (n - 1) * sizeof(Level), sizeof(l));
  }
  return l;
}

/* The tag that just ended opens an element: its language becomes the
 * scope of its content. Out of memory: the parent's language stays. */
static void push(LwXmlLangScope *s)
{
  ++s->depth;
  if (s->depth > s->max_depth) {
    return;
  }
  Level l = top(s);
  if (s->has_lang) {
    l.offset = s->arena.len;
    l.own = true;
    if (lw_buf_append(&s->arena, s->lang, s->lang_len + 1) != LW_OK) {
      l = top(s);
    }
  } else {
    l.own = false;
  }
  if (lw_buf_append(&s->levels, &l, sizeof(l)) != LW_OK && l.own) {
    s->arena.len = l.offset;
  }
}

static void pop(LwXmlLangScope *s)
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
}

static void start_tag(LwXmlLangScope *s)
{
  s->state = X_TAG_NAME;
  s->slash = false;
  s->has_property = false;
  s->has_lang = false;
  s->in_lang = false;
  s->name_len = 0;
  s->lang_len = 0;
}

/* An attribute name is complete: is it xml:lang, or a possible property? */
static void attribute_named(LwXmlLangScope *s)
{
  s->name[s->name_len < NAME_KEEP ? s->name_len : NAME_KEEP] = '\0';
  bool xmlns = !strncmp(s->name, "xmlns", 5) && (s->name_len == 5 || s->name[5] == ':');
  bool xml = !strncmp(s->name, "xml:", 4);
  s->in_lang = s->name_len == 8 && !strcmp(s->name, "xml:lang");
  if (s->in_lang) {
    s->has_lang = true;
    s->lang_len = 0;
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
static bool end_start_tag(LwXmlLangScope *s, const char **lang)
{
  bool empty = s->slash;
  s->state = X_TEXT;
  if (s->has_lang) {
    s->lang[s->lang_len] = '\0';
    *lang = s->lang;
  } else {
    *lang = s->arena.data + top(s).offset;
  }
  if (!empty) {
    push(s);
  }
  return s->has_property && **lang;
}

/* Inside a start tag; true when c is its '>' and the tag matters. */
static bool in_start_tag(LwXmlLangScope *s, char c, const char **lang)
{
  switch (s->state) {
  case X_ATTR_VALUE:
    if (c == s->quote) {
      s->state = X_TAG;
      s->in_lang = false;
    } else if (s->in_lang && s->lang_len < MAX_LANG_BYTES) {
      s->lang[s->lang_len++] = c;
    }
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
    }
    return false;
  default: /* X_TAG_NAME, X_TAG */
    break;
  }
  if (c == '>') {
    return end_start_tag(s, lang);
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
static void bang(LwXmlLangScope *s, char c)
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
static void other_markup(LwXmlLangScope *s, char c)
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

bool lw_xml_lang_scope_next(LwXmlLangScope *s, const char *data, size_t len, size_t *pos,
                            size_t *tag, const char **lang)
{
  if (*pos == 0 && s->state >= X_TAG_NAME) {
    s->tag_open_here = false; /* a tag begun in an earlier block */
  }
  for (size_t i = *pos; i < len; ++i) {
    char c = data[i];
    switch (s->state) {
    case X_TEXT: {
      /* only '<' changes anything in text: skip to it */
      const char *lt = c == '<' ? data + i : memchr(data + i, '<', len - i);
      if (!lt) {
        i = len - 1;
        break;
      }
      i = (size_t)(lt - data);
      s->state = X_LT;
      s->tag_start = i;
      s->tag_open_here = true;
      break;
    }
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
      if (in_start_tag(s, c, lang)) {
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

bool lw_xml_lang_scope_open_tag(const LwXmlLangScope *s, size_t *tag)
{
  if (s->state < X_TAG_NAME || !s->tag_open_here) {
    return false;
  }
  *tag = s->tag_start;
  return true;
}

void lw_xml_lang_scope_restart_tag(LwXmlLangScope *s)
{
  s->state = X_TEXT;
}
