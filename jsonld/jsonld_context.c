/*
 * JSON-LD 1.1 context processing: active contexts, remote contexts, the
 * Context Processing Algorithm (4.1) and IRI Expansion (5.2); term
 * definitions (4.2) are in jsonld_term.c.
 * Step numbers in comments refer to the W3C Recommendation.
 */
#include <stdlib.h>
#include <string.h>

#include "jsonld/jsonld_private.h"

/* ---- active contexts ------------------------------------------------------ */

LwJldCtx *lw_jld_ctx_new(const char *base)
{
  LwJldCtx *c = calloc(1, sizeof(*c));
  if (!c) {
    return NULL;
  }
  c->refs = 1;
  c->terms = json_object();
  c->base = lw_jld_strdup(base);
  c->original_base = lw_jld_strdup(base);
  if (!c->terms || (base && (!c->base || !c->original_base))) {
    lw_jld_ctx_unref(c);
    return NULL;
  }
  return c;
}

LwJldCtx *lw_jld_ctx_ref(LwJldCtx *ctx)
{
  if (ctx) {
    ctx->refs++;
  }
  return ctx;
}

void lw_jld_ctx_unref(LwJldCtx *ctx)
{
  while (ctx && --ctx->refs == 0) {
    LwJldCtx *prev = ctx->previous;
    free(ctx->base);
    free(ctx->original_base);
    free(ctx->vocab);
    free(ctx->language);
    free(ctx->direction);
    json_decref(ctx->terms);
    json_decref(ctx->base_terms);
    free(ctx);
    ctx = prev; /* iterative: chains of previous contexts can be long */
  }
}

/* Terms a context defines on its own before a copy of it first merges them
 * into a new shared table: a copy costs at most this many, and a table of
 * N terms is merged once every OWN_TERMS_MAX definitions. */
#define OWN_TERMS_MAX 32

/* Merges ctx's own terms into a new shared base table: the same terms, in
 * a form whose copies are cheap. */
static bool ctx_flatten(LwJldCtx *ctx)
{
  /* A table no other context shares (its copies are gone: a scoped
   * context's validation copies and drops them) is merged into in place;
   * so a context of N terms costs O(N) to define, not O(N^2 / 32). */
  bool alone = ctx->base_terms && ctx->base_terms->refcount == 1;
  json_t *merged = alone             ? json_incref(ctx->base_terms)
                   : ctx->base_terms ? json_copy(ctx->base_terms)
                                     : json_object();
  json_t *own = json_object();
  if (!merged || !own) {
    json_decref(merged);
    json_decref(own);
    return false;
  }
  const char *key;
  json_t *def;
  json_object_foreach(ctx->terms, key, def) {
    if (json_is_null(def)) {
      json_object_del(merged, key);
    } else {
      json_object_set(merged, key, def);
    }
  }
  json_decref(ctx->base_terms);
  json_decref(ctx->terms);
  ctx->base_terms = merged;
  ctx->terms = own;
  return true;
}

/* A copy of src (whose representation, not its meaning, may change). */
static LwJldCtx *ctx_copy(LwJldCtx *src)
{
  if (json_object_size(src->terms) > OWN_TERMS_MAX && !ctx_flatten(src)) {
    return NULL;
  }
  LwJldCtx *c = calloc(1, sizeof(*c));
  if (!c) {
    return NULL;
  }
  c->refs = 1;
  c->base = lw_jld_strdup(src->base);
  c->original_base = lw_jld_strdup(src->original_base);
  c->vocab = lw_jld_strdup(src->vocab);
  c->language = lw_jld_strdup(src->language);
  c->direction = lw_jld_strdup(src->direction);
  c->terms = json_copy(src->terms); /* shallow: definitions are immutable */
  c->base_terms = json_incref(src->base_terms);
  c->previous = lw_jld_ctx_ref(src->previous);
  c->scoped = src->scoped;
  if (!c->terms) {
    lw_jld_ctx_unref(c);
    return NULL;
  }
  return c;
}

