/*
 * Internals of the JSON-LD processor (jsonld/jsonld_*.c); not for other
 * modules. The algorithms keep the structure and step numbers of the
 * JSON-LD 1.1 Processing Algorithms so that they can be read side by side.
 *
 * Values are jansson json_t throughout. A term definition is an immutable
 * JSON object (keys "@id", "@reverse", "@type", "@language", "@direction",
 * "@container" (array), "@context", "@index", "@nest", "@prefix",
 * "@protected", "_base"), so that copying an active context is a shallow
 * copy of its term table and comparing definitions is json_equal.
 */
#ifndef LW_JSONLD_PRIVATE_H
#define LW_JSONLD_PRIVATE_H

#include <jansson.h>
#include <stdbool.h>

#include "jsonld/jsonld.h"

/* An active context, reference counted (contexts are shared by the nodes
 * they apply to and by the "previous context" of non-propagated ones). */
typedef struct LwJldCtx {
  unsigned refs;
  char *base;                /* base IRI; NULL: none */
  char *original_base;       /* the document's base URL */
  char *vocab;               /* NULL: none */
  char *language;            /* default language; NULL: none */
  char *direction;           /* default base direction; NULL: none */
  /* term -> definition object: the terms defined on this context (a json
   * null hides a term of base_terms: removed), over base_terms, the
   * read-only terms it was copied from (shared; NULL: none). So a copy
   * costs the few terms defined since the last copy, not the whole table
   * (scoped contexts copy the active context at every use; lw_jld_term
   * reads both). */
  json_t *terms;
  json_t *base_terms;
  struct LwJldCtx *previous; /* for @propagate false; NULL: none */
  unsigned scoped;           /* scoped contexts in effect (jsonld_scoped.c) */
} LwJldCtx;

typedef struct LwJldScopedCache LwJldScopedCache;

/* One run of the processor over one document. */
typedef struct {
  const LwJsonldOptions *opt;
  LwError *err;
  json_t *remote_cache;    /* URL -> {"doc": context document, "url": ...} */
  unsigned remote_fetched; /* documents loaded so far */
  unsigned context_depth;  /* current nesting of context processing */
  unsigned depth;          /* current expansion / node map recursion */
  unsigned term_depth;     /* current create-term-definition recursion */
  unsigned long long bnode_counter;
  json_t *bnode_map; /* document label -> issued label */
  char fresh[32];    /* the last label issued for no document label */
  LwReadStats *stats;
  size_t max_bytes;              /* document size cap */
  unsigned err_line, err_column; /* where the fatal error is, 0 unknown */
  /* where the top-level element being converted starts (streamed
   * documents), for the location of its statements; 0 unknown */
  unsigned at_line, at_column;
  /* the context definition being processed, for terms defined on demand */
  const char *ctx_base_url;
  json_t *ctx_remotes;
  bool ctx_override;
  unsigned max_depth;
  unsigned max_context_depth;
  unsigned max_remote;
  LwJldScopedCache *scoped_cache; /* jsonld_scoped.c; NULL: none yet */
} LwJld;

/* jsonld_scoped.c: the scoped context of term definition def (its
 * "@context") applied over ctx, cached, within the caps (LW_ERR_LIMIT
 * past them). */
LwStatus lw_jld_apply_scoped(LwJld *p, LwJldCtx *ctx, json_t *def, bool propagate,
                             bool override, LwJldCtx **out);
/* LW_ERR_LIMIT (err set) when one node has count type-scoped contexts, past
 * LW_JSONLD_MAX_TYPE_SCOPED. */
LwStatus lw_jld_check_type_scoped(LwJld *p, size_t count);
void lw_jld_scoped_cache_free(LwJld *p);

