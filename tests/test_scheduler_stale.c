/* Staleness as the LOD Laundromat does it: a dump not re-checked for its
 * interval is downloaded again (conditionally), even when its VoID never
 * changes. The interval is the seed's own, else its provider's registry
 * `interval`, else --seed-interval. The real scheduler's duties on a real
 * Redis; and its cycle sends no SCAN (test_no_scan). */
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

/* A seed parsed `age_s` ago, of provider (may be NULL); returns its hash. */
static const char *seed(const char *uri, const char *provider, long age_s)
{
  static char hash[LW_HASH_HEX_LEN + 1];
  lw_uri_hash(uri, hash);
  char processed[32];
  snprintf(processed, sizeof(processed), "%lld",
           (long long)time(NULL) * 1000 - age_s * 1000);
  LwKey key = lw_key(cfg.prefix, LW_KEY_SEED, hash);
  /* `added` as a real seed has it: the collection's grace counts from it */
  freeReplyObject(redisCommand(rc, "HSET %s status parsed uri %s processed %s added %s",
                               key.s, uri, processed, processed));
  if (provider) {
    freeReplyObject(redisCommand(rc, "HSET %s provider %s", key.s, provider));
  }
  return hash;
}

static const char *status_of(const char *hash)
{
  static char buf[64];
  redisReply *r = redisCommand(rc, "HGET %s status",
                               lw_key(cfg.prefix, LW_KEY_SEED, hash).s);
  snprintf(buf, sizeof(buf), "%s", r && r->type == REDIS_REPLY_STRING ? r->str : "");
  freeReplyObject(r);
  return buf;
}

static void duties(LwScheduler *s)
{
  LwCycleStats st;
  memset(&st, 0, sizeof(st));
  LwError err;
  CHECK_INT_EQ(lw_scheduler_duties(s, &st, &err), LW_OK);
}

/* A seed parsed age_s ago, written as the workers write it (through a txn:
 * lw_txn_seed_set of `processed`). */