json_t *lw_jld_term(const LwJldCtx *ctx, const char *term)
{
  if (!term) {
    return NULL;
  }
  json_t *def = json_object_get(ctx->terms, term);
  if (!def && ctx->base_terms) {
    def = json_object_get(ctx->base_terms, term);
  }
  return json_is_object(def) ? def : NULL;
}

void lw_jld_term_remove(LwJldCtx *ctx, const char *term)
{
  if (ctx->base_terms && json_object_get(ctx->base_terms, term)) {
    json_object_set_new(ctx->terms, term, json_null()); /* hides the shared one */
  } else {
    json_object_del(ctx->terms, term);
  }
}

static bool has_protected_terms(const LwJldCtx *ctx)
{
  const char *key;
  json_t *def;
  json_object_foreach(ctx->terms, key, def) {
    if (json_is_true(json_object_get(def, "@protected"))) {
      return true;
    }
  }
  json_object_foreach(ctx->base_terms, key, def) {
    if (!json_object_get(ctx->terms, key) &&
        json_is_true(json_object_get(def, "@protected"))) {
      return true;
    }
  }
  return false;
}

static void set_str(char **field, const char *value)
{
  free(*field);
  *field = lw_jld_strdup(value);
}

/* ---- remote contexts ------------------------------------------------------ */

/* Loads the context document at url (cached per document run): *context is a
 * borrowed reference to its @context value, *doc_url its final URL. */
static LwStatus load_remote(LwJld *p, const char *url, json_t **context,
                            const char **doc_url)
{
  json_t *entry = json_object_get(p->remote_cache, url);
  if (!entry) {
    if (p->remote_fetched >= p->max_remote) {
      lw_error_set(p->err, LW_ERR_LIMIT, "context overflow: more than %u remote contexts",
                   p->max_remote);
      return LW_ERR_LIMIT;
    }
    p->remote_fetched++;
    if (!p->opt->load) {
      return lw_jld_fail(p, "loading remote context failed", "%s: no document loader", url);
    }
    char *body = NULL, *final_url = NULL;
    size_t len = 0;
    LwError lerr;
    lw_error_clear(&lerr);
    LwStatus st = p->opt->load(p->opt->load_handle, url, &body, &len, &final_url, &lerr);
    if (st != LW_OK) {
      free(body);
      free(final_url);
      return lw_jld_fail(p, "loading remote context failed", "%s: %s", url, lerr.message);
    }
    json_error_t jerr;
    json_t *doc = json_loadb(body, len, JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &jerr);
    free(body);
    if (!doc) {
      free(final_url);
      return lw_jld_fail(p, "loading remote context failed", "%s: line %d, column %d: %s",
                         url, jerr.line, jerr.column, jerr.text);
    }
    entry = json_pack("{s:o,s:s}", "doc", doc, "url", final_url ? final_url : url);
    free(final_url);
    if (!entry || json_object_set_new(p->remote_cache, url, entry)) {
      return lw_jld_nomem(p);
    }
  }
  json_t *doc = json_object_get(entry, "doc");
  json_t *ctx = json_is_object(doc) ? json_object_get(doc, "@context") : NULL;
  if (!ctx) {
    return lw_jld_fail(p, "invalid remote context", "%s has no top-level @context", url);
  }
  *context = ctx;
  *doc_url = json_string_value(json_object_get(entry, "url"));
  return LW_OK;
}

/* ---- context processing (4.1.2) ------------------------------------------- */

