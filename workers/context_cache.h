/*
 * The Redis cache of remote JSON-LD contexts: PREFIXcontext:<MD5 of URL>, a
 * hash {url, body} that expires after LW_CONTEXT_CACHE_TTL_S, shared by all
 * workers. Plugs into LwDocumentLoader (common/document_loader.h).
 */
#ifndef LW_WORKERS_CONTEXT_CACHE_H
#define LW_WORKERS_CONTEXT_CACHE_H

#include <hiredis/hiredis.h>
#include <stddef.h>

#include "common/status.h"
#include "queue/keys.h"

#define LW_CONTEXT_CACHE_TTL_S 86400

typedef struct {
  redisContext *redis;
  const char *prefix;
} LwContextCache;

/* LwDocumentLoader.cache_get; handle is an LwContextCache. */
LwStatus lw_context_cache_get(void *handle, const char *url, char **body, size_t *len,
                              char **document_url);

/* LwDocumentLoader.cache_put; handle is an LwContextCache. */
void lw_context_cache_put(void *handle, const char *url, const char *body, size_t len,
                          const char *document_url);

#endif
