#include "queue/context_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/job.h"
#include "queue/keys.h"
#include "queue/redis_cmd.h"

/* KEYS: contexts (the index), context:<md5>
 * ARGV: md5, body, url, ttl s, max bytes (<= 0: none), now ms, context key head
 * Forgets index entries whose context expired, then evicts the oldest until
 * the body fits; stores it. Returns 1 cached, 0 larger than the cap alone. */
static LwScript put_script = {
  "local size = string.len(ARGV[2])\n"
  "local max = tonumber(ARGV[5])\n"
  "if max > 0 and size > max then return 0 end\n"
  "local total = 0\n"
  "local sizes = {}\n"
  "local members = redis.call('ZRANGE', KEYS[1], 0, -1)\n"
  "for _, m in ipairs(members) do\n"
  "  local s = redis.call('HGET', ARGV[7] .. m, 'size')\n"
  "  if not s or m == ARGV[1] then\n"
  "    redis.call('ZREM', KEYS[1], m)\n"
  "  else\n"
  "    sizes[m] = tonumber(s)\n"
  "    total = total + sizes[m]\n"
  "  end\n"
  "end\n"
  "for _, m in ipairs(members) do\n"
  "  if max <= 0 or total + size <= max then break end\n"
  "  if sizes[m] then\n"
  "    redis.call('DEL', ARGV[7] .. m)\n"
  "    redis.call('ZREM', KEYS[1], m)\n"
  "    total = total - sizes[m]\n"
  "  end\n"
  "end\n"
  "redis.call('DEL', KEYS[2])\n"
  "redis.call('HSET', KEYS[2], 'body', ARGV[2], 'url', ARGV[3], 'size', size)\n"
  "redis.call('EXPIRE', KEYS[2], ARGV[4])\n"
  /* strictly after the newest: two stores in one millisecond keep their
     * order (equal scores would sort by md5 and evict the wrong one) */
  "local score = tonumber(ARGV[6])\n"
  "local newest = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')\n"
  "if newest[2] and tonumber(newest[2]) >= score then score = tonumber(newest[2]) + 1 end\n"
  "redis.call('ZADD', KEYS[1], score, ARGV[1])\n"
  "return 1\n",
  ""};

LwStatus lw_context_store_get(redisContext *c, const char *prefix, const char *hash,
                              char **body, size_t *len, char **document_url)
{
  LwError err;
  LwKey key = lw_key(prefix, LW_KEY_CONTEXT, hash);
  redisReply *r = lw_redis_cmd(c, &err, "HMGET", key.s, "body", "url", NULL);
  LwStatus st = LW_NOTHING;
  if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
      r->element[0]->type == REDIS_REPLY_STRING &&
      r->element[1]->type == REDIS_REPLY_STRING) {
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

LwStatus lw_context_store_put(redisContext *c, const char *prefix, const char *hash,
                              const char *body, size_t len, const char *document_url,
                              long long ttl_s, long long max_bytes, LwError *err)
{
  char ttl[32], max[32], now[32];
  LwKey index = lw_key(prefix, LW_KEY_CONTEXTS, NULL);
  LwKey key = lw_key(prefix, LW_KEY_CONTEXT, hash);
  LwKey head = lw_key(prefix, LW_KEY_CONTEXT, "");
  snprintf(ttl, sizeof(ttl), "%lld", ttl_s);
  snprintf(max, sizeof(max), "%lld", max_bytes);
  snprintf(now, sizeof(now), "%lld", lw_now_ms());
  const char *argv[] = {index.s, key.s, hash, body, document_url, ttl, max, now, head.s};
  size_t lens[] = {strlen(index.s),      strlen(key.s), strlen(hash), len,
                   strlen(document_url), strlen(ttl),   strlen(max),  strlen(now),
                   strlen(head.s)};
  redisReply *r = lw_script_run(c, &put_script, 2, 9, argv, lens, err);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = r->type == REDIS_REPLY_INTEGER && r->integer == 0 ? LW_NOTHING : LW_OK;
  freeReplyObject(r);
  return st;
}
