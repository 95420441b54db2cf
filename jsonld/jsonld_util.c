/*
 * Small helpers shared by the JSON-LD algorithms: keyword tests, IRI shape
 * tests, multi-valued entries of JSON objects, error reporting.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonld/jsonld_private.h"
#include "base/base.h"

static const char *const keywords[] = {
  "@base",     "@container", "@context",   "@default",   "@direction",  "@embed",
  "@explicit", "@graph",     "@id",        "@import",    "@included",   "@index",
  "@json",     "@language",  "@list",      "@nest",      "@none",       "@omitDefault",
  "@prefix",   "@preserve",  "@propagate", "@protected", "@requireAll", "@reverse",
  "@set",      "@type",      "@value",     "@version",   "@vocab",      NULL};

LwStatus lw_jld_fail(LwJld *p, const char *code, const char *fmt, ...)
{
  char detail[LW_ERROR_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof(detail), fmt, ap);
  va_end(ap);
  if (p->err && p->err->status == LW_OK) {
    lw_error_set(p->err, LW_ERR_SYNTAX, "%s: %s", code, detail);
  }
  return LW_ERR_SYNTAX;
}

LwStatus lw_jld_nomem(LwJld *p)
{
  if (p->err && p->err->status == LW_OK) {
    lw_error_set(p->err, LW_ERR_NOMEM, "out of memory");
  }
  return LW_ERR_NOMEM;
}

bool lw_jld_is_keyword(const char *s)
{
  if (!s || s[0] != '@' || !s[1]) {
    return false;
  }
  /* keywords are compared often: only those with the same second letter */
  for (const char *const *k = keywords; *k; k++) {
    if ((*k)[1] == s[1] && !strcmp(*k, s)) {
      return true;
    }
  }
  return false;
}

bool lw_jld_has_keyword_form(const char *s)
{
  if (!s || s[0] != '@' || !s[1]) {
    return false;
  }
  for (const char *c = s + 1; *c; c++) {
    if (!isalpha((unsigned char)*c)) {
      return false;
    }
  }
  return true;
}

bool lw_jld_is_absolute_iri(const char *s)
{
  return s && lw_uri_is_absolute(s);
}

bool lw_jld_is_bnode(const char *s)
{
  return s && s[0] == '_' && s[1] == ':';
}

bool lw_jld_is_scalar(const json_t *v)
{
  return json_is_string(v) || json_is_number(v) || json_is_boolean(v);
}

int lw_jld_add_value(json_t *obj, const char *key, json_t *v)
{
  json_t *arr = json_object_get(obj, key);
  if (!arr) {
    arr = json_array();
    if (!arr || json_object_set_new(obj, key, arr)) {
      json_decref(v);
      return -1;
    }
  } else if (!json_is_array(arr)) {
    json_t *wrapped = json_array();
    if (!wrapped) {
      json_decref(v);
      return -1;
    }
    json_array_append(wrapped, arr);
    json_object_set_new(obj, key, wrapped);
    arr = wrapped;
  }
  if (json_is_array(v)) {
    int rc = json_array_extend(arr, v);
    json_decref(v);
    return rc;
  }
  return json_array_append_new(arr, v);
}

int lw_jld_add_unique(json_t *obj, const char *key, json_t *v)
{
  json_t *arr = json_object_get(obj, key);
  if (arr) {
    size_t i;
    json_t *item;
    json_array_foreach(arr, i, item) {
      if (json_equal(item, v)) {
        json_decref(v);
        return 0;
      }
    }
  }
  return lw_jld_add_value(obj, key, v);
}

json_t *lw_jld_as_array(json_t *v)
{
  if (json_is_array(v)) {
    return json_incref(v);
  }
  json_t *arr = json_array();
  if (arr && v) {
    json_array_append(arr, v);
  }
  return arr;
}

bool lw_jld_array_has_string(const json_t *array, const char *s)
{
  size_t i;
  json_t *item;
  json_array_foreach(array, i, item) {
    if (json_is_string(item) && !strcmp(json_string_value(item), s)) {
      return true;
    }
  }
  return false;
}

json_t *lw_jld_obj1(const char *key, json_t *value)
{
  json_t *o = json_object();
  if (!o || !value || json_object_set_new_nocheck(o, key, value)) {
    json_decref(o);
    json_decref(value);
    return NULL;
  }
  return o;
}

char *lw_jld_strdup(const char *s)
{
  return s ? strdup(s) : NULL;
}

char *lw_jld_concat(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  char *r = malloc(la + lb + 1);
  if (r) {
    memcpy(r, a, la);
    memcpy(r + la, b, lb + 1);
  }
  return r;
}

char *lw_jld_resolve(const char *base, const char *ref)
{
  if (!base || !lw_uri_is_absolute(base)) {
    return strdup(ref);
  }
  char *r = lw_uri_resolve(base, ref);
  return r ? r : strdup(ref);
}
