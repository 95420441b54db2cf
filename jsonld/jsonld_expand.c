/*
 * JSON-LD 1.1 Expansion Algorithm (5.1.2) and Value Expansion (5.3.2).
 * Step numbers in comments refer to the W3C Recommendation. Frame expansion
 * and ordering are not needed for toRdf and are left out, except where the
 * specification orders entries for a semantic reason (type-scoped contexts).
 */
#include <stdlib.h>
#include <string.h>

#include "jsonld/jsonld_private.h"

static json_t *container_of(LwJldCtx *ctx, const char *term)
{
  return json_object_get(lw_jld_term(ctx, term), "@container");
}

static bool has_container(LwJldCtx *ctx, const char *term, const char *kind)
{
  json_t *c = container_of(ctx, term);
  return c && lw_jld_array_has_string(c, kind);
}

/* True if key expands (vocab-relative) to keyword. IRI expansion yields a
 * keyword only for the keyword itself or a term aliasing it (steps 1 and 4),
 * so this needs no allocation. */
static bool expands_to(LwJld *p, LwJldCtx *ctx, const char *key, const char *keyword)
{
  (void)p;
  if (!strcmp(key, keyword)) {
    return true;
  }
  json_t *def = lw_jld_term(ctx, key);
  const char *iri = json_string_value(json_object_get(def, "@id"));
  return iri && !strcmp(iri, keyword);
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of obj, sorted; a new array the caller frees. */
static const char **sorted_keys(json_t *obj, size_t *n)
{
  *n = json_object_size(obj);
  const char **keys = malloc((*n + 1) * sizeof(*keys));
  if (!keys) {
    return NULL;
  }
  size_t i = 0;
  const char *k;
  json_t *v;
  json_object_foreach(obj, k, v) {
    keys[i++] = k;
  }
  qsort(keys, *n, sizeof(*keys), cmp_str);
  return keys;
}

/* ---- value expansion (5.3.2) ---------------------------------------------- */

static LwStatus expand_value(LwJld *p, LwJldCtx *ctx, const char *property, json_t *value,
                             json_t **out)
{
  json_t *def = lw_jld_term(ctx, property);
  const char *type = json_string_value(json_object_get(def, "@type"));
  LwStatus st = LW_OK;
  if (type && json_is_string(value) && (!strcmp(type, "@id") || !strcmp(type, "@vocab"))) {
    char *iri = lw_jld_expand_iri(p, ctx, json_string_value(value), true,
                                  !strcmp(type, "@vocab"), NULL, NULL, &st);
    *out = lw_jld_obj1("@id", iri ? json_string(iri) : json_null());
    free(iri);
    return st;
  }
  json_t *r = lw_jld_obj1("@value", json_incref(value));
  if (!r) {
    return lw_jld_nomem(p);
  }
  if (type && strcmp(type, "@id") && strcmp(type, "@vocab") && strcmp(type, "@none")) {
    json_object_set_new(r, "@type", json_string(type));
  } else if (json_is_string(value)) {
    json_t *lang = json_object_get(def, "@language");
    json_t *dir = json_object_get(def, "@direction");
    const char *l = lang ? json_string_value(lang) : ctx->language;
    const char *d = dir ? json_string_value(dir) : ctx->direction;
    if (l) {
      json_object_set_new(r, "@language", json_string(l));
    }
    if (d) {
      json_object_set_new(r, "@direction", json_string(d));
    }
  }
  *out = r;
  return LW_OK;
}

/* ---- expansion ------------------------------------------------------------- */

typedef struct {
  LwJld *p;
  LwJldCtx *ctx;      /* active context (after scoped contexts) */
  LwJldCtx *type_ctx; /* type-scoped context for @type values */
  const char *active_property;
  const char *base_url;
  const char *input_type; /* expanded type of the element, or NULL */
  json_t *result;
  json_t *nests; /* object used as a set of nest keys */
} Frame;

static LwStatus expand_entries(Frame *f, json_t *element);

static LwStatus scoped_ctx(LwJld *p, LwJldCtx *ctx, json_t *def, bool propagate,
                           bool override, LwJldCtx **out)
{
  return lw_jld_apply_scoped(p, ctx, def, propagate, override, out);
}

static LwStatus expand_keyword(Frame *f, const char *key, const char *prop, json_t *value)
{
  LwJld *p = f->p;
  json_t *result = f->result;
  json_t *expanded = NULL;
  LwStatus st = LW_OK;
  /* 13.4.1, 13.4.2 */
  if (f->active_property && !strcmp(f->active_property, "@reverse")) {
    return lw_jld_fail(p, "invalid reverse property map", "%s", key);
  }
  if (json_object_get(result, prop) && strcmp(prop, "@included") && strcmp(prop, "@type")) {
    return lw_jld_fail(p, "colliding keywords", "%s", prop);
  }
  if (!strcmp(prop, "@id")) {
    /* 13.4.3 */
    if (!json_is_string(value)) {
      return lw_jld_fail(p, "invalid @id value", "not a string");
    }
    char *iri = lw_jld_expand_iri(p, f->ctx, json_string_value(value), true, false, NULL,
                                  NULL, &st);
    expanded = iri ? json_string(iri) : json_null();
    free(iri);
  } else if (!strcmp(prop, "@type")) {
    /* 13.4.4 */
    json_t *arr = lw_jld_as_array(value);
    expanded = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(arr, i, t) {
      if (!json_is_string(t)) {
        st = lw_jld_fail(p, "invalid type value", "not a string");
        break;
      }
      char *iri = lw_jld_expand_iri(p, f->type_ctx, json_string_value(t), true, true, NULL,
                                    NULL, &st);
      if (st != LW_OK) {
        free(iri);
        break;
      }
      json_array_append_new(expanded, iri ? json_string(iri) : json_null());
      free(iri);
    }
    if (st == LW_OK && !json_is_array(value) && json_array_size(expanded) == 1) {
      json_t *single = json_incref(json_array_get(expanded, 0));
      json_decref(expanded);
      expanded = single;
    }
    json_decref(arr);
    json_t *existing = json_object_get(result, "@type");
    if (st == LW_OK && existing) {
      json_t *all = lw_jld_as_array(existing);
      if (json_is_array(expanded)) {
        json_array_extend(all, expanded);
      } else {
        json_array_append(all, expanded);
      }
      json_decref(expanded);
      expanded = all;
    }
  } else if (!strcmp(prop, "@graph")) {
    /* 13.4.5 */
    st = lw_jld_expand(p, f->ctx, "@graph", value, f->base_url, false, &expanded);
    if (st == LW_OK) {
      json_t *arr = lw_jld_as_array(expanded);
      json_decref(expanded);
      expanded = arr;
    }
  } else if (!strcmp(prop, "@included")) {
    /* 13.4.6 */
    /* "@included" rather than null as the active property, so that value
     * and list objects are reported rather than dropped as free-floating */
    st = lw_jld_expand(p, f->ctx, "@included", value, f->base_url, false, &expanded);
    if (st == LW_OK) {
      json_t *arr = lw_jld_as_array(expanded);
      json_decref(expanded);
      expanded = arr;
      size_t i;
      json_t *item;
      json_array_foreach(arr, i, item) {
        if (!json_is_object(item) || json_object_get(item, "@value") ||
            json_object_get(item, "@list") || json_object_get(item, "@set")) {
          st = lw_jld_fail(p, "invalid @included value", "not a node object");
          break;
        }
      }
      json_t *existing = json_object_get(result, "@included");
      if (st == LW_OK && existing) {
        json_t *all = json_copy(existing);
        json_array_extend(all, expanded);
        json_decref(expanded);
        expanded = all;
      }
    }
  } else if (!strcmp(prop, "@value")) {
    /* 13.4.7 */
    if (f->input_type && !strcmp(f->input_type, "@json")) {
      expanded = json_incref(value);
    } else if (!json_is_null(value) && !lw_jld_is_scalar(value)) {
      return lw_jld_fail(p, "invalid value object value", "not a scalar");
    } else {
      expanded = json_incref(value);
    }
    /* a null @value is kept so that the value object can be dropped */
    json_object_set_new(result, "@value", expanded);
    return LW_OK;
  } else if (!strcmp(prop, "@language")) {
    /* 13.4.8 */
    if (!json_is_string(value)) {
      return lw_jld_fail(p, "invalid language-tagged string", "not a string");
    }
    expanded = json_incref(value);
  } else if (!strcmp(prop, "@direction")) {
    /* 13.4.9 */
    if (!json_is_string(value) || (strcmp(json_string_value(value), "ltr") &&
                                   strcmp(json_string_value(value), "rtl"))) {
      return lw_jld_fail(p, "invalid base direction", "@direction");
    }
    expanded = json_incref(value);
  } else if (!strcmp(prop, "@index")) {
    /* 13.4.10 */
    if (!json_is_string(value)) {
      return lw_jld_fail(p, "invalid @index value", "not a string");
    }
    expanded = json_incref(value);
  } else if (!strcmp(prop, "@list")) {
    /* 13.4.11 */
    if (!f->active_property || !strcmp(f->active_property, "@graph")) {
      return LW_OK;
    }
    st = lw_jld_expand(p, f->ctx, f->active_property, value, f->base_url, false, &expanded);
    if (st == LW_OK) {
      json_t *arr = lw_jld_as_array(expanded);
      json_decref(expanded);
      expanded = arr;
    }
  } else if (!strcmp(prop, "@set")) {
    /* 13.4.12 */
    st = lw_jld_expand(p, f->ctx, f->active_property, value, f->base_url, false, &expanded);
  } else if (!strcmp(prop, "@reverse")) {
    /* 13.4.13 */
    if (!json_is_object(value)) {
      return lw_jld_fail(p, "invalid @reverse value", "not an object");
    }
    st = lw_jld_expand(p, f->ctx, "@reverse", value, f->base_url, false, &expanded);
    if (st != LW_OK) {
      json_decref(expanded);
      return st;
    }
    const char *rk;
    json_t *rv;
    json_t *inner = json_object_get(expanded, "@reverse");
    json_object_foreach(inner, rk, rv) {
      lw_jld_add_value(result, rk, json_incref(rv));
    }
    json_object_foreach(expanded, rk, rv) {
      if (!strcmp(rk, "@reverse")) {
        continue;
      }
      json_t *rmap = json_object_get(result, "@reverse");
      if (!rmap) {
        rmap = json_object();
        json_object_set_new(result, "@reverse", rmap);
      }
      size_t i;
      json_t *item;
      json_array_foreach(rv, i, item) {
        if (json_object_get(item, "@value") || json_object_get(item, "@list")) {
          LwStatus bad = lw_jld_fail(p, "invalid reverse property value", "%s", rk);
          json_decref(expanded); /* rk lives in expanded */
          return bad;
        }
        lw_jld_add_value(rmap, rk, json_incref(item));
      }
    }
    json_decref(expanded);
    return LW_OK;
  } else if (!strcmp(prop, "@nest")) {
    /* 13.4.14 */
    json_object_set_new(f->nests, key, json_true());
    return LW_OK;
  } else {
    return LW_OK; /* other keywords (framing) are ignored */
  }
  if (st != LW_OK) {
    json_decref(expanded);
    return st;
  }
  /* 13.4.16 */
  if (expanded && !json_is_null(expanded)) {
    json_object_set_new(result, prop, expanded);
  } else if (expanded && !strcmp(prop, "@id")) {
    json_object_set_new(result, prop, expanded);
  } else {
    json_decref(expanded);
  }
  return LW_OK;
}

/* 13.7: a language map */
static LwStatus expand_language_map(Frame *f, const char *key, json_t *value, json_t **out)
{
  LwJld *p = f->p;
  json_t *def = lw_jld_term(f->ctx, key);
  const char *dir = f->ctx->direction;
  json_t *tdir = json_object_get(def, "@direction");
  if (tdir) {
    dir = json_string_value(tdir);
  }
  json_t *r = json_array();
  const char *lang;
  json_t *lv;
  json_object_foreach(value, lang, lv) {
    json_t *arr = lw_jld_as_array(lv);
    size_t i;
    json_t *item;
    bool none = !strcmp(lang, "@none") || expands_to(p, f->ctx, lang, "@none");
    json_array_foreach(arr, i, item) {
      if (json_is_null(item)) {
        continue;
      }
      if (!json_is_string(item)) {
        json_decref(arr);
        json_decref(r);
        return lw_jld_fail(p, "invalid language map value", "%s", lang);
      }
      json_t *v = lw_jld_obj1("@value", json_incref(item));
      if (!none) {
        json_object_set_new(v, "@language", json_string(lang));
      }
      if (dir) {
        json_object_set_new(v, "@direction", json_string(dir));
      }
      json_array_append_new(r, v);
    }
    json_decref(arr);
  }
  *out = r;
  return LW_OK;
}

static bool is_graph_object(json_t *v)
{
  if (!json_is_object(v) || !json_object_get(v, "@graph")) {
    return false;
  }
  const char *k;
  json_t *x;
  json_object_foreach(v, k, x) {
    if (strcmp(k, "@graph") && strcmp(k, "@id") && strcmp(k, "@index") &&
        strcmp(k, "@context")) {
      return false;
    }
  }
  return true;
}

/* 13.8: an index, id or type map */
static LwStatus expand_index_map(Frame *f, const char *key, json_t *value, json_t **out)
{
  LwJld *p = f->p;
  json_t *def = lw_jld_term(f->ctx, key);
  json_t *container = json_object_get(def, "@container");
  bool c_type = lw_jld_array_has_string(container, "@type");
  bool c_id = lw_jld_array_has_string(container, "@id");
  bool c_index = lw_jld_array_has_string(container, "@index");
  bool c_graph = lw_jld_array_has_string(container, "@graph");
  const char *index_key = json_string_value(json_object_get(def, "@index"));
  if (!index_key) {
    index_key = "@index";
  }
  LwStatus st = LW_OK;
  json_t *r = json_array();
  const char *index;
  json_t *iv;
  json_object_foreach(value, index, iv) {
    /* 13.8.3.1 - 13.8.3.3 */
    LwJldCtx *map_ctx = lw_jld_ctx_ref(
      (c_id || c_type) && f->ctx->previous ? f->ctx->previous : f->ctx);
    json_t *idef = lw_jld_term(map_ctx, index);
    if (c_type && idef && json_object_get(idef, "@context")) {
      LwJldCtx *next = NULL;
      st = scoped_ctx(p, map_ctx, idef, true, false, &next);
      lw_jld_ctx_unref(map_ctx);
      map_ctx = next;
      if (st != LW_OK) {
        break;
      }
    }
    /* 13.8.3.4 */
    char *expanded_index = lw_jld_expand_iri(p, f->ctx, index, false, true, NULL, NULL,
                                             &st);
    bool none = expanded_index && !strcmp(expanded_index, "@none");
    json_t *items = NULL;
    json_t *arr = lw_jld_as_array(iv);
    if (st == LW_OK) {
      st = lw_jld_expand(p, map_ctx, key, arr, f->base_url, true, &items);
    }
    json_decref(arr);
    lw_jld_ctx_unref(map_ctx);
    if (st != LW_OK) {
      free(expanded_index);
      json_decref(items);
      break;
    }
    json_t *list = lw_jld_as_array(items);
    json_decref(items);
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item) {
      json_t *it = json_incref(item);
      /* 13.8.3.7.1 */
      if (c_graph && !is_graph_object(it)) {
        json_t *g = json_pack("{s:[O]}", "@graph", it);
        json_decref(it);
        it = g;
      }
      if (c_index && strcmp(index_key, "@index") && !none) {
        /* 13.8.3.7.2: a property-valued index */
        json_t *re = NULL;
        json_t *idx = json_string(index);
        st = expand_value(p, f->ctx, index_key, idx, &re);
        json_decref(idx);
        char *eik = lw_jld_expand_iri(p, f->ctx, index_key, false, true, NULL, NULL, &st);
        if (json_object_get(it, "@value")) {
          free(eik);
          json_decref(re);
          json_decref(it);
          st = lw_jld_fail(p, "invalid value object", "property-valued index on a value");
          break;
        }
        json_t *vals = json_array();
        json_array_append_new(vals, re);
        json_t *existing = json_object_get(it, eik);
        if (existing) {
          json_t *ex = lw_jld_as_array(existing);
          json_array_extend(vals, ex);
          json_decref(ex);
        }
        json_object_set_new(it, eik, vals);
        free(eik);
      } else if (c_index && !json_object_get(it, "@index") && !none) {
        json_object_set_new(it, "@index", json_string(index));
      } else if (c_id && !json_object_get(it, "@id") && !none) {
        char *iri = lw_jld_expand_iri(p, f->ctx, index, true, false, NULL, NULL, &st);
        json_object_set_new(it, "@id", iri ? json_string(iri) : json_null());
        free(iri);
      } else if (c_type && !none) {
        json_t *types = json_array();
        json_array_append_new(types, json_string(expanded_index));
        json_t *existing = json_object_get(it, "@type");
        if (existing) {
          json_t *ex = lw_jld_as_array(existing);
          json_array_extend(types, ex);
          json_decref(ex);
        }
        json_object_set_new(it, "@type", types);
      }
      json_array_append_new(r, it);
    }
    json_decref(list);
    free(expanded_index);
    if (st != LW_OK) {
      break;
    }
  }
  if (st != LW_OK) {
    json_decref(r);
    return st;
  }
  *out = r;
  return LW_OK;
}