static LwStatus process_definition(LwJld *p, LwJldCtx **resultp, json_t *context,
                                   const char *base_url, json_t *remote_contexts,
                                   bool override_protected, bool validate_scoped)
{
  LwJldCtx *result = *resultp;
  /* 5.5 */
  json_t *version = json_object_get(context, "@version");
  if (version && !(json_is_number(version) && json_number_value(version) == 1.1)) {
    return lw_jld_fail(p, "invalid @version value", "must be 1.1");
  }
  /* 5.6 */
  json_t *merged = NULL;
  json_t *import = json_object_get(context, "@import");
  if (import) {
    if (!json_is_string(import)) {
      return lw_jld_fail(p, "invalid @import value", "not a string");
    }
    char *url = lw_jld_resolve(base_url, json_string_value(import));
    json_t *imported = NULL;
    const char *doc_url = NULL;
    LwStatus st = url ? load_remote(p, url, &imported, &doc_url) : lw_jld_nomem(p);
    free(url);
    if (st != LW_OK) {
      return st;
    }
    if (!json_is_object(imported)) {
      return lw_jld_fail(p, "invalid remote context",
                         "@import does not name a context object");
    }
    if (json_object_get(imported, "@import")) {
      return lw_jld_fail(p, "invalid context entry", "@import within @import");
    }
    merged = json_copy(imported);
    json_object_update(merged, context);
    context = merged;
  }
  LwStatus st = LW_OK;
  /* 5.7 */
  json_t *base = json_object_get(context, "@base");
  if (base && json_array_size(remote_contexts) == 0) {
    if (json_is_null(base)) {
      set_str(&result->base, NULL);
    } else if (json_is_string(base) && lw_jld_is_absolute_iri(json_string_value(base))) {
      set_str(&result->base, json_string_value(base));
    } else if (json_is_string(base) && result->base) {
      char *r = lw_jld_resolve(result->base, json_string_value(base));
      free(result->base);
      result->base = r;
    } else {
      st = lw_jld_fail(p, "invalid base IRI", "@base");
      goto done;
    }
  }
  /* 5.8 */
  json_t *vocab = json_object_get(context, "@vocab");
  if (vocab) {
    if (json_is_null(vocab)) {
      set_str(&result->vocab, NULL);
    } else if (json_is_string(vocab)) {
      char *v = lw_jld_expand_iri(p, result, json_string_value(vocab), true, true, NULL,
                                  NULL, &st);
      if (st != LW_OK) {
        free(v);
        goto done;
      }
      if (!v) {
        free(v);
        st = lw_jld_fail(p, "invalid vocab mapping", "@vocab");
        goto done;
      }
      free(result->vocab);
      result->vocab = v;
    } else {
      st = lw_jld_fail(p, "invalid vocab mapping", "@vocab");
      goto done;
    }
  }
  /* 5.9 */
  json_t *lang = json_object_get(context, "@language");
  if (lang) {
    if (json_is_null(lang)) {
      set_str(&result->language, NULL);
    } else if (json_is_string(lang)) {
      set_str(&result->language, json_string_value(lang));
    } else {
      st = lw_jld_fail(p, "invalid default language", "@language");
      goto done;
    }
  }
  /* 5.10 */
  json_t *dir = json_object_get(context, "@direction");
  if (dir) {
    if (json_is_null(dir)) {
      set_str(&result->direction, NULL);
    } else if (json_is_string(dir) && (!strcmp(json_string_value(dir), "ltr") ||
                                       !strcmp(json_string_value(dir), "rtl"))) {
      set_str(&result->direction, json_string_value(dir));
    } else {
      st = lw_jld_fail(p, "invalid base direction", "@direction");
      goto done;
    }
  }
  /* 5.11 */
  json_t *propagate = json_object_get(context, "@propagate");
  if (propagate && !json_is_boolean(propagate)) {
    st = lw_jld_fail(p, "invalid @propagate value", "not a boolean");
    goto done;
  }
  json_t *prot = json_object_get(context, "@protected");
  if (prot && !json_is_boolean(prot)) {
    st = lw_jld_fail(p, "invalid @protected value", "not a boolean");
    goto done;
  }
  /* 5.12, 5.13 */
  json_t *defined = json_object();
  if (!defined) {
    st = lw_jld_nomem(p);
    goto done;
  }
  const char *saved_base = p->ctx_base_url;
  json_t *saved_remotes = p->ctx_remotes;
  bool saved_override = p->ctx_override;
  p->ctx_base_url = base_url;
  p->ctx_remotes = remote_contexts;
  p->ctx_override = override_protected;
  const char *key;
  json_t *ignored;
  json_object_foreach(context, key, ignored) {
    if (!strcmp(key, "@base") || !strcmp(key, "@direction") || !strcmp(key, "@import") ||
        !strcmp(key, "@language") || !strcmp(key, "@propagate") ||
        !strcmp(key, "@protected") || !strcmp(key, "@version") || !strcmp(key, "@vocab")) {
      continue;
    }
    st = lw_jld_create_term(p, result, context, key, defined, base_url, json_is_true(prot),
                            override_protected, remote_contexts, validate_scoped);
    if (st != LW_OK) {
      break;
    }
  }
  p->ctx_base_url = saved_base;
  p->ctx_remotes = saved_remotes;
  p->ctx_override = saved_override;
  json_decref(defined);
done:
  json_decref(merged);
  return st;
}

