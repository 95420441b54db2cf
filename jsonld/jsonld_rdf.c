/*
 * JSON-LD 1.1 Deserialize JSON-LD to RDF (8.1.2), Object to RDF (8.2) and
 * List Conversion (8.3): a node map becomes quads on the LwQuadSink.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonld/jsonld_private.h"

#define RDF "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define XSD "http://www.w3.org/2001/XMLSchema#"

/* An absolute IRI without characters the IRI grammar forbids. */
static bool well_formed_iri(const char *s)
{
  if (!lw_jld_is_absolute_iri(s)) {
    return false;
  }
  int hashes = 0;
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c <= 0x20 || *c == '<' || *c == '>' || *c == '"' || *c == '{' || *c == '}' ||
        *c == '|' || *c == '\\' || *c == '^' || *c == '`') {
      return false;
    }
    hashes += *c == '#';
  }
  return hashes <= 1; /* a fragment cannot hold another '#' */
}

static bool well_formed_node(const char *s)
{
  return s && (lw_jld_is_bnode(s) || well_formed_iri(s));
}

/* BCP 47, loosely: alphanumeric subtags of 1-8 characters, the first alpha. */
static bool well_formed_language(const char *s)
{
  size_t run = 0;
  bool first = true;
  for (const char *c = s;; c++) {
    if (*c == '-' || !*c) {
      if (run == 0 || run > 8) {
        return false;
      }
      if (!*c) {
        return true;
      }
      run = 0;
      first = false;
    } else if (isalpha((unsigned char)*c) || (!first && isdigit((unsigned char)*c))) {
      run++;
    } else {
      return false;
    }
  }
}

static void node_term(const char *id, LwTerm *t)
{
  memset(t, 0, sizeof(*t));
  if (lw_jld_is_bnode(id)) {
    t->type = LW_TERM_BLANK;
    t->value = id + 2;
  } else {
    t->type = LW_TERM_IRI;
    t->value = id;
  }
  t->len = strlen(t->value);
}

static LwStatus emit(LwJld *p, const LwTerm *s, const LwTerm *pr, const LwTerm *o,
                     const LwTerm *g)
{
  LwQuad q = {*s, *pr, *o, *g};
  if (p->opt->location) {
    *p->opt->location = (LwLocation){p->at_line, p->at_column};
  }
  LwStatus st = p->opt->on_quad ? p->opt->on_quad(p->opt->quad_handle, &q) : LW_OK;
  if (st > LW_NOTHING) {
    if (p->err && p->err->status == LW_OK) {
      lw_error_set(p->err, st, "quad sink stopped the conversion");
    }
    return st;
  }
  if (p->stats) {
    p->stats->statements++;
  }
  return LW_OK;
}

static LwStatus emit_iri(LwJld *p, const LwTerm *s, const char *pred, const LwTerm *o,
                         const LwTerm *g)
{
  LwTerm pt;
  node_term(pred, &pt);
  return emit(p, s, &pt, o, g);
}

/* An object's term: owned strings go to *owned (freed by the caller). */
typedef struct {
  LwTerm term;
  char *owned[3];
} Obj;

static void obj_free(Obj *o)
{
  for (int i = 0; i < 3; i++) {
    free(o->owned[i]);
  }
}

static char *format_double(double d)
{
  char buf[64];
  snprintf(buf, sizeof(buf), "%.15E", d);
  char *e = strchr(buf, 'E');
  if (!e) {
    return strdup(buf); /* inf / nan: not valid JSON input anyway */
  }
  int exp = atoi(e + 1);
  *e = 0;
  char *end = e - 1;
  while (end > buf && *end == '0' && end[-1] != '.') {
    *end-- = 0;
  }
  char out[80];
  snprintf(out, sizeof(out), "%sE%d", buf, exp);
  return strdup(out);
}

static LwStatus list_to_rdf(LwJld *p, json_t *list, const LwTerm *g, Obj *out,
                            bool *present);

/* The algorithm drops a value it cannot convert: the statement is
 * skipped, which the reader reports like any skipped statement. */
static void skipped(LwJld *p, const char *why, const char *what)
{
  if (p->stats) {
    p->stats->errors++;
  }
  if (p->opt->on_error) {
    char message[256];
    snprintf(message, sizeof(message), "%s \"%.64s\", statement skipped", why, what);
    p->opt->on_error(p->opt->error_handle, p->at_line, p->at_column, message);
  }
}

