/*
 * The statement writer of meta/meta_out.h: terms made into an LwQuad and
 * written by rdf/'s canonical N-Quads writer, so that escaping is the
 * cleaner's own.
 */
#include "meta/meta_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf.h"

static LwTerm iri(const char *s)
{
  return (LwTerm){.type = LW_TERM_IRI, .value = s, .len = strlen(s)};
}

static void emit(LwMetaOut *o, const char *s, const char *p, LwTerm obj)
{
  if (o->st != LW_OK) {
    return;
  }
  LwQuad q = {.subject = iri(s), .predicate = iri(p), .object = obj};
  if (o->graph) {
    q.graph = iri(o->graph);
  }
  lw_buf_reset(&o->line);
  LwStatus st = lw_nquads_append(&o->line, &q);
  if (st == LW_OK) {
    st = o->sink(o->handle, o->line.data, o->line.len);
  }
  if (st > LW_NOTHING) {
    o->st = st;
    if (o->err && o->err->status <= LW_NOTHING) {
      lw_error_set(o->err, st, "metadata graph: cannot write <%s> <%s>", s, p);
    }
    return;
  }
  o->stats.statements++;
}

void lw_meta_iri(LwMetaOut *o, const char *s, const char *p, const char *obj)
{
  if (obj && *obj) {
    emit(o, s, p, iri(obj));
  }
}

void lw_meta_lit(LwMetaOut *o, const char *s, const char *p, const char *value,
                 const char *datatype)
{
  if (value) {
    emit(o, s, p,
         (LwTerm){.type = LW_TERM_LITERAL,
                  .value = value,
                  .len = strlen(value),
                  .datatype = datatype});
  }
}

void lw_meta_int(LwMetaOut *o, const char *s, const char *p, long long n)
{
  char text[32];
  snprintf(text, sizeof(text), "%lld", n);
  lw_meta_lit(o, s, p, text, NS_XSD "integer");
}

void lw_meta_count(LwMetaOut *o, const char *s, const char *p, const char *text)
{
  if (text && *text && strspn(text, "0123456789") == strlen(text)) {
    lw_meta_int(o, s, p, strtoll(text, NULL, 10));
  }
}

void lw_meta_time_ms(LwMetaOut *o, const char *s, const char *p, const char *ms)
{
  long long v = ms ? strtoll(ms, NULL, 10) : 0;
  if (v > 0) {
    char iso[LW_DATETIME_BUF];
    lw_meta_lit(o, s, p, lw_datetime_format_ms(v, iso), NS_XSD "dateTime");
  }
}

const char *lw_meta_field(const json_t *record, const char *field)
{
  return json_string_value(json_object_get(record, field));
}

void lw_meta_node(const LwMetaOut *o, char out[LW_META_IRI_MAX], const char *kind,
                  const char *id)
{
  snprintf(out, LW_META_IRI_MAX, "%s/%s/%s", o->base, kind, id);
}
