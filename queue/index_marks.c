#include "queue/index_marks.h"

#include <stdio.h>

#include "queue/job.h"
#include "queue/keys.h"
#include "queue/redis_cmd.h"

LwStatus lw_index_is_built(LwRecords *c, const char *prefix, const char *name, bool *built,
                           LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, "HEXISTS", lw_key(prefix, LW_KEY_INDEXES, NULL).s,
                               name, NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  *built = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  freeReplyObject(r);
  return LW_OK;
}

LwStatus lw_index_mark_built(LwRecords *c, const char *prefix, const char *name,
                             LwError *err)
{
  char now[32];
  snprintf(now, sizeof(now), "%lld", lw_now_ms());
  redisReply *r = lw_redis_cmd(c, err, "HSET", lw_key(prefix, LW_KEY_INDEXES, NULL).s, name,
                               now, NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  freeReplyObject(r);
  return LW_OK;
}
