/*
 * The stored side of the JSON-LD context cache (workers/context_cache.h
 * decides what is cached):
 *
 *   context:<MD5 of URL>  hash {url, body, size}, with a TTL
 *   contexts              zset: MD5 of URL -> when it was cached (ms), the
 *                         cache's index, oldest first
 */
#ifndef LW_QUEUE_CONTEXT_STORE_H
#define LW_QUEUE_CONTEXT_STORE_H

#include <stddef.h>

#include "base/base.h"
#include "queue/redis.h"

/* The context cached for the URL whose MD5 is hash: LW_OK with *body (NUL-
 * terminated), *len and *document_url (both the caller's); LW_NOTHING when
 * none is cached or Redis cannot say (a cache miss). */
LwStatus lw_context_store_get(LwRecords *c, const char *prefix, const char *hash,
                              char **body, size_t *len, char **document_url);

/* Stores body (len bytes, from document_url) as the context of hash for
 * ttl_s seconds. In one script: index entries whose context expired are
 * forgotten, then the oldest contexts evicted until the bodies total at
 * most max_bytes (<= 0: no cap), so workers storing at once never overshoot.
 * LW_OK stored; LW_NOTHING larger than max_bytes alone (not stored). */
LwStatus lw_context_store_put(LwRecords *c, const char *prefix, const char *hash,
                              const char *body, size_t len, const char *document_url,
                              long long ttl_s, long long max_bytes, LwError *err);

#endif
