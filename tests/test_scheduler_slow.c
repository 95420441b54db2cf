/* Slow VoID hosts do not hold up the scheduler's cycle: the real scheduler,
 * a real Redis, and real HTTP on loopback where 100 providers answer at once
 * and 3 never answer (their server holds the connection open). In one
 * cycle every quick provider is visited and gets its harvest, the 3 slow
 * ones end in a timeout error, and the 3 slow fetches were waiting at the
 * same time (not one after another); a VoID its host's robots.txt
 * disallows is not fetched and says so. --void-concurrency bounds the fetches
 * in flight. The backlog policy holds: a second cycle starts nothing new. */
#define _GNU_SOURCE /* POLLRDHUP */
#include "config/config.h"
#include "base/base.h"
#include "queue/keys.h"
#include "scheduler/scheduler.h"
#include "tests/support/check.h"
#include "tests/support/redis_support.h"

#include <microhttpd.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QUICK 100
#define SLOW 3

static char base[128];
static atomic_int slow_open, slow_max;
static atomic_bool stopping;
static atomic_int private_hits;

/* The slow route holds the connection until the client hangs up (its
 * timeout) or the test ends, counting how many are held at once. */
static void hold_slow_request(struct MHD_Connection *conn)
{
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
    conn, MHD_CONNECTION_INFO_CONNECTION_FD);
  int now = atomic_fetch_add(&slow_open, 1) + 1;
  int max = atomic_load(&slow_max);
  while (now > max && !atomic_compare_exchange_weak(&slow_max, &max, now)) {
  }
  struct pollfd pfd = {ci ? ci->connect_fd : -1, POLLRDHUP, 0};
  for (int i = 0; i < 300 && !atomic_load(&stopping); ++i) {
    if (poll(&pfd, 1, 100) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
      break; /* the client gave up */
    }
  }
  atomic_fetch_sub(&slow_open, 1);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
  (void)cls, (void)method, (void)version, (void)upload, (void)upload_size, (void)state;
  int n = 0;
  char body[2048];
  int status = MHD_HTTP_OK;
  if (sscanf(url, "/slow/%d/void.ttl", &n) == 1) {
    hold_slow_request(conn);
    snprintf(body, sizeof(body), "too late\n");
    status = MHD_HTTP_SERVICE_UNAVAILABLE;
  } else if (!strcmp(url, "/robots.txt")) {
    snprintf(body, sizeof(body), "User-agent: *\nDisallow: /private/\n");
  } else if (!strncmp(url, "/private/", 9)) {
    atomic_fetch_add(&private_hits, 1);
    snprintf(body, sizeof(body), "secret\n");
  } else if (sscanf(url, "/quick/%d/void.ttl", &n) == 1) {
    snprintf(body, sizeof(body),
             "@prefix void: <http://rdfs.org/ns/void#> .\n"
             "@prefix dcterms: <http://purl.org/dc/terms/> .\n"
             "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
             "<#d> a void:Dataset ; void:dataDump <%s/quick/%d/data.nt> ;\n"
             "  dcterms:modified \"2020-01-01\"^^xsd:date .\n",
             base, n);
  } else {
    snprintf(body, sizeof(body), "not found\n");
    status = MHD_HTTP_NOT_FOUND;
  }
  struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body,
                                                           MHD_RESPMEM_MUST_COPY);
  MHD_add_response_header(r, "Content-Type", "text/turtle");
  enum MHD_Result ret = MHD_queue_response(conn, (unsigned)status, r);
  MHD_destroy_response(r);
  return ret;
}

static void write_registry(const char *path, int quick, int slow)
{
  FILE *f = fopen(path, "w");
  fprintf(f, "hidden:\n  void: %s/private/void.ttl\n", base); /* robots.txt says no */
  for (int i = 0; i < slow; ++i) {
    /* the slow ones first: a sequential cycle would wait for them first */
    fprintf(f, "slow%d:\n  void: %s/slow/%d/void.ttl\n", i, base, i);
  }
  for (int i = 0; i < quick; ++i) {
    fprintf(f, "quick%d:\n  void: %s/quick/%d/void.ttl\n", i, base, i);
  }
  fclose(f);
}

static LwCycleStats run_cycle(LwScheduler *s)
{
  LwCycleStats stats;
  memset(&stats, 0, sizeof(stats));
  LwError err;
  lw_error_clear(&err);
  CHECK_INT_EQ(lw_scheduler_lease(s, &err), LW_OK);
  LwStatus rc = lw_scheduler_cycle(s, &stats, &err);
  CHECK_INT_EQ(rc, LW_OK);
  if (rc != LW_OK) {
    fprintf(stderr, "cycle: %s\n", err.message);
  }
  return stats;
}

