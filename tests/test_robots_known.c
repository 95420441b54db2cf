/* Whether a URL's robots.txt is known (politeness/politeness.h), as a
 * download among many asks before each request: from the Redis cache the
 * first time, then from the process's memory for a minute, without a round
 * trip (lw_host_turn_take reads the entry itself right after). */
#include <stdio.h>
#include <string.h>

#include "politeness/politeness.h"
#include "queue/host_store.h"
#include "tests/support/check.h"
#include "tests/support/redis_support.h"

static redisContext *c;
static LwConfig cfg;

/* The calls lw_robots_known sent to Redis for url (MONITOR). */
static int calls_of(const char *url, bool *known)
{
  redisContext *mon = lw_test_monitor_start(c);
  *known = lw_robots_known(c, &cfg, url);
  return lw_test_monitor_calls(c, mon, cfg.prefix);
}

int main(void)
{
  c = lw_test_redis();
  lw_test_redis_config(&cfg, "robotsknown");
  lw_test_redis_cleanup(c, cfg.prefix);
  const char *origin = "http://127.0.0.2:9", *url = "http://127.0.0.2:9/dump.nt",
             *other = "http://127.0.0.3:9/dump.nt";

  bool known = true;
  CHECK_INT_EQ(calls_of(url, &known), 1);
  CHECK(!known); /* not cached: the caller has it read beside */

  LwError err;
  lw_robots_cache_put(c, cfg.prefix, origin, "none", NULL, 0, 3600, &err);
  CHECK_INT_EQ(calls_of(url, &known), 1);
  CHECK(known);
  /* asked again: known from memory, no round trip */
  CHECK_INT_EQ(calls_of(url, &known), 0);
  CHECK(known);
  /* another origin is asked of Redis */
  CHECK_INT_EQ(calls_of(other, &known), 1);
  CHECK(!known);
  /* robots.txt itself never waits for itself */
  CHECK(lw_robots_known(c, &cfg, "http://127.0.0.4:9/robots.txt"));

  lw_test_redis_cleanup(c, cfg.prefix);
  lw_config_free(&cfg);
  redisFree(c);
  return lw_test_finish();
}
