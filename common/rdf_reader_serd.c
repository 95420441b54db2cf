/*
 * Turtle, TriG, N-Triples and N-Quads through serd 0.30, lax.
 *
 * serd reads pages from our own source function, which runs every byte
 * through the pre-scanner (common/rdf_prescan.h) first: nesting, term and
 * line caps stop the input before serd sees it, and bad \u escapes are
 * turned into syntax errors serd reports itself. serd hands on IRIs as
 * written and prefixed names unexpanded: we resolve relative IRIs with our
 * own RFC 3986 code (common/uri.h) and expand prefixed names against the
 * prefixes, resolved when they are declared. Every string is checked to be
 * valid UTF-8 before it goes out.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <serd/serd.h>

#include "common/buf.h"
#include "common/rdf_prescan.h"
#include "common/rdf_reader_internal.h"
#include "common/uri.h"
#include "common/utf8.h"

#define PAGE_SIZE 65536

enum { T_SUBJECT, T_PREDICATE, T_OBJECT, T_GRAPH, T_DATATYPE, T_COUNT };

typedef struct {
  LwReadContext *rc;
  FILE *in;
  bool line_based;     /* N-Triples, N-Quads: absolute IRIs only */
  LwScanner scan;
  SerdEnv *env;        /* prefixes, bound to absolute IRIs where possible */
  char *base;          /* the current base IRI (absolute), or NULL */
  LwStatus stop;       /* set when reading must end: a cap, the sink, I/O */
  bool io_error;
  bool at_eof;
  LwBuf terms[T_COUNT];
} SerdContext;

/* ---- the byte source: fread, then the pre-scanner ---- */

static size_t source_read(void *buf, size_t size, size_t nmemb, void *stream)
{
  SerdContext *c = stream;
  if (c->stop != LW_OK) {
    return 0;
  }
  size_t want = size * nmemb;
  size_t n = 0;
  while (n < want) {
    size_t got = fread((char *)buf + n, 1, want - n, c->in);
    if (got == 0) {
      if (ferror(c->in)) {
        c->io_error = true;
        c->stop = LW_ERR_IO;
      } else {
        c->at_eof = true;
      }
      break;
    }
    n += got;
  }
  size_t used = n;
  LwScanResult r = lw_scanner_feed(&c->scan, buf, n, &used);
  if (r != LW_SCAN_OK) {
    const LwScanner *s = &c->scan;
    const char *what = r == LW_SCAN_DEPTH  ? "nesting deeper than"
                       : r == LW_SCAN_TERM ? "a term longer than"
                                           : "a line longer than";
    unsigned long long cap = r == LW_SCAN_DEPTH  ? s->max_depth
                             : r == LW_SCAN_TERM ? s->max_term_bytes
                                                 : s->max_line_bytes;
    lw_error_set(c->rc->err, LW_ERR_LIMIT, "line %lu, column %lu: %s %llu%s",
                 s->stop_line, s->stop_column + 1, what, cap,
                 r == LW_SCAN_DEPTH ? " levels" : " bytes");
    c->stop = LW_ERR_LIMIT;
  }
  return used;
}

static int source_error(void *stream)
{
  const SerdContext *c = stream;
  return c->io_error;
}

/* ---- errors ---- */

static SerdStatus on_serd_error(void *handle, const SerdError *e)
{
  SerdContext *c = handle;
  if (c->stop != LW_OK) {
    return SERD_SUCCESS; /* an artefact of cutting the input short */
  }
  char message[LW_ERROR_MESSAGE_MAX];
  va_list args;
  va_copy(args, *e->args);
  vsnprintf(message, sizeof(message), e->fmt, args);
  va_end(args);
  /* serd counts columns from 0 after the first line */
  unsigned column = e->line > 1 ? e->col + 1 : e->col;
  lw_read_report(c->rc, e->line, column, "%s", message);
  return SERD_SUCCESS;
}

/* ---- terms ---- */

static void set_term(LwTerm *t, LwTermType type, const LwBuf *b)
{
  t->type = type;
  t->value = b->data ? b->data : "";
  t->len = b->len;
  t->datatype = NULL;
  t->lang = NULL;
}

/* Makes value (len bytes) an absolute IRI in b: as it is, or resolved
 * against the base. Returns a problem description, or NULL. */
static const char *absolute_iri(SerdContext *c, const char *value, size_t len,
                                LwBuf *b)
{
  lw_buf_reset(b);
  if (memchr(value, '\0', len)) {
    return "NUL in IRI";
  }
  if (lw_uri_is_absolute(value)) {
    return lw_buf_append(b, value, len) == LW_OK ? NULL : "out of memory";
  }
  if (c->line_based) {
    return "relative IRI (N-Triples and N-Quads need absolute IRIs)";
  }
  if (!c->base) {
    return "relative IRI and no base IRI";
  }
  char *resolved = lw_uri_resolve(c->base, value);
  if (!resolved) {
    return "cannot resolve relative IRI";
  }
  LwStatus st = lw_buf_append_str(b, resolved);
  free(resolved);
  return st == LW_OK ? NULL : "out of memory";
}

