/*
 * RDF/XML through raptor2, fed in blocks with raptor_parser_parse_chunk
 * (RDFa is read by rdfa/, rdf_readers/rdf_reader_rdfa.c).
 *
 * Safety: no network, no file access, no external entities (raptor options
 * and a URI filter that refuses every load), and the XML guard
 * (rdf_readers/rdf_readers.h) in front of libxml2: a DTD declaring anything but
 * plain entities is refused before raptor sees a byte, and entity expansion
 * is budgeted.
 *
 * Blank nodes: raptor asks us for every blank node label. Document labels
 * (rdf:nodeID) are kept, except that one starting with 'g' gets another 'g'
 * in front; generated labels are "g" and a number. So the two never collide.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <raptor2.h>

#include "base/base.h"
#include "rdf_readers/rdf_readers.h"
#include "rdf_readers/xml_feed_thread.h"
#include "rdf_readers/xml_scope.h"

/* raptor cannot read RDF/XML without a base; this one marks IRIs that were
 * relative in a document read without a base IRI. */
#define NO_BASE "http://lodwash.invalid/no-base-iri/"

typedef struct {
  LwReadContext *rc;
  LwStatus stop; /* the sink stopped us */
  bool have_base;
  bool fatal;
  char fatal_message[256];
  unsigned long long next_id;
  raptor_parser *parser; /* for the location of libxml2's errors */
  /* RDF/XML: while raptor reads one start tag alone, its in-scope xml:lang,
   * which raptor 2.0.15 forgets on property attributes (see
   * rdf_readers/xml_scope.h) */
  const char *attribute_lang;
  /* RDF/XML: the marks that carry xml:base's query through raptor
   * (rdf_readers/xml_base_marks.h), and room for the IRIs put right */
  LwXmlBaseMarks *marks;
  LwBuf unmarked[4];
} RaptorContext;

/* ---- blank node labels ---- */

static unsigned char *make_bnodeid(void *handle, unsigned char *user_id)
{
  RaptorContext *c = handle;
  char *label;
  if (user_id) {
    if (user_id[0] != 'g') {
      return user_id;
    }
    size_t n = strlen((char *)user_id);
    label = malloc(n + 2);
    if (label) {
      label[0] = 'g';
      memcpy(label + 1, user_id, n + 1);
    }
    free(user_id);
    return (unsigned char *)label;
  }
  label = malloc(24);
  if (label) {
    snprintf(label, 24, "g%llu", ++c->next_id);
  }
  return (unsigned char *)label;
}

/* ---- errors ---- */

/* raptor warns (rather than errs) when it drops part of the input: those
 * warnings are syntax errors for us; the others are not. */
static bool drops_input(const raptor_log_message *m)
{
  return m->level == RAPTOR_LOG_LEVEL_WARN && m->text &&
         strstr(m->text, "skipping");
}

static void on_log(void *handle, raptor_log_message *m)
{
  RaptorContext *c = handle;
  if ((m->level < RAPTOR_LOG_LEVEL_ERROR && !drops_input(m)) || c->stop != LW_OK) {
    return;
  }
  int line = m->locator ? raptor_locator_line(m->locator) : -1;
  int column = m->locator ? raptor_locator_column(m->locator) : -1;
  if (line <= 0 && c->parser) {
    /* libxml2's messages come without a location: take where the parser
     * is (the line of the last element it saw) */
    raptor_locator *at = raptor_parser_get_locator(c->parser);
    line = at ? raptor_locator_line(at) : -1;
    column = -1;
  }
  lw_read_report(c->rc, line > 0 ? (unsigned)line : 0, column > 0 ? (unsigned)column : 0,
                 "%s", m->text ? m->text : "error");
  /* libxml2 reads nothing more after a well-formedness error */
  bool ends = m->level == RAPTOR_LOG_LEVEL_FATAL ||
              (m->text && !strncmp(m->text, "XML parser error", 16));
  if (ends && !c->fatal) {
    c->fatal = true;
    snprintf(c->fatal_message, sizeof(c->fatal_message), "%s%.*d%s%s",
             line > 0 ? "line " : "", line > 0 ? 1 : 0, line > 0 ? line : 0,
             line > 0 ? ": " : "", m->text ? m->text : "fatal error");
  }
}

static int refuse_uri(void *handle, raptor_uri *uri)
{
  (void)handle;
  (void)uri;
  return 1; /* never load anything */
}

/* ---- statements ---- */

/* iri (len bytes) without the marks of rdf_readers/xml_base_marks.h, in
 * room when it had one; NULL when out of memory. */
static const char *unmark(RaptorContext *c, const char *iri, size_t *len, LwBuf *room)
{
  return c->marks ? lw_xml_base_unmark(c->marks, iri, len, room) : iri;
}

