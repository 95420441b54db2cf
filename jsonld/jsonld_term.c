/*
 * JSON-LD 1.1 Create Term Definition (4.2.2): one entry of a local context
 * becomes an immutable term definition object in the active context (see
 * jsonld_private.h for its keys). Step numbers refer to the W3C
 * Recommendation.
 */
#include <stdlib.h>
#include <string.h>

#include "jsonld/jsonld_private.h"


static bool is_gen_delim(char c)
{
  return c && strchr(":/?#[]@", c) != NULL;
}

static bool valid_container(json_t *container)
{
  /* 20.1: a single keyword, or the 1.1 combinations */
  static const char *const allowed[] = {"@graph", "@id",  "@index", "@language",
                                        "@list",  "@set", "@type",  NULL};
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
                                 json_t *value, json_t *defined)
{
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
  json_t *previous = lw_jld_term(active, term);
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


static LwStatus finish_term(LwJld *p, LwJldCtx *active, const char *term, json_t *def,
                            json_t *previous, bool override_protected, json_t *defined)
{
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
                                 const char *term, json_t *defined, const char *base_url,
                                 bool protected_, bool override_protected,
                                 json_t *remote_contexts, bool validate_scoped);

/* Terms defined through other terms recurse: a hostile context can chain
 * thousands of them, so the recursion is bounded. */
#define MAX_TERM_DEPTH 1024

LwStatus lw_jld_create_term(LwJld *p, LwJldCtx *active, json_t *local, const char *term,
                            json_t *defined, const char *base_url, bool protected_,
                            bool override_protected, json_t *remote_contexts,
                            bool validate_scoped)
{
  if (p->term_depth >= MAX_TERM_DEPTH) {
    lw_error_set(p->err, LW_ERR_LIMIT,
                 "term definitions depend on each other more than %d deep", MAX_TERM_DEPTH);
    return LW_ERR_LIMIT;
  }
  p->term_depth++;
  LwStatus st = create_term_body(p, active, local, term, defined, base_url, protected_,
                                 override_protected, remote_contexts, validate_scoped);
  p->term_depth--;
  return st;
}

static LwStatus create_term_body(LwJld *p, LwJldCtx *active, json_t *local,
                                 const char *term, json_t *defined, const char *base_url,
                                 bool protected_, bool override_protected,
                                 json_t *remote_contexts, bool validate_scoped)
{
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
  json_t *previous = json_incref(lw_jld_term(active, term));
  lw_jld_term_remove(active, term);
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
#define FAIL(code, ...)                                                                    \
  do {                                                                                     \
    result = lw_jld_fail(p, code, __VA_ARGS__);                                            \
    goto out;                                                                              \
  } while (0)
/* iri = value expanded as a vocabulary IRI in the local context; an error
 * ends the definition with it. */
#define EXPAND_VOCAB(iri, value)                                                           \
  do {                                                                                     \
    LwStatus st_ = LW_OK;                                                                  \
    iri = lw_jld_expand_iri(p, active, value, false, true, local, defined, &st_);          \
    if (st_ != LW_OK) {                                                                    \
      result = st_;                                                                        \
      goto out;                                                                            \
    }                                                                                      \
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
    char *t;
    EXPAND_VOCAB(t, json_string_value(type));
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
    char *iri;
    EXPAND_VOCAB(iri, json_string_value(rev));
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
      char *iri;
      EXPAND_VOCAB(iri, ids);
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
        LwStatus st = LW_OK;
        char *self = lw_jld_expand_iri(p, active, term, false, true, local, defined, &st);
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
      LwStatus st = lw_jld_create_term(p, active, local, prefix, defined, base_url, false,
                                       override_protected, remote_contexts,
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
    char *iri = lw_jld_expand_iri(p, active, json_string_value(index), false, true, local,
                                  defined, &st);
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
    LwStatus st = lw_jld_process_context(p, active, scoped, base_url, remote_contexts, true,
                                         true, false, &tmp);
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
    if (!json_is_string(nest) || (lw_jld_is_keyword(json_string_value(nest)) &&
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
    "@id",       "@reverse", "@container", "@context",   "@direction", "@index",
    "@language", "@nest",    "@prefix",    "@protected", "@type",      NULL};
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
  result = finish_term(p, active, term, def, previous, override_protected, defined);
  json_decref(previous);
  return result;
out:
#undef FAIL
#undef EXPAND_VOCAB
  json_decref(val);
  json_decref(def);
  json_decref(previous);
  if (result == LW_OK) {
    json_object_set_new(defined, term, json_true());
  }
  return result;
}