/* Sets err to LW_ERR_SYNTAX "CODE: detail" and returns LW_ERR_SYNTAX. */
LwStatus lw_jld_fail(LwJld *p, const char *code, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
LwStatus lw_jld_nomem(LwJld *p);

/* ---- jsonld_util.c */
bool lw_jld_is_keyword(const char *s);
bool lw_jld_has_keyword_form(const char *s); /* "@" followed by ALPHA+ */
bool lw_jld_is_absolute_iri(const char *s);  /* has a scheme */
bool lw_jld_is_bnode(const char *s);         /* "_:" */
bool lw_jld_is_scalar(const json_t *v);
/* Appends v (stolen) to the array at obj[key], creating it. */
int lw_jld_add_value(json_t *obj, const char *key, json_t *v);
/* Appends v (stolen) unless an equal value is there already. */
int lw_jld_add_unique(json_t *obj, const char *key, json_t *v);
/* v as a new reference to an array: v itself, or [v]. */
json_t *lw_jld_as_array(json_t *v);
bool lw_jld_array_has_string(const json_t *array, const char *s);
char *lw_jld_strdup(const char *s);
/* {key: value} with value stolen (json_pack is slow on hot paths); NULL
 * when out of memory. */
json_t *lw_jld_obj1(const char *key, json_t *value);
char *lw_jld_concat(const char *a, const char *b);
/* Resolves ref against base (RFC 3986); NULL base: ref copied. */
char *lw_jld_resolve(const char *base, const char *ref);

/* ---- jsonld_context.c */
LwJldCtx *lw_jld_ctx_new(const char *base);
LwJldCtx *lw_jld_ctx_ref(LwJldCtx *ctx);
void lw_jld_ctx_unref(LwJldCtx *ctx); /* NULL-safe */
/* The definition of term in ctx (borrowed), or NULL. */
json_t *lw_jld_term(const LwJldCtx *ctx, const char *term);
/* Removes term from ctx (step 6 of Create Term Definition). */
void lw_jld_term_remove(LwJldCtx *ctx, const char *term);

/* Context Processing Algorithm. On success *result holds a new reference. */
LwStatus lw_jld_process_context(LwJld *p, LwJldCtx *active, json_t *local,
                                const char *base_url, json_t *remote_contexts,
                                bool override_protected, bool propagate,
                                bool validate_scoped, LwJldCtx **result);

/* Create Term Definition (jsonld_term.c). */
LwStatus lw_jld_create_term(LwJld *p, LwJldCtx *active, json_t *local, const char *term,
                            json_t *defined, const char *base_url, bool protected_,
                            bool override_protected, json_t *remote_contexts,
                            bool validate_scoped);

/* IRI Expansion. Returns a new string (the caller frees) or NULL for a null
 * result; *st is set on errors (local/defined may be NULL). */
char *lw_jld_expand_iri(LwJld *p, LwJldCtx *active, const char *value,
                        bool document_relative, bool vocab, json_t *local, json_t *defined,
                        LwStatus *st);

/* ---- jsonld_expand.c */
/* Expansion Algorithm for a whole document or one element: *result is a new
 * reference (an array after the top-level rules) or NULL. */
LwStatus lw_jld_expand(LwJld *p, LwJldCtx *active, const char *active_property,
                       json_t *element, const char *base_url, bool from_map,
                       json_t **result);
LwStatus lw_jld_expand_top(LwJld *p, LwJldCtx *active, json_t *element,
                           const char *base_url, json_t **result);

/* ---- jsonld_nodemap.c */
LwStatus lw_jld_node_map(LwJld *p, json_t *element, json_t *node_map,
                         const char *active_graph, json_t *active_subject,
                         const char *active_property, json_t *list);
/* The label issued for a document blank node label (the same one every
 * time), or a fresh one for NULL (valid until the next fresh one); with
 * "_:". NULL when out of memory. */
const char *lw_jld_issue_bnode(LwJld *p, const char *old);

/* ---- jsonld_rdf.c */
LwStatus lw_jld_emit_node_map(LwJld *p, json_t *node_map);

/* ---- jsonld_document.c, jsonld_stream.c */
/* Expands, maps and emits one element (top: with the top-level rules). */
LwStatus lw_jld_convert_element(LwJld *p, LwJldCtx *ctx, const char *active_property,
                                json_t *element, bool top);
/* Converts a whole parsed document (element by element where it can). */
LwStatus lw_jld_convert_whole(LwJld *p, json_t *doc);
/* Reads the document from in and converts it. */
LwStatus lw_jld_read(LwJld *p, FILE *in);

/* ---- jsonld_canon.c */
/* JCS serialization of v; a new string the caller frees, NULL if no memory. */
char *lw_jld_canonical(const json_t *v);
/* ECMAScript Number::toString of d into buf. */
void lw_jld_format_number(double d, char *buf, size_t size);

#endif
