#include "workers/download_cap.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "queue/job.h"
#include "queue/keys.h"
#include "queue/redis.h"

#define PLACE_LEASE_MS 60000
#define PLACE_REFRESH_MS 10000

/* KEYS: downloadslots  ARGV: member, limit, lease ms.  Drops expired
 * leases, then takes (or renews) member's place: 1 got it, 0 all taken. */
static LwScript place_script = {
    "local t = redis.call('TIME')\n"
    "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
    "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
    "if redis.call('ZSCORE', KEYS[1], ARGV[1]) or\n"
    "   redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then\n"
    "  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])\n"
    "  return 1\n"
    "end\n"
    "return 0\n",
    ""};

/* The place this process holds (one worker frame per process). */
static char held_by[256];
static bool held;
static long long renewed_ms;

static bool take_place(redisContext *c, const LwConfig *cfg, const char *member)
{
  LwKey key = lw_key(cfg->prefix, LW_KEY_DOWNLOAD_SLOTS, NULL);
  char limit[32], lease[32];
  snprintf(limit, sizeof(limit), "%lld", cfg->download_workers);
  snprintf(lease, sizeof(lease), "%d", PLACE_LEASE_MS);
  const char *argv[] = {key.s, member, limit, lease};
  LwError err;
  redisReply *r = lw_script_run(c, &place_script, 1, 4, argv, NULL, &err);
  bool got = r && r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  freeReplyObject(r);
  if (got) {
    renewed_ms = lw_now_ms();
  }
  return got;
}

static void give_back(redisContext *c, const LwConfig *cfg)
{
  if (!held) {
    return;
  }
  LwError err;
  freeReplyObject(lw_redis_cmd(c, &err, "ZREM",
                               lw_key(cfg->prefix, LW_KEY_DOWNLOAD_SLOTS, NULL).s, held_by,
                               NULL));
  held = false;
}

size_t lw_download_cap_stages(redisContext *c, const LwConfig *cfg, const char *worker_id,
                              const char *const *stages, size_t n, const char **out)
{
  give_back(c, cfg);
  if (n > LW_DOWNLOAD_CAP_MAX_STAGES) {
    n = LW_DOWNLOAD_CAP_MAX_STAGES;
  }
  bool has_download = false;
  for (size_t i = 0; i < n; ++i) {
    out[i] = stages[i];
    has_download = has_download || !strcmp(stages[i], "download");
  }
  if (cfg->download_workers <= 0 || !has_download || n < 2) {
    return n;
  }
  if (take_place(c, cfg, worker_id)) {
    snprintf(held_by, sizeof(held_by), "%s", worker_id);
    held = true;
    return n;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) {
    if (strcmp(stages[i], "download") != 0) {
      out[m++] = stages[i];
    }
  }
  return m;
}

void lw_download_cap_keep(redisContext *c, const LwConfig *cfg, const char *stage)
{
  if (!stage || strcmp(stage, "download") != 0) {
    give_back(c, cfg);
  }
}

void lw_download_cap_refresh(redisContext *c, const LwConfig *cfg)
{
  if (held && lw_now_ms() - renewed_ms > PLACE_REFRESH_MS) {
    take_place(c, cfg, held_by);
  }
}
