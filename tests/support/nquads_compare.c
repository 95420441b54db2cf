#include "tests/support/nquads_compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "rdf/rdf.h"

/* ---- building ---- */

void lw_test_graph_free(LwTestGraph *g)
{
  if (!g) {
    return;
  }
  for (size_t i = 0; i < g->n; ++i) {
    free(g->quads[i].s);
    free(g->quads[i].p);
    free(g->quads[i].o);
    free(g->quads[i].g);
  }
  free(g->quads);
  *g = (LwTestGraph)LW_TEST_GRAPH_INIT;
}

static char *term_string(const LwTerm *t)
{
  if (t->type == LW_TERM_NONE) {
    return strdup("");
  }
  LwBuf b = LW_BUF_INIT;
  if (lw_nquads_append_term(&b, t) != LW_OK) {
    lw_buf_free(&b);
    return NULL;
  }
  return lw_buf_steal(&b);
}

LwStatus lw_test_graph_add(LwTestGraph *g, const LwQuad *q)
{
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 64;
    LwTestQuad *quads = realloc(g->quads, cap * sizeof(*quads));
    if (!quads) {
      return LW_ERR_NOMEM;
    }
    g->quads = quads;
    g->cap = cap;
  }
  LwTestQuad t = {term_string(&q->subject), term_string(&q->predicate),
                  term_string(&q->object), term_string(&q->graph)};
  if (!t.s || !t.p || !t.o || !t.g) {
    free(t.s), free(t.p), free(t.o), free(t.g);
    return LW_ERR_NOMEM;
  }
  g->quads[g->n++] = t;
  return LW_OK;
}

LwStatus lw_test_graph_sink(void *handle, const LwQuad *q)
{
  return lw_test_graph_add(handle, q);
}

/* ---- the N-Quads line reader ---- */

typedef struct {
  const char *p, *end;
  const char *why;
} Line;

static void skip_ws(Line *l)
{
  while (l->p < l->end && (*l->p == ' ' || *l->p == '\t')) {
    ++l->p;
  }
}