static const char *convert(RaptorContext *c, raptor_term *r, LwTerm *t, LwBuf *room)
{
  *t = (LwTerm){0};
  if (!r) {
    return NULL;
  }
  size_t len = 0;
  bool canonical = false;
  switch (r->type) {
  case RAPTOR_TERM_TYPE_URI:
    t->type = LW_TERM_IRI;
    t->value = (const char *)raptor_uri_as_counted_string(r->value.uri, &len);
    if (!(t->value = unmark(c, t->value, &len, room))) {
      return "out of memory";
    }
    t->len = len;
    if (!c->have_base && !strncmp(t->value, NO_BASE, strlen(NO_BASE))) {
      return "relative IRI and no base IRI";
    }
    if (!lw_read_iri_chars_check(t->value, t->len, &canonical) ||
        !lw_uri_is_absolute(t->value)) {
      return "not an IRI";
    }
    break;
  case RAPTOR_TERM_TYPE_BLANK:
    t->type = LW_TERM_BLANK;
    t->value = (const char *)r->value.blank.string;
    t->len = r->value.blank.string_len;
    break;
  case RAPTOR_TERM_TYPE_LITERAL:
    t->type = LW_TERM_LITERAL;
    t->value = (const char *)r->value.literal.string;
    t->len = r->value.literal.string_len;
    if (r->value.literal.datatype) {
      t->datatype = (const char *)raptor_uri_as_counted_string(r->value.literal.datatype, &len);
      if (!(t->datatype = unmark(c, t->datatype, &len, room))) {
        return "out of memory";
      }
      if (!lw_read_iri_ok(t->datatype, strlen(t->datatype))) {
        return "datatype not an IRI";
      }
    }
    if (r->value.literal.language && r->value.literal.language_len) {
      t->lang = (const char *)r->value.literal.language;
    }
    break;
  default:
    return "unknown term";
  }
  if (!t->value) {
    t->value = "";
    t->len = 0;
  }
  /* ASCII is UTF-8: one look at the bytes for the usual term */
  canonical = canonical || lw_read_plain(t->type, t->value, t->len);
  if ((!canonical && !lw_utf8_valid(t->value, t->len)) ||
      (t->datatype && !lw_utf8_valid(t->datatype, strlen(t->datatype)))) {
    return "invalid UTF-8";
  }
  t->canonical = canonical;
  if (t->len > c->rc->max_term_bytes) {
    return "term too long";
  }
  return NULL;
}

static void on_statement(void *handle, raptor_statement *s)
{
  RaptorContext *c = handle;
  if (c->stop != LW_OK) {
    return;
  }
  LwQuad q;
  raptor_locator *at = raptor_parser_get_locator(c->parser);
  int at_line = at ? raptor_locator_line(at) : -1;
  unsigned line = at_line > 0 ? (unsigned)at_line : 0; /* no column */
  const char *problem = convert(c, s->subject, &q.subject, &c->unmarked[0]);
  if (!problem) {
    problem = convert(c, s->predicate, &q.predicate, &c->unmarked[1]);
  }
  if (!problem) {
    problem = convert(c, s->object, &q.object, &c->unmarked[2]);
  }
  if (!problem) {
    problem = convert(c, s->graph, &q.graph, &c->unmarked[3]);
  }
  if (!problem && c->attribute_lang && q.object.type == LW_TERM_LITERAL && !q.object.lang &&
      !q.object.datatype) {
    q.object.lang = c->attribute_lang; /* a property attribute's literal */
  }
  if (!problem && (q.predicate.type != LW_TERM_IRI || q.subject.type == LW_TERM_LITERAL ||
                   q.subject.type == LW_TERM_NONE || q.object.type == LW_TERM_NONE ||
                   q.graph.type == LW_TERM_LITERAL)) {
    problem = "term of the wrong kind";
  }
  if (problem) {
    lw_read_report(c->rc, line, 0, "%s, statement skipped", problem);
    return;
  }
  LwStatus st = lw_read_emit(c->rc, &q, line, 0);
  if (st > LW_NOTHING) {
    c->stop = st;
  }
}

/* ---- reading ---- */

typedef struct {
  raptor_world *world;
  raptor_parser *parser;
  LwXmlGuard *guard;
  LwXmlScope *scope; /* RDF/XML only */
  LwXmlBaseMarks *marks;
} RaptorParts;

static void parts_free(RaptorParts *p)
{
  raptor_free_parser(p->parser);
  raptor_free_world(p->world);
  lw_xml_guard_free(p->guard);
  lw_xml_scope_free(p->scope);
  lw_xml_base_marks_free(p->marks);
}