static const char *expand_curie(SerdContext *c, const SerdNode *n, LwBuf *b)
{
  SerdChunk prefix;
  SerdChunk suffix;
  if (serd_env_expand(c->env, n, &prefix, &suffix) != SERD_SUCCESS) {
    return "undefined prefix";
  }
  lw_buf_reset(b);
  if (lw_buf_append(b, prefix.buf, prefix.len) != LW_OK ||
      lw_buf_append(b, suffix.buf, suffix.len) != LW_OK) {
    return "out of memory";
  }
  if (!lw_uri_is_absolute(b->data)) {
    return "prefix bound to a relative IRI and no base IRI";
  }
  return NULL;
}

/* Converts a serd node into an LwTerm stored in b. Returns a problem
 * description (the statement is then skipped), or NULL. */
static const char *node_to_term(SerdContext *c, const SerdNode *n, LwBuf *b,
                                LwTerm *t)
{
  const char *value = (const char *)n->buf;
  const char *problem = NULL;
  LwTermType type = LW_TERM_NONE;
  switch (n->type) {
  case SERD_URI:
    type = LW_TERM_IRI;
    problem = absolute_iri(c, value, n->n_bytes, b);
    break;
  case SERD_CURIE:
    type = LW_TERM_IRI;
    problem = expand_curie(c, n, b);
    break;
  case SERD_BLANK:
    type = LW_TERM_BLANK;
    lw_buf_reset(b);
    problem = lw_buf_append(b, value, n->n_bytes) ? "out of memory" : NULL;
    break;
  case SERD_LITERAL:
    type = LW_TERM_LITERAL;
    lw_buf_reset(b);
    problem = lw_buf_append(b, value, n->n_bytes) ? "out of memory" : NULL;
    break;
  default:
    return "unexpected node";
  }
  if (problem) {
    return problem;
  }
  if (!lw_utf8_valid(b->data, b->len)) {
    return "invalid UTF-8 or escape";
  }
  if (b->len > c->rc->max_term_bytes) {
    return "term too long";
  }
  set_term(t, type, b);
  return NULL;
}

static const char *literal_extras(SerdContext *c, const SerdNode *datatype,
                                  const SerdNode *lang, LwTerm *t)
{
  if (datatype && datatype->buf) {
    LwTerm dt;
    const char *problem = node_to_term(c, datatype, &c->terms[T_DATATYPE], &dt);
    if (problem) {
      return problem;
    }
    if (dt.type != LW_TERM_IRI || memchr(dt.value, '\0', dt.len)) {
      return "bad datatype";
    }
    t->datatype = dt.value;
  }
  if (lang && lang->buf && lang->n_bytes) {
    if (!lw_utf8_valid((const char *)lang->buf, lang->n_bytes)) {
      return "invalid UTF-8 in language tag";
    }
    t->lang = (const char *)lang->buf;
  }
  return NULL;
}

static SerdStatus on_statement(void *handle, SerdStatementFlags flags,
                               const SerdNode *graph, const SerdNode *subject,
                               const SerdNode *predicate,
                               const SerdNode *object,
                               const SerdNode *datatype, const SerdNode *lang)
{
  (void)flags;
  SerdContext *c = handle;
  if (c->stop != LW_OK) {
    return SERD_ERR_INTERNAL;
  }
  LwQuad q = {0};
  const char *problem = node_to_term(c, subject, &c->terms[T_SUBJECT], &q.subject);
  if (!problem) {
    problem = node_to_term(c, predicate, &c->terms[T_PREDICATE], &q.predicate);
  }
  if (!problem) {
    problem = node_to_term(c, object, &c->terms[T_OBJECT], &q.object);
  }
  if (!problem && q.object.type == LW_TERM_LITERAL) {
    problem = literal_extras(c, datatype, lang, &q.object);
  }
  if (!problem && graph && graph->buf) {
    problem = node_to_term(c, graph, &c->terms[T_GRAPH], &q.graph);
  }
  if (!problem && (q.predicate.type != LW_TERM_IRI ||
                   q.subject.type == LW_TERM_LITERAL ||
                   q.graph.type == LW_TERM_LITERAL)) {
    problem = "term of the wrong kind";
  }
  if (problem) {
    /* serd does not tell where the statement is: its location is unknown */
    lw_read_report(c->rc, 0, 0, "%s, statement skipped", problem);
    return SERD_SUCCESS;
  }
  LwStatus st = lw_read_emit(c->rc, &q);
  if (st > LW_NOTHING) {
    c->stop = st;
    return SERD_ERR_INTERNAL;
  }
  return SERD_SUCCESS;
}