/* 8.2: *present false when the item yields no term */
static LwStatus object_to_rdf(LwJld *p, json_t *item, const LwTerm *g, Obj *o,
                              bool *present)
{
  memset(o, 0, sizeof(*o));
  *present = false;
  if (!json_is_object(item)) {
    return LW_OK;
  }
  json_t *id = json_object_get(item, "@id");
  if (id && !json_object_get(item, "@value")) {
    if (!json_is_string(id) || !well_formed_node(json_string_value(id))) {
      return LW_OK;
    }
    node_term(json_string_value(id), &o->term); /* item outlives the term */
    *present = true;
    return LW_OK;
  }
  json_t *list = json_object_get(item, "@list");
  if (list) {
    return list_to_rdf(p, list, g, o, present);
  }
  json_t *value = json_object_get(item, "@value");
  if (!value) {
    return LW_OK;
  }
  const char *datatype = json_string_value(json_object_get(item, "@type"));
  const char *lang = json_string_value(json_object_get(item, "@language"));
  const char *dir = json_string_value(json_object_get(item, "@direction"));
  if (datatype && strcmp(datatype, "@json") && !well_formed_iri(datatype)) {
    skipped(p, "datatype not an IRI", datatype);
    return LW_OK;
  }
  if (lang && !well_formed_language(lang)) {
    skipped(p, "malformed language tag", lang);
    return LW_OK;
  }
  char *lex = NULL;
  const char *borrowed = NULL;
  size_t lex_len = (size_t)-1;
  if (datatype && !strcmp(datatype, "@json")) {
    lex = lw_jld_canonical(value);
    datatype = RDF "JSON";
  } else if (json_is_boolean(value)) {
    lex = strdup(json_is_true(value) ? "true" : "false");
    datatype = datatype ? datatype : XSD "boolean";
  } else if (json_is_number(value)) {
    double d = json_number_value(value);
    if (json_is_integer(value) && !(datatype && !strcmp(datatype, XSD "double"))) {
      char buf[32];
      snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(value));
      lex = strdup(buf);
      datatype = datatype ? datatype : XSD "integer";
    } else if (d != floor(d) || fabs(d) >= 1e21 ||
               (datatype && !strcmp(datatype, XSD "double"))) {
      lex = format_double(d);
      datatype = datatype ? datatype : XSD "double";
    } else {
      char buf[40];
      snprintf(buf, sizeof(buf), "%.0f", d);
      lex = strdup(!strcmp(buf, "-0") ? "0" : buf);
      datatype = datatype ? datatype : XSD "integer";
    }
  } else if (json_is_string(value)) {
    /* NULL datatype: xsd:string or rdf:langString. The string may hold
     * NUL characters (\u0000): its length travels in LwTerm.len. */
    lex_len = json_string_length(value);
    borrowed = json_string_value(value); /* item outlives the term */
  } else {
    return LW_OK;
  }
  if (!lex && borrowed) {
    /* the rdfDirection forms below print the value: give them a copy */
    if (dir && p->opt->rdf_direction) {
      lex = strdup(borrowed);
      borrowed = NULL;
    }
  }
  if (!lex && !borrowed) {
    return lw_jld_nomem(p);
  }
  const char *rdfdir = p->opt->rdf_direction;
  if (dir && rdfdir && !strcmp(rdfdir, "i18n-datatype")) {
    size_t n = strlen(dir) + (lang ? strlen(lang) : 0) + 64;
    char *dt = malloc(n);
    if (!dt) {
      free(lex);
      return lw_jld_nomem(p);
    }
    snprintf(dt, n, "https://www.w3.org/ns/i18n#%s_%s", lang ? lang : "", dir);
    for (char *c = dt + 26; *c && *c != '_'; c++) {
      *c = (char)tolower((unsigned char)*c);
    }
    o->owned[0] = lex;
    o->owned[1] = dt;
    o->term = (LwTerm){LW_TERM_LITERAL, lex, strlen(lex), dt, NULL, false};
    *present = true;
    return LW_OK;
  }
  if (dir && rdfdir && !strcmp(rdfdir, "compound-literal")) {
    const char *fresh = lw_jld_issue_bnode(p, NULL);
    char *b = fresh ? strdup(fresh) : NULL;
    if (!b) {
      free(lex);
      return lw_jld_nomem(p);
    }
    LwTerm bt, vt = {LW_TERM_LITERAL, lex, strlen(lex), NULL, NULL, false};
    node_term(b, &bt);
    LwStatus st = emit_iri(p, &bt, RDF "value", &vt, g);
    if (st == LW_OK && lang) {
      char *l = strdup(lang);
      for (char *c = l; c && *c; c++) {
        *c = (char)tolower((unsigned char)*c);
      }
      LwTerm lt = {LW_TERM_LITERAL, l, strlen(l), NULL, NULL, false};
      st = emit_iri(p, &bt, RDF "language", &lt, g);
      free(l);
    }
    if (st == LW_OK) {
      LwTerm dt = {LW_TERM_LITERAL, dir, strlen(dir), NULL, NULL, false};
      st = emit_iri(p, &bt, RDF "direction", &dt, g);
    }
    free(lex);
    o->owned[0] = b;
    node_term(b, &o->term);
    *present = st == LW_OK;
    return st;
  }
  o->owned[0] = lex;
  const char *text = lex ? lex : borrowed;
  /* datatype and lang are static strings or live in item */
  o->term = (LwTerm){LW_TERM_LITERAL, text, lex_len != (size_t)-1 ? lex_len : strlen(text),
                     datatype && strcmp(datatype, XSD "string") ? datatype : NULL,
                     datatype ? NULL : lang, false};
  *present = true;
  return LW_OK;
}

