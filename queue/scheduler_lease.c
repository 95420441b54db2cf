#include "queue/scheduler_lease.h"

#include <stdio.h>

#include "queue/keys.h"
#include "queue/redis_cmd.h"

/* KEYS: lease  ARGV: id, ttl ms
 * Takes the lease if free, renews it if ours. 1 held, 0 someone else's. */
static LwScript lease_script = {"local v = redis.call('GET', KEYS[1])\n"
                                "if v and v ~= ARGV[1] then return 0 end\n"
                                "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])\n"
                                "return 1\n",
                                ""};

/* KEYS: lease  ARGV: id.  Deletes the lease if ours. */
static LwScript release_script = {"if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
                                  "  return redis.call('DEL', KEYS[1])\n"
                                  "end\n"
                                  "return 0\n",
                                  ""};

LwStatus lw_scheduler_lease_take(redisContext *c, const char *prefix, const char *id,
                                 long long ttl_ms, LwError *err)
{
  LwKey key = lw_key(prefix, LW_KEY_SCHEDULER_LEASE, NULL);
  char ttl[32];
  snprintf(ttl, sizeof(ttl), "%lld", ttl_ms);
  const char *argv[] = {key.s, id, ttl};
  bool held = false;
  LW_TRY(lw_script_run_yes(c, &lease_script, 1, 3, argv, &held, err));
  return held ? LW_OK : LW_NOTHING;
}

void lw_scheduler_lease_release(redisContext *c, const char *prefix, const char *id)
{
  LwKey key = lw_key(prefix, LW_KEY_SCHEDULER_LEASE, NULL);
  const char *argv[] = {key.s, id};
  freeReplyObject(lw_script_run(c, &release_script, 1, 2, argv, NULL, NULL));
}

LwStatus lw_scheduler_lease_read(redisContext *c, const char *prefix, char *holder,
                                 size_t holder_size, long long *ttl_ms, LwError *err)
{
  LwKey key = lw_key(prefix, LW_KEY_SCHEDULER_LEASE, NULL);
  redisReply *who = lw_redis_cmd(c, err, "GET", key.s, NULL);
  redisReply *ttl = who ? lw_redis_cmd(c, err, "PTTL", key.s, NULL) : NULL;
  if (!who || !ttl) {
    freeReplyObject(who);
    return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
  }
  bool held = who->type == REDIS_REPLY_STRING;
  snprintf(holder, holder_size, "%s", held ? who->str : "");
  *ttl_ms = held && ttl->type == REDIS_REPLY_INTEGER && ttl->integer > 0 ? ttl->integer
                                                                         : -1;
  freeReplyObject(who);
  freeReplyObject(ttl);
  return LW_OK;
}
