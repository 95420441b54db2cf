/*
 * RDF/JSON (W3C Working Group Note, "RDF 1.1 JSON Alternate Serialization",
 * application/rdf+json), read with jansson:
 *
 *   { "S": { "P": [ { "type": "uri" | "bnode" | "literal",
 *                     "value": "...", "lang": "...", "datatype": "..." } ] } }
 *
 * S is an IRI or "_:label", P an IRI. The document is loaded whole (jansson
 * has no streaming parser). Lax like the other readers: a subject, a
 * predicate or an object that breaks the Note's rules is reported and its
 * statements skipped, the rest is read. Relative IRIs are resolved against
 * the base IRI, as in the other readers (rapper leaves them relative);
 * without one they are errors. As rapper, an empty "lang" or "datatype" is
 * absent, and a bnode value may leave out its "_:".
 * jansson gives no location for a value, so errors and statements have
 * line 0.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/base.h"
#include "rdf_readers/rdf_readers.h"

typedef struct {
  LwReadContext *rc;
  char *owned[3]; /* resolved IRIs: subject, predicate, object / datatype */
} RdfJson;

static void release(RdfJson *r)
{
  for (int i = 0; i < 3; ++i) {
    free(r->owned[i]);
    r->owned[i] = NULL;
  }
}

/* An IRI of the document made absolute into *out (owned by slot); false
 * with the problem reported when it cannot be. */
static bool iri_term(RdfJson *r, int slot, const char *iri, size_t len, const char *what,
                     LwTerm *out)
{
  if (len > r->rc->max_term_bytes) {
    lw_read_report(r->rc, 0, 0, "%s IRI longer than %zu bytes", what,
                   r->rc->max_term_bytes);
    return false;
  }
  const char *value = iri;
  if (!lw_uri_is_absolute(iri) && r->rc->options->base_iri) {
    free(r->owned[slot]);
    r->owned[slot] = lw_uri_resolve(r->rc->options->base_iri, iri);
    value = r->owned[slot] ? r->owned[slot] : iri;
  }
  if (strlen(value) != len && value == iri) {
    lw_read_report(r->rc, 0, 0, "%s IRI holds a NUL character", what);
    return false;
  }
  if (!lw_read_iri_ok(value, strlen(value))) {
    lw_read_report(r->rc, 0, 0, "bad %s IRI <%.200s>", what, iri);
    return false;
  }
  *out = (LwTerm){.type = LW_TERM_IRI, .value = value, .len = strlen(value)};
  return true;
}

/* A subject key "_:label", or a bnode value: "_:label", or the label
 * alone (as rapper reads it). */
static bool blank_term(RdfJson *r, const char *value, size_t len, LwTerm *out)
{
  size_t skip = !strncmp(value, "_:", 2) ? 2 : 0;
  if (len <= skip || strlen(value) != len) {
    lw_read_report(r->rc, 0, 0, "bad blank node \"%.200s\"", value);
    return false;
  }
  *out = (LwTerm){.type = LW_TERM_BLANK, .value = value + skip, .len = len - skip};
  return true;
}

static bool subject_term(RdfJson *r, const char *key, LwTerm *out)
{
  if (!strncmp(key, "_:", 2)) {
    return blank_term(r, key, strlen(key), out);
  }
  return iri_term(r, 0, key, strlen(key), "subject", out);
}

/* The string member name of o, NULL when absent; *bad when present but no
 * string. */
static const char *member(json_t *o, const char *name, size_t *len, bool *bad)
{
  json_t *v = json_object_get(o, name);
  if (v && !json_is_string(v)) {
    *bad = true;
  }
  *len = json_string_length(v);
  return json_string_value(v);
}

static bool literal_term(RdfJson *r, json_t *o, const char *value, size_t len, LwTerm *out)
{
  bool bad = false;
  size_t lang_len, dt_len;
  const char *lang = member(o, "lang", &lang_len, &bad);
  const char *datatype = member(o, "datatype", &dt_len, &bad);
  /* empty means absent (as rapper reads it) */
  lang = lang_len ? lang : NULL;
  datatype = dt_len ? datatype : NULL;
  if (bad || (lang && datatype)) {
    lw_read_report(r->rc, 0, 0, "literal \"%.80s\": %s", value,
                   bad ? "lang and datatype must be strings"
                       : "a language tag and a datatype both");
    return false;
  }
  if (len > r->rc->max_term_bytes) {
    lw_read_report(r->rc, 0, 0, "literal longer than %zu bytes", r->rc->max_term_bytes);
    return false;
  }
  LwTerm dt = {0};
  if (datatype && !iri_term(r, 2, datatype, dt_len, "datatype", &dt)) {
    return false;
  }
  *out = (LwTerm){.type = LW_TERM_LITERAL,
                  .value = value,
                  .len = len,
                  .datatype = datatype ? dt.value : NULL,
                  .lang = lang};
  return true;
}