static bool is_list_object(json_t *v)
{
  return json_is_object(v) && json_object_get(v, "@list");
}

/* 13.5 - 13.14 for a key that is not a keyword */
static LwStatus expand_property(Frame *f, const char *key, const char *prop, json_t *value)
{
  LwJld *p = f->p;
  json_t *def = lw_jld_term(f->ctx, key);
  json_t *container = json_object_get(def, "@container");
  const char *tm = json_string_value(json_object_get(def, "@type"));
  json_t *expanded = NULL;
  LwStatus st = LW_OK;
  if (tm && !strcmp(tm, "@json")) {
    expanded = json_pack("{s:O,s:s}", "@value", value, "@type", "@json");
  } else if (lw_jld_array_has_string(container, "@language") && json_is_object(value)) {
    st = expand_language_map(f, key, value, &expanded);
  } else if ((lw_jld_array_has_string(container, "@index") ||
              lw_jld_array_has_string(container, "@type") ||
              lw_jld_array_has_string(container, "@id")) &&
             json_is_object(value)) {
    st = expand_index_map(f, key, value, &expanded);
  } else {
    st = lw_jld_expand(p, f->ctx, key, value, f->base_url, false, &expanded);
  }
  if (st != LW_OK) {
    json_decref(expanded);
    return st;
  }
  /* 13.10 */
  if (!expanded || json_is_null(expanded)) {
    json_decref(expanded);
    return LW_OK;
  }
  /* 13.11 */
  if (lw_jld_array_has_string(container, "@list") && !is_list_object(expanded)) {
    json_t *l = json_pack("{s:o}", "@list", lw_jld_as_array(expanded));
    json_decref(expanded);
    expanded = l;
  }
  /* 13.12 */
  if (lw_jld_array_has_string(container, "@graph") &&
      !lw_jld_array_has_string(container, "@id") &&
      !lw_jld_array_has_string(container, "@index")) {
    json_t *arr = lw_jld_as_array(expanded);
    json_t *wrapped = json_array();
    size_t i;
    json_t *ev;
    json_array_foreach(arr, i, ev) {
      json_array_append_new(wrapped, json_pack("{s:o}", "@graph", lw_jld_as_array(ev)));
    }
    json_decref(arr);
    json_decref(expanded);
    expanded = wrapped;
  }
  /* 13.13 */
  if (json_is_true(json_object_get(def, "@reverse"))) {
    json_t *rmap = json_object_get(f->result, "@reverse");
    if (!rmap) {
      rmap = json_object();
      json_object_set_new(f->result, "@reverse", rmap);
    }
    json_t *arr = lw_jld_as_array(expanded);
    json_decref(expanded);
    size_t i;
    json_t *item;
    json_array_foreach(arr, i, item) {
      if (json_object_get(item, "@value") || json_object_get(item, "@list")) {
        json_decref(arr);
        return lw_jld_fail(p, "invalid reverse property value", "%s", key);
      }
      lw_jld_add_value(rmap, prop, json_incref(item));
    }
    json_decref(arr);
    return LW_OK;
  }
  /* 13.14 */
  if (!json_is_array(expanded)) {
    json_t *arr = json_array();
    json_array_append_new(arr, expanded);
    expanded = arr;
  }
  if (lw_jld_add_value(f->result, prop, expanded)) {
    return lw_jld_nomem(p);
  }
  return LW_OK;
}

