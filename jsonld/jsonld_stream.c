/*
 * Reading a JSON-LD document, element by element where its shape allows.
 *
 * jansson parses whole JSON texts into memory. Large JSON-LD dumps are
 * nearly always a top-level array of node objects, or an object holding
 * only "@context" and "@graph"; for those, this file parses one top-level
 * element at a time out of a growing window over the input (jansson's
 * JSON_DISABLE_EOF_CHECK stops after one value and tells how many bytes it
 * used), converts it and frees it, so memory is bounded by the largest
 * element, not by the document.
 *
 * - A top-level array streams from any FILE.
 * - A top-level object streams when the FILE is seekable: a quick scan of the
 *   raw bytes first checks that its only keys are "@context" and "@graph"
 *   (with an array value) and records where their values start, so the
 *   context is processed first even when it comes after "@graph" in the
 *   file. A named graph ({"@id": ..., "@graph": [...]}) or any other key
 *   falls back to loading the whole document.
 * - Everything else is loaded whole with jansson, as before.
 *
 * Error positions: jansson reports line and column within the window; they
 * are shifted by the window's position, which is tracked as bytes are used.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "jsonld/jsonld_private.h"

#define JSON_FLAGS (JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL)
#define WINDOW_START (64 * 1024)

typedef struct {
  LwJld *p;
  FILE *in;
  char *buf;
  size_t start, end, cap;
  bool eof;
  bool keep;                /* don't drop used bytes (before a fallback) */
  unsigned long long total; /* bytes read from in */
  unsigned line, col;       /* position of buf[start]: line (1-based), chars */
} Src;

static LwStatus at_error(LwJld *p, LwStatus st, unsigned line, unsigned col,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static LwStatus at_error(LwJld *p, LwStatus st, unsigned line, unsigned col,
                         const char *fmt, ...)
{
  char text[LW_ERROR_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  lw_error_set(p->err, st, "line %u, column %u: %s", line, col, text);
  p->err_line = line;
  p->err_column = col;
  return st;
}

static void src_init(Src *s, LwJld *p, FILE *in, unsigned line, unsigned col)
{
  memset(s, 0, sizeof(*s));
  s->p = p;
  s->in = in;
  s->line = line;
  s->col = col;
}

static LwStatus src_fill(Src *s)
{
  if (s->eof) {
    return LW_OK;
  }
  if (s->start > 0 && !s->keep) {
    memmove(s->buf, s->buf + s->start, s->end - s->start);
    s->end -= s->start;
    s->start = 0;
  }
  if (s->end == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : WINDOW_START;
    char *b = realloc(s->buf, cap + 1);
    if (!b) {
      return lw_jld_nomem(s->p);
    }
    s->buf = b;
    s->cap = cap;
  }
  size_t n = fread(s->buf + s->end, 1, s->cap - s->end, s->in);
  if (n == 0) {
    if (ferror(s->in)) {
      return lw_error_set(s->p->err, LW_ERR_IO, "read error");
    }
    s->eof = true;
  }
  s->end += n;
  s->total += n;
  if (s->total > s->p->max_bytes) {
    return lw_error_set(s->p->err, LW_ERR_LIMIT, "document larger than %zu bytes",
                        s->p->max_bytes);
  }
  return LW_OK;
}

/* The next byte, or -1 at the end; *st set on read errors. */
static int src_peek(Src *s, LwStatus *st)
{
  while (s->start == s->end && !s->eof) {
    *st = src_fill(s);
    if (*st != LW_OK) {
      return -1;
    }
  }
  return s->start < s->end ? (unsigned char)s->buf[s->start] : -1;
}

static void src_advance(Src *s, size_t n)
{
  const char *p = s->buf + s->start, *end = p + n, *nl;
  while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
    s->line++;
    s->col = 0;
    p = nl + 1;
  }
  for (; p < end; p++) {
    if ((*p & 0xC0) != 0x80) {
      s->col++; /* columns count characters, as jansson's do */
    }
  }
  s->start += n;
}

static LwStatus src_skip_ws(Src *s)
{
  LwStatus st = LW_OK;
  for (;;) {
    int c = src_peek(s, &st);
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      return st;
    }
    src_advance(s, 1);
  }
}

