#include "queue/records.h"

#include <stdio.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/record.h"
#include "queue/redis.h"

void lw_txn_seed_unset(LwTxn *txn, const char *seed, const char *field)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_SEED, seed);
  lw_txn_command(txn, 3, (const char *[]){"HDEL", key.s, field}, NULL);
}

void lw_txn_counter_add(LwTxn *txn, const char *counter, long long n)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_COUNTERS, NULL);
  char text[32];
  snprintf(text, sizeof(text), "%lld", n);
  lw_txn_command(txn, 4, (const char *[]){"HINCRBY", key.s, counter, text}, NULL);
}

void lw_txn_harvest_set(LwTxn *txn, const char *harvest, const char *field,
                        const char *value)
{
  lw_txn_hset(txn, lw_key(lw_txn_prefix(txn), LW_KEY_HARVEST, harvest).s, field, value);
}

void lw_txn_clean_of_set(LwTxn *txn, const char *content_key, const char *clean)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_CLEAN_OF, content_key);
  lw_txn_command(txn, 3, (const char *[]){"SET", key.s, clean}, NULL);
}

LwStatus lw_records_clean_of(redisContext *c, const char *prefix, const char *content_key,
                             char out[LW_HASH_HEX_LEN + 1], LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, "GET", lw_key(prefix, LW_KEY_CLEAN_OF, content_key).s,
                               NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = LW_NOTHING;
  if (r->type == REDIS_REPLY_STRING && r->len == LW_HASH_HEX_LEN) {
    memcpy(out, r->str, LW_HASH_HEX_LEN + 1);
    st = LW_OK;
  }
  freeReplyObject(r);
  return st;
}

LwStatus lw_records_harvest_get(redisContext *c, const char *prefix, const char *harvest,
                                json_t **out, LwError *err)
{
  return lw_record_get(c, lw_key(prefix, LW_KEY_HARVEST, harvest).s, out, err);
}