/* 13 and 14: the entries of element (or of a nested object) */
static LwStatus expand_entries(Frame *f, json_t *element)
{
  LwJld *p = f->p;
  const char *key;
  json_t *value;
  LwStatus st = LW_OK;
  json_object_foreach(element, key, value) {
    if (!strcmp(key, "@context")) {
      continue;
    }
    char *prop = lw_jld_expand_iri(p, f->ctx, key, false, true, NULL, NULL, &st);
    if (st != LW_OK) {
      free(prop);
      return st;
    }
    if (!prop || (!strchr(prop, ':') && !lw_jld_is_keyword(prop))) {
      free(prop);
      continue;
    }
    if (lw_jld_is_keyword(prop)) {
      st = expand_keyword(f, key, prop, value);
    } else {
      st = expand_property(f, key, prop, value);
    }
    free(prop);
    if (st != LW_OK) {
      return st;
    }
  }
  return LW_OK;
}

static LwStatus expand_nests(Frame *f, json_t *element)
{
  LwJld *p = f->p;
  size_t n;
  json_t *nests = f->nests;
  const char **keys = sorted_keys(nests, &n);
  if (!keys) {
    return lw_jld_nomem(p);
  }
  LwStatus st = LW_OK;
  for (size_t k = 0; k < n && st == LW_OK; k++) {
    /* steps 3 and 8 again for the nesting key: its property-scoped context
     * applies to the nested values */
    LwJldCtx *ctx = lw_jld_ctx_ref(f->ctx);
    json_t *ndef = lw_jld_term(f->ctx, keys[k]);
    if (ndef && json_object_get(ndef, "@context")) {
      LwJldCtx *next = NULL;
      st = scoped_ctx(p, ctx, ndef, true, true, &next);
      lw_jld_ctx_unref(ctx);
      ctx = next;
      if (st != LW_OK) {
        break;
      }
    }
    json_t *arr = lw_jld_as_array(json_object_get(element, keys[k]));
    size_t i;
    json_t *nested;
    json_array_foreach(arr, i, nested) {
      if (!json_is_object(nested)) {
        st = lw_jld_fail(p, "invalid @nest value", "%s", keys[k]);
        break;
      }
      const char *nk;
      json_t *nv;
      json_object_foreach(nested, nk, nv) {
        if (expands_to(p, ctx, nk, "@value")) {
          st = lw_jld_fail(p, "invalid @nest value", "%s holds @value", keys[k]);
          break;
        }
      }
      if (st != LW_OK) {
        break;
      }
      json_t *inner_nests = json_object();
      Frame g = *f;
      g.ctx = ctx;
      g.nests = inner_nests;
      st = expand_entries(&g, nested);
      if (st == LW_OK && json_object_size(inner_nests)) {
        st = expand_nests(&g, nested);
      }
      json_decref(inner_nests);
      if (st != LW_OK) {
        break;
      }
    }
    json_decref(arr);
    lw_jld_ctx_unref(ctx);
  }
  free(keys);
  return st;
}