/* Parses the JSON value at the window's start. */
static LwStatus src_value(Src *s, json_t **out)
{
  *out = NULL;
  for (;;) {
    size_t avail = s->end - s->start;
    json_error_t je;
    json_t *v = NULL;
    if (avail) {
      v = json_loadb(s->buf + s->start, avail,
                     JSON_FLAGS | JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &je);
    } else {
      je.position = 0;
      je.line = 1;
      je.column = 0;
      snprintf(je.text, sizeof(je.text), "unexpected end of input");
    }
    size_t used = je.position > 0 ? (size_t)je.position : 0;
    if (v && (used < avail || s->eof)) {
      src_advance(s, used);
      *out = v;
      return LW_OK;
    }
    json_decref(v);
    /* a value that ends where the window ends may go on (a number), and an
     * error there may be the window's end: read more and parse again; the
     * window doubles, so the parsing stays linear overall */
    if (!s->eof && (v || used + 8 >= avail)) {
      LwStatus st = src_fill(s);
      if (st != LW_OK) {
        return st;
      }
      continue;
    }
    unsigned line = s->line + (je.line > 1 ? (unsigned)je.line - 1 : 0);
    unsigned col = je.line > 1 ? (unsigned)je.column
                               : s->col + (je.column > 0 ? (unsigned)je.column : 0);
    LwStatus st = strstr(je.text, "maximum parsing depth") ? LW_ERR_LIMIT : LW_ERR_SYNTAX;
    return at_error(s->p, st, line, col, "%s", je.text);
  }
}

/* Streams the array at the window's start: each element is converted with
 * ctx and active_property, then freed. */
static LwStatus stream_array(Src *s, LwJldCtx *ctx, const char *active_property)
{
  LwJld *p = s->p;
  LwStatus st = LW_OK;
  src_advance(s, 1); /* '[' */
  if ((st = src_skip_ws(s)) != LW_OK) {
    return st;
  }
  if (src_peek(s, &st) == ']') {
    src_advance(s, 1);
    return LW_OK;
  }
  for (;;) {
    unsigned line = s->line, col = s->col + 1;
    json_t *element;
    if ((st = src_value(s, &element)) != LW_OK) {
      return st;
    }
    p->at_line = line;
    p->at_column = col;
    st = lw_jld_convert_element(p, ctx, active_property, element, false);
    p->at_line = p->at_column = 0;
    json_decref(element);
    if (st != LW_OK) {
      p->err_line = line; /* where the element that failed starts */
      p->err_column = col;
      return st;
    }
    if ((st = src_skip_ws(s)) != LW_OK) {
      return st;
    }
    int c = src_peek(s, &st);
    if (c == ',') {
      src_advance(s, 1);
      if ((st = src_skip_ws(s)) != LW_OK) {
        return st;
      }
    } else if (c == ']') {
      src_advance(s, 1);
      return LW_OK;
    } else if (st != LW_OK) {
      return st;
    } else {
      return at_error(p, LW_ERR_SYNTAX, s->line, s->col + 1, "',' or ']' expected");
    }
  }
}

/* ---- the shape of a top-level object (seekable input) ---------------- */

typedef struct {
  FILE *in;
  char buf[65536];
  size_t pos, len;
  off_t offset;
  unsigned line, col;
  bool failed;
} Scan;

static int sc_get(Scan *sc)
{
  if (sc->pos == sc->len) {
    sc->len = fread(sc->buf, 1, sizeof(sc->buf), sc->in);
    sc->pos = 0;
    if (sc->len == 0) {
      return -1;
    }
  }
  unsigned char c = (unsigned char)sc->buf[sc->pos++];
  sc->offset++;
  if (c == '\n') {
    sc->line++;
    sc->col = 0;
  } else if ((c & 0xC0) != 0x80) {
    sc->col++;
  }
  return c;
}

static int sc_peek(Scan *sc)
{
  if (sc->pos == sc->len) {
    sc->len = fread(sc->buf, 1, sizeof(sc->buf), sc->in);
    sc->pos = 0;
    if (sc->len == 0) {
      return -1;
    }
  }
  return (unsigned char)sc->buf[sc->pos];
}

static void sc_ws(Scan *sc)
{
  int c;
  while ((c = sc_peek(sc)) == ' ' || c == '\t' || c == '\n' || c == '\r') {
    sc_get(sc);
  }
}

/* Skips a string whose opening quote was read; false on a backslash when
 * no_escapes (keys with escapes are left to the whole-document path). */
static bool sc_string(Scan *sc, char *copy, size_t size, bool no_escapes)
{
  size_t n = 0;
  for (;;) {
    int c = sc_get(sc);
    if (c < 0) {
      return false;
    }
    if (c == '"') {
      if (copy) {
        copy[n < size ? n : size - 1] = 0;
      }
      return true;
    }
    if (c == '\\') {
      if (no_escapes || sc_get(sc) < 0) {
        return false;
      }
      continue;
    }
    if (copy && n + 1 < size) {
      copy[n] = (char)c;
    }
    n++;
  }
}

