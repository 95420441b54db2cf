/*
 * The processor's output: resources and literals as it builds them, blank
 * node labels, and the triples, handed to the sink as they come or held
 * until the end of the document when it uses property copying.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdfa/rdfa_private.h"

void rdfa_report(RdfaRun *run, const char *fmt, ...)
{
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof(message), fmt, ap);
  va_end(ap);
  if (run->stats) {
    run->stats->errors++;
  }
  if (run->options->on_error) {
    run->options->on_error(run->options->error_handle, run->line, 0, message);
  }
}

/* ---- resources ---- */

RdfaNode rdfa_node_blank(RdfaRun *run)
{
  char label[32];
  snprintf(label, sizeof(label), "g%llu", ++run->next_blank);
  return (RdfaNode){.blank = true, .value = strdup(label)};
}

/* "r" and the label, each byte but letters, digits and '-' as "_XX": an
 * N-Quads label, one per document label, never a generated one. */
RdfaNode rdfa_node_labelled(RdfaRun *run, const char *label, size_t len)
{
  (void)run;
  char *out = malloc(1 + 3 * len + 1);
  if (!out) {
    return (RdfaNode){.blank = true};
  }
  size_t n = 0;
  out[n++] = 'r';
  for (size_t i = 0; i < len; ++i) {
    unsigned char c = (unsigned char)label[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        c == '-') {
      out[n++] = (char)c;
    } else {
      n += (size_t)sprintf(out + n, "_%02X", c);
    }
  }
  out[n] = '\0';
  return (RdfaNode){.blank = true, .value = out};
}

RdfaNode rdfa_node_iri(const char *iri)
{
  return (RdfaNode){.blank = false, .value = iri ? strdup(iri) : NULL};
}

RdfaNode rdfa_node_copy(const RdfaNode *n)
{
  return (RdfaNode){.blank = n->blank, .value = n->value ? strdup(n->value) : NULL};
}

void rdfa_node_free(RdfaNode *n)
{
  free(n->value);
  n->value = NULL;
}

bool rdfa_node_equal(const RdfaNode *a, const RdfaNode *b)
{
  return a->value && b->value && a->blank == b->blank && !strcmp(a->value, b->value);
}

/* ---- objects ---- */

static char *dup_or_null(const char *s)
{
  return s ? strdup(s) : NULL;
}

RdfaObject rdfa_object_node(const RdfaNode *n)
{
  return (RdfaObject){.type = n->blank ? LW_TERM_BLANK : LW_TERM_IRI,
                      .value = dup_or_null(n->value)};
}

RdfaObject rdfa_object_copy(const RdfaObject *o)
{
  return (RdfaObject){.type = o->type,
                      .value = dup_or_null(o->value),
                      .datatype = dup_or_null(o->datatype),
                      .lang = dup_or_null(o->lang)};
}

void rdfa_object_free(RdfaObject *o)
{
  free(o->value);
  free(o->datatype);
  free(o->lang);
  *o = (RdfaObject){0};
}

/* ---- triples ---- */

static LwTerm node_term(const RdfaNode *n)
{
  return (LwTerm){.type = n->blank ? LW_TERM_BLANK : LW_TERM_IRI,
                  .value = n->value,
                  .len = strlen(n->value)};
}

static LwStatus send(RdfaRun *run, const RdfaNode *s, const char *p, const RdfaObject *o,
                     unsigned line)
{
  LwQuad q = {.subject = node_term(s),
              .predicate = {.type = LW_TERM_IRI, .value = p, .len = strlen(p)},
              .object = {.type = o->type,
                         .value = o->value,
                         .len = strlen(o->value),
                         .datatype = o->datatype,
                         .lang = o->lang}};
  if (run->options->location) {
    *run->options->location = (LwLocation){.line = line, .column = 0};
  }
  if (run->stats) {
    run->stats->statements++;
  }
  LwStatus st = run->options->on_quad(run->options->quad_handle, &q);
  if (st > LW_NOTHING) {
    run->stop = st;
    lw_error_set(run->err, st, "stopped by the statement sink");
  }
  return run->stop;
}

static size_t object_bytes(const RdfaObject *o)
{
  return strlen(o->value) + (o->datatype ? strlen(o->datatype) : 0) +
         (o->lang ? strlen(o->lang) : 0);
}

static LwStatus hold(RdfaRun *run, const RdfaNode *s, const char *p, const RdfaObject *o)
{
  run->held_bytes += strlen(s->value) + strlen(p) + object_bytes(o) + sizeof(RdfaTriple);
  if (run->held_bytes > LW_RDFA_MAX_HELD_BYTES) {
    run->stop = lw_error_set(run->err, LW_ERR_LIMIT,
                             "line %u: more than %zu MiB of triples held for property "
                             "copying (rdfa:Pattern)",
                             run->line, LW_RDFA_MAX_HELD_BYTES >> 20);
    return run->stop;
  }
  if (run->held_count == run->held_cap) {
    size_t cap = run->held_cap ? 2 * run->held_cap : 64;
    RdfaTriple *grown = realloc(run->held, cap * sizeof(*grown));
    if (!grown) {
      run->stop = lw_error_set(run->err, LW_ERR_NOMEM, "out of memory holding RDFa triples");
      return run->stop;
    }
    run->held = grown;
    run->held_cap = cap;
  }
  RdfaTriple *t = &run->held[run->held_count];
  *t = (RdfaTriple){.subject = rdfa_node_copy(s),
                    .predicate = strdup(p),
                    .object = rdfa_object_copy(o),
                    .line = run->line};
  if (!t->subject.value || !t->predicate || !t->object.value) {
    run->stop = lw_error_set(run->err, LW_ERR_NOMEM, "out of memory holding RDFa triples");
    return run->stop;
  }
  run->held_count++;
  return LW_OK;
}

LwStatus rdfa_emit(RdfaRun *run, const RdfaNode *s, const char *p, const RdfaObject *o)
{
  if (run->stop != LW_OK) {
    return run->stop;
  }
  if (!s->value || !p || !o->value) {
    return run->stop; /* a resource that could not be named (no base IRI) */
  }
  return run->buffer ? hold(run, s, p, o) : send(run, s, p, o, run->line);
}

LwStatus rdfa_emit_node(RdfaRun *run, const RdfaNode *s, const char *p, const RdfaNode *o)
{
  RdfaObject obj = {.type = o->blank ? LW_TERM_BLANK : LW_TERM_IRI, .value = o->value};
  return rdfa_emit(run, s, p, &obj);
}

static void triple_free(RdfaTriple *t)
{
  rdfa_node_free(&t->subject);
  free(t->predicate);
  rdfa_object_free(&t->object);
}

LwStatus rdfa_flush(RdfaRun *run)
{
  if (!run->buffer) {
    return run->stop;
  }
  if (run->stop == LW_OK) {
    rdfa_copy_properties(run);
  }
  for (size_t i = 0; i < run->held_count && run->stop == LW_OK; ++i) {
    RdfaTriple *t = &run->held[i];
    if (t->predicate) { /* NULL: dropped by the copying */
      send(run, &t->subject, t->predicate, &t->object, t->line);
    }
  }
  return run->stop;
}

void rdfa_run_free(RdfaRun *run)
{
  for (size_t i = 0; i < run->held_count; ++i) {
    triple_free(&run->held[i]);
  }
  free(run->held);
  free(run->base);
  free(run->document_url);
  rdfa_node_free(&run->document_blank);
}