static LwStatus process_context(LwJld *p, LwJldCtx *active, json_t *local,
                                const char *base_url, json_t *remote_contexts,
                                bool override_protected, bool propagate,
                                bool validate_scoped, LwJldCtx **out)
{
  /* 1 */
  LwJldCtx *result = ctx_copy(active);
  if (!result) {
    return lw_jld_nomem(p);
  }
  /* 2 */
  if (json_is_object(local) && json_object_get(local, "@propagate")) {
    json_t *pv = json_object_get(local, "@propagate");
    if (!json_is_boolean(pv)) {
      lw_jld_ctx_unref(result);
      return lw_jld_fail(p, "invalid @propagate value", "not a boolean");
    }
    propagate = json_is_true(pv);
  }
  /* 3 */
  if (!propagate && !result->previous) {
    result->previous = lw_jld_ctx_ref(active);
  }
  /* 4 */
  json_t *list = lw_jld_as_array(local);
  LwStatus st = LW_OK;
  size_t i;
  json_t *context;
  json_array_foreach(list, i, context) {
    if (json_is_null(context)) {
      /* 5.1 */
      if (!override_protected && has_protected_terms(result)) {
        st = lw_jld_fail(p, "invalid context nullification", "protected terms present");
        break;
      }
      LwJldCtx *fresh = lw_jld_ctx_new(active->original_base);
      if (!fresh) {
        st = lw_jld_nomem(p);
        break;
      }
      if (!propagate) {
        fresh->previous = lw_jld_ctx_ref(result->previous);
      }
      lw_jld_ctx_unref(result);
      result = fresh;
      continue;
    }
    if (json_is_string(context)) {
      /* 5.2 */
      char *url = lw_jld_resolve(base_url, json_string_value(context));
      if (!url) {
        st = lw_jld_nomem(p);
        break;
      }
      if (!lw_jld_is_absolute_iri(url)) {
        st = lw_jld_fail(p, "loading remote context failed",
                         "%s: relative reference without a base", url);
        free(url);
        break;
      }
      if (!validate_scoped && lw_jld_array_has_string(remote_contexts, url)) {
        free(url);
        continue;
      }
      if (json_array_size(remote_contexts) >= p->max_context_depth) {
        st = lw_jld_fail(p, "context overflow", "%s: too deeply nested", url);
        free(url);
        break;
      }
      json_t *remotes = json_copy(remote_contexts);
      json_array_append_new(remotes, json_string(url));
      json_t *loaded = NULL;
      const char *doc_url = NULL;
      st = load_remote(p, url, &loaded, &doc_url);
      free(url);
      if (st == LW_OK) {
        char *durl = lw_jld_strdup(doc_url);
        json_incref(loaded); /* the cache may not outlive the call */
        LwJldCtx *next = NULL;
        st = lw_jld_process_context(p, result, loaded, durl, remotes, false, true,
                                    validate_scoped, &next);
        json_decref(loaded);
        free(durl);
        if (st == LW_OK) {
          lw_jld_ctx_unref(result);
          result = next;
        }
      }
      json_decref(remotes);
      if (st != LW_OK) {
        break;
      }
      continue;
    }
    /* 5.3 */
    if (!json_is_object(context)) {
      st = lw_jld_fail(p, "invalid local context", "not an object");
      break;
    }
    st = process_definition(p, &result, context, base_url, remote_contexts,
                            override_protected, validate_scoped);
    if (st != LW_OK) {
      break;
    }
  }
  json_decref(list);
  if (st != LW_OK) {
    lw_jld_ctx_unref(result);
    return st;
  }
  *out = result;
  return LW_OK;
}

