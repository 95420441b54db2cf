/* Retention that scales: the scheduler's cycle walks no keyspace. The real
 * scheduler's cycle on a real Redis, watched with MONITOR: after the first
 * cycle (which indexes the records written before the re-check index, with
 * one SCAN), a cycle between collections sends no SCAN at all,
 * and still re-checks a stale seed, found through the index that the
 * worker's own write of `processed` kept. An archive entry written the same
 * way leaves the index when the walk meets it. */
#include "config/config.h"
#include "base/base.h"
#include "queue/keys.h"
#include "queue/txn.h"
#include "scheduler/scheduler.h"
#include "tests/support/check.h"
#include "tests/support/redis_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static redisContext *rc;
static LwConfig cfg;

/* A seed parsed age_s ago, written as the workers write it (through a txn:
 * lw_txn_seed_set of `processed`). */
static void worker_seed(const char *hash, const char *parent, long age_s)
{
  char processed[32];
  snprintf(processed, sizeof(processed), "%lld", lw_now_ms() - age_s * 1000);
  LwKey key = lw_key(cfg.prefix, LW_KEY_SEED, hash);
  freeReplyObject(
    redisCommand(rc, "HSET %s status parsed uri http://h/%s.nt provider quick added %s", key.s, hash,
                 processed));
  LwTxn *txn = lw_txn_new(cfg.prefix);
  if (parent) {
    lw_txn_seed_set(txn, hash, "parent", parent);
  }
  lw_txn_seed_set(txn, hash, "processed", processed);
  LwError err;
  CHECK_INT_EQ(lw_txn_exec(rc, txn, &err), LW_OK);
  lw_txn_free(txn);
}

static void cycle(LwScheduler *s)
{
  LwCycleStats st;
  LwError err;
  CHECK_INT_EQ(lw_scheduler_cycle(s, &st, &err), LW_OK);
}

/* Commands MONITOR saw on our keys until the marker, and how many SCANs. */
static int scans_until(redisContext *mon, const char *marker, int *commands)
{
  int scans = 0;
  *commands = 0;
  for (;;) {
    redisReply *r = NULL;
    if (redisGetReply(mon, (void **)&r) != REDIS_OK || !r) {
      CHECK(!"MONITOR ended before the marker");
      return -1;
    }
    bool ours = r->type == REDIS_REPLY_STATUS && strstr(r->str, cfg.prefix);
    bool end = ours && strstr(r->str, marker);
    if (ours && !end) {
      ++*commands;
      scans += strstr(r->str, "\"SCAN\"") != NULL;
    }
    freeReplyObject(r);
    if (end) {
      return scans;
    }
  }
}

int main(void)
{
  lw_log_init("test_cycle_no_scan", LW_LOG_ERROR, false);
  rc = lw_test_redis();
  lw_test_redis_config(&cfg, "cycle_no_scan");
  char *dir = lw_test_tmpdir();
  char registry[4096];
  snprintf(registry, sizeof(registry), "%s/registry.yaml", dir);
  FILE *f = fopen(registry, "w");
  fprintf(f, "quick:\n  void: http://127.0.0.1:1/void.ttl\n  interval: 5\n");
  fclose(f);
  LwError err;
  CHECK_INT_EQ(lw_config_set(&cfg, "registry", registry, &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "data", dir, &err), LW_OK);

  /* a seed from before the index: only the first cycle's upgrade finds it */
  LwKey old = lw_key(cfg.prefix, LW_KEY_SEED, "0123456789abcdef0123456789abcdef");
  char long_ago[32];
  snprintf(long_ago, sizeof(long_ago), "%lld", lw_now_ms() - 60000);
  freeReplyObject(redisCommand(rc, "HSET %s status parsed uri http://h/old.nt provider quick processed %s",
                               old.s, long_ago));
  LwScheduler *s = lw_scheduler_new(&cfg);
  cycle(s); /* the upgrade and the hourly collection: SCANs allowed */
  CHECK_INT_EQ(lw_test_redis_int(rc, "HEXISTS", lw_key(cfg.prefix, LW_KEY_INDEXES, NULL).s,
                                 "rechecks", NULL),
               1);
  redisReply *st = redisCommand(rc, "HGET %s status", old.s);
  CHECK(st && st->type == REDIS_REPLY_STRING && !strcmp(st->str, "added"));
  freeReplyObject(st);

  /* written after the upgrade, as a worker writes: only the index knows */
  const char *stale = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  const char *entry = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  worker_seed(stale, NULL, 60);
  worker_seed(entry, stale, 60);
  LwKey index = lw_key(cfg.prefix, LW_KEY_RECHECKS, NULL);
  CHECK_INT_EQ(lw_test_redis_int(rc, "ZCARD", index.s, NULL), 3);

  redisContext *mon = redisConnect(rc->tcp.host, rc->tcp.port);
  CHECK(mon && !mon->err);
  struct timeval tv = {10, 0};
  redisSetTimeout(mon, tv);
  redisReply *ok = redisCommand(mon, "MONITOR");
  CHECK(ok && ok->type == REDIS_REPLY_STATUS);
  freeReplyObject(ok);
  /* a new process: the upgrade is not done again; the hourly collection
   * (which still walks the keys, docs/retention.md) kept out of it */
  lw_scheduler_free(s);
  cfg.gc_interval_s = 0;
  s = lw_scheduler_new(&cfg);
  cycle(s);
  cycle(s);
  char marker[256];
  snprintf(marker, sizeof(marker), "%send-of-cycles", cfg.prefix);
  freeReplyObject(redisCommand(rc, "ECHO %s", marker));
  int commands = 0;
  CHECK_INT_EQ(scans_until(mon, marker, &commands), 0);
  CHECK(commands > 10); /* the cycles were seen */
  redisFree(mon);

  st = redisCommand(rc, "HGET %s status", lw_key(cfg.prefix, LW_KEY_SEED, stale).s);
  CHECK(st && st->type == REDIS_REPLY_STRING && !strcmp(st->str, "added"));
  freeReplyObject(st);
  /* the entry (a parent: never re-checked) is pruned; the record stays */
  CHECK_INT_EQ(lw_test_redis_int(rc, "ZCARD", index.s, NULL), 2);
  CHECK_INT_EQ(lw_test_redis_int(rc, "EXISTS", lw_key(cfg.prefix, LW_KEY_SEED, entry).s,
                                 NULL),
               1);
  lw_scheduler_free(s);

  lw_test_redis_cleanup(rc, cfg.prefix);
  redisFree(rc);
  lw_config_free(&cfg);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