static int hexval(char c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads \uXXXX or \UXXXXXXXX (after the backslash) into out. */
static bool read_uchar(Line *l, LwBuf *out)
{
  int n = *l->p == 'u' ? 4 : 8;
  ++l->p;
  uint32_t cp = 0;
  for (int i = 0; i < n; ++i) {
    int v = l->p < l->end ? hexval(*l->p) : -1;
    if (v < 0) {
      l->why = "bad \\u escape";
      return false;
    }
    cp = cp << 4 | (uint32_t)v;
    ++l->p;
  }
  char utf8[4];
  size_t len = lw_utf8_encode(cp, utf8);
  if (!len) {
    l->why = "escape of a non-character";
    return false;
  }
  lw_buf_append(out, utf8, len);
  return true;
}

static bool read_iri(Line *l, LwBuf *out)
{
  ++l->p; /* < */
  while (l->p < l->end && *l->p != '>') {
    if (*l->p == '\\') {
      ++l->p;
      if (l->p >= l->end || (*l->p != 'u' && *l->p != 'U')) {
        l->why = "bad IRI escape";
        return false;
      }
      if (!read_uchar(l, out)) {
        return false;
      }
    } else {
      lw_buf_append_char(out, *l->p++);
    }
  }
  if (l->p >= l->end) {
    l->why = "unterminated IRI";
    return false;
  }
  ++l->p;
  return true;
}

static bool read_string(Line *l, LwBuf *out)
{
  ++l->p; /* " */
  while (l->p < l->end && *l->p != '"') {
    if (*l->p != '\\') {
      lw_buf_append_char(out, *l->p++);
      continue;
    }
    ++l->p;
    if (l->p >= l->end) {
      break;
    }
    char c = *l->p;
    const char *from = "tbnrf\"'\\";
    const char *to = "\t\b\n\r\f\"'\\";
    const char *hit = strchr(from, c);
    if (c == 'u' || c == 'U') {
      if (!read_uchar(l, out)) {
        return false;
      }
    } else if (hit && c) {
      lw_buf_append_char(out, to[hit - from]);
      ++l->p;
    } else {
      l->why = "bad string escape";
      return false;
    }
  }
  if (l->p >= l->end) {
    l->why = "unterminated string";
    return false;
  }
  ++l->p;
  return true;
}

static bool is_label_end(char c)
{
  return c == ' ' || c == '\t' || c == '<' || c == '"' || c == '\r';
}

/* Reads one term into t, its strings kept in value/extra. */
static bool read_term(Line *l, LwTerm *t, LwBuf *value, LwBuf *extra)
{
  lw_buf_reset(value);
  lw_buf_reset(extra);
  lw_buf_append(value, "", 0);
  lw_buf_append(extra, "", 0);
  skip_ws(l);
  if (l->p >= l->end) {
    l->why = "missing term";
    return false;
  }
  *t = (LwTerm){0};
  if (*l->p == '<') {
    if (!read_iri(l, value)) {
      return false;
    }
    t->type = LW_TERM_IRI;
  } else if (*l->p == '_' && l->p + 1 < l->end && l->p[1] == ':') {
    l->p += 2;
    const char *start = l->p;
    while (l->p < l->end && !is_label_end(*l->p)) {
      ++l->p;
    }
    /* a label cannot end with '.': "_:a." is "_:a" and the final dot */
    while (l->p > start && l->p[-1] == '.') {
      --l->p;
    }
    lw_buf_append(value, start, (size_t)(l->p - start));
    t->type = LW_TERM_BLANK;
  } else if (*l->p == '"') {
    if (!read_string(l, value)) {
      return false;
    }
    t->type = LW_TERM_LITERAL;
    if (l->p < l->end && *l->p == '@') {
      const char *start = ++l->p;
      while (l->p < l->end &&
             (*l->p == '-' || (*l->p >= 'a' && *l->p <= 'z') ||
              (*l->p >= 'A' && *l->p <= 'Z') || (*l->p >= '0' && *l->p <= '9'))) {
        ++l->p;
      }
      lw_buf_append(extra, start, (size_t)(l->p - start));
      t->lang = extra->data;
    } else if (l->end - l->p >= 3 && l->p[0] == '^' && l->p[1] == '^' && l->p[2] == '<') {
      l->p += 2;
      if (!read_iri(l, extra)) {
        return false;
      }
      t->datatype = extra->data;
    }
  } else {
    l->why = "unexpected character";
    return false;
  }
  t->value = value->data;
  t->len = value->len;
  return true;
}

static bool parse_line(LwTestGraph *g, Line *l, LwBuf bufs[8])
{
  skip_ws(l);
  if (l->p >= l->end || *l->p == '#' || *l->p == '\r') {
    return true;
  }
  LwTerm terms[4] = {{0}};
  int n = 0;
  for (;;) {
    skip_ws(l);
    if (l->p < l->end && *l->p == '.') {
      ++l->p;
      break;
    }
    if (n == 4) {
      l->why = "too many terms";
      return false;
    }
    if (!read_term(l, &terms[n], &bufs[2 * n], &bufs[2 * n + 1])) {
      return false;
    }
    ++n;
  }
  skip_ws(l);
  if (l->p < l->end && *l->p != '#' && *l->p != '\r') {
    l->why = "text after '.'";
    return false;
  }
  if (n < 3) {
    l->why = "too few terms";
    return false;
  }
  LwQuad q = {terms[0], terms[1], terms[2], terms[3]};
  if (lw_test_graph_add(g, &q) != LW_OK) {
    l->why = "cannot add";
    return false;
  }
  return true;
}

bool lw_test_graph_parse(LwTestGraph *g, const char *text, size_t len, char *why,
                         size_t why_len)
{
  LwBuf bufs[8] = {LW_BUF_INIT};
  const char *end = text + len;
  unsigned line_no = 0;
  bool ok = true;
  for (const char *p = text; p < end && ok;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *line_end = nl ? nl : end;
    ++line_no;
    Line l = {p, line_end, NULL};
    if (!parse_line(g, &l, bufs)) {
      snprintf(why, why_len, "line %u: %s", line_no, l.why);
      ok = false;
    }
    p = nl ? nl + 1 : end;
  }
  for (int i = 0; i < 8; ++i) {
    lw_buf_free(&bufs[i]);
  }
  return ok;
}

bool lw_test_graph_load(LwTestGraph *g, const char *path, char *why, size_t why_len)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(why, why_len, "cannot open %s", path);
    return false;
  }
  LwBuf text = LW_BUF_INIT;
  char block[65536];
  size_t n;
  while ((n = fread(block, 1, sizeof(block), f)) > 0) {
    lw_buf_append(&text, block, n);
  }
  fclose(f);
  bool ok = lw_test_graph_parse(g, text.data ? text.data : "", text.len, why, why_len);
  lw_buf_free(&text);
  return ok;
}

/* ---- comparing ---- */

static int quad_cmp(const void *x, const void *y)
{
  const LwTestQuad *a = x, *b = y;
  int c = strcmp(a->s, b->s);
  if (!c) c = strcmp(a->p, b->p);
  if (!c) c = strcmp(a->o, b->o);
  if (!c) c = strcmp(a->g, b->g);
  return c;
}

static void sort_unique(LwTestGraph *g)
{
  if (g->n == 0) {
    return;
  }
  qsort(g->quads, g->n, sizeof(*g->quads), quad_cmp);
  size_t w = 1;
  for (size_t r = 1; r < g->n; ++r) {
    if (quad_cmp(&g->quads[r], &g->quads[w - 1]) == 0) {
      free(g->quads[r].s), free(g->quads[r].p);
      free(g->quads[r].o), free(g->quads[r].g);
    } else {
      g->quads[w++] = g->quads[r];
    }
  }
  g->n = w;
}

