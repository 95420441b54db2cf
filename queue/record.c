#include "queue/record.h"

#include <stdlib.h>

#include "queue/redis_cmd.h"

LwStatus lw_record_from_reply(const redisReply *reply, json_t **out, LwError *err)
{
  *out = NULL;
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements == 0) {
    return LW_NOTHING;
  }
  json_t *obj = json_object();
  for (size_t i = 0; obj && i + 1 < reply->elements; i += 2) {
    redisReply *k = reply->element[i];
    redisReply *v = reply->element[i + 1];
    if (k->type == REDIS_REPLY_STRING && v->type == REDIS_REPLY_STRING) {
      json_object_set_new(obj, k->str, json_stringn(v->str, v->len));
    }
  }
  if (!obj) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  *out = obj;
  return LW_OK;
}

LwStatus lw_record_get(redisContext *c, const char *key, json_t **out, LwError *err)
{
  *out = NULL;
  redisReply *reply = lw_redis_cmd(c, err, "HGETALL", key, NULL);
  if (!reply) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = lw_record_from_reply(reply, out, err);
  freeReplyObject(reply);
  return st;
}

const char *lw_record_str(const json_t *record, const char *field, const char *def)
{
  const char *s = json_string_value(json_object_get(record, field));
  return s ? s : def;
}

long long lw_record_int(const json_t *record, const char *field, long long def)
{
  const char *s = lw_record_str(record, field, NULL);
  if (!s || !*s) {
    return def;
  }
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  return end && *end == '\0' ? v : def;
}