/* One object description {type, value, lang?, datatype?}. */
static bool object_term(RdfJson *r, json_t *o, LwTerm *out)
{
  bool bad = !json_is_object(o);
  size_t type_len = 0, len = 0;
  const char *type = bad ? NULL : member(o, "type", &type_len, &bad);
  const char *value = bad ? NULL : member(o, "value", &len, &bad);
  if (bad || !type || !value) {
    lw_read_report(r->rc, 0, 0,
                   "an object is not {\"type\": ..., \"value\": ...} with string members");
    return false;
  }
  if (!strcmp(type, "uri")) {
    return iri_term(r, 2, value, len, "object", out);
  }
  if (!strcmp(type, "bnode")) {
    return blank_term(r, value, len, out);
  }
  if (!strcmp(type, "literal")) {
    return literal_term(r, o, value, len, out);
  }
  lw_read_report(r->rc, 0, 0, "unknown object type \"%.80s\"", type);
  return false;
}

/* The statements of one predicate of subject s. */
static LwStatus read_objects(RdfJson *r, const LwTerm *s, const char *p_key,
                             json_t *objects)
{
  LwQuad q = {.subject = *s};
  if (!iri_term(r, 1, p_key, strlen(p_key), "predicate", &q.predicate)) {
    return LW_OK;
  }
  if (!json_is_array(objects)) {
    lw_read_report(r->rc, 0, 0, "the objects of <%.200s> are not an array", p_key);
    return LW_OK;
  }
  size_t i;
  json_t *o;
  json_array_foreach(objects, i, o) {
    if (object_term(r, o, &q.object)) {
      LwStatus st = lw_read_emit(r->rc, &q, 0, 0);
      if (st > LW_NOTHING) {
        return st;
      }
    }
  }
  return LW_OK;
}

static LwStatus read_subject(RdfJson *r, const char *key, json_t *predicates)
{
  LwTerm s;
  if (!subject_term(r, key, &s)) {
    return LW_OK;
  }
  if (!json_is_object(predicates)) {
    lw_read_report(r->rc, 0, 0, "the predicates of \"%.200s\" are not an object", key);
    return LW_OK;
  }
  const char *p_key;
  json_t *objects;
  json_object_foreach(predicates, p_key, objects) {
    LwStatus st = read_objects(r, &s, p_key, objects);
    if (st != LW_OK) {
      return st;
    }
  }
  return LW_OK;
}

/* Feeds jansson from the file, at most LW_RDFJSON_MAX_BYTES: its tree
 * takes several times the text's size. */
typedef struct {
  FILE *in;
  size_t read;
  bool too_large;
  bool io_error;
} Feed;

static size_t feed(void *buffer, size_t size, void *data)
{
  Feed *f = data;
  if (f->read >= LW_RDFJSON_MAX_BYTES) {
    f->too_large = fgetc(f->in) != EOF;
    return f->too_large ? (size_t)-1 : 0;
  }
  size_t room = LW_RDFJSON_MAX_BYTES - f->read;
  size_t got = fread(buffer, 1, size < room ? size : room, f->in);
  f->read += got;
  if (got == 0 && ferror(f->in)) {
    f->io_error = true;
    return (size_t)-1;
  }
  return got;
}

LwStatus lw_rdf_read_rdfjson(FILE *in, LwReadContext *rc)
{
  json_error_t jerr;
  Feed f = {.in = in};
  json_t *doc = json_load_callback(feed, &f, JSON_ALLOW_NUL, &jerr);
  if (!doc && (f.too_large || f.io_error)) {
    return f.io_error ? lw_error_set(rc->err, LW_ERR_IO, "read error")
                      : lw_error_set(rc->err, LW_ERR_LIMIT,
                                     "RDF/JSON larger than %zu MiB (it is loaded whole)",
                                     LW_RDFJSON_MAX_BYTES >> 20);
  }
  if (!doc) {
    lw_read_report(rc, jerr.line > 0 ? (unsigned)jerr.line : 0,
                   jerr.column > 0 ? (unsigned)jerr.column : 0, "%s", jerr.text);
    return lw_error_set(rc->err, LW_ERR_SYNTAX, "line %d, column %d: %s", jerr.line,
                        jerr.column, jerr.text);
  }
  LwStatus st = LW_OK;
  if (!json_is_object(doc)) {
    lw_read_report(rc, 1, 1, "RDF/JSON is a JSON object, not an array");
    st = lw_error_set(rc->err, LW_ERR_SYNTAX, "RDF/JSON is a JSON object, not an array");
  }
  RdfJson r = {.rc = rc};
  const char *key;
  json_t *predicates;
  json_object_foreach(json_is_object(doc) ? doc : NULL, key, predicates) {
    st = read_subject(&r, key, predicates);
    if (st != LW_OK) {
      break;
    }
  }
  release(&r);
  json_decref(doc);
  return st;
}