static void worker_seed(const char *hash, const char *parent, long age_s)
{
  char processed[32];
  snprintf(processed, sizeof(processed), "%lld", lw_now_ms() - age_s * 1000);
  LwKey key = lw_key(cfg.prefix, LW_KEY_SEED, hash);
  freeReplyObject(
    redisCommand(rc, "HSET %s status parsed uri http://h/%s.nt provider hourly added %s", key.s, hash,
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

/* What MONITOR saw of our keys: commands, SCANs, and the collection's
 * reads of its seed index. */
typedef struct {
  int commands, scans, index_reads;
} Seen;

static void count(void *arg, const char *line)
{
  Seen *seen = arg;
  ++seen->commands;
  seen->scans += strstr(line, "\"SCAN\"") != NULL;
  seen->index_reads += strstr(line, "\"ZRANGEBYSCORE\"") && strstr(line, "seeds:index");
}

/* Retention that scales: the cycle walks no keyspace. Watched with
 * MONITOR: after the first cycle (which indexes the records written before
 * the re-check index and the collection's indexes, with one SCAN each), a
 * cycle sends no SCAN at all, a collection's included, and still
 * re-checks a stale seed, found through the index that the worker's own
 * write of `processed` kept. An archive entry written the same way is not
 * indexed; a seed deleted by hand leaves the index when the walk meets it.
 * Runs on a prefix of its own: the upgrade must find the index not built. */
static void test_no_scan(void)
{
  /* a seed from before the index: only the first cycle's upgrade finds it */
  LwKey old = lw_key(cfg.prefix, LW_KEY_SEED, "0123456789abcdef0123456789abcdef");
  char long_ago[32];
  snprintf(long_ago, sizeof(long_ago), "%lld", lw_now_ms() - 60000);
  freeReplyObject(redisCommand(
    rc, "HSET %s status parsed uri http://h/old.nt provider hourly processed %s", old.s,
    long_ago));
  LwScheduler *s = lw_scheduler_new(&cfg);
  cycle(s); /* the upgrades and the hourly collection: SCANs allowed */
  CHECK_INT_EQ(lw_test_redis_int(rc, "HEXISTS", lw_key(cfg.prefix, LW_KEY_INDEXES, NULL).s,
                                 "rechecks", NULL),
               1);
  CHECK_INT_EQ(lw_test_redis_int(rc, "HEXISTS", lw_key(cfg.prefix, LW_KEY_INDEXES, NULL).s,
                                 "gc", NULL),
               1);
  redisReply *st = redisCommand(rc, "HGET %s status", old.s);
  CHECK(st && st->type == REDIS_REPLY_STRING && !strcmp(st->str, "added"));
  freeReplyObject(st);

  /* written after the upgrade, as a worker writes: only the index knows */
  const char *stale = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  const char *entry = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  const char *gone = "cccccccccccccccccccccccccccccccc";
  worker_seed(stale, NULL, 60);
  worker_seed(entry, stale, 60); /* an archive entry: never re-checked */
  worker_seed(gone, NULL, 60);
  LwKey index = lw_key(cfg.prefix, LW_KEY_RECHECKS, NULL);
  CHECK(lw_test_redis_int(rc, "ZSCORE", index.s, stale, NULL) > 0);
  CHECK_INT_EQ(lw_test_redis_int(rc, "ZSCORE", index.s, entry, NULL), 0); /* nil */
  CHECK(lw_test_redis_int(rc, "ZSCORE", index.s, gone, NULL) > 0);
  /* removed by hand, not by the collection: its entry stays behind */
  freeReplyObject(redisCommand(rc, "DEL %s", lw_key(cfg.prefix, LW_KEY_SEED, gone).s));

  redisContext *mon = lw_test_monitor_start(rc);
  /* a new process: the upgrades are not done again; its first cycle runs
   * the hourly collection, which reads its own indexes (queue/gc_index.h) */
  lw_scheduler_free(s);
  s = lw_scheduler_new(&cfg);
  cycle(s);
  cycle(s);
  char marker[256];
  snprintf(marker, sizeof(marker), "%send-of-cycles", cfg.prefix);
  freeReplyObject(redisCommand(rc, "ECHO %s", marker));
  Seen seen = {0, 0, 0};
  CHECK(lw_test_monitor_until(mon, cfg.prefix, marker, count, &seen));
  CHECK_INT_EQ(seen.scans, 0);
  CHECK(seen.commands > 10);   /* the cycles were seen */
  CHECK(seen.index_reads > 0); /* and the collection in them */
  redisFree(mon);

  st = redisCommand(rc, "HGET %s status", lw_key(cfg.prefix, LW_KEY_SEED, stale).s);
  CHECK(st && st->type == REDIS_REPLY_STRING && !strcmp(st->str, "added"));
  freeReplyObject(st);
  /* the entry of a seed that is gone is pruned when the walk meets it */
  CHECK_INT_EQ(lw_test_redis_int(rc, "ZSCORE", index.s, gone, NULL), 0); /* nil */
  CHECK(lw_test_redis_int(rc, "ZSCORE", index.s, stale, NULL) > 0);
  lw_scheduler_free(s);
}

int main(void)
{
  lw_log_init("test_scheduler_stale", LW_LOG_ERROR, false);
  rc = lw_test_redis();
  lw_test_redis_config(&cfg, "scheduler_stale");
  char *dir = lw_test_tmpdir();
  char registry[4096];
  snprintf(registry, sizeof(registry), "%s/registry.yaml", dir);
  FILE *f = fopen(registry, "w");
  fprintf(f, "hourly:\n  void: http://127.0.0.1:1/void.ttl\n  interval: 5\n"
             "plain:\n  void: http://127.0.0.1:1/void2.ttl\n");
  fclose(f);
  LwError err;
  CHECK_INT_EQ(lw_config_set(&cfg, "registry", registry, &err), LW_OK);
  CHECK_INT_EQ(cfg.seed_interval_s, 100LL * 24 * 3600); /* the default: 100 days */

  LwScheduler *s = lw_scheduler_new(&cfg);
  CHECK_INT_EQ(lw_scheduler_reload(s, &err), LW_OK);
  char by_registry[64], by_default[64], fresh[64], orphan[64];
  snprintf(by_registry, sizeof(by_registry), "%s", seed("http://h/a.nt", "hourly", 10));
  snprintf(by_default, sizeof(by_default), "%s", seed("http://h/b.nt", "plain", 10));
  snprintf(fresh, sizeof(fresh), "%s", seed("http://h/c.nt", "hourly", 1));
  snprintf(orphan, sizeof(orphan), "%s", seed("http://h/d.nt", NULL, 10));
  duties(s);
  /* The provider's registry interval (5 s) is up; 100 days are not. */
  CHECK_STR_EQ(status_of(by_registry), "added");
  CHECK_STR_EQ(status_of(by_default), "parsed");
  CHECK_STR_EQ(status_of(fresh), "parsed");
  CHECK_STR_EQ(status_of(orphan), "parsed");
  CHECK_INT_EQ(
    lw_test_queue_len(rc, cfg.prefix, "download"), 1);
  /* A provider's dump is only re-checked: the job names the provider (a
   * change marks it for a harvest, workers/download.c). */
  redisReply *job = lw_test_queue_next(rc, cfg.prefix, "download");
  CHECK(job && job->type == REDIS_REPLY_STRING &&
        strstr(job->str, "\"recheck\":\"hourly\""));
  freeReplyObject(job);
  lw_scheduler_free(s);

  /* A shorter default: every seed older than it goes, a fresh one stays. */
  cfg.seed_interval_s = 5;
  s = lw_scheduler_new(&cfg);
  CHECK_INT_EQ(lw_scheduler_reload(s, &err), LW_OK);
  duties(s);
  CHECK_STR_EQ(status_of(by_default), "added");
  CHECK_STR_EQ(status_of(orphan), "added");
  CHECK_STR_EQ(status_of(fresh), "parsed");
  /* a seed of no provider goes down the pipeline as before */
  redisReply *jobs = lw_test_queue_jobs(rc, cfg.prefix, "download");
  int plain = 0;
  for (size_t i = 0; jobs && i < jobs->elements; ++i) {
    plain += strstr(jobs->element[i]->str, orphan) &&
             !strstr(jobs->element[i]->str, "recheck");
  }
  CHECK_INT_EQ(plain, 1);
  freeReplyObject(jobs);
  lw_scheduler_free(s);
  lw_test_redis_cleanup(rc, cfg.prefix);

  /* a prefix of its own, the index not built yet */
  cfg.seed_interval_s = 100LL * 24 * 3600;
  char own[256];
  snprintf(own, sizeof(own), "%sno_scan:", lw_test_prefix("scheduler_stale"));
  CHECK_INT_EQ(lw_config_set(&cfg, "prefix", own, &err), LW_OK);
  test_no_scan();

  lw_test_redis_cleanup(rc, cfg.prefix);
  redisFree(rc);
  lw_config_free(&cfg);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