/* Skips one JSON value, loosely (jansson checks it properly later). */
static bool sc_value(Scan *sc)
{
  int c = sc_peek(sc);
  if (c == '"') {
    sc_get(sc);
    return sc_string(sc, NULL, 0, false);
  }
  if (c == '{' || c == '[') {
    unsigned long depth = 0;
    for (;;) {
      c = sc_get(sc);
      if (c < 0) {
        return false;
      }
      if (c == '"') {
        if (!sc_string(sc, NULL, 0, false)) {
          return false;
        }
      } else if (c == '{' || c == '[') {
        depth++;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) {
          return true;
        }
      }
    }
  }
  while ((c = sc_peek(sc)) >= 0 && !strchr(",}] \t\r\n", c)) {
    sc_get(sc);
  }
  return true;
}

typedef struct {
  bool has_context;
  off_t context_offset, graph_offset;
  unsigned context_line, context_col, graph_line, graph_col;
} Shape;

/* True when the object at offset start has only "@context" and "@graph"
 * (an array) as keys. */
static bool scan_shape(FILE *in, off_t start, Shape *shape)
{
  Scan *sc = calloc(1, sizeof(*sc));
  if (!sc || fseeko(in, start, SEEK_SET) != 0) {
    free(sc);
    return false;
  }
  sc->in = in;
  sc->offset = start;
  sc->line = 1;
  memset(shape, 0, sizeof(*shape));
  bool has_graph = false, ok = false;
  sc_ws(sc);
  if (sc_peek(sc) == 0xEF) { /* a UTF-8 byte order mark */
    sc_get(sc);
    sc_get(sc);
    sc_get(sc);
    sc_ws(sc);
  }
  if (sc_get(sc) != '{') {
    goto done;
  }
  for (;;) {
    sc_ws(sc);
    int c = sc_get(sc);
    if (c == '}') {
      break;
    }
    char key[16];
    if (c != '"' || !sc_string(sc, key, sizeof(key), true)) {
      goto done;
    }
    bool is_context = !strcmp(key, "@context"), is_graph = !strcmp(key, "@graph");
    if ((!is_context && !is_graph) || (is_context && shape->has_context) ||
        (is_graph && has_graph)) {
      goto done;
    }
    sc_ws(sc);
    if (sc_get(sc) != ':') {
      goto done;
    }
    sc_ws(sc);
    if (is_context) {
      shape->has_context = true;
      shape->context_offset = sc->offset;
      shape->context_line = sc->line;
      shape->context_col = sc->col;
    } else {
      if (sc_peek(sc) != '[') {
        goto done;
      }
      has_graph = true;
      shape->graph_offset = sc->offset;
      shape->graph_line = sc->line;
      shape->graph_col = sc->col;
    }
    if (!sc_value(sc)) {
      goto done;
    }
    sc_ws(sc);
    c = sc_get(sc);
    if (c == '}') {
      break;
    }
    if (c != ',') {
      goto done;
    }
  }
  sc_ws(sc);
  ok = has_graph && sc_peek(sc) < 0;
done:
  free(sc);
  return ok;
}

static LwStatus stream_object(LwJld *p, FILE *in, const Shape *shape)
{
  LwJldCtx *ctx = lw_jld_ctx_new(p->opt->base_iri);
  if (!ctx) {
    return lw_jld_nomem(p);
  }
  LwStatus st = LW_OK;
  Src s;
  if (shape->has_context) {
    if (fseeko(in, shape->context_offset, SEEK_SET) != 0) {
      lw_jld_ctx_unref(ctx);
      return lw_error_set(p->err, LW_ERR_IO, "seek failed");
    }
    src_init(&s, p, in, shape->context_line, shape->context_col);
    json_t *local = NULL;
    st = src_value(&s, &local);
    free(s.buf);
    if (st == LW_OK) {
      LwJldCtx *next = NULL;
      st = lw_jld_process_context(p, ctx, local, p->opt->base_iri, NULL, false, true, true,
                                  &next);
      if (st == LW_OK) {
        lw_jld_ctx_unref(ctx);
        ctx = next;
      } else {
        p->err_line = shape->context_line;
        p->err_column = shape->context_col + 1;
      }
    }
    json_decref(local);
  }
  if (st == LW_OK && fseeko(in, shape->graph_offset, SEEK_SET) != 0) {
    st = lw_error_set(p->err, LW_ERR_IO, "seek failed");
  }
  if (st == LW_OK) {
    src_init(&s, p, in, shape->graph_line, shape->graph_col);
    if (src_peek(&s, &st) == '[') {
      st = stream_array(&s, ctx, "@graph");
    } else if (st == LW_OK) {
      st = lw_error_set(p->err, LW_ERR_INTERNAL, "@graph moved under us");
    }
    free(s.buf);
  }
  lw_jld_ctx_unref(ctx);
  return st;
}

