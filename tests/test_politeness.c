/* Politeness toward hosts, with the download stage against a real Redis and
 * real HTTP on loopback: robots.txt read the RFC 9309 way (the parser on its
 * own, then a disallowed dump refused with a clear error and never asked
 * for, robots.txt cached per host with a TTL), Crawl-delay spacing two
 * requests to one host, and the per-host limit counted on the host a
 * redirect leads to. */
#include "common/config.h"
#include "common/robots.h"
#include "queue/job.h"
#include "queue/keys.h"
#include "queue/seed.h"
#include "queue/txn.h"
#include "tests/support/check.h"
#include "tests/support/http_server.h"
#include "tests/support/redis_support.h"
#include "workers/stage.h"

#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static redisContext *redis;
static LwConfig cfg;
static LwTestServer *srv;

static void test_robots_rules(void)
{
  const char *text = "# comment\n"
                     "User-agent: *\n"
                     "Disallow: /private/\n"
                     "Allow: /private/open\n"
                     "Disallow: /*.xml$\n"
                     "Crawl-delay: 2.5\n"
                     "\n"
                     "User-agent: otherbot\n"
                     "Disallow: /\n";
  LwRobots *r = lw_robots_parse(text, strlen(text), "lodwash");
  CHECK(lw_robots_allowed(r, "/dump.nt"));
  CHECK(!lw_robots_allowed(r, "/private/dump.nt"));
  CHECK(lw_robots_allowed(r, "/private/open/dump.nt")); /* longer allow wins */
  CHECK(!lw_robots_allowed(r, "/a/b.xml"));
  CHECK(lw_robots_allowed(r, "/a/b.xml?x=1")); /* "$": the end of the path */
  CHECK(lw_robots_allowed(r, "/robots.txt"));
  CHECK_INT_EQ(lw_robots_crawl_delay_ms(r), 2500);
  lw_robots_free(r);
  /* A group naming lodwash replaces the "*" one. */
  const char *own = "User-agent: *\nDisallow: /\n\nUser-agent: LODwash/1.0\nUser-agent: x\n"
                    "Disallow: /tmp\n";
  r = lw_robots_parse(own, strlen(own), "lodwash");
  CHECK(lw_robots_allowed(r, "/dump.nt"));
  CHECK(!lw_robots_allowed(r, "/tmp/x"));
  CHECK_INT_EQ(lw_robots_crawl_delay_ms(r), -1);
  lw_robots_free(r);
  /* Empty Disallow allows everything. */
  r = lw_robots_parse("User-agent: *\nDisallow:\n", 24, "lodwash");
  CHECK(lw_robots_allowed(r, "/anything"));
  lw_robots_free(r);
}

static void set(const char *name, const char *value)
{
  LwError err;
  LwStatus st = lw_config_set(&cfg, name, value, &err);
  lw_test_report(st == LW_OK, __FILE__, __LINE__, name, err.message);
}

static void add_seed(const char *path, char hash[LW_HASH_HEX_LEN + 1])
{
  char url[256];
  lw_test_server_url(srv, path, url, sizeof(url));
  LwError err;
  CHECK_INT_EQ(lw_seed_record(redis, cfg.prefix, url, "prov", "h1", hash, &err), LW_OK);
}

/* Runs one download job as the worker frame does. */
static LwStatus run(const char *hash, LwError *err)
{
  LwJob *job = lw_job_new("download", hash, "h1", NULL, err);
  LwTxn *txn = lw_txn_new(cfg.prefix);
  lw_error_clear(err);
  LwStageCtx ctx = {&cfg, redis, job, txn, err, NULL};
  LwStatus st = lw_stage_download_run(&ctx);
  if (st <= LW_NOTHING) {
    LwError exec_err;
    lw_txn_exec(redis, txn, &exec_err);
  }
  lw_txn_free(txn);
  lw_job_free(job);
  return st;
}

