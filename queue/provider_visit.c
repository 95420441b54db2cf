#include "queue/provider_visit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/redis_cmd.h"

/* KEYS: provider, the collection's provider index
 * ARGV: "1" visit ok / "0" failed, error, name, field, value, ...
 * Records a visit; the state moves to idle (ok, no failed harvest pending)
 * or error, but never away from harvesting, which only the claim and the
 * end of a harvest change. A provider whose VoID lists dumps joins the
 * index (queue/gc_index.h). */
static LwScript visit_script = {
  "for i = 4, #ARGV, 2 do\n"
  "  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])\n"
  "  if ARGV[i] == 'void_dumps' then redis.call('SADD', KEYS[2], ARGV[3]) end\n"
  "end\n"
  "local state = redis.call('HGET', KEYS[1], 'state')\n"
  "local failures = tonumber(redis.call('HGET', KEYS[1], 'failures') or '0')\n"
  "if ARGV[1] == '1' then\n"
  "  if failures == 0 then redis.call('HSET', KEYS[1], 'error', '') end\n"
  "  if state ~= 'harvesting' then\n"
  "    redis.call('HSET', KEYS[1], 'state', failures > 0 and 'error' or 'idle')\n"
  "  end\n"
  "else\n"
  "  redis.call('HSET', KEYS[1], 'error', ARGV[2])\n"
  "  if state ~= 'harvesting' then redis.call('HSET', KEYS[1], 'state', 'error') end\n"
  "end\n"
  "return 1\n",
  ""};

LwStatus lw_provider_record_visit(redisContext *c, const char *prefix, const char *name,
                                  bool ok, const char *error, const char *const *fields,
                                  size_t n, LwError *err)
{
  LwKey key = lw_key(prefix, LW_KEY_PROVIDER, name);
  LwKey index = lw_key(prefix, LW_KEY_PROVIDER_INDEX, NULL);
  const char *argv[5 + LW_PROVIDER_VISIT_FIELDS_MAX];
  size_t argc = 0;
  argv[argc++] = key.s;
  argv[argc++] = index.s;
  argv[argc++] = ok ? "1" : "0";
  argv[argc++] = error ? error : "";
  argv[argc++] = name;
  for (size_t i = 0; i < n && i < LW_PROVIDER_VISIT_FIELDS_MAX; ++i) {
    argv[argc++] = fields[i];
  }
  redisReply *r = lw_script_run(c, &visit_script, 2, (int)argc, argv, NULL, err);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  freeReplyObject(r);
  return LW_OK;
}

LwStatus lw_provider_kept_void(redisContext *c, const char *prefix, const char *name,
                               char **body, size_t *len, char *content_type,
                               size_t content_type_size, LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, "HMGET", lw_key(prefix, LW_KEY_PROVIDER, name).s,
                               "void_body", "void_type", NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus out = LW_NOTHING;
  if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
      r->element[0]->type == REDIS_REPLY_STRING) {
    *len = r->element[0]->len;
    *body = malloc(*len + 1);
    if (*body) {
      memcpy(*body, r->element[0]->str, *len);
      (*body)[*len] = '\0';
      if (r->element[1]->type == REDIS_REPLY_STRING) {
        snprintf(content_type, content_type_size, "%s", r->element[1]->str);
      }
      out = LW_OK;
    } else {
      out = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
  }
  freeReplyObject(r);
  return out;
}

LwStatus lw_provider_harvested_datasets(redisContext *c, const char *prefix,
                                        const char *name, char **json, LwError *err)
{
  *json = NULL;
  redisReply *r = lw_redis_cmd(c, err, "HGET", lw_key(prefix, LW_KEY_PROVIDER, name).s,
                               "harvested_datasets", NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = LW_NOTHING;
  if (r->type == REDIS_REPLY_STRING) {
    *json = strdup(r->str);
    st = *json ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  freeReplyObject(r);
  return st;
}

LwStatus lw_provider_set_pending(redisContext *c, const char *prefix, const char *name,
                                 const char *version, bool forced, LwError *err)
{
  LwKey key = lw_key(prefix, LW_KEY_PROVIDER, name);
  redisReply *r = forced ? lw_redis_cmd(c, err, "HSET", key.s, "pending", version, "force",
                                        "1", NULL)
                         : lw_redis_cmd(c, err, "HSET", key.s, "pending", version, NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  freeReplyObject(r);
  return LW_OK;
}