/* ---- the whole document with jansson ----------------------------------- */

typedef struct {
  Src *s; /* bytes already read (served first), may be NULL */
  size_t served;
  FILE *in;
  unsigned long long total;
  LwJld *p;
} Whole;

static size_t whole_read(void *buffer, size_t size, void *data)
{
  Whole *w = data;
  if (w->s && w->served < w->s->end) {
    size_t n = w->s->end - w->served;
    n = n < size ? n : size;
    memcpy(buffer, w->s->buf + w->served, n);
    w->served += n;
    return n;
  }
  size_t n = fread(buffer, 1, size, w->in);
  if (n == 0 && ferror(w->in)) {
    lw_error_set(w->p->err, LW_ERR_IO, "read error");
    return (size_t)-1;
  }
  w->total += n;
  if (w->total > w->p->max_bytes) {
    lw_error_set(w->p->err, LW_ERR_LIMIT, "document larger than %zu bytes",
                 w->p->max_bytes);
    return (size_t)-1;
  }
  return n;
}

static LwStatus read_whole(LwJld *p, FILE *in, Src *already)
{
  Whole w = {already, 0, in, already ? already->total : 0, p};
  if (already && already->end >= 3 && !memcmp(already->buf, "\xEF\xBB\xBF", 3)) {
    w.served = 3; /* jansson does not skip a byte order mark */
  }
  json_error_t je;
  json_t *doc = json_load_callback(whole_read, &w, JSON_FLAGS, &je);
  if (!doc) {
    if (p->err->status == LW_ERR_LIMIT || p->err->status == LW_ERR_IO) {
      return p->err->status; /* set by whole_read: size cap, read error */
    }
    LwStatus st = strstr(je.text, "maximum parsing depth") ? LW_ERR_LIMIT : LW_ERR_SYNTAX;
    return at_error(p, st, je.line > 0 ? (unsigned)je.line : 0,
                    je.column > 0 ? (unsigned)je.column : 0, "%s", je.text);
  }
  LwStatus st = lw_jld_convert_whole(p, doc);
  json_decref(doc);
  return st;
}

static LwStatus read_array(LwJld *p, Src *s)
{
  LwJldCtx *ctx = lw_jld_ctx_new(p->opt->base_iri);
  if (!ctx) {
    return lw_jld_nomem(p);
  }
  LwStatus st = stream_array(s, ctx, NULL);
  lw_jld_ctx_unref(ctx);
  if (st == LW_OK) {
    st = src_skip_ws(s);
    if (st == LW_OK && src_peek(s, &st) >= 0) {
      st = at_error(p, LW_ERR_SYNTAX, s->line, s->col + 1, "end of file expected");
    }
  }
  return st;
}

LwStatus lw_jld_read(LwJld *p, FILE *in)
{
  off_t origin = ftello(in);
  Src s;
  src_init(&s, p, in, 1, 0);
  s.keep = true; /* until the path is chosen, so that a fallback can replay */
  LwStatus st = src_skip_ws(&s);
  int c = st == LW_OK ? src_peek(&s, &st) : -1;
  bool bom = false;
  if (st == LW_OK && c == 0xEF && s.end - s.start >= 3 &&
      !memcmp(s.buf + s.start, "\xEF\xBB\xBF", 3)) {
    bom = s.start == 0;
    src_advance(&s, 3); /* a UTF-8 byte order mark */
    s.col = 0;
    st = src_skip_ws(&s);
    c = st == LW_OK ? src_peek(&s, &st) : -1;
  }
  if (st == LW_OK && c == '[') {
    s.keep = false;
    st = read_array(p, &s);
  } else if (st == LW_OK && origin >= 0) {
    /* a seekable input: stream a {"@context", "@graph"} object, else load
     * the whole document from the start */
    Shape shape;
    if (c == '{' && scan_shape(in, origin, &shape)) {
      st = stream_object(p, in, &shape);
    } else if (fseeko(in, origin + (bom ? 3 : 0), SEEK_SET) != 0) {
      st = lw_error_set(p->err, LW_ERR_IO, "seek failed");
    } else {
      st = read_whole(p, in, NULL);
    }
  } else if (st == LW_OK) {
    st = read_whole(p, in, &s); /* replays what was read, then the rest */
  }
  free(s.buf);
  return st;
}
