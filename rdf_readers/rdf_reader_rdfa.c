/*
 * RDFa: a page's tree handed to lodwash's RDFa processor (rdfa/rdfa.h), its
 * triples checked as every reader's are (absolute IRIs without forbidden
 * characters, valid UTF-8, terms within max_term_bytes) before they go to
 * the sink; the processor's problems reported with their lines.
 */
#include <string.h>

#include "base/base.h"
#include "rdf_readers/rdf_readers.h"
#include "rdfa/rdfa.h"

typedef struct {
  LwReadContext *rc;
  LwLocation at; /* the line of the element a triple comes from */
} RdfaGlue;

static const char *term_problem(const LwReadContext *rc, const LwTerm *t)
{
  if (t->type == LW_TERM_IRI && !lw_read_iri_ok(t->value, t->len)) {
    return "not an IRI";
  }
  if (t->datatype && !lw_read_iri_ok(t->datatype, strlen(t->datatype))) {
    return "datatype not an IRI";
  }
  if (!lw_utf8_valid(t->value, t->len) || (t->lang && !lw_utf8_valid(t->lang, strlen(t->lang)))) {
    return "invalid UTF-8";
  }
  if (t->len > rc->max_term_bytes) {
    return "term too long";
  }
  return NULL;
}

static LwStatus glue_quad(void *handle, const LwQuad *q)
{
  RdfaGlue *g = handle;
  const char *problem = term_problem(g->rc, &q->subject);
  if (!problem) {
    problem = term_problem(g->rc, &q->predicate);
  }
  if (!problem) {
    problem = term_problem(g->rc, &q->object);
  }
  if (problem) {
    const LwTerm *bad = q->object.type == LW_TERM_LITERAL ? &q->predicate : &q->object;
    lw_read_report(g->rc, g->at.line, 0, "%s (%.200s), statement skipped", problem,
                   bad->value);
    return LW_OK;
  }
  return lw_read_emit(g->rc, q, g->at.line, 0);
}

static void glue_error(void *handle, unsigned line, unsigned column, const char *message)
{
  RdfaGlue *g = handle;
  lw_read_report(g->rc, line, column, "%s", message);
}

static LwRdfaOptions glue_options(RdfaGlue *g)
{
  LwReadContext *rc = g->rc;
  return (LwRdfaOptions){
    .base_iri = rc->options->base_iri,
    .on_quad = glue_quad,
    .quad_handle = g,
    .on_error = glue_error,
    .error_handle = g,
    .max_depth = rc->max_depth,
    .location = &g->at,
  };
}

xmlDocPtr lw_rdf_rdfa_parse(const LwBuf *page, LwReadContext *rc)
{
  RdfaGlue g = {.rc = rc};
  LwRdfaOptions o = glue_options(&g);
  LwReadStats ignored;
  return lw_rdfa_parse(page->data ? page->data : "", page->len, &o, &ignored, rc->err);
}

LwStatus lw_rdf_read_rdfa(xmlDocPtr doc, LwReadContext *rc)
{
  RdfaGlue g = {.rc = rc};
  LwRdfaOptions o = glue_options(&g);
  LwReadStats ignored; /* counted by lw_read_emit and lw_read_report */
  return lw_rdfa_process(doc, &o, &ignored, rc->err);
}