/* 15 - 19: checks on the result of a map */
static LwStatus finish_map(Frame *f, json_t **resultp)
{
  LwJld *p = f->p;
  json_t *result = *resultp;
  json_t *val = json_object_get(result, "@value");
  if (val) {
    /* 15 */
    const char *k;
    json_t *x;
    json_object_foreach(result, k, x) {
      if (strcmp(k, "@direction") && strcmp(k, "@index") && strcmp(k, "@language") &&
          strcmp(k, "@type") && strcmp(k, "@value")) {
        return lw_jld_fail(p, "invalid value object", "unexpected %s", k);
      }
    }
    json_t *type = json_object_get(result, "@type");
    if (type &&
        (json_object_get(result, "@language") || json_object_get(result, "@direction"))) {
      return lw_jld_fail(p, "invalid value object", "@type with @language");
    }
    if (json_is_string(type) && !strcmp(json_string_value(type), "@json")) {
      return LW_OK;
    }
    if (json_is_null(val)) {
      json_decref(result);
      *resultp = NULL;
      return LW_OK;
    }
    if (!json_is_string(val) && json_object_get(result, "@language")) {
      return lw_jld_fail(p, "invalid language-tagged value", "not a string");
    }
    if (type && !(json_is_string(type) && lw_jld_is_absolute_iri(json_string_value(type)) &&
                  !strpbrk(json_string_value(type), " \t\r\n"))) {
      return lw_jld_fail(p, "invalid typed value", "@type is not an IRI");
    }
  } else if (json_object_get(result, "@type") &&
             !json_is_array(json_object_get(result, "@type"))) {
    /* 16 */
    json_object_set_new(result, "@type", lw_jld_as_array(json_object_get(result, "@type")));
  } else if (json_object_get(result, "@set") || json_object_get(result, "@list")) {
    /* 17 */
    size_t n = json_object_size(result);
    if (n > 2 || (n == 2 && !json_object_get(result, "@index"))) {
      return lw_jld_fail(p, "invalid set or list object", "extra entries");
    }
    json_t *set = json_object_get(result, "@set");
    if (set) {
      json_t *inner = json_incref(set);
      json_decref(result);
      *resultp = result = inner;
      if (!json_is_object(result)) {
        return LW_OK;
      }
    }
  }
  /* 18 */
  if (json_is_object(result) && json_object_size(result) == 1 &&
      json_object_get(result, "@language")) {
    json_decref(result);
    *resultp = NULL;
    return LW_OK;
  }
  /* 19 */
  if (json_is_object(result) &&
      (!f->active_property || !strcmp(f->active_property, "@graph"))) {
    if (json_object_size(result) == 0 || json_object_get(result, "@value") ||
        json_object_get(result, "@list") ||
        (json_object_size(result) == 1 && json_object_get(result, "@id"))) {
      json_decref(result);
      *resultp = NULL;
    }
  }
  return LW_OK;
}

