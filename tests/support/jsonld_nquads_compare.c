/*
 * Quad sets and blank-node isomorphism for the JSON-LD tests. Terms are kept
 * as canonical strings ("<iri>", "_:label", "\"lex\"@lang", "\"lex\"^^<dt>",
 * "" for the default graph); blank nodes are matched by colour refinement
 * followed by a bounded backtracking search.
 */
#include "tests/support/jsonld_nquads_compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *t[4];
} Quad;

struct LwNqSet {
  Quad *q;
  size_t n, cap;
  bool sorted;
};

LwNqSet *lw_nq_set_new(void)
{
  return calloc(1, sizeof(LwNqSet));
}

void lw_nq_set_free(LwNqSet *set)
{
  if (!set) {
    return;
  }
  for (size_t i = 0; i < set->n; i++) {
    for (int k = 0; k < 4; k++) {
      free(set->q[i].t[k]);
    }
  }
  free(set->q);
  free(set);
}

size_t lw_nq_set_size(const LwNqSet *set)
{
  return set->n;
}

static bool is_blank(const char *t)
{
  return t[0] == '_' && t[1] == ':';
}

typedef struct {
  char *s;
  size_t len, cap;
} Str;

static void str_put(Str *s, const char *p, size_t n)
{
  if (s->len + n + 1 > s->cap) {
    s->cap = (s->len + n + 1) * 2;
    s->s = realloc(s->s, s->cap);
  }
  memcpy(s->s + s->len, p, n);
  s->len += n;
  s->s[s->len] = 0;
}

static void str_puts(Str *s, const char *p)
{
  str_put(s, p, strlen(p));
}

static char *encode_literal(const char *lex, size_t len, const char *dt, const char *lang)
{
  Str s = {0};
  str_puts(&s, "\"");
  for (size_t i = 0; i < len; i++) {
    char c = lex[i];
    if (c == '"' || c == '\\') {
      str_put(&s, "\\", 1);
      str_put(&s, &c, 1);
    } else if (c == '\n') {
      str_puts(&s, "\\n");
    } else if (c == '\r') {
      str_puts(&s, "\\r");
    } else {
      str_put(&s, &c, 1);
    }
  }
  str_puts(&s, "\"");
  if (lang) {
    str_puts(&s, "@");
    for (const char *c = lang; *c; c++) {
      char l = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
      str_put(&s, &l, 1);
    }
  } else if (dt && strcmp(dt, "http://www.w3.org/2001/XMLSchema#string")) {
    str_puts(&s, "^^<");
    str_puts(&s, dt);
    str_puts(&s, ">");
  }
  return s.s;
}

static char *encode_term(const LwTerm *t)
{
  Str s = {0};
  switch (t->type) {
  case LW_TERM_NONE:
    return strdup("");
  case LW_TERM_IRI:
    str_puts(&s, "<");
    str_puts(&s, t->value);
    str_puts(&s, ">");
    return s.s;
  case LW_TERM_BLANK:
    str_puts(&s, "_:");
    str_puts(&s, t->value);
    return s.s;
  case LW_TERM_LITERAL:
    return encode_literal(t->value, t->len, t->datatype, t->lang);
  }
  return strdup("");
}

static void add(LwNqSet *set, char *t[4])
{
  if (set->n == set->cap) {
    set->cap = set->cap ? set->cap * 2 : 64;
    set->q = realloc(set->q, set->cap * sizeof(Quad));
  }
  memcpy(set->q[set->n].t, t, 4 * sizeof(char *));
  set->n++;
  set->sorted = false;
}

LwStatus lw_nq_set_sink(void *handle, const LwQuad *quad)
{
  char *t[4] = {encode_term(&quad->subject), encode_term(&quad->predicate),
                encode_term(&quad->object), encode_term(&quad->graph)};
  add(handle, t);
  return LW_OK;
}

/* ---- a small N-Quads reader -------------------------------------------- */

