#include "queue/controls.h"

#include <string.h>

#include "queue/keys.h"
#include "queue/redis.h"

static LwStatus reply_error(LwError *err)
{
  return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
}

/* SADD or SREM member: LW_OK when it changed the set, else LW_NOTHING. */
static LwStatus set_member(redisContext *c, const char *key, const char *member, bool in,
                           LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, in ? "SADD" : "SREM", key, member, NULL);
  if (!r) {
    return reply_error(err);
  }
  LwStatus st = r->type == REDIS_REPLY_INTEGER && r->integer > 0 ? LW_OK : LW_NOTHING;
  freeReplyObject(r);
  return st;
}

LwStatus lw_controls_stage_pause(redisContext *c, const char *prefix, const char *stage,
                                 bool pause, LwError *err)
{
  return set_member(c, lw_key(prefix, LW_KEY_PAUSED, NULL).s, stage, pause, err);
}

LwStatus lw_controls_paused(redisContext *c, const char *prefix, json_t **out,
                            LwError *err)
{
  *out = NULL;
  redisReply *r = lw_redis_cmd(c, err, "SMEMBERS", lw_key(prefix, LW_KEY_PAUSED, NULL).s,
                               NULL);
  if (!r) {
    return reply_error(err);
  }
  json_t *list = json_array();
  for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; ++i) {
    json_array_append_new(list, json_stringn(r->element[i]->str, r->element[i]->len));
  }
  freeReplyObject(r);
  *out = list;
  return LW_OK;
}

LwStatus lw_controls_unpaused(redisContext *c, const char *prefix,
                              const char *const *stages, size_t n, const char **out,
                              size_t *kept, LwError *err)
{
  *kept = 0;
  redisReply *r = lw_redis_cmd(c, err, "SMEMBERS", lw_key(prefix, LW_KEY_PAUSED, NULL).s,
                               NULL);
  if (!r) {
    return reply_error(err);
  }
  for (size_t i = 0; i < n; ++i) {
    bool paused = false;
    for (size_t j = 0; r->type == REDIS_REPLY_ARRAY && j < r->elements && !paused; ++j) {
      paused = !strcmp(r->element[j]->str, stages[i]);
    }
    if (!paused) {
      out[(*kept)++] = stages[i];
    }
  }
  freeReplyObject(r);
  return LW_OK;
}

LwStatus lw_controls_provider_hold(redisContext *c, const char *prefix, const char *name,
                                   bool hold, LwError *err)
{
  return set_member(c, lw_key(prefix, LW_KEY_HELD, NULL).s, name, hold, err);
}

LwStatus lw_controls_provider_held(redisContext *c, const char *prefix, const char *name,
                                   bool *held, LwError *err)
{
  *held = false;
  redisReply *r = lw_redis_cmd(c, err, "SISMEMBER", lw_key(prefix, LW_KEY_HELD, NULL).s,
                               name, NULL);
  if (!r) {
    return reply_error(err);
  }
  *held = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  freeReplyObject(r);
  return LW_OK;
}
