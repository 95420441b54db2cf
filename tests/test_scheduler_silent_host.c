/* A host that never answers costs the scheduler one timeout a cycle, not
 * one per provider, and never keeps the others waiting: the real
 * scheduler, a real Redis, a silent listener on 127.0.0.2 (it accepts
 * every connection and never says a word) with SILENT providers on it, and
 * one good provider on 127.0.0.1, last in the registry, with two fetch
 * threads and room for four fetches a host. In one cycle the good provider
 * is visited within a second, every silent provider ends in an error, and
 * the silent listener saw one connection: with robots.txt on (its
 * robots.txt, then cached as unreachable: the next cycle connects no more)
 * and with robots.txt off (one VoID fetch). A refused port of the good
 * provider's host, first in the registry, does not silence the host's other
 * port. */
#include "config/config.h"
#include "base/base.h"
#include "queue/keys.h"
#include "scheduler/scheduler.h"
#include "tests/support/check.h"
#include "tests/support/http_server.h"
#include "tests/support/redis_support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SILENT 8
#define HELD_MAX 64

static char good_base[128], silent_base[128];
static atomic_int accepted;
static atomic_bool stopping;
static atomic_llong good_served_ms; /* when the good VoID was served */

static long long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The silent host: accepts, counts, holds every connection open without a
 * byte until the test ends. */
static void *silent_listener(void *arg)
{
  int fd = *(int *)arg, held[HELD_MAX], n = 0;
  while (!atomic_load(&stopping)) {
    struct pollfd pfd = {fd, POLLIN, 0};
    if (poll(&pfd, 1, 100) <= 0) {
      continue;
    }
    int c = accept(fd, NULL, NULL);
    if (c >= 0) {
      atomic_fetch_add(&accepted, 1);
      if (n < HELD_MAX) {
        held[n++] = c;
      } else {
        close(c);
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    close(held[i]);
  }
  return NULL;
}

static int silent_socket(void)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
  inet_pton(AF_INET, "127.0.0.2", &a.sin_addr);
  socklen_t len = sizeof(a);
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 64) != 0 ||
      getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
    return -1;
  }
  snprintf(silent_base, sizeof(silent_base), "http://127.0.0.2:%u", ntohs(a.sin_port));
  return fd;
}

/* The good host: notes when its VoID was first asked for (polled every
 * 5 ms: the test server counts requests per path). */
static void *watch_good(void *arg)
{
  LwTestServer *srv = arg;
  int seen = lw_test_server_hits(srv, "/good/void.ttl");
  while (!atomic_load(&stopping)) {
    int now = lw_test_server_hits(srv, "/good/void.ttl");
    if (now != seen) {
      seen = now;
      atomic_store(&good_served_ms, now_ms());
    }
    usleep(5000);
  }
  return NULL;
}

static void write_registry(const char *path)
{
  FILE *f = fopen(path, "w");
  for (int i = 0; i < SILENT; ++i) {
    fprintf(f, "silent%d:\n  void: %s/s/%d/void.ttl\n", i, silent_base, i);
  }
  fprintf(f, "good:\n  void: %s/good/void.ttl\n", good_base); /* last: after the silent */
  fclose(f);
}

static char *provider_field(redisContext *rc, const LwConfig *cfg, const char *name,
                            const char *field)
{
  redisReply *r = redisCommand(rc, "HGET %s %s",
                               lw_key(cfg->prefix, LW_KEY_PROVIDER, name).s, field);
  char *v = r && r->type == REDIS_REPLY_STRING ? strdup(r->str) : NULL;
  freeReplyObject(r);
  return v;
}

/* One cycle: its stats; *good_ms how long after its start the good VoID was
 * served (-1 not served). */
static LwCycleStats run_cycle(const LwConfig *cfg, long long *good_ms)
{
  LwScheduler *s = lw_scheduler_new(cfg);
  LwCycleStats stats;
  memset(&stats, 0, sizeof(stats));
  LwError err;
  lw_error_clear(&err);
  atomic_store(&accepted, 0);
  atomic_store(&good_served_ms, 0);
  CHECK_INT_EQ(lw_scheduler_lease(s, &err), LW_OK);
  long long began = now_ms();
  LwStatus rc = lw_scheduler_cycle(s, &stats, &err);
  CHECK_INT_EQ(rc, LW_OK);
  if (rc != LW_OK) {
    fprintf(stderr, "cycle: %s\n", err.message);
  }
  long long served = atomic_load(&good_served_ms);
  *good_ms = served ? served - began : -1;
  printf("cycle: %lld ms, good VoID served after %lld ms, %d connections to the silent "
         "host, started=%d errors=%d deferred=%d\n",
         now_ms() - began, *good_ms, atomic_load(&accepted), stats.started, stats.errors,
         stats.deferred);
  lw_scheduler_release(s);
  lw_scheduler_free(s);
  return stats;
}

/* Every silent provider ends in an error naming the silence; the good one
 * was visited within a second. */