/* 7 - 11: the contexts that apply to a map */
static LwStatus map_contexts(LwJld *p, LwJldCtx **ctxp, LwJldCtx **type_ctxp,
                             const char *active_property, json_t *element,
                             const char *base_url, bool from_map)
{
  LwJldCtx *ctx = *ctxp;
  LwStatus st = LW_OK;
  /* 3: the property-scoped context comes from the context before step 7 */
  json_t *pdef = json_incref(lw_jld_term(ctx, active_property));
  /* 7 */
  if (ctx->previous && !from_map) {
    bool revert = true;
    const char *k;
    json_t *v;
    json_object_foreach(element, k, v) {
      if (expands_to(p, ctx, k, "@value")) {
        revert = false;
      }
    }
    if (json_object_size(element) == 1) {
      json_object_foreach(element, k, v) {
        if (expands_to(p, ctx, k, "@id")) {
          revert = false;
        }
      }
    }
    if (revert) {
      LwJldCtx *prev = lw_jld_ctx_ref(ctx->previous);
      lw_jld_ctx_unref(ctx);
      ctx = prev;
    }
  }
  /* 8 */
  if (pdef && json_object_get(pdef, "@context")) {
    LwJldCtx *next = NULL;
    st = scoped_ctx(p, ctx, pdef, true, true, &next);
    json_decref(pdef);
    if (st != LW_OK) {
      *ctxp = ctx;
      return st;
    }
    lw_jld_ctx_unref(ctx);
    ctx = next;
  } else {
    json_decref(pdef);
  }
  /* 9 */
  json_t *local = json_object_get(element, "@context");
  if (local) {
    LwJldCtx *next = NULL;
    st = lw_jld_process_context(p, ctx, local, base_url, NULL, false, true, true, &next);
    if (st != LW_OK) {
      *ctxp = ctx;
      return st;
    }
    lw_jld_ctx_unref(ctx);
    ctx = next;
  }
  /* 10, 11 */
  *type_ctxp = lw_jld_ctx_ref(ctx);
  /* the keys expanding to @type, in order (usually none or one, so they are
   * collected before sorting rather than sorting every node's keys) */
  size_t n = 0;
  const char *few[4];
  const char **keys = few;
  const char *k0;
  json_t *v0;
  if (json_object_size(element) > 4) {
    keys = malloc(json_object_size(element) * sizeof(*keys));
    if (!keys) {
      *ctxp = ctx;
      return lw_jld_nomem(p);
    }
  }
  json_object_foreach(element, k0, v0) {
    if (expands_to(p, ctx, k0, "@type")) {
      keys[n++] = k0;
    }
  }
  qsort(keys, n, sizeof(*keys), cmp_str);
  for (size_t k = 0; k < n && st == LW_OK; k++) {
    json_t *types = json_object_get(element, keys[k]);
    json_t *arr = lw_jld_as_array(types);
    size_t tn = json_array_size(arr);
    const char **tv = malloc((tn + 1) * sizeof(*tv));
    size_t m = 0;
    for (size_t i = 0; tv && i < tn; i++) {
      if (json_is_string(json_array_get(arr, i))) {
        tv[m++] = json_string_value(json_array_get(arr, i));
      }
    }
    if (tv) {
      qsort(tv, m, sizeof(*tv), cmp_str);
    }
    size_t with_context = 0;
    for (size_t i = 0; tv && i < m; i++) {
      json_t *tdef = lw_jld_term(*type_ctxp, tv[i]);
      with_context += tdef && json_object_get(tdef, "@context");
    }
    st = lw_jld_check_type_scoped(p, with_context);
    for (size_t i = 0; tv && i < m && st == LW_OK; i++) {
      json_t *tdef = lw_jld_term(*type_ctxp, tv[i]);
      if (tdef && json_object_get(tdef, "@context")) {
        LwJldCtx *next = NULL;
        st = scoped_ctx(p, ctx, tdef, false, false, &next);
        if (st == LW_OK) {
          lw_jld_ctx_unref(ctx);
          ctx = next;
        }
      }
    }
    free(tv);
    json_decref(arr);
  }
  if (keys != few) {
    free(keys);
  }
  *ctxp = ctx;
  return st;
}

