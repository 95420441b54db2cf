#include "tests/support/redis_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/redis_cmd.h"
#include "queue/scripts.h"
#include "tests/support/check.h"

redisContext *lw_test_redis(void)
{
  const char *url = lw_test_require_redis();
  redisContext *c = NULL;
  LwError err;
  if (lw_redis_connect(url, &c, &err) != LW_OK) {
    fprintf(stderr, "test Redis unreachable: %s\n", err.message);
    exit(1);
  }
  return c;
}

void lw_test_redis_config(LwConfig *cfg, const char *name)
{
  lw_config_init(cfg);
  lw_config_set(cfg, "redis", lw_test_require_redis(), NULL);
  lw_config_set(cfg, "prefix", lw_test_prefix(name), NULL);
  cfg->retry_base_ms = 100;
  cfg->retry_max_ms = 1000;
  cfg->max_attempts = 3;
  cfg->heartbeat_ttl_s = 1;
}

void lw_test_redis_cleanup(redisContext *c, const char *prefix)
{
  char pattern[512];
  snprintf(pattern, sizeof(pattern), "%s*", prefix);
  char cursor[32] = "0";
  do {
    redisReply *r = redisCommand(c, "SCAN %s MATCH %s COUNT 1000", cursor, pattern);
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
      freeReplyObject(r);
      return;
    }
    snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
    for (size_t i = 0; i < r->element[1]->elements; ++i) {
      redisReply *d = redisCommand(c, "UNLINK %s", r->element[1]->element[i]->str);
      freeReplyObject(d);
    }
    freeReplyObject(r);
  } while (strcmp(cursor, "0") != 0);
}

long long lw_test_redis_int(redisContext *c, const char *arg0, ...)
{
  const char *argv[32];
  int argc = 0;
  va_list args;
  va_start(args, arg0);
  for (const char *a = arg0; a && argc < 32; a = va_arg(args, const char *)) {
    argv[argc++] = a;
  }
  va_end(args);
  redisReply *r = redisCommandArgv(c, argc, argv, NULL);
  long long v = -1;
  if (r && r->type == REDIS_REPLY_INTEGER) {
    v = r->integer;
  } else if (r && r->type == REDIS_REPLY_STRING) {
    v = strtoll(r->str, NULL, 10);
  } else if (r && r->type == REDIS_REPLY_NIL) {
    v = 0;
  }
  freeReplyObject(r);
  return v;
}

/* The lanes of the ring KEYS[1], for the Lua below. */
#define EACH_LANE "for _, h in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do local lane = KEYS[1] .. ':' .. h\n"

/* The queue's own scripts on stage's ring: its depth and its drain. */
static redisReply *queue_script(redisContext *c, LwScript *script, const char *prefix,
                                const char *stage)
{
  LwKey queue = lw_key(prefix, LW_KEY_QUEUE, stage);
  const char *argv[] = {queue.s};
  LwError err;
  return lw_script_run(c, script, 1, 1, argv, NULL, &err);
}

long long lw_test_queue_len(redisContext *c, const char *prefix, const char *stage)
{
  redisReply *r = queue_script(c, &lw_script_depth, prefix, stage);
  long long n = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
  freeReplyObject(r);
  return n;
}

redisReply *lw_test_queue_jobs(redisContext *c, const char *prefix, const char *stage)
{
  return redisCommand(c, "EVAL %s 1 %s",
                      "local out = {}\n" EACH_LANE
                      "for _, j in ipairs(redis.call('LRANGE', lane, 0, -1)) do out[#out + 1] = j end\n"
                      "end\nreturn out\n",
                      lw_key(prefix, LW_KEY_QUEUE, stage).s);
}

redisReply *lw_test_queue_next(redisContext *c, const char *prefix, const char *stage)
{
  return redisCommand(c, "EVAL %s 1 %s",
                      "local h = redis.call('LINDEX', KEYS[1], -1)\n"
                      "if not h then return false end\n"
                      "return redis.call('LINDEX', KEYS[1] .. ':' .. h, -1)\n",
                      lw_key(prefix, LW_KEY_QUEUE, stage).s);
}

void lw_test_queue_clear(redisContext *c, const char *prefix, const char *stage)
{
  freeReplyObject(queue_script(c, &lw_script_drain, prefix, stage));
}

redisContext *lw_test_monitor_start(redisContext *rc)
{
  redisContext *mon = redisConnect(rc->tcp.host, rc->tcp.port);
  CHECK(mon && !mon->err);
  if (!mon || mon->err) {
    redisFree(mon);
    return NULL;
  }
  struct timeval tv = {10, 0};
  redisSetTimeout(mon, tv);
  redisReply *ok = redisCommand(mon, "MONITOR");
  CHECK(ok && ok->type == REDIS_REPLY_STATUS);
  freeReplyObject(ok);
  return mon;
}

bool lw_test_monitor_until(redisContext *mon, const char *prefix, const char *marker,
                           void (*seen)(void *arg, const char *line), void *arg)
{
  for (;;) {
    redisReply *r = NULL;
    if (!mon || redisGetReply(mon, (void **)&r) != REDIS_OK || !r) {
      CHECK(!"MONITOR ended before the marker");
      return false;
    }
    bool ours = r->type == REDIS_REPLY_STATUS && strstr(r->str, prefix);
    bool end = ours && strstr(r->str, marker);
    if (ours && !end) {
      seen(arg, r->str);
    }
    freeReplyObject(r);
    if (end) {
      return true;
    }
  }
}

static void count_own(void *arg, const char *line)
{
  if (!strstr(line, " lua]")) { /* not a command a script ran */
    ++*(int *)arg;
  }
}

int lw_test_monitor_calls(redisContext *rc, redisContext *mon, const char *prefix)
{
  char marker[256];
  snprintf(marker, sizeof(marker), "%send-of-calls", prefix);
  freeReplyObject(redisCommand(rc, "ECHO %s", marker));
  int calls = 0;
  bool ok = lw_test_monitor_until(mon, prefix, marker, count_own, &calls);
  redisFree(mon);
  return ok ? calls : -1;
}