static void check_cycle(redisContext *rc, const LwConfig *cfg, LwCycleStats st,
                        long long good_ms)
{
  CHECK_INT_EQ(st.providers, SILENT + 1);
  CHECK_INT_EQ(st.errors, SILENT);
  CHECK_INT_EQ(st.deferred, 0);
  CHECK(good_ms >= 0 && good_ms < 1000);
  for (int i = 0; i < SILENT; ++i) {
    char name[32];
    snprintf(name, sizeof(name), "silent%d", i);
    char *error = provider_field(rc, cfg, name, "error");
    CHECK(error && (strstr(error, "imeout") || strstr(error, "timed out") ||
                    strstr(error, "cannot be read")));
    if (i == SILENT - 1 && error) {
      printf("a silent provider's error: %s\n", error);
    }
    free(error);
  }
}

int main(void)
{
  lw_log_init("test_scheduler_silent_host",
              getenv("LW_TEST_VERBOSE") ? LW_LOG_DEBUG : LW_LOG_ERROR, false);
  redisContext *rc = lw_test_redis();
  LwConfig cfg;
  lw_test_redis_config(&cfg, "scheduler_silent");
  int silent_fd = silent_socket();
  CHECK(silent_fd >= 0);
  LwTestServer *srv = lw_test_server_start();
  CHECK(srv != NULL);
  if (!srv || silent_fd < 0) {
    return lw_test_finish();
  }
  lw_test_server_url(srv, "", good_base, sizeof(good_base));
  char body[512];
  snprintf(body, sizeof(body),
           "@prefix void: <http://rdfs.org/ns/void#> .\n"
           "<#d> a void:Dataset ; void:dataDump <%s/good/data.nt> .\n",
           good_base);
  lw_test_server_add(srv, "/good/void.ttl",
                     &(LwTestResponse){.body = body, .content_type = "text/turtle"});
  pthread_t listener, watcher;
  pthread_create(&listener, NULL, silent_listener, &silent_fd);
  pthread_create(&watcher, NULL, watch_good, srv);
  char *dir = lw_test_tmpdir();
  char registry[4096];
  snprintf(registry, sizeof(registry), "%s/registry.yaml", dir);
  write_registry(registry);
  LwError err;
  CHECK_INT_EQ(lw_config_set(&cfg, "registry", registry, &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "allow-net", "127.0.0.0/8", &err), LW_OK);
  /* fetch timeout 5 s, start deadline 12 s: before hosts were remembered,
   * four fetches at a time on the silent host (robots.txt off) took two
   * rounds of timeouts on both threads, and the good provider waited. */
  CHECK_INT_EQ(lw_config_set(&cfg, "interval", "12", &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "host-interval-ms", "0", &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "per-host-concurrency", "4", &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "void-concurrency", "2", &err), LW_OK);

  /* robots.txt on: one robots.txt fetch, the rest fail with its error. */
  long long good_ms = -1;
  LwCycleStats st = run_cycle(&cfg, &good_ms);
  check_cycle(rc, &cfg, st, good_ms);
  CHECK_INT_EQ(atomic_load(&accepted), 1);
  /* its failed robots.txt is kept (as unreachable): no connection at all */
  st = run_cycle(&cfg, &good_ms);
  CHECK_INT_EQ(st.errors, SILENT);
  CHECK_INT_EQ(atomic_load(&accepted), 0);

  /* robots.txt off: the first VoID fetch's timeout speaks for the host. */
  CHECK_INT_EQ(lw_config_set(&cfg, "robots-ttl", "0", &err), LW_OK);
  st = run_cycle(&cfg, &good_ms);
  check_cycle(rc, &cfg, st, good_ms);
  CHECK_INT_EQ(atomic_load(&accepted), 1);

  /* A dead port says nothing of its host's other ports: a refused origin
   * on 127.0.0.1, first in the registry, and the good one after it on the
   * same host (it failed with "gave no answer this cycle" when silence was
   * the host's). */
  FILE *f = fopen(registry, "w");
  fprintf(f, "refused:\n  void: http://127.0.0.1:1/void.ttl\nneighbour:\n  void: %s/good/void.ttl\n",
          good_base); /* a provider not visited yet */
  fclose(f);
  st = run_cycle(&cfg, &good_ms);
  CHECK_INT_EQ(st.errors, 1);
  CHECK_INT_EQ(st.started, 1); /* the neighbour's first harvest */
  char *good_error = provider_field(rc, &cfg, "neighbour", "error");
  char *good_state = provider_field(rc, &cfg, "neighbour", "state");
  CHECK(good_state && strcmp(good_state, "error") != 0);
  if (good_error && *good_error) {
    printf("the neighbour's error: %s\n", good_error);
  }
  free(good_error);
  free(good_state);

  atomic_store(&stopping, true);
  pthread_join(listener, NULL);
  pthread_join(watcher, NULL);
  close(silent_fd);
  lw_test_server_stop(srv);
  lw_test_redis_cleanup(rc, cfg.prefix);
  redisFree(rc);
  lw_config_free(&cfg);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
