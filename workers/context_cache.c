#include "workers/context_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "queue/keys.h"
#include "queue/redis.h"

static LwKey key_of(const LwContextCache *cache, const char *url)
{
  char hash[LW_HASH_HEX_LEN + 1];
  lw_md5_hex(url, strlen(url), hash);
  return lw_key(cache->prefix, LW_KEY_CONTEXT, hash);
}

LwStatus lw_context_cache_get(void *handle, const char *url, char **body, size_t *len,
                              char **document_url)
{
  LwContextCache *cache = handle;
  LwError err;
  LwKey key = key_of(cache, url);
  redisReply *r = lw_redis_cmd(cache->redis, &err, "HMGET", key.s, "body", "url", NULL);
  LwStatus st = LW_NOTHING;
  if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
      r->element[0]->type == REDIS_REPLY_STRING && r->element[1]->type == REDIS_REPLY_STRING) {
    *body = malloc(r->element[0]->len + 1);
    *document_url = strdup(r->element[1]->str);
    if (*body && *document_url) {
      memcpy(*body, r->element[0]->str, r->element[0]->len);
      (*body)[r->element[0]->len] = '\0';
      *len = r->element[0]->len;
      st = LW_OK;
    } else {
      free(*body);
      free(*document_url);
      *body = NULL;
      *document_url = NULL;
    }
  }
  if (r) {
    freeReplyObject(r);
  }
  return st;
}

void lw_context_cache_put(void *handle, const char *url, const char *body, size_t len,
                          const char *document_url)
{
  LwContextCache *cache = handle;
  LwError err;
  LwKey key = key_of(cache, url);
  char ttl[32];
  snprintf(ttl, sizeof(ttl), "%d", LW_CONTEXT_CACHE_TTL_S);
  const char *hset[] = {"HSET", key.s, "body", body, "url", document_url};
  size_t hset_len[] = {4, strlen(key.s), 4, len, 3, strlen(document_url)};
  redisReply *r = lw_redis_argv(cache->redis, 6, hset, hset_len, &err);
  if (r) {
    freeReplyObject(r);
    r = lw_redis_cmd(cache->redis, &err, "EXPIRE", key.s, ttl, NULL);
    if (r) {
      freeReplyObject(r);
    }
  }
}