static double now_s(void)
{
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static void test_robots_over_http(void)
{
  lw_test_server_add(srv, "/robots.txt",
                     &(LwTestResponse){.body = "User-agent: *\nDisallow: /private/\n"
                                               "Crawl-delay: 1\n",
                                       .content_type = "text/plain"});
  lw_test_server_add(srv, "/private/dump.nt", &(LwTestResponse){.body = "<a> <b> <c> .\n"});
  lw_test_server_add(srv, "/pub/a.nt", &(LwTestResponse){.body = "<a> <b> <c> .\n"});
  lw_test_server_add(srv, "/pub/b.nt", &(LwTestResponse){.body = "<a> <b> <d> .\n"});
  char hash[LW_HASH_HEX_LEN + 1];
  LwError err;

  add_seed("/private/dump.nt", hash);
  CHECK_INT_EQ(run(hash, &err), LW_ERR_REFUSED);
  CHECK(strstr(err.message, "disallowed by robots.txt") != NULL);
  printf("disallowed dump: %s\n", err.message);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/private/dump.nt"), 0);

  /* Allowed dumps go, a Crawl-delay (1 s) apart; robots.txt was read once
   * and is cached with a TTL. */
  add_seed("/pub/a.nt", hash);
  double t0 = now_s();
  CHECK_INT_EQ(run(hash, &err), LW_OK);
  add_seed("/pub/b.nt", hash);
  CHECK_INT_EQ(run(hash, &err), LW_OK);
  CHECK(now_s() - t0 >= 1.0);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/robots.txt"), 1);
  char origin[128];
  snprintf(origin, sizeof(origin), "http://%s", lw_test_server_allow(srv));
  long long ttl = lw_test_redis_int(redis, "TTL", lw_key(cfg.prefix, LW_KEY_ROBOTS, origin).s,
                                    NULL);
  CHECK(ttl > 0 && ttl <= 3600);
}

/* A dump on this host that redirects to another host ("localhost"): the
 * per-host limit is taken on the host the redirect leads to. */
static void test_slot_after_redirect(void)
{
  set("per-host-concurrency", "1");
  set("total-timeout", "3");
  char target[256];
  snprintf(target, sizeof(target), "http://localhost:%u/moved.nt", lw_test_server_port(srv));
  lw_test_server_add(srv, "/redirect.nt", &(LwTestResponse){.location = target});
  lw_test_server_add(srv, "/moved.nt", &(LwTestResponse){.body = "<a> <b> <c> .\n"});
  LwKey other = lw_key(cfg.prefix, LW_KEY_HOST_SLOTS, "localhost");
  freeReplyObject(redisCommand(redis, "ZADD %s 99999999999999 other-job", other.s));
  char hash[LW_HASH_HEX_LEN + 1];
  add_seed("/redirect.nt", hash);
  LwError err;
  CHECK_INT_EQ(run(hash, &err), LW_ERR_NET);
  CHECK(strstr(err.message, "localhost") != NULL);
  printf("redirect to a busy host: %s\n", err.message);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/redirect.nt"), 1);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/moved.nt"), 0);
  /* and the first host's slot was given back */
  CHECK_INT_EQ(lw_test_redis_int(redis, "ZCARD",
                                 lw_key(cfg.prefix, LW_KEY_HOST_SLOTS, "127.0.0.1").s, NULL),
               0);
  set("per-host-concurrency", "2");
  set("total-timeout", "60");
}

int main(void)
{
  test_robots_rules();
  redis = lw_test_redis();
  srv = lw_test_server_start();
  if (!srv) {
    lw_test_skip("libmicrohttpd cannot start a server");
  }
  char *dir = lw_test_tmpdir();
  lw_test_redis_config(&cfg, "politeness");
  lw_test_redis_cleanup(redis, cfg.prefix);
  set("data", dir);
  set("allow-net", lw_test_server_allow(srv));
  set("robots-ttl", "3600");
  set("host-interval-ms", "0");
  test_robots_over_http();
  test_slot_after_redirect();
  lw_test_redis_cleanup(redis, cfg.prefix);
  lw_config_free(&cfg);
  redisFree(redis);
  lw_test_server_stop(srv);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