static LwStatus expand_map(LwJld *p, LwJldCtx *active, const char *active_property,
                           json_t *element, const char *base_url, bool from_map,
                           json_t **out)
{
  LwJldCtx *ctx = lw_jld_ctx_ref(active);
  LwJldCtx *type_ctx = NULL;
  LwStatus st = map_contexts(p, &ctx, &type_ctx, active_property, element, base_url,
                             from_map);
  Frame f = {p, ctx, type_ctx, active_property, base_url, NULL, NULL, NULL};
  char *input_type = NULL;
  if (st == LW_OK) {
    /* 12: the last value of the first key (in order) expanding to @type */
    const char *first = NULL, *k;
    json_t *v;
    json_object_foreach(element, k, v) {
      if ((!first || strcmp(k, first) < 0) && expands_to(p, ctx, k, "@type")) {
        first = k;
      }
    }
    if (first) {
      json_t *t = json_object_get(element, first);
      if (json_is_array(t)) {
        t = json_array_get(t, json_array_size(t) - 1);
      }
      if (json_is_string(t)) {
        input_type = lw_jld_expand_iri(p, ctx, json_string_value(t), false, true, NULL,
                                       NULL, &st);
      }
    }
    f.input_type = input_type;
    f.result = json_object();
    f.nests = json_object();
    if (st == LW_OK) {
      st = expand_entries(&f, element);
    }
    if (st == LW_OK && json_object_size(f.nests)) {
      st = expand_nests(&f, element);
    }
    if (st == LW_OK) {
      st = finish_map(&f, &f.result);
    }
  }
  free(input_type);
  json_decref(f.nests);
  lw_jld_ctx_unref(ctx);
  lw_jld_ctx_unref(type_ctx);
  if (st != LW_OK) {
    json_decref(f.result);
    return st;
  }
  *out = f.result;
  return LW_OK;
}