static void test_slow_hosts_wait_together(LwConfig *cfg, redisContext *rc)
{
  LwScheduler *s = lw_scheduler_new(cfg);
  LwCycleStats st = run_cycle(s);
  CHECK_INT_EQ(st.providers, QUICK + SLOW + 1);
  CHECK_INT_EQ(st.started, QUICK);
  CHECK_INT_EQ(st.errors, SLOW + 1);
  CHECK_INT_EQ(atomic_load(&slow_max), SLOW);
  char key[LW_KEY_MAX];
  int visited = 0;
  for (int i = 0; i < QUICK; ++i) {
    char name[32];
    snprintf(name, sizeof(name), "quick%d", i);
    snprintf(key, sizeof(key), "%s", lw_key(cfg->prefix, LW_KEY_PROVIDER, name).s);
    redisReply *r = redisCommand(rc, "HGET %s state", key);
    visited += r && r->type == REDIS_REPLY_STRING && !strcmp(r->str, "harvesting");
    freeReplyObject(r);
  }
  CHECK_INT_EQ(visited, QUICK);
  snprintf(key, sizeof(key), "%s", lw_key(cfg->prefix, LW_KEY_PROVIDER, "slow0").s);
  redisReply *r = redisCommand(rc, "HGET %s error", key);
  CHECK(r && r->type == REDIS_REPLY_STRING && strstr(r->str, "imeout"));
  if (r && r->type == REDIS_REPLY_STRING) {
    printf("slow provider's error: %s\n", r->str);
  }
  freeReplyObject(r);
  snprintf(key, sizeof(key), "%s", lw_key(cfg->prefix, LW_KEY_PROVIDER, "hidden").s);
  r = redisCommand(rc, "HGET %s error", key);
  CHECK(r && r->type == REDIS_REPLY_STRING && strstr(r->str, "disallowed by robots.txt"));
  freeReplyObject(r);
  CHECK_INT_EQ(atomic_load(&private_hits), 0);

  /* One harvest per provider: the next cycle finds them running. */
  atomic_store(&slow_max, 0);
  st = run_cycle(s);
  CHECK_INT_EQ(st.started, 0);
  CHECK_INT_EQ(st.busy, QUICK);
  lw_scheduler_free(s);
}

static void test_concurrency_bound(LwConfig *cfg)
{
  cfg->void_concurrency = 2;
  atomic_store(&slow_max, 0);
  LwScheduler *s = lw_scheduler_new(cfg);
  LwCycleStats st = run_cycle(s);
  CHECK_INT_EQ(st.errors, SLOW + 1);
  CHECK_INT_EQ(atomic_load(&slow_max), 2);
  lw_scheduler_free(s);
}

int main(void)
{
  lw_log_init("test_scheduler_slow",
              getenv("LW_TEST_VERBOSE") ? LW_LOG_DEBUG : LW_LOG_ERROR, false);
  redisContext *rc = lw_test_redis();
  LwConfig cfg;
  lw_test_redis_config(&cfg, "scheduler_slow");
  struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
                                            MHD_USE_THREAD_PER_CONNECTION,
                                          0, NULL, NULL, answer, NULL, MHD_OPTION_END);
  CHECK(d != NULL);
  if (!d) {
    return lw_test_finish();
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  snprintf(base, sizeof(base), "http://127.0.0.1:%u", (unsigned)info->port);
  char *dir = lw_test_tmpdir();
  char registry[4096];
  snprintf(registry, sizeof(registry), "%s/registry.yaml", dir);
  LwError err;
  CHECK_INT_EQ(lw_config_set(&cfg, "registry", registry, &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "allow-net", "127.0.0.1", &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "interval", "1", &err), LW_OK); /* fetch timeout 5 s */
  /* Every provider is on one loopback host: no pace and room for all, so
   * that this tests the pool itself (the per-host politeness of VoID
   * fetches: tests/test_void_politeness.sh). */
  CHECK_INT_EQ(lw_config_set(&cfg, "host-interval-ms", "0", &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "per-host-concurrency", "1000", &err), LW_OK);

  write_registry(registry, QUICK, SLOW);
  test_slow_hosts_wait_together(&cfg, rc);
  write_registry(registry, 0, SLOW);
  test_concurrency_bound(&cfg);

  atomic_store(&stopping, true);
  MHD_stop_daemon(d);
  lw_test_redis_cleanup(rc, cfg.prefix);
  redisFree(rc);
  lw_config_free(&cfg);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