static LwStatus parts_new(RaptorParts *p, RaptorContext *c, LwFormat format)
{
  p->world = raptor_new_world();
  if (!p->world) {
    return LW_ERR_NOMEM;
  }
  raptor_world_set_log_handler(p->world, c, on_log);
  raptor_world_set_generate_bnodeid_handler(p->world, c, make_bnodeid);
  /* Interning keeps every URI in a tree, searched, added to and removed
   * from for each URI made: a tenth of the reading. We keep no URI past its
   * statement, so one malloc a URI is cheaper. */
  raptor_world_set_flag(p->world, RAPTOR_WORLD_FLAG_URI_INTERNING, 0);
  if (raptor_world_open(p->world)) {
    return LW_ERR_INTERNAL;
  }
  p->parser = raptor_new_parser(p->world, "rdfxml");
  p->guard = lw_xml_guard_new(c->rc->max_depth);
  if (format == LW_FORMAT_RDFXML) {
    p->marks = c->marks = lw_xml_base_marks_new();
    const char *base = c->have_base ? c->rc->options->base_iri : NO_BASE;
    if (!p->marks || !(p->scope = lw_xml_scope_new(c->rc->max_depth, base, p->marks))) {
      return LW_ERR_NOMEM;
    }
  }
  if (!p->parser || !p->guard) {
    return LW_ERR_NOMEM;
  }
  raptor_parser_set_option(p->parser, RAPTOR_OPTION_NO_NET, NULL, 1);
  raptor_parser_set_option(p->parser, RAPTOR_OPTION_NO_FILE, NULL, 1);
  raptor_parser_set_option(p->parser, RAPTOR_OPTION_LOAD_EXTERNAL_ENTITIES, NULL, 0);
  raptor_parser_set_uri_filter(p->parser, refuse_uri, c);
  raptor_parser_set_statement_handler(p->parser, c, on_statement);
  c->parser = p->parser;
  return LW_OK;
}

static void chunk(RaptorParts *p, const char *data, size_t len, bool eof)
{
  raptor_parser_parse_chunk(p->parser, (const unsigned char *)data, len, eof);
}

/* Gives raptor one planned block: its pieces in order, the start tags that
 * matter to the xml:lang correction each alone, with their language. Once
 * the sink stopped us or raptor failed, no tag is given alone any more: the
 * rest of the block goes in one piece. */
static void feed(RaptorParts *p, RaptorContext *c, const LwXmlFeedBlock *b)
{
  bool eof = b->last && b->status == LW_OK;
  size_t fed = 0;
  for (size_t i = 0; i < b->n_pieces; ++i) {
    const LwXmlPiece *x = &b->pieces[i];
    if (x->starts_tag && (c->stop != LW_OK || c->fatal)) {
      if (fed < b->end || eof) {
        chunk(p, b->bytes + fed, b->end - fed, eof);
      }
      break;
    }
    c->attribute_lang = x->lang >= 0 ? b->bytes + x->lang : NULL;
    chunk(p, b->bytes + x->offset, x->len, x->eof);
    fed = x->fed_to;
  }
  c->attribute_lang = NULL;
}

/* Parses the document, planned block by block in the read-ahead thread. */
static LwStatus parse_all(FILE *in, RaptorParts *p, RaptorContext *c)
{
  LwError *err = c->rc->err;
  LwXmlFeedThread *ahead;
  LW_TRY(lw_xml_feed_thread_start(in, p->guard, p->scope, &ahead, err));
  LwStatus st = LW_OK;
  for (;;) {
    LwXmlFeedBlock b;
    lw_xml_feed_thread_next(ahead, &b);
    if (b.status != LW_OK) {
      st = lw_error_set(err, b.status, "%s", b.err->message);
      break;
    }
    feed(p, c, &b);
    lw_xml_feed_thread_release(ahead);
    if (c->stop != LW_OK) {
      raptor_parser_parse_abort(p->parser);
      st = lw_error_set(err, c->stop, "stopped by the statement sink");
      break;
    }
    if (c->fatal || b.last) {
      break;
    }
  }
  lw_xml_feed_thread_stop(ahead);
  if (st == LW_OK && c->fatal) {
    st = lw_error_set(err, LW_ERR_SYNTAX, "%s", c->fatal_message);
  }
  return st;
}

LwStatus lw_rdf_read_raptor(FILE *in, LwReadContext *rc)
{
  RaptorContext c = {.rc = rc, .stop = LW_OK};
  c.have_base = rc->options->base_iri != NULL;
  RaptorParts p = {0};
  LwStatus st = parts_new(&p, &c, rc->options->format);
  if (st != LW_OK) {
    parts_free(&p);
    return lw_error_set(rc->err, st, "cannot set up raptor");
  }
  raptor_uri *base = raptor_new_uri(
    p.world, (const unsigned char *)(c.have_base ? rc->options->base_iri : NO_BASE));
  if (!base || raptor_parser_parse_start(p.parser, base)) {
    if (base) {
      raptor_free_uri(base);
    }
    parts_free(&p);
    return lw_error_set(rc->err, LW_ERR_USAGE, "bad base IRI");
  }
  st = parse_all(in, &p, &c);
  raptor_free_uri(base);
  parts_free(&p);
  for (size_t i = 0; i < sizeof(c.unmarked) / sizeof(c.unmarked[0]); ++i) {
    lw_buf_free(&c.unmarked[i]);
  }
  return st;
}
