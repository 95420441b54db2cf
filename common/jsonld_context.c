/*
 * JSON-LD 1.1 context processing: active contexts, the Context Processing
 * Algorithm (4.1), Create Term Definition (4.2) and IRI Expansion (5.2).
 * Step numbers in comments refer to the W3C Recommendation.
 */
#include <stdlib.h>
#include <string.h>

#include "common/jsonld_private.h"

/* ---- active contexts ------------------------------------------------------ */

LwJldCtx *lw_jld_ctx_new(const char *base) {
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

LwJldCtx *lw_jld_ctx_ref(LwJldCtx *ctx) {
  if (ctx) {
    ctx->refs++;
  }
  return ctx;
}

void lw_jld_ctx_unref(LwJldCtx *ctx) {
  while (ctx && --ctx->refs == 0) {
    LwJldCtx *prev = ctx->previous;
    free(ctx->base);
    free(ctx->original_base);
    free(ctx->vocab);
    free(ctx->language);
    free(ctx->direction);
    json_decref(ctx->terms);
    free(ctx);
    ctx = prev; /* iterative: chains of previous contexts can be long */
  }
}

static LwJldCtx *ctx_copy(const LwJldCtx *src) {
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
  c->previous = lw_jld_ctx_ref(src->previous);
  if (!c->terms) {
    lw_jld_ctx_unref(c);
    return NULL;
  }
  return c;
}

json_t *lw_jld_term(const LwJldCtx *ctx, const char *term) {
  return term ? json_object_get(ctx->terms, term) : NULL;
}

static bool has_protected_terms(const LwJldCtx *ctx) {
  const char *key;
  json_t *def;
  json_object_foreach(ctx->terms, key, def) {
    if (json_is_true(json_object_get(def, "@protected"))) {
      return true;
    }
  }
  return false;
}

static void set_str(char **field, const char *value) {
  free(*field);
  *field = lw_jld_strdup(value);
}

/* ---- remote contexts ------------------------------------------------------ */

/* Loads the context document at url (cached per document run): *context is a
 * borrowed reference to its @context value, *doc_url its final URL. */
static LwStatus load_remote(LwJld *p, const char *url, json_t **context,
                            const char **doc_url) {
  json_t *entry = json_object_get(p->remote_cache, url);
  if (!entry) {
    if (p->remote_fetched >= p->max_remote) {
      lw_error_set(p->err, LW_ERR_LIMIT,
                   "context overflow: more than %u remote contexts",
                   p->max_remote);
      return LW_ERR_LIMIT;
    }
    p->remote_fetched++;
    if (!p->opt->load) {
      return lw_jld_fail(p, "loading remote context failed",
                         "%s: no document loader", url);
    }
    char *body = NULL, *final_url = NULL;
    size_t len = 0;
    LwError lerr;
    lw_error_clear(&lerr);
    LwStatus st =
        p->opt->load(p->opt->load_handle, url, &body, &len, &final_url, &lerr);
    if (st != LW_OK) {
      free(body);
      free(final_url);
      return lw_jld_fail(p, "loading remote context failed", "%s: %s", url,
                         lerr.message);
    }
    json_error_t jerr;
    json_t *doc = json_loadb(body, len, JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL,
                             &jerr);
    free(body);
    if (!doc) {
      free(final_url);
      return lw_jld_fail(p, "loading remote context failed",
                         "%s: line %d, column %d: %s", url, jerr.line,
                         jerr.column, jerr.text);
    }
    entry = json_pack("{s:o,s:s}", "doc", doc, "url",
                      final_url ? final_url : url);
    free(final_url);
    if (!entry || json_object_set_new(p->remote_cache, url, entry)) {
      return lw_jld_nomem(p);
    }
  }
  json_t *doc = json_object_get(entry, "doc");
  json_t *ctx = json_is_object(doc) ? json_object_get(doc, "@context") : NULL;
  if (!ctx) {
    return lw_jld_fail(p, "invalid remote context",
                       "%s has no top-level @context", url);
  }
  *context = ctx;
  *doc_url = json_string_value(json_object_get(entry, "url"));
  return LW_OK;
}

/* ---- create term definition (4.2.2) ---------------------------------------- */

static LwStatus create_term(LwJld *p, LwJldCtx *active, json_t *local,
                            const char *term, json_t *defined,
                            const char *base_url, bool protected_,
                            bool override_protected, json_t *remote_contexts,
                            bool validate_scoped);

static bool is_gen_delim(char c) {
  return c && strchr(":/?#[]@", c) != NULL;
}

static bool valid_container(json_t *container) {
  /* 20.1: a single keyword, or the 1.1 combinations */
  static const char *const allowed[] = {"@graph", "@id",   "@index", "@language",
                                        "@list",  "@set",  "@type",  NULL};
  size_t n = json_array_size(container);
  if (n == 0) {
    return false;
  }
  unsigned mask = 0;
  size_t i;
  json_t *item;
  json_array_foreach(container, i, item) {
    if (!json_is_string(item)) {
      return false;
    }
    int bit = -1;
    for (int k = 0; allowed[k]; k++) {
      if (!strcmp(allowed[k], json_string_value(item))) {
        bit = k;
      }
    }
    if (bit < 0 || (mask & (1u << bit))) {
      return false;
    }
    mask |= 1u << bit;
  }
  enum { G = 1, ID = 2, IX = 4, LANG = 8, LIST = 16, SET = 32, TYPE = 64 };
  if (n == 1) {
    return true;
  }
  if (mask & LIST) {
    return false;
  }
  if (mask & G) {
    unsigned rest = mask & ~(G | SET);
    return rest == 0 || rest == ID || rest == IX;
  }
  if (mask & SET) {
    unsigned rest = mask & ~SET;
    return rest == IX || rest == ID || rest == TYPE || rest == LANG;
  }
  return false;
}

static LwStatus define_type_term(LwJld *p, LwJldCtx *active, const char *term,
                                 json_t *value, json_t *defined) {
  /* 4: @type may only become @set-containered and/or protected */
  const char *key;
  json_t *v;
  if (!json_is_object(value) || json_object_size(value) == 0) {
    return lw_jld_fail(p, "keyword redefinition", "%s", term);
  }
  json_object_foreach(value, key, v) {
    if (!strcmp(key, "@container")) {
      if (!json_is_string(v) || strcmp(json_string_value(v), "@set")) {
        return lw_jld_fail(p, "keyword redefinition", "%s", term);
      }
    } else if (strcmp(key, "@protected")) {
      return lw_jld_fail(p, "keyword redefinition", "%s", term);
    }
  }
  json_t *def = json_pack("{s:s}", "@id", "@type");
  if (!def) {
    return lw_jld_nomem(p);
  }
  if (json_object_get(value, "@container")) {
    json_object_set_new(def, "@container", json_pack("[s]", "@set"));
  }
  json_t *prot = json_object_get(value, "@protected");
  if (prot) {
    if (!json_is_boolean(prot)) {
      json_decref(def);
      return lw_jld_fail(p, "invalid @protected value", "%s", term);
    }
    json_object_set(def, "@protected", prot);
  }
  json_t *previous = json_object_get(active->terms, term);
  if (previous && json_is_true(json_object_get(previous, "@protected")) &&
      !p->ctx_override) {
    json_t *a = json_copy(def), *b = json_copy(previous);
    json_object_del(a, "@protected");
    json_object_del(b, "@protected");
    bool same = json_equal(a, b);
    json_decref(a);
    json_decref(b);
    if (!same) {
      json_decref(def);
      return lw_jld_fail(p, "protected term redefinition", "%s", term);
    }
    json_decref(def);
    json_object_set_new(defined, term, json_true());
    return LW_OK;
  }
  json_object_set_new(active->terms, term, def);
  json_object_set_new(defined, term, json_true());
  return LW_OK;
}


static LwStatus finish_term(LwJld *p, LwJldCtx *active, const char *term,
                            json_t *def, json_t *previous,
                            bool override_protected, json_t *defined) {
  /* 28: a protected term may only be redefined identically */
  if (!override_protected && previous &&
      json_is_true(json_object_get(previous, "@protected"))) {
    json_t *a = json_copy(def), *b = json_copy(previous);
    json_object_del(a, "@protected");
    json_object_del(b, "@protected");
    bool same = json_equal(a, b);
    json_decref(a);
    json_decref(b);
    json_decref(def);
    if (!same) {
      return lw_jld_fail(p, "protected term redefinition", "%s", term);
    }
    def = json_incref(previous);
  }
  json_object_set_new(active->terms, term, def);
  json_object_set_new(defined, term, json_true());
  return LW_OK;
}

static LwStatus create_term_body(LwJld *p, LwJldCtx *active, json_t *local,
                                 const char *term, json_t *defined,
                                 const char *base_url, bool protected_,
                                 bool override_protected,
                                 json_t *remote_contexts, bool validate_scoped);

/* Terms defined through other terms recurse: a hostile context can chain
 * thousands of them, so the recursion is bounded. */
#define MAX_TERM_DEPTH 1024

static LwStatus create_term(LwJld *p, LwJldCtx *active, json_t *local,
                            const char *term, json_t *defined,
                            const char *base_url, bool protected_,
                            bool override_protected, json_t *remote_contexts,
                            bool validate_scoped) {
  if (p->term_depth >= MAX_TERM_DEPTH) {
    lw_error_set(p->err, LW_ERR_LIMIT,
                 "term definitions depend on each other more than %d deep",
                 MAX_TERM_DEPTH);
    return LW_ERR_LIMIT;
  }
  p->term_depth++;
  LwStatus st = create_term_body(p, active, local, term, defined, base_url,
                                 protected_, override_protected,
                                 remote_contexts, validate_scoped);
  p->term_depth--;
  return st;
}

static LwStatus create_term_body(LwJld *p, LwJldCtx *active, json_t *local,
                                 const char *term, json_t *defined,
                                 const char *base_url, bool protected_,
                                 bool override_protected,
                                 json_t *remote_contexts, bool validate_scoped) {
  json_t *def = NULL;
  /* 1 */
  json_t *state = json_object_get(defined, term);
  if (state) {
    if (json_is_true(state)) {
      return LW_OK;
    }
    return lw_jld_fail(p, "cyclic IRI mapping", "%s", term);
  }
  /* 2 */
  if (!term[0]) {
    return lw_jld_fail(p, "invalid term definition", "empty term");
  }
  json_object_set_new(defined, term, json_false());
  /* 3 */
  json_t *value = json_object_get(local, term);
  /* 4, 5 */
  if (!strcmp(term, "@type")) {
    return define_type_term(p, active, term, value, defined);
  }
  if (lw_jld_is_keyword(term)) {
    return lw_jld_fail(p, "keyword redefinition", "%s", term);
  }
  if (lw_jld_has_keyword_form(term)) {
    json_object_set_new(defined, term, json_true());
    return LW_OK; /* ignored, as the specification says */
  }
  /* 6 */
  json_t *previous = json_incref(json_object_get(active->terms, term));
  json_object_del(active->terms, term);
  LwStatus result = LW_OK;
  bool simple = false;
  /* 7-9 */
  json_t *val;
  if (json_is_null(value)) {
    val = json_pack("{s:n}", "@id");
  } else if (json_is_string(value)) {
    val = json_pack("{s:O}", "@id", value);
    simple = true;
  } else if (json_is_object(value)) {
    val = json_incref(value);
  } else {
    json_decref(previous);
    return lw_jld_fail(p, "invalid term definition", "%s", term);
  }
  /* 10 */
  def = json_object();
  if (!val || !def) {
    json_decref(val);
    json_decref(previous);
    json_decref(def);
    return lw_jld_nomem(p);
  }
#define FAIL(code, ...)                                                        \
  do {                                                                         \
    result = lw_jld_fail(p, code, __VA_ARGS__);                                \
    goto out;                                                                  \
  } while (0)
  /* 11 */
  protected_ = protected_ || json_is_true(json_object_get(local, "@protected"));
  json_t *prot = json_object_get(val, "@protected");
  if (prot) {
    if (!json_is_boolean(prot)) {
      FAIL("invalid @protected value", "%s", term);
    }
    if (json_is_true(prot)) {
      json_object_set_new(def, "@protected", json_true());
    }
  } else if (protected_) {
    json_object_set_new(def, "@protected", json_true());
  }
  /* 12 */
  json_t *type = json_object_get(val, "@type");
  if (type) {
    if (!json_is_string(type)) {
      FAIL("invalid type mapping", "%s", term);
    }
    LwStatus st = LW_OK;
    char *t = lw_jld_expand_iri(p, active, json_string_value(type), false, true,
                                local, defined, &st);
    if (st != LW_OK) {
      result = st;
      goto out;
    }
    if (!t || (strcmp(t, "@id") && strcmp(t, "@vocab") && strcmp(t, "@json") &&
               strcmp(t, "@none") && !lw_jld_is_absolute_iri(t))) {
      free(t);
      FAIL("invalid type mapping", "%s", term);
    }
    json_object_set_new(def, "@type", json_string(t));
    free(t);
  }
  /* 13 */
  json_t *rev = json_object_get(val, "@reverse");
  if (rev) {
    if (json_object_get(val, "@id") || json_object_get(val, "@nest")) {
      FAIL("invalid reverse property", "%s", term);
    }
    if (!json_is_string(rev)) {
      FAIL("invalid IRI mapping", "%s", term);
    }
    if (lw_jld_has_keyword_form(json_string_value(rev))) {
      goto out; /* ignored */
    }
    LwStatus st = LW_OK;
    char *iri = lw_jld_expand_iri(p, active, json_string_value(rev), false,
                                  true, local, defined, &st);
    if (st != LW_OK) {
      result = st;
      goto out;
    }
    if (!iri || !strchr(iri, ':')) {
      free(iri);
      FAIL("invalid IRI mapping", "%s", term);
    }
    json_object_set_new(def, "@id", json_string(iri));
    free(iri);
    json_t *container = json_object_get(val, "@container");
    if (container) {
      if (!json_is_null(container) &&
          !(json_is_string(container) &&
            (!strcmp(json_string_value(container), "@set") ||
             !strcmp(json_string_value(container), "@index")))) {
        FAIL("invalid reverse property", "%s", term);
      }
      if (json_is_string(container)) {
        json_object_set_new(def, "@container", json_pack("[O]", container));
      }
    }
    json_object_set_new(def, "@reverse", json_true());
    goto check_rest;
  }
  /* 15 */
  json_t *id = json_object_get(val, "@id");
  if (id && !(json_is_string(id) && !strcmp(json_string_value(id), term))) {
    if (json_is_null(id)) {
      json_object_set_new(def, "@id", json_null());
    } else {
      if (!json_is_string(id)) {
        FAIL("invalid IRI mapping", "%s", term);
      }
      const char *ids = json_string_value(id);
      if (!lw_jld_is_keyword(ids) && lw_jld_has_keyword_form(ids)) {
        goto out; /* ignored */
      }
      LwStatus st = LW_OK;
      char *iri =
          lw_jld_expand_iri(p, active, ids, false, true, local, defined, &st);
      if (st != LW_OK) {
        result = st;
        goto out;
      }
      if (!iri || (!lw_jld_is_keyword(iri) && !strchr(iri, ':'))) {
        free(iri);
        FAIL("invalid IRI mapping", "%s", term);
      }
      if (!strcmp(iri, "@context")) {
        free(iri);
        FAIL("invalid keyword alias", "%s", term);
      }
      json_object_set_new(def, "@id", json_string(iri));
      /* 15.2.4: a term that looks like a compact IRI or IRI must expand to
       * the same IRI by itself */
      const char *colon = strchr(term + 1, ':');
      bool iri_like = (colon && colon[1]) || strchr(term, '/');
      if (iri_like) {
        json_object_set_new(defined, term, json_true());
        char *self =
            lw_jld_expand_iri(p, active, term, false, true, local, defined, &st);
        bool same = self && !strcmp(self, iri);
        free(self);
        if (st != LW_OK) {
          free(iri);
          result = st;
          goto out;
        }
        if (!same) {
          free(iri);
          FAIL("invalid IRI mapping", "%s does not expand to its @id", term);
        }
      }
      /* 15.2.5 */
      if (!strchr(term, ':') && !strchr(term, '/') && simple &&
          (is_gen_delim(iri[strlen(iri) - 1]) || lw_jld_is_bnode(iri))) {
        json_object_set_new(def, "@prefix", json_true());
      }
      free(iri);
    }
  } else if (strchr(term + 1, ':')) {
    /* 16 */
    const char *colon = strchr(term + 1, ':');
    char *prefix = strndup(term, (size_t)(colon - term));
    if (!prefix) {
      result = lw_jld_nomem(p);
      goto out;
    }
    if (json_object_get(local, prefix)) {
      LwStatus st = create_term(p, active, local, prefix, defined, base_url,
                                false, override_protected, remote_contexts,
                                validate_scoped);
      if (st != LW_OK) {
        free(prefix);
        result = st;
        goto out;
      }
    }
    json_t *pdef = lw_jld_term(active, prefix);
    free(prefix);
    json_t *piri = json_object_get(pdef, "@id");
    if (json_is_string(piri)) {
      char *full = lw_jld_concat(json_string_value(piri), colon + 1);
      json_object_set_new(def, "@id", json_string(full));
      free(full);
    } else {
      json_object_set_new(def, "@id", json_string(term));
    }
  } else if (strchr(term, '/')) {
    /* 17 */
    LwStatus st = LW_OK;
    char *iri = lw_jld_expand_iri(p, active, term, false, true, NULL, NULL, &st);
    if (st != LW_OK) {
      result = st;
      goto out;
    }
    if (!iri || !lw_jld_is_absolute_iri(iri)) {
      free(iri);
      FAIL("invalid IRI mapping", "%s", term);
    }
    json_object_set_new(def, "@id", json_string(iri));
    free(iri);
  } else if (!strcmp(term, "@type")) {
    json_object_set_new(def, "@id", json_string("@type"));
  } else if (active->vocab) {
    char *full = lw_jld_concat(active->vocab, term);
    json_object_set_new(def, "@id", json_string(full));
    free(full);
  } else {
    FAIL("invalid IRI mapping", "%s: no @vocab", term);
  }
  /* 20 */
  json_t *container = json_object_get(val, "@container");
  if (container) {
    json_t *arr = lw_jld_as_array(container);
    if (!valid_container(arr)) {
      json_decref(arr);
      FAIL("invalid container mapping", "%s", term);
    }
    json_object_set_new(def, "@container", arr);
    if (lw_jld_array_has_string(arr, "@type")) {
      json_t *tm = json_object_get(def, "@type");
      if (!tm) {
        json_object_set_new(def, "@type", json_string("@id"));
      } else if (strcmp(json_string_value(tm), "@id") &&
                 strcmp(json_string_value(tm), "@vocab")) {
        FAIL("invalid type mapping", "%s", term);
      }
    }
  }
  /* 21 */
  json_t *index = json_object_get(val, "@index");
  if (index) {
    json_t *c = json_object_get(def, "@container");
    if (!c || !lw_jld_array_has_string(c, "@index") || !json_is_string(index)) {
      FAIL("invalid term definition", "%s: bad @index", term);
    }
    LwStatus st = LW_OK;
    char *iri = lw_jld_expand_iri(p, active, json_string_value(index), false,
                                  true, local, defined, &st);
    bool ok = iri && lw_jld_is_absolute_iri(iri) && !lw_jld_is_keyword(iri);
    free(iri);
    if (st != LW_OK) {
      result = st;
      goto out;
    }
    if (!ok) {
      FAIL("invalid term definition", "%s: bad @index", term);
    }
    json_object_set(def, "@index", index);
  }
  /* 22 */
  json_t *scoped = json_object_get(val, "@context");
  if (scoped) {
    LwJldCtx *tmp = NULL;
    LwStatus st =
        lw_jld_process_context(p, active, scoped, base_url, remote_contexts,
                               true, true, false, &tmp);
    lw_jld_ctx_unref(tmp);
    if (st == LW_ERR_SYNTAX) {
      char detail[LW_ERROR_MESSAGE_MAX];
      snprintf(detail, sizeof(detail), "%s", p->err->message);
      lw_error_clear(p->err);
      FAIL("invalid scoped context", "%s: %s", term, detail);
    }
    if (st != LW_OK) {
      result = st;
      goto out;
    }
    json_object_set(def, "@context", scoped);
    if (base_url) {
      json_object_set_new(def, "_base", json_string(base_url));
    }
  }
  /* 23, 24 */
  if (!type) {
    json_t *lang = json_object_get(val, "@language");
    if (lang) {
      if (!json_is_null(lang) && !json_is_string(lang)) {
        FAIL("invalid language mapping", "%s", term);
      }
      json_object_set(def, "@language", lang);
    }
    json_t *dir = json_object_get(val, "@direction");
    if (dir) {
      if (!json_is_null(dir) &&
          !(json_is_string(dir) && (!strcmp(json_string_value(dir), "ltr") ||
                                    !strcmp(json_string_value(dir), "rtl")))) {
        FAIL("invalid base direction", "%s", term);
      }
      json_object_set(def, "@direction", dir);
    }
  }
  /* 25 */
  json_t *nest = json_object_get(val, "@nest");
  if (nest) {
    if (!json_is_string(nest) ||
        (lw_jld_is_keyword(json_string_value(nest)) &&
         strcmp(json_string_value(nest), "@nest"))) {
      FAIL("invalid @nest value", "%s", term);
    }
    json_object_set(def, "@nest", nest);
  }
  /* 26 */
  json_t *prefix = json_object_get(val, "@prefix");
  if (prefix) {
    if (strchr(term, ':') || strchr(term, '/')) {
      FAIL("invalid term definition", "%s: @prefix on an IRI-like term", term);
    }
    if (!json_is_boolean(prefix)) {
      FAIL("invalid @prefix value", "%s", term);
    }
    json_t *iri = json_object_get(def, "@id");
    if (json_is_true(prefix) && json_is_string(iri) &&
        lw_jld_is_keyword(json_string_value(iri))) {
      FAIL("invalid term definition", "%s: keyword as prefix", term);
    }
    json_object_set(def, "@prefix", prefix);
  }
check_rest:;
  /* 27 */
  static const char *const allowed[] = {
      "@id",     "@reverse", "@container", "@context",   "@direction",
      "@index",  "@language", "@nest",     "@prefix",    "@protected",
      "@type",   NULL};
  const char *key;
  json_t *ignored;
  json_object_foreach(val, key, ignored) {
    bool ok = false;
    for (int k = 0; allowed[k]; k++) {
      ok = ok || !strcmp(allowed[k], key);
    }
    if (!ok) {
      FAIL("invalid term definition", "%s: unexpected entry %s", term, key);
    }
  }
  json_decref(val);
  result = finish_term(p, active, term, def, previous, override_protected,
                       defined);
  json_decref(previous);
  return result;
out:
#undef FAIL
  json_decref(val);
  json_decref(def);
  json_decref(previous);
  if (result == LW_OK) {
    json_object_set_new(defined, term, json_true());
  }
  return result;
}

/* ---- context processing (4.1.2) ------------------------------------------- */

static LwStatus process_definition(LwJld *p, LwJldCtx **resultp, json_t *context,
                                   const char *base_url,
                                   json_t *remote_contexts,
                                   bool override_protected,
                                   bool validate_scoped) {
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
    } else if (json_is_string(base) &&
               lw_jld_is_absolute_iri(json_string_value(base))) {
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
      char *v = lw_jld_expand_iri(p, result, json_string_value(vocab), true,
                                  true, NULL, NULL, &st);
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
    if (!strcmp(key, "@base") || !strcmp(key, "@direction") ||
        !strcmp(key, "@import") || !strcmp(key, "@language") ||
        !strcmp(key, "@propagate") || !strcmp(key, "@protected") ||
        !strcmp(key, "@version") || !strcmp(key, "@vocab")) {
      continue;
    }
    st = create_term(p, result, context, key, defined, base_url,
                     json_is_true(prot), override_protected, remote_contexts,
                     validate_scoped);
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
                                bool validate_scoped, LwJldCtx **out) {
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
        st = lw_jld_fail(p, "invalid context nullification",
                         "protected terms present");
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
        st = lw_jld_process_context(p, result, loaded, durl, remotes, false,
                                    true, validate_scoped, &next);
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
                                bool validate_scoped, LwJldCtx **result) {
  *result = NULL;
  if (p->context_depth >= p->max_context_depth * 4) {
    return lw_jld_fail(p, "context overflow", "contexts nested too deeply");
  }
  json_t *remotes = remote_contexts ? json_incref(remote_contexts) : json_array();
  p->context_depth++;
  LwStatus st = process_context(p, active, local, base_url, remotes,
                                override_protected, propagate, validate_scoped,
                                result);
  p->context_depth--;
  json_decref(remotes);
  return st;
}

/* ---- IRI expansion (5.2.2) ------------------------------------------------- */

char *lw_jld_expand_iri(LwJld *p, LwJldCtx *active, const char *value,
                        bool document_relative, bool vocab, json_t *local,
                        json_t *defined, LwStatus *st) {
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
    *st = create_term(p, active, local, value, defined, p->ctx_base_url, false,
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
      *st = create_term(p, active, local, prefix, defined, p->ctx_base_url,
                        false, p->ctx_override, p->ctx_remotes, true);
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