LwStatus lw_jld_process_context(LwJld *p, LwJldCtx *active, json_t *local,
                                const char *base_url, json_t *remote_contexts,
                                bool override_protected, bool propagate,
                                bool validate_scoped, LwJldCtx **result)
{
  *result = NULL;
  if (p->context_depth >= p->max_context_depth * 4) {
    return lw_jld_fail(p, "context overflow", "contexts nested too deeply");
  }
  json_t *remotes = remote_contexts ? json_incref(remote_contexts) : json_array();
  p->context_depth++;
  LwStatus st = process_context(p, active, local, base_url, remotes, override_protected,
                                propagate, validate_scoped, result);
  p->context_depth--;
  json_decref(remotes);
  return st;
}

/* ---- IRI expansion (5.2.2) ------------------------------------------------- */

char *lw_jld_expand_iri(LwJld *p, LwJldCtx *active, const char *value,
                        bool document_relative, bool vocab, json_t *local, json_t *defined,
                        LwStatus *st)
{
  /* 1, 2 */
  if (!value) {
    return NULL;
  }
  if (lw_jld_is_keyword(value)) {
    return strdup(value);
  }
  if (lw_jld_has_keyword_form(value)) {
    return NULL;
  }
  /* 3 */
  if (local && json_object_get(local, value) &&
      !json_is_true(json_object_get(defined, value))) {
    *st = lw_jld_create_term(p, active, local, value, defined, p->ctx_base_url, false,
                             p->ctx_override, p->ctx_remotes, true);
    if (*st != LW_OK) {
      return NULL;
    }
  }
  /* 4, 5 */
  json_t *def = lw_jld_term(active, value);
  if (def) {
    json_t *iri = json_object_get(def, "@id");
    if (json_is_string(iri) && lw_jld_is_keyword(json_string_value(iri))) {
      return strdup(json_string_value(iri));
    }
    if (vocab) {
      return json_is_string(iri) ? strdup(json_string_value(iri)) : NULL;
    }
  }
  /* 6 */
  const char *colon = value[0] ? strchr(value + 1, ':') : NULL;
  if (value[0] && colon) {
    size_t plen = (size_t)(colon - value);
    const char *suffix = colon + 1;
    if ((plen == 1 && value[0] == '_') || !strncmp(suffix, "//", 2)) {
      return strdup(value);
    }
    char *prefix = strndup(value, plen);
    if (!prefix) {
      return NULL;
    }
    if (local && json_object_get(local, prefix) &&
        !json_is_true(json_object_get(defined, prefix))) {
      *st = lw_jld_create_term(p, active, local, prefix, defined, p->ctx_base_url, false,
                               p->ctx_override, p->ctx_remotes, true);
      if (*st != LW_OK) {
        free(prefix);
        return NULL;
      }
    }
    json_t *pdef = lw_jld_term(active, prefix);
    free(prefix);
    json_t *piri = json_object_get(pdef, "@id");
    if (json_is_string(piri) && json_is_true(json_object_get(pdef, "@prefix"))) {
      return lw_jld_concat(json_string_value(piri), suffix);
    }
    if (lw_jld_is_absolute_iri(value)) {
      return strdup(value);
    }
  }
  /* 7, 8 */
  if (vocab && active->vocab) {
    return lw_jld_concat(active->vocab, value);
  }
  if (document_relative) {
    return lw_jld_resolve(active->base, value);
  }
  return strdup(value);
}