static bool is_blank(const char *term)
{
  return term[0] == '_' && term[1] == ':';
}

static bool ground(const LwTestQuad *q)
{
  return !is_blank(q->s) && !is_blank(q->o) && !is_blank(q->g);
}

/* Blank nodes of one graph: labels, colours, and per non-ground quad the
 * blank index at each position (-1: not blank). */
typedef struct {
  const LwTestGraph *g;
  char **labels;
  size_t n_labels;
  uint64_t *color;
  size_t *quad_index; /* non-ground quads */
  int (*pos)[3];      /* s, o, g */
  size_t n_quads;
} Blanks;

static int label_index(Blanks *b, const char *term)
{
  if (!is_blank(term)) {
    return -1;
  }
  for (size_t i = 0; i < b->n_labels; ++i) {
    if (!strcmp(b->labels[i], term)) {
      return (int)i;
    }
  }
  b->labels[b->n_labels] = (char *)term;
  return (int)b->n_labels++;
}

static void blanks_init(Blanks *b, const LwTestGraph *g)
{
  *b = (Blanks){.g = g};
  b->labels = calloc(3 * g->n + 1, sizeof(char *));
  b->quad_index = calloc(g->n + 1, sizeof(size_t));
  b->pos = calloc(g->n + 1, sizeof(*b->pos));
  for (size_t i = 0; i < g->n; ++i) {
    const LwTestQuad *q = &g->quads[i];
    if (ground(q)) {
      continue;
    }
    b->quad_index[b->n_quads] = i;
    b->pos[b->n_quads][0] = label_index(b, q->s);
    b->pos[b->n_quads][1] = label_index(b, q->o);
    b->pos[b->n_quads][2] = label_index(b, q->g);
    ++b->n_quads;
  }
  b->color = calloc(b->n_labels + 1, sizeof(uint64_t));
  for (size_t i = 0; i < b->n_labels; ++i) {
    b->color[i] = 1;
  }
}

static void blanks_free(Blanks *b)
{
  free(b->labels);
  free(b->quad_index);
  free(b->pos);
  free(b->color);
}

static uint64_t hash_str(uint64_t h, const char *s)
{
  for (; *s; ++s) {
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  }
  return (h ^ 0xff) * 1099511628211ull;
}

