#include "workers/context_cache.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "queue/context_store.h"

static void url_md5(const char *url, char hash[LW_HASH_HEX_LEN + 1])
{
  lw_md5_hex(url, strlen(url), hash);
}

bool lw_context_cache_is_context(const char *body, size_t len)
{
  json_t *doc = json_loadb(body, len, 0, NULL);
  bool ok = json_is_object(doc) && json_object_get(doc, "@context") != NULL;
  json_decref(doc);
  return ok;
}

LwStatus lw_context_cache_get(void *handle, const char *url, char **body, size_t *len,
                              char **document_url)
{
  LwContextCache *cache = handle;
  char hash[LW_HASH_HEX_LEN + 1];
  url_md5(url, hash);
  return lw_context_store_get(cache->redis, cache->prefix, hash, body, len, document_url);
}

void lw_context_cache_put(void *handle, const char *url, const char *body, size_t len,
                          const char *document_url)
{
  LwContextCache *cache = handle;
  if (!lw_context_cache_is_context(body, len)) {
    lw_debug("url=\"%s\" msg=\"not a JSON-LD context: not cached\"", url);
    return;
  }
  char hash[LW_HASH_HEX_LEN + 1];
  url_md5(url, hash);
  LwError err;
  LwStatus st = lw_context_store_put(cache->redis, cache->prefix, hash, body, len,
                                     document_url, LW_CONTEXT_CACHE_TTL_S, cache->max_bytes,
                                     &err);
  if (st > LW_NOTHING) {
    lw_warn("url=\"%s\" msg=\"context not cached\" error=\"%s\"", url, err.message);
  } else if (st == LW_NOTHING) {
    lw_info("url=\"%s\" bytes=%zu msg=\"context larger than the cache: not cached\"", url,
            len);
  }
}
