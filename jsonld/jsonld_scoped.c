/*
 * Scoped contexts (property- and type-scoped) applied at a cost that grows
 * with the document, not faster (issue 24, item 5).
 *
 * Every node whose property or type has a scoped context processes that
 * context over its active context. A document can make this dear: one node
 * with thousands of types, each with its own context (each applied over the
 * result of the one before), or thousands of nodes applying the same large
 * context. So:
 *
 * - the result is cached per (active context, term definition, flags):
 *   contexts and definitions are immutable, so the same pair gives the same
 *   context; nodes alike cost one processing between them;
 * - one node applies at most LW_JSONLD_MAX_TYPE_SCOPED type-scoped contexts,
 *   and at most LW_JSONLD_MAX_SCOPED_DEPTH scoped contexts are in effect at
 *   once (each applied on top of those before, along the expansion's path);
 *   past either the document fails with a clear error (LW_ERR_LIMIT).
 *
 * Copies of the active context themselves are cheap (jsonld_context.c:
 * shared term tables), so what remains is proportional to the contexts'
 * own size.
 */
#include <stdio.h>
#include <stdlib.h>

#include "jsonld/jsonld_private.h"

/* Results kept per run; past this, contexts are processed without caching. */
#define SCOPED_CACHE_MAX 4096

typedef struct {
  LwJldCtx *active; /* held: its address cannot be reused meanwhile */
  json_t *def;      /* held */
  LwJldCtx *result; /* held */
} Entry;

struct LwJldScopedCache {
  json_t *index; /* key -> position in entries */
  Entry *entries;
  size_t count;
};

static LwStatus overflow(LwJld *p, const char *fmt, unsigned cap)
{
  if (p->err && p->err->status == LW_OK) {
    char what[256];
    snprintf(what, sizeof(what), fmt, cap);
    lw_error_set(p->err, LW_ERR_LIMIT, "context overflow: %s", what);
  }
  return LW_ERR_LIMIT;
}

LwStatus lw_jld_check_type_scoped(LwJld *p, size_t count)
{
  if (count > LW_JSONLD_MAX_TYPE_SCOPED) {
    return overflow(p, "a node with more than %u types that have scoped contexts",
                    LW_JSONLD_MAX_TYPE_SCOPED);
  }
  return LW_OK;
}

static void cache_key(const LwJldCtx *ctx, const json_t *def, bool propagate, bool override,
                      char key[96])
{
  snprintf(key, 96, "%p %p %d%d", (const void *)ctx, (const void *)def, propagate,
           override);
}

static LwJldCtx *cache_get(LwJld *p, const char *key)
{
  LwJldScopedCache *c = p->scoped_cache;
  json_t *at = c ? json_object_get(c->index, key) : NULL;
  return at ? lw_jld_ctx_ref(c->entries[json_integer_value(at)].result) : NULL;
}

static void cache_put(LwJld *p, const char *key, LwJldCtx *ctx, json_t *def,
                      LwJldCtx *result)
{
  LwJldScopedCache *c = p->scoped_cache;
  if (!c) {
    c = p->scoped_cache = calloc(1, sizeof(*c));
    if (!c || !(c->index = json_object()) ||
        !(c->entries = malloc(SCOPED_CACHE_MAX * sizeof(*c->entries)))) {
      lw_jld_scoped_cache_free(p);
      return; /* out of memory: no caching, nothing wrong */
    }
  }
  if (c->count == SCOPED_CACHE_MAX ||
      json_object_set_new(c->index, key, json_integer((json_int_t)c->count))) {
    return;
  }
  c->entries[c->count++] = (Entry){lw_jld_ctx_ref(ctx), json_incref(def),
                                   lw_jld_ctx_ref(result)};
}

void lw_jld_scoped_cache_free(LwJld *p)
{
  LwJldScopedCache *c = p->scoped_cache;
  if (!c) {
    return;
  }
  for (size_t i = 0; i < c->count; ++i) {
    lw_jld_ctx_unref(c->entries[i].active);
    json_decref(c->entries[i].def);
    lw_jld_ctx_unref(c->entries[i].result);
  }
  free(c->entries);
  json_decref(c->index);
  free(c);
  p->scoped_cache = NULL;
}

LwStatus lw_jld_apply_scoped(LwJld *p, LwJldCtx *ctx, json_t *def, bool propagate,
                             bool override, LwJldCtx **out)
{
  *out = NULL;
  if (ctx->scoped >= LW_JSONLD_MAX_SCOPED_DEPTH) {
    return overflow(p, "more than %u scoped contexts in effect at once",
                    LW_JSONLD_MAX_SCOPED_DEPTH);
  }
  char key[96];
  cache_key(ctx, def, propagate, override, key);
  if ((*out = cache_get(p, key))) {
    return LW_OK;
  }
  json_t *scoped = json_object_get(def, "@context");
  const char *base = json_string_value(json_object_get(def, "_base"));
  LwStatus st = lw_jld_process_context(p, ctx, scoped, base, NULL, override, propagate,
                                       true, out);
  if (st == LW_OK) {
    (*out)->scoped = ctx->scoped + 1;
    cache_put(p, key, ctx, def, *out);
  }
  return st;
}