static uint64_t mix(uint64_t h)
{
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

/* One refinement round; returns the number of distinct colours. */
static size_t refine(Blanks *b)
{
  uint64_t *next = calloc(b->n_labels + 1, sizeof(uint64_t));
  for (size_t k = 0; k < b->n_quads; ++k) {
    const LwTestQuad *q = &b->g->quads[b->quad_index[k]];
    const char *terms[3] = {q->s, q->o, q->g};
    for (int at = 0; at < 3; ++at) {
      int self = b->pos[k][at];
      if (self < 0) {
        continue;
      }
      uint64_t sig = hash_str(14695981039346656037ull + (uint64_t)at, q->p);
      for (int other = 0; other < 3; ++other) {
        int idx = b->pos[k][other];
        if (idx < 0) {
          sig = hash_str(sig, terms[other]);
        } else if (idx == self) {
          sig = mix(sig ^ 0x5e1f);
        } else {
          sig = mix(sig ^ b->color[idx]);
        }
        sig = mix(sig + (uint64_t)other);
      }
      next[self] += mix(sig); /* a sum: the order of quads does not matter */
    }
  }
  for (size_t i = 0; i < b->n_labels; ++i) {
    b->color[i] = mix(b->color[i] * 31 + next[i]);
  }
  free(next);
  /* count distinct colours */
  uint64_t *sorted = malloc((b->n_labels + 1) * sizeof(uint64_t));
  memcpy(sorted, b->color, b->n_labels * sizeof(uint64_t));
  size_t distinct = 0;
  for (size_t i = 0; i < b->n_labels; ++i) {
    bool seen = false;
    for (size_t j = 0; j < i && !seen; ++j) {
      seen = sorted[j] == sorted[i];
    }
    distinct += !seen;
  }
  free(sorted);
  return distinct;
}

typedef struct {
  Blanks *a, *b;
  int *map;   /* a blank -> b blank */
  bool *used; /* b blanks taken */
  unsigned long tries;
} Search;

static const char *mapped(const Search *s, const char *term, int idx)
{
  return idx < 0 ? term : s->b->labels[s->map[idx]];
}

static bool all_mapped_quads_in_b(const Search *s)
{
  for (size_t k = 0; k < s->a->n_quads; ++k) {
    const LwTestQuad *q = &s->a->g->quads[s->a->quad_index[k]];
    LwTestQuad m = {(char *)mapped(s, q->s, s->a->pos[k][0]), q->p,
                    (char *)mapped(s, q->o, s->a->pos[k][1]),
                    (char *)mapped(s, q->g, s->a->pos[k][2])};
    if (!bsearch(&m, s->b->g->quads, s->b->g->n, sizeof(m), quad_cmp)) {
      return false;
    }
  }
  return true;
}

static bool search(Search *s, size_t i)
{
  if (i == s->a->n_labels) {
    return ++s->tries < 1000000 && all_mapped_quads_in_b(s);
  }
  for (size_t j = 0; j < s->b->n_labels; ++j) {
    if (s->used[j] || s->b->color[j] != s->a->color[i]) {
      continue;
    }
    s->map[i] = (int)j;
    s->used[j] = true;
    if (search(s, i + 1)) {
      return true;
    }
    s->used[j] = false;
    if (s->tries >= 1000000) {
      return false;
    }
  }
  return false;
}

static int u64_cmp(const void *x, const void *y)
{
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

static bool same_colors(const Blanks *a, const Blanks *b)
{
  size_t n = a->n_labels;
  uint64_t *ca = malloc((n + 1) * sizeof(uint64_t));
  uint64_t *cb = malloc((n + 1) * sizeof(uint64_t));
  memcpy(ca, a->color, n * sizeof(uint64_t));
  memcpy(cb, b->color, n * sizeof(uint64_t));
  qsort(ca, n, sizeof(uint64_t), u64_cmp);
  qsort(cb, n, sizeof(uint64_t), u64_cmp);
  bool same = !memcmp(ca, cb, n * sizeof(uint64_t));
  free(ca);
  free(cb);
  return same;
}

static void describe_missing(const LwTestGraph *from, const LwTestGraph *in,
                             const char *label, char *why, size_t why_len)
{
  for (size_t i = 0; i < from->n; ++i) {
    const LwTestQuad *q = &from->quads[i];
    /* (an empty graph has no array: bsearch may not be given NULL) */
    if (ground(q) && (!in->n || !bsearch(q, in->quads, in->n, sizeof(*q), quad_cmp))) {
      snprintf(why, why_len, "%s: %s %s %s%s%s .", label, q->s, q->p, q->o,
               q->g[0] ? " " : "", q->g);
      return;
    }
  }
  snprintf(why, why_len, "%s: blank node structure differs", label);
}

bool lw_test_graph_isomorphic(LwTestGraph *a, LwTestGraph *b, char *why, size_t why_len)
{
  sort_unique(a);
  sort_unique(b);
  if (a->n != b->n) {
    snprintf(why, why_len, "%zu quads, expected %zu", a->n, b->n);
    char more[400] = "";
    describe_missing(a->n > b->n ? a : b, a->n > b->n ? b : a,
                     a->n > b->n ? "unexpected" : "missing", more, sizeof(more));
    size_t used = strlen(why);
    snprintf(why + used, why_len - used, "; %s", more);
    return false;
  }
  for (size_t i = 0; i < a->n; ++i) {
    if (ground(&a->quads[i]) &&
        !bsearch(&a->quads[i], b->quads, b->n, sizeof(LwTestQuad), quad_cmp)) {
      describe_missing(a, b, "unexpected", why, why_len);
      return false;
    }
  }
  Blanks ba, bb;
  blanks_init(&ba, a);
  blanks_init(&bb, b);
  bool ok = ba.n_labels == bb.n_labels && ba.n_quads == bb.n_quads;
  if (ok) {
    size_t last_a = 0, last_b = 0;
    for (size_t round = 0; round <= ba.n_labels; ++round) {
      size_t da = refine(&ba), db = refine(&bb);
      if (da != db) {
        ok = false;
        break;
      }
      if (da == last_a && db == last_b) {
        break;
      }
      last_a = da, last_b = db;
    }
  }
  ok = ok && same_colors(&ba, &bb);
  if (ok) {
    Search s = {&ba, &bb, calloc(ba.n_labels + 1, sizeof(int)),
                calloc(bb.n_labels + 1, sizeof(bool)), 0};
    ok = search(&s, 0);
    free(s.map);
    free(s.used);
  }
  if (!ok) {
    snprintf(why, why_len, "blank nodes differ (%zu vs %zu blank nodes)", ba.n_labels,
             bb.n_labels);
  }
  blanks_free(&ba);
  blanks_free(&bb);
  return ok;
}

void lw_test_graph_print(const LwTestGraph *g, void *stream)
{
  for (size_t i = 0; i < g->n; ++i) {
    const LwTestQuad *q = &g->quads[i];
    fprintf(stream, "  %s %s %s%s%s .\n", q->s, q->p, q->o, q->g[0] ? " " : "", q->g);
  }
}
