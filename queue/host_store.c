#include "queue/host_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/redis_cmd.h"

/* KEYS: hostpace:<host>  ARGV: interval ms.  Reserves the host's next turn:
 * returns how many ms to wait for it and the time of the turn after it. */
static LwScript pace_script = {
  LW_LUA_NOW_MS
  "local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')\n"
  "local at = math.max(now, nxt)\n"
  "local gap = tonumber(ARGV[1])\n"
  "redis.call('SET', KEYS[1], at + gap, 'PX', at + gap - now + 1000)\n"
  "return {at - now, at + gap}\n",
  ""};

/* KEYS: hostpace:<host>  ARGV: the turn after the one given back, interval
 * ms.  Gives an unused turn back, unless a later one was reserved since. */
static LwScript pace_back_script = {
  "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end\n"
  LW_LUA_NOW_MS
  "local at = tonumber(ARGV[1]) - tonumber(ARGV[2])\n"
  "if at <= now then redis.call('DEL', KEYS[1]) return 1 end\n"
  "redis.call('SET', KEYS[1], at, 'PX', at - now + 1000)\n"
  "return 1\n",
  ""};

LwStatus lw_robots_cache_get(redisContext *c, const char *prefix, const char *origin,
                             char state[16], char **body, size_t *len, LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, "HMGET", lw_key(prefix, LW_KEY_ROBOTS, origin).s,
                               "state", body ? "body" : NULL, NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  bool cached = r->type == REDIS_REPLY_ARRAY && r->elements == (body ? 2u : 1u) &&
                r->element[0]->type == REDIS_REPLY_STRING;
  if (cached) {
    snprintf(state, 16, "%s", r->element[0]->str);
    if (body && r->element[1]->type == REDIS_REPLY_STRING) {
      *len = r->element[1]->len;
      *body = malloc(*len + 1);
      if (*body) {
        memcpy(*body, r->element[1]->str, *len);
        (*body)[*len] = '\0';
      }
    }
  }
  freeReplyObject(r);
  return cached ? LW_OK : LW_NOTHING;
}

void lw_robots_cache_put(redisContext *c, const char *prefix, const char *origin,
                         const char *state, const char *body, size_t len, long long ttl_s,
                         LwError *err)
{
  LwKey key = lw_key(prefix, LW_KEY_ROBOTS, origin);
  char ttl_text[32];
  snprintf(ttl_text, sizeof(ttl_text), "%lld", ttl_s);
  const char *argv[] = {"HSET", key.s, "state", state, "body", body ? body : ""};
  size_t lens[] = {4, strlen(key.s), 5, strlen(state), 4, body ? len : 0};
  freeReplyObject(lw_redis_argv(c, 6, argv, lens, err));
  freeReplyObject(lw_redis_cmd(c, err, "EXPIRE", key.s, ttl_text, NULL));
}

LwStatus lw_host_pace_reserve(redisContext *c, const char *prefix, const char *host,
                              long long gap_ms, long long *wait_ms, long long *next_ms,
                              LwError *err)
{
  LwKey key = lw_key(prefix, LW_KEY_HOST_PACE, host);
  char gap_text[32];
  snprintf(gap_text, sizeof(gap_text), "%lld", gap_ms);
  const char *argv[] = {key.s, gap_text};
  redisReply *r = lw_script_run(c, &pace_script, 1, 2, argv, NULL, err);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  bool ok = r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
            r->element[0]->type == REDIS_REPLY_INTEGER &&
            r->element[1]->type == REDIS_REPLY_INTEGER;
  *wait_ms = ok ? r->element[0]->integer : 0;
  *next_ms = ok ? r->element[1]->integer : 0;
  freeReplyObject(r);
  return LW_OK;
}

void lw_host_pace_give_back(redisContext *c, const char *prefix, const char *host,
                            long long next_ms, long long gap_ms)
{
  LwKey key = lw_key(prefix, LW_KEY_HOST_PACE, host);
  char next_text[32], gap_text[32];
  snprintf(next_text, sizeof(next_text), "%lld", next_ms);
  snprintf(gap_text, sizeof(gap_text), "%lld", gap_ms);
  const char *argv[] = {key.s, next_text, gap_text};
  LwError ignored;
  freeReplyObject(lw_script_run(c, &pace_back_script, 1, 3, argv, NULL, &ignored));
}