static void put_utf8(Str *s, unsigned long cp)
{
  char b[4];
  size_t n;
  if (cp < 0x80) {
    b[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    b[0] = (char)(0xC0 | (cp >> 6));
    b[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = (char)(0xE0 | (cp >> 12));
    b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    b[0] = (char)(0xF0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  str_put(s, b, n);
}

/* Reads until the closing delimiter, unescaping; returns the end or NULL. */
static const char *read_escaped(const char *p, char close, Str *out)
{
  while (*p && *p != close) {
    if (*p == '\\') {
      p++;
      int digits = *p == 'u' ? 4 : *p == 'U' ? 8 : 0;
      if (digits) {
        char hex[9] = {0};
        memcpy(hex, p + 1, (size_t)digits);
        put_utf8(out, strtoul(hex, NULL, 16));
        p += digits + 1;
        continue;
      }
      char c = *p == 'n'   ? '\n'
               : *p == 'r' ? '\r'
               : *p == 't' ? '\t'
               : *p == 'b' ? '\b'
               : *p == 'f' ? '\f'
                           : *p;
      str_put(out, &c, 1);
      p++;
    } else {
      str_put(out, p, 1);
      p++;
    }
  }
  return *p == close ? p + 1 : NULL;
}

static const char *read_term(const char *p, char **term)
{
  while (*p == ' ' || *p == '\t') {
    p++;
  }
  Str s = {0};
  if (*p == '<') {
    str_puts(&s, "<");
    p = read_escaped(p + 1, '>', &s);
    str_puts(&s, ">");
  } else if (p[0] == '_' && p[1] == ':') {
    const char *e = p;
    while (*e && *e != ' ' && *e != '\t' && *e != '\n') {
      e++;
    }
    str_put(&s, p, (size_t)(e - p));
    p = e;
  } else if (*p == '"') {
    Str lex = {0};
    str_puts(&lex, "");
    p = read_escaped(p + 1, '"', &lex);
    if (!p) {
      free(lex.s);
      return NULL;
    }
    char *lang = NULL, *dt = NULL;
    if (*p == '@') {
      const char *e = ++p;
      while (*e && *e != ' ' && *e != '\t') {
        e++;
      }
      lang = strndup(p, (size_t)(e - p));
      p = e;
    } else if (p[0] == '^' && p[1] == '^' && p[2] == '<') {
      Str d = {0};
      str_puts(&d, "");
      p = read_escaped(p + 3, '>', &d);
      dt = d.s;
    }
    s.s = encode_literal(lex.s, lex.len, dt, lang);
    free(lex.s);
    free(lang);
    free(dt);
  } else {
    return NULL;
  }
  *term = s.s;
  return p;
}

bool lw_nq_set_parse(LwNqSet *set, const char *text, char *why, size_t size)
{
  const char *p = text;
  unsigned line = 0;
  while (*p) {
    line++;
    const char *eol = strchr(p, '\n');
    if (!eol) {
      eol = p + strlen(p);
    }
    const char *q = p;
    while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r')) {
      q++;
    }
    if (q < eol && *q != '#') {
      char *t[4] = {NULL, NULL, NULL, NULL};
      int k = 0;
      while (k < 4 && q && q < eol) {
        while (q < eol && (*q == ' ' || *q == '\t')) {
          q++;
        }
        if (*q == '.') {
          break;
        }
        q = read_term(q, &t[k]);
        if (q) {
          k++;
        }
      }
      if (!q || k < 3) {
        snprintf(why, size, "N-Quads line %u does not parse", line);
        for (int i = 0; i < 4; i++) {
          free(t[i]);
        }
        return false;
      }
      if (!t[3]) {
        t[3] = strdup("");
      }
      add(set, t);
    }
    p = *eol ? eol + 1 : eol;
  }
  return true;
}

/* ---- isomorphism ------------------------------------------------------- */

static int cmp_quad(const void *a, const void *b)
{
  const Quad *x = a, *y = b;
  for (int k = 0; k < 4; k++) {
    int c = strcmp(x->t[k], y->t[k]);
    if (c) {
      return c;
    }
  }
  return 0;
}

static void normalize(LwNqSet *s)
{
  if (s->sorted) {
    return;
  }
  if (s->n) {
    qsort(s->q, s->n, sizeof(Quad), cmp_quad);
  }
  size_t w = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (w && !cmp_quad(&s->q[w - 1], &s->q[i])) {
      for (int k = 0; k < 4; k++) {
        free(s->q[i].t[k]);
      }
      continue;
    }
    s->q[w++] = s->q[i];
  }
  s->n = w;
  s->sorted = true;
}

static uint64_t fnv(const char *s, uint64_t h)
{
  for (; *s; s++) {
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  }
  return h;
}

typedef struct {
  char **names;
  uint64_t *color;
  size_t n;
  long (*idx)[4]; /* per quad and position: blank index or -1 */
} Blanks;

static long blank_index(const Blanks *b, const char *name)
{
  for (size_t i = 0; i < b->n; i++) {
    if (!strcmp(b->names[i], name)) {
      return (long)i;
    }
  }
  return -1;
}

static void collect_blanks(LwNqSet *s, Blanks *b)
{
  b->names = NULL;
  b->n = 0;
  for (size_t i = 0; i < s->n; i++) {
    for (int k = 0; k < 4; k++) {
      if (is_blank(s->q[i].t[k]) && blank_index(b, s->q[i].t[k]) < 0) {
        b->names = realloc(b->names, (b->n + 1) * sizeof(char *));
        b->names[b->n++] = s->q[i].t[k];
      }
    }
  }
  b->color = calloc(b->n + 1, sizeof(uint64_t));
  /* names sorted would be faster to search; one pass with a linear search
   * per distinct term is enough for test-sized graphs */
  b->idx = calloc(s->n + 1, sizeof(*b->idx));
  for (size_t i = 0; i < s->n; i++) {
    for (int k = 0; k < 4; k++) {
      b->idx[i][k] = is_blank(s->q[i].t[k]) ? blank_index(b, s->q[i].t[k]) : -1;
    }
  }
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void refine(LwNqSet *s, Blanks *b)
{
  uint64_t *next = calloc(b->n + 1, sizeof(uint64_t));
  uint64_t *sigs = malloc((s->n + 1) * sizeof(uint64_t));
  for (int round = 0; round < 8; round++) {
    for (size_t i = 0; i < b->n; i++) {
      size_t m = 0;
      for (size_t j = 0; j < s->n; j++) {
        bool mentions = false;
        uint64_t h = 14695981039346656037ULL;
        for (int k = 0; k < 4; k++) {
          const char *t = s->q[j].t[k];
          h = (h ^ (uint64_t)k) * 1099511628211ULL;
          long bi = b->idx[j][k];
          if (bi >= 0) {
            if ((size_t)bi == i) {
              mentions = true;
              h = fnv("@self", h);
            } else {
              h = (h ^ b->color[bi]) * 1099511628211ULL;
            }
          } else {
            h = fnv(t, h);
          }
        }
        if (mentions) {
          sigs[m++] = h;
        }
      }
      qsort(sigs, m, sizeof(uint64_t), cmp_u64);
      uint64_t h = b->color[i] * 31 + 7;
      for (size_t j = 0; j < m; j++) {
        h = (h ^ sigs[j]) * 1099511628211ULL;
      }
      next[i] = h;
    }
    memcpy(b->color, next, b->n * sizeof(uint64_t));
  }
  free(next);
  free(sigs);
}

/* Maps a's quads through the mapping and checks each is in b (sorted). */
static bool mapping_works(LwNqSet *a, LwNqSet *b, Blanks *ba, Blanks *bb, const long *map)
{
  for (size_t i = 0; i < a->n; i++) {
    Quad q;
    for (int k = 0; k < 4; k++) {
      const char *t = a->q[i].t[k];
      long bi = ba->idx[i][k];
      q.t[k] = bi >= 0 ? bb->names[map[bi]] : (char *)t;
    }
    if (!bsearch(&q, b->q, b->n, sizeof(Quad), cmp_quad)) {
      return false;
    }
  }
  return true;
}

static bool search(LwNqSet *a, LwNqSet *b, Blanks *ba, Blanks *bb, long *map, bool *used,
                   size_t i, long *budget)
{
  if (i == ba->n) {
    return mapping_works(a, b, ba, bb, map);
  }
  for (size_t j = 0; j < bb->n; j++) {
    if (used[j] || ba->color[i] != bb->color[j] || --*budget < 0) {
      continue;
    }
    used[j] = true;
    map[i] = (long)j;
    if (search(a, b, ba, bb, map, used, i + 1, budget)) {
      return true;
    }
    used[j] = false;
  }
  return false;
}

bool lw_nq_isomorphic(LwNqSet *a, LwNqSet *b)
{
  normalize(a);
  normalize(b);
  if (a->n != b->n) {
    return false;
  }
  Blanks ba, bb;
  collect_blanks(a, &ba);
  collect_blanks(b, &bb);
  bool ok = ba.n == bb.n;
  if (ok) {
    refine(a, &ba);
    refine(b, &bb);
    long *map = calloc(ba.n + 1, sizeof(long));
    bool *used = calloc(bb.n + 1, sizeof(bool));
    long budget = 200000;
    ok = search(a, b, &ba, &bb, map, used, 0, &budget);
    free(map);
    free(used);
  }
  free(ba.names);
  free(ba.color);
  free(ba.idx);
  free(bb.idx);
  free(bb.names);
  free(bb.color);
  return ok;
}

char *lw_nq_set_dump(LwNqSet *set)
{
  normalize(set);
  Str s = {0};
  str_puts(&s, "");
  for (size_t i = 0; i < set->n; i++) {
    for (int k = 0; k < 4; k++) {
      if (set->q[i].t[k][0]) {
        str_puts(&s, set->q[i].t[k]);
        str_puts(&s, " ");
      }
    }
    str_puts(&s, ".\n");
  }
  return s.s;
}