/* 8.3 */
static LwStatus list_to_rdf(LwJld *p, json_t *list, const LwTerm *g, Obj *out,
                            bool *present)
{
  size_t n = json_array_size(list);
  *present = true;
  if (n == 0) {
    out->owned[0] = strdup(RDF "nil");
    node_term(out->owned[0], &out->term);
    return out->owned[0] ? LW_OK : lw_jld_nomem(p);
  }
  char **labels = calloc(n, sizeof(*labels));
  if (!labels) {
    return lw_jld_nomem(p);
  }
  for (size_t i = 0; i < n; i++) {
    const char *fresh = lw_jld_issue_bnode(p, NULL);
    labels[i] = fresh ? strdup(fresh) : NULL;
  }
  LwStatus st = LW_OK;
  for (size_t i = 0; i < n && st == LW_OK; i++) {
    LwTerm s;
    node_term(labels[i], &s);
    Obj o;
    bool has;
    p->depth++;
    st = p->depth > p->max_depth ? LW_ERR_LIMIT
                                 : object_to_rdf(p, json_array_get(list, i), g, &o, &has);
    p->depth--;
    if (st == LW_ERR_LIMIT && p->err->status == LW_OK) {
      lw_error_set(p->err, LW_ERR_LIMIT, "lists nested too deeply");
    }
    if (st == LW_OK && has) {
      st = emit_iri(p, &s, RDF "first", &o.term, g);
    }
    obj_free(&o);
    if (st == LW_OK) {
      LwTerm rest;
      node_term(i + 1 < n ? labels[i + 1] : RDF "nil", &rest);
      st = emit_iri(p, &s, RDF "rest", &rest, g);
    }
  }
  out->owned[0] = labels[0];
  node_term(labels[0], &out->term);
  for (size_t i = 1; i < n; i++) {
    free(labels[i]);
  }
  free(labels);
  return st;
}

static LwStatus emit_node(LwJld *p, const char *subject, json_t *node, const LwTerm *g)
{
  LwTerm s;
  node_term(subject, &s);
  const char *prop;
  json_t *values;
  json_object_foreach(node, prop, values) {
    LwStatus st = LW_OK;
    size_t i;
    json_t *item;
    if (!strcmp(prop, "@type")) {
      json_array_foreach(values, i, item) {
        const char *t = json_string_value(item);
        if (!well_formed_node(t)) {
          continue;
        }
        LwTerm o;
        node_term(t, &o);
        st = emit_iri(p, &s, RDF "type", &o, g);
        if (st != LW_OK) {
          return st;
        }
      }
      continue;
    }
    if (prop[0] == '@' || (lw_jld_is_bnode(prop) && !p->opt->produce_generalized_rdf) ||
        !well_formed_node(prop)) {
      continue;
    }
    json_array_foreach(values, i, item) {
      Obj o;
      bool has;
      st = object_to_rdf(p, item, g, &o, &has);
      if (st == LW_OK && has) {
        LwTerm pt;
        node_term(prop, &pt);
        st = emit(p, &s, &pt, &o.term, g);
      }
      obj_free(&o);
      if (st != LW_OK) {
        return st;
      }
    }
  }
  return LW_OK;
}

LwStatus lw_jld_emit_node_map(LwJld *p, json_t *node_map)
{
  const char *graph_name;
  json_t *graph;
  json_object_foreach(node_map, graph_name, graph) {
    LwTerm g = {0};
    if (strcmp(graph_name, "@default")) {
      if (!well_formed_node(graph_name)) {
        continue;
      }
      node_term(graph_name, &g);
    }
    const char *subject;
    json_t *node;
    json_object_foreach(graph, subject, node) {
      if (!well_formed_node(subject)) {
        continue;
      }
      LwStatus st = emit_node(p, subject, node, &g);
      if (st != LW_OK) {
        return st;
      }
    }
  }
  return LW_OK;
}
