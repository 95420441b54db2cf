#include "queue/registry_state.h"

#include <stdlib.h>
#include <string.h>

#include "queue/job.h"
#include "queue/keys.h"
#include "queue/redis_cmd.h"

static LwStatus reply_error(LwError *err)
{
  return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
}

static LwStatus done(redisReply *r, LwError *err)
{
  if (!r) {
    return reply_error(err);
  }
  freeReplyObject(r);
  return LW_OK;
}

LwStatus lw_registry_state_good(LwRecords *c, const char *prefix, const char *text,
                                size_t len, long long now_ms, LwError *err)
{
  LwKey key = lw_key(prefix, LW_KEY_REGISTRY, NULL);
  char now[24];
  snprintf(now, sizeof(now), "%lld", now_ms);
  const char *argv[] = {"HSET", key.s, "text", text, "loaded", now};
  const size_t lens[] = {4, strlen(key.s), 4, len, 6, strlen(now)};
  LW_TRY(done(lw_redis_argv(c, 6, argv, lens, err), err));
  return done(lw_redis_cmd(c, err, "HDEL", key.s, "error", "error_at", NULL), err);
}

LwStatus lw_registry_state_bad(LwRecords *c, const char *prefix, const char *message,
                               long long now_ms, LwError *err)
{
  char now[24];
  snprintf(now, sizeof(now), "%lld", now_ms);
  return done(lw_redis_cmd(c, err, "HSET", lw_key(prefix, LW_KEY_REGISTRY, NULL).s, "error",
                           message, "error_at", now, NULL),
              err);
}

/* The last good text and when it was read ("" and 0 when never). */
static LwStatus last_good(LwRecords *c, const char *prefix, char **text, size_t *len,
                          long long *loaded, LwError *err)
{
  *text = NULL;
  *len = 0;
  *loaded = 0;
  redisReply *r = lw_redis_cmd(c, err, "HMGET", lw_key(prefix, LW_KEY_REGISTRY, NULL).s,
                               "text", "loaded", NULL);
  if (!r) {
    return reply_error(err);
  }
  if (r->type == REDIS_REPLY_ARRAY && r->elements == 2) {
    if (r->element[0]->type == REDIS_REPLY_STRING) {
      *text = malloc(r->element[0]->len + 1);
      if (*text) {
        memcpy(*text, r->element[0]->str, r->element[0]->len + 1);
        *len = r->element[0]->len;
      }
    }
    if (r->element[1]->type == REDIS_REPLY_STRING) {
      *loaded = strtoll(r->element[1]->str, NULL, 10);
    }
  }
  freeReplyObject(r);
  return LW_OK;
}

LwStatus lw_registry_state_load(LwRecords *c, const LwConfig *cfg, LwRegistry **out,
                                json_t **state, LwError *err)
{
  *out = NULL;
  *state = json_pack("{s:b, s:s}", "ok", 1, "path", cfg->registry);
  LwError ferr;
  lw_error_clear(&ferr);
  LwStatus fst = lw_registry_load(cfg->registry, out, &ferr);
  char *text = NULL;
  size_t len = 0;
  long long loaded = 0;
  LwError rerr;
  LwStatus rst = c ? last_good(c, cfg->prefix, &text, &len, &loaded, &rerr) : LW_NOTHING;
  json_object_set_new(*state, "last_good_ms",
                      json_integer(fst == LW_OK && !loaded ? lw_now_ms() : loaded));
  if (fst == LW_OK) {
    free(text);
    return LW_OK;
  }
  json_object_set_new(*state, "ok", json_false());
  json_object_set_new(*state, "error", json_string(ferr.message));
  if (rst == LW_OK && text) {
    char name[1100];
    snprintf(name, sizeof(name), "%s (the last good registry)", cfg->registry);
    fst = lw_registry_parse(text, len, name, out, &ferr);
  } else if (rst > LW_NOTHING) {
    fst = rst;
    ferr = rerr;
  }
  free(text);
  if (fst != LW_OK && err) {
    *err = ferr;
  }
  return fst;
}