/* ---- directives ---- */

static SerdStatus on_base(void *handle, const SerdNode *uri)
{
  SerdContext *c = handle;
  const char *value = (const char *)uri->buf;
  char *next = NULL;
  if (lw_uri_is_absolute(value)) {
    next = strdup(value);
  } else if (c->base) {
    next = lw_uri_resolve(c->base, value);
  }
  if (!next) {
    lw_read_report(c->rc, 0, 0, "relative base IRI <%s> and no base IRI",
                   value);
  }
  free(c->base);
  c->base = next;
  return SERD_SUCCESS;
}

static SerdStatus on_prefix(void *handle, const SerdNode *name,
                            const SerdNode *uri)
{
  SerdContext *c = handle;
  const char *value = (const char *)uri->buf;
  char *resolved = NULL;
  if (!lw_uri_is_absolute(value) && c->base) {
    resolved = lw_uri_resolve(c->base, value);
  }
  const char *target = resolved ? resolved : value;
  if (!lw_uri_is_absolute(target)) {
    lw_read_report(c->rc, 0, 0, "prefix %s: bound to relative IRI <%s>",
                   (const char *)name->buf, value);
  }
  serd_env_set_prefix_from_strings(c->env, name->buf,
                                   (const uint8_t *)target);
  free(resolved);
  return SERD_SUCCESS;
}

/* ---- reading ---- */

static SerdSyntax serd_syntax(LwFormat format)
{
  switch (format) {
  case LW_FORMAT_NTRIPLES: return SERD_NTRIPLES;
  case LW_FORMAT_NQUADS: return SERD_NQUADS;
  case LW_FORMAT_TRIG: return SERD_TRIG;
  default: return SERD_TURTLE;
  }
}

static LwStatus finish(SerdContext *c, SerdStatus st)
{
  LwReadContext *rc = c->rc;
  if (c->stop == LW_ERR_LIMIT) {
    return LW_ERR_LIMIT; /* message set by source_read */
  }
  if (c->stop == LW_ERR_IO) {
    return lw_error_set(rc->err, LW_ERR_IO, "read error");
  }
  if (c->stop != LW_OK) {
    return lw_error_set(rc->err, c->stop, "stopped by the statement sink");
  }
  if (st > SERD_FAILURE && !c->at_eof) {
    return lw_error_set(rc->err, LW_ERR_SYNTAX,
                        "cannot read on after a syntax error");
  }
  return LW_OK;
}

LwStatus lw_rdf_read_serd(FILE *in, LwReadContext *rc)
{
  const LwReadOptions *o = rc->options;
  SerdContext c = {.rc = rc, .in = in, .stop = LW_OK};
  c.line_based = o->format == LW_FORMAT_NTRIPLES || o->format == LW_FORMAT_NQUADS;
  bool fancy = !c.line_based;
  /* a line-based statement is at most four terms and some punctuation */
  size_t max_line = c.line_based ? 4 * rc->max_term_bytes + 4096 : 0;
  lw_scanner_init(&c.scan, fancy, rc->max_depth, rc->max_term_bytes, max_line);
  if (o->base_iri && !lw_uri_is_absolute(o->base_iri)) {
    return lw_error_set(rc->err, LW_ERR_USAGE, "base IRI <%s> is not absolute",
                        o->base_iri);
  }
  if (o->base_iri && !(c.base = strdup(o->base_iri))) {
    return lw_error_set(rc->err, LW_ERR_NOMEM, "out of memory");
  }
  c.env = serd_env_new(NULL);
  SerdReader *reader = serd_reader_new(serd_syntax(o->format), &c, NULL,
                                       on_base, on_prefix, on_statement, NULL);
  if (!c.env || !reader) {
    serd_env_free(c.env);
    serd_reader_free(reader);
    free(c.base);
    return lw_error_set(rc->err, LW_ERR_NOMEM, "out of memory");
  }
  serd_reader_set_strict(reader, false);
  serd_reader_set_error_sink(reader, on_serd_error, &c);
  SerdStatus st = serd_reader_read_source(reader, source_read, source_error,
                                          &c, (const uint8_t *)"input",
                                          PAGE_SIZE);
  LwStatus result = finish(&c, st);
  serd_reader_free(reader);
  serd_env_free(c.env);
  free(c.base);
  for (int i = 0; i < T_COUNT; ++i) {
    lw_buf_free(&c.terms[i]);
  }
  return result;
}
