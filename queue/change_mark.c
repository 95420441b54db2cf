/*
 * The records' change mark (queue/records.h): a few cheap reads, one round
 * trip, so that a periodic job (the metadata graph's export) can tell
 * "nothing happened" without walking every record.
 */
#include "queue/records.h"

#include <string.h>

#include "queue/keys.h"
#include "queue/redis_cmd.h"

/* Feeds one reply (an integer, a string or an array of them) to md5. */
static void feed(LwMd5 *md5, const redisReply *r)
{
  if (r->type == REDIS_REPLY_INTEGER) {
    lw_md5_update(md5, &r->integer, sizeof(r->integer));
  } else if (r->type == REDIS_REPLY_STRING) {
    lw_md5_update(md5, r->str, r->len + 1); /* the NUL separates the strings */
  } else if (r->type == REDIS_REPLY_ARRAY) {
    for (size_t i = 0; i < r->elements; ++i) {
      feed(md5, r->element[i]);
    }
  }
  lw_md5_update(md5, "|", 1);
}

LwStatus lw_records_change_mark(redisContext *c, const char *prefix,
                                const char *const *stages, size_t n,
                                char out[LW_HASH_HEX_LEN + 1], LwError *err)
{
  redisAppendCommand(c, "DBSIZE");
  redisAppendCommand(c, "HGETALL %s", lw_key(prefix, LW_KEY_SEED_COUNTS, NULL).s);
  for (size_t i = 0; i < n; ++i) {
    redisAppendCommand(c, "HGETALL %s", lw_key(prefix, LW_KEY_STATS, stages[i]).s);
  }
  LwMd5 *md5 = lw_md5_new();
  LwStatus st = md5 ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < n + 2; ++i) {
    redisReply *r = NULL;
    if (redisGetReply(c, (void **)&r) != REDIS_OK || !r) {
      st = lw_error_set(err, LW_ERR_REDIS, "Redis: %s", c->errstr);
      break; /* the connection is not usable any more: no more replies */
    }
    if (md5) {
      feed(md5, r);
    }
    freeReplyObject(r);
  }
  if (md5) {
    lw_md5_finish(md5, out);
  }
  lw_md5_free(md5);
  return st;
}
