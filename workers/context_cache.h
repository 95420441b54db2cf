/*
 * The Redis cache of remote JSON-LD contexts, shared by all workers (stored
 * by queue/context_store.h). Plugs
 * into LwDocumentLoader (jsonld/jsonld.h).
 *
 *   PREFIXcontext:<MD5 of URL>  hash {url, body, size}, expiring after
 *                               LW_CONTEXT_CACHE_TTL_S
 *   PREFIXcontexts              zset: MD5 of URL -> when it was cached (ms),
 *                               the cache's index, oldest first
 *
 * Only documents that are JSON-LD contexts (a JSON object with "@context")
 * are kept: anything else a document loader fetched (an HTML error page, a
 * dump that was named as a context) is never cached. The bodies of the cache
 * hold at most max_bytes in all: a new context evicts the oldest ones until
 * it fits, and one larger than max_bytes alone is not cached. Both checks
 * run in one Lua script, so workers caching at once never overshoot.
 */
#ifndef LW_WORKERS_CONTEXT_CACHE_H
#define LW_WORKERS_CONTEXT_CACHE_H

#include "queue/redis.h"
#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"

#define LW_CONTEXT_CACHE_TTL_S 86400

typedef struct {
  LwRecords *redis;
  const char *prefix;
  long long max_bytes; /* total size of the cached bodies; <= 0: no cap */
} LwContextCache;

/* LwDocumentLoader.cache_get; handle is an LwContextCache. */
LwStatus lw_context_cache_get(void *handle, const char *url, char **body, size_t *len,
                              char **document_url);

/* LwDocumentLoader.cache_put; handle is an LwContextCache. Caches body if it
 * is a JSON-LD context that fits (see above); failures are only logged (a
 * cache that cannot store is a slower cache). */
void lw_context_cache_put(void *handle, const char *url, const char *body, size_t len,
                          const char *document_url);

/* True when body is a JSON object with an "@context" member. */
bool lw_context_cache_is_context(const char *body, size_t len);

#endif
