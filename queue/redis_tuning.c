#include "queue/redis_tuning.h"

#include <stdlib.h>
#include <string.h>

#include "queue/redis_cmd.h"

static LwStatus config_get(LwRecords *c, const char *name, long long *value)
{
  LwError ignored; /* a refused CONFIG is no error of ours */
  redisReply *r = lw_redis_cmd(c, &ignored, "CONFIG", "GET", name, NULL);
  LwStatus st = LW_NOTHING;
  if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
      r->element[1]->type == REDIS_REPLY_STRING) {
    *value = atoll(r->element[1]->str);
    st = LW_OK;
  }
  freeReplyObject(r);
  return st;
}

LwStatus lw_redis_listpack_value(LwRecords *c, long long *value, LwError *err)
{
  *value = 0;
  if (config_get(c, "hash-max-listpack-value", value) == LW_OK ||
      config_get(c, "hash-max-ziplist-value", value) == LW_OK) {
    return LW_OK;
  }
  if (!lw_records_usable(c)) {
    return lw_error_set(err, LW_ERR_REDIS, "Redis: %s", c->errstr);
  }
  return LW_NOTHING;
}