LwStatus lw_jld_expand(LwJld *p, LwJldCtx *active, const char *active_property,
                       json_t *element, const char *base_url, bool from_map, json_t **out)
{
  *out = NULL;
  /* 1 */
  if (!element || json_is_null(element)) {
    return LW_OK;
  }
  if (p->depth >= p->max_depth) {
    lw_error_set(p->err, LW_ERR_LIMIT, "JSON nested deeper than %u levels", p->max_depth);
    return LW_ERR_LIMIT;
  }
  p->depth++;
  LwStatus st = LW_OK;
  if (lw_jld_is_scalar(element)) {
    /* 4 */
    if (!active_property || !strcmp(active_property, "@graph")) {
      p->depth--;
      return LW_OK;
    }
    json_t *pdef = lw_jld_term(active, active_property);
    LwJldCtx *ctx = lw_jld_ctx_ref(active);
    if (pdef && json_object_get(pdef, "@context")) {
      LwJldCtx *next = NULL;
      st = scoped_ctx(p, ctx, pdef, true, true, &next);
      lw_jld_ctx_unref(ctx);
      ctx = next;
    }
    if (st == LW_OK) {
      st = expand_value(p, ctx, active_property, element, out);
    }
    lw_jld_ctx_unref(ctx);
  } else if (json_is_array(element)) {
    /* 5 */
    json_t *result = json_array();
    bool list = has_container(active, active_property, "@list");
    size_t i;
    json_t *item;
    json_array_foreach(element, i, item) {
      json_t *e = NULL;
      st = lw_jld_expand(p, active, active_property, item, base_url, from_map, &e);
      if (st != LW_OK) {
        break;
      }
      if (list && json_is_array(e)) {
        json_t *l = json_pack("{s:o}", "@list", e);
        e = l;
      }
      if (json_is_array(e)) {
        json_array_extend(result, e);
        json_decref(e);
      } else if (e && !json_is_null(e)) {
        json_array_append_new(result, e);
      } else {
        json_decref(e);
      }
    }
    if (st != LW_OK) {
      json_decref(result);
    } else {
      *out = result;
    }
  } else {
    st = expand_map(p, active, active_property, element, base_url, from_map, out);
  }
  p->depth--;
  return st;
}

LwStatus lw_jld_expand_top(LwJld *p, LwJldCtx *active, json_t *element,
                           const char *base_url, json_t **out)
{
  json_t *r = NULL;
  LwStatus st = lw_jld_expand(p, active, NULL, element, base_url, false, &r);
  if (st != LW_OK) {
    return st;
  }
  if (json_is_object(r) && json_object_size(r) == 1 && json_object_get(r, "@graph")) {
    json_t *g = json_incref(json_object_get(r, "@graph"));
    json_decref(r);
    r = g;
  }
  if (!r) {
    r = json_array();
  } else if (!json_is_array(r)) {
    json_t *arr = json_array();
    json_array_append_new(arr, r);
    r = arr;
  }
  *out = r;
  return LW_OK;
}
