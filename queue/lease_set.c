#include "queue/lease_set.h"

#include <stdio.h>
#include <time.h>

#include "queue/job.h"
#include "queue/keys.h"
#include "queue/redis_cmd.h"

/* KEYS[1] the lease set; ARGV: holder, limit, lease ms. */
static LwScript take_script = {
  LW_LUA_NOW_MS LW_LUA_LEASE_TAKE
  "return lease_take(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) and 1 or 0\n",
  ""};

/* KEYS: the lease set, the waiting harvests, when each was served;
 * ARGV: holder, limit, lease ms, harvest, waiting ms. */
static LwScript fair_take_script = {
  LW_LUA_NOW_MS
  "local lease, h = tonumber(ARGV[3]), ARGV[4]\n"
  "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
  "if redis.call('ZSCORE', KEYS[1], ARGV[1]) then\n"
  "  redis.call('ZADD', KEYS[1], now + lease, ARGV[1])\n"
  "  redis.call('PEXPIRE', KEYS[1], lease)\n"
  "  return 1\n"
  "end\n"
  "redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[5]))\n"
  "redis.call('ZADD', KEYS[2], now, h)\n"
  "redis.call('PEXPIRE', KEYS[2], lease)\n"
  "if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end\n"
  /* the waiting harvest served longest ago (a lease ago counts as never):
   * this one, or it waits */
  "redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - lease)\n"
  "local mine = tonumber(redis.call('ZSCORE', KEYS[3], h) or '0')\n"
  "for _, o in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do\n"
  "  if o ~= h and tonumber(redis.call('ZSCORE', KEYS[3], o) or '0') < mine then\n"
  "    return 0\n"
  "  end\n"
  "end\n"
  "redis.call('ZADD', KEYS[1], now + lease, ARGV[1])\n"
  "redis.call('PEXPIRE', KEYS[1], lease)\n"
  "redis.call('ZREM', KEYS[2], h)\n"
  "redis.call('ZADD', KEYS[3], now, h)\n"
  /* the 32 served last are enough: any other counts as served longest ago */
  "redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -33)\n"
  "redis.call('PEXPIRE', KEYS[3], lease)\n"
  "return 1\n",
  ""};

static int lease_set_take(redisContext *c, const char *key, const char *member,
                          long long limit, long long lease_ms, LwError *err)
{
  char limit_text[32], lease_text[32];
  snprintf(limit_text, sizeof(limit_text), "%lld", limit);
  snprintf(lease_text, sizeof(lease_text), "%lld", lease_ms);
  const char *argv[] = {key, member, limit_text, lease_text};
  redisReply *reply = lw_script_run(c, &take_script, 1, 4, argv, NULL, err);
  if (!reply) {
    return -1;
  }
  int got = reply->type == REDIS_REPLY_INTEGER && reply->integer == 1;
  freeReplyObject(reply);
  return got;
}

static void lease_set_release(redisContext *c, const char *key, const char *member)
{
  LwError err;
  freeReplyObject(lw_redis_cmd(c, &err, "ZREM", key, member, NULL));
}

int lw_host_slot_take(redisContext *c, const char *prefix, const char *host,
                      const char *member, long long limit, long long lease_ms, LwError *err)
{
  return lease_set_take(c, lw_key(prefix, LW_KEY_HOST_SLOTS, host).s, member, limit,
                        lease_ms, err);
}

int lw_host_slot_take_fair(redisContext *c, const char *prefix, const char *host,
                           const char *member, const char *harvest, long long limit,
                           long long lease_ms, LwError *err)
{
  LwKey slots = lw_key(prefix, LW_KEY_HOST_SLOTS, host);
  LwKey waiting = lw_key(prefix, LW_KEY_HOST_WAITING, host);
  LwKey served = lw_key(prefix, LW_KEY_HOST_SERVED, host);
  char limit_text[32], lease_text[32], waiting_text[32];
  snprintf(limit_text, sizeof(limit_text), "%lld", limit);
  snprintf(lease_text, sizeof(lease_text), "%lld", lease_ms);
  snprintf(waiting_text, sizeof(waiting_text), "%d", LW_HOST_WAITING_MS);
  const char *argv[] = {slots.s,    waiting.s, served.s,         member,
                        limit_text, lease_text, harvest ? harvest : "", waiting_text};
  redisReply *reply = lw_script_run(c, &fair_take_script, 3, 8, argv, NULL, err);
  if (!reply) {
    return -1;
  }
  int got = reply->type == REDIS_REPLY_INTEGER && reply->integer == 1;
  freeReplyObject(reply);
  return got;
}

void lw_host_slot_release(redisContext *c, const char *prefix, const char *host,
                          const char *member)
{
  lease_set_release(c, lw_key(prefix, LW_KEY_HOST_SLOTS, host).s, member);
}

int lw_host_slot_wait(redisContext *c, const char *prefix, const char *host,
                      const char *member, long long limit, long long lease_ms,
                      long long max_wait_ms, bool (*keep_going)(void *user), void *user,
                      LwError *err)
{
  long long start = lw_now_ms();
  for (;;) {
    int got = lw_host_slot_take(c, prefix, host, member, limit, lease_ms, err);
    if (got != 0) {
      return got;
    }
    if (!keep_going(user)) {
      return -2;
    }
    if (lw_now_ms() - start >= max_wait_ms) {
      return 0;
    }
    struct timespec step = {0, LW_HOST_SLOT_WAIT_STEP_MS * 1000000L};
    nanosleep(&step, NULL);
  }
}

int lw_download_slot_take(redisContext *c, const char *prefix, const char *member,
                          long long limit, long long lease_ms, LwError *err)
{
  return lease_set_take(c, lw_key(prefix, LW_KEY_DOWNLOAD_SLOTS, NULL).s, member, limit,
                        lease_ms, err);
}

void lw_download_slot_release(redisContext *c, const char *prefix, const char *member)
{
  lease_set_release(c, lw_key(prefix, LW_KEY_DOWNLOAD_SLOTS, NULL).s, member);
}
