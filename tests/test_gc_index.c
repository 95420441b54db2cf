/* The collection's indexes (queue/gc_index.h) on a real Redis: records
 * from before the indexes are found by the one SCAN of the first
 * collection; after it, a record written by each path that creates one
 * (the scheduler's dump seed, a harvest and its claim, a worker's ack
 * creating an archive entry, a clean record and its cleanof entry, the
 * transition script, an unpack budget, a VoID visit's dumps) is found
 * through its index and collected (or, when something needs it, kept),
 * and that collection sends no SCAN (MONITOR). */
#include "config/config.h"
#include "base/base.h"
#include "queue/keys.h"
#include "queue/provider_record.h"
#include "queue/provider_visit.h"
#include "queue/recheck_index.h"
#include "queue/records.h"
#include "queue/retention.h"
#include "queue/seed.h"
#include "queue/txn.h"
#include "queue/unpack_budget.h"
#include "tests/support/check.h"
#include "tests/support/redis_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static redisContext *rc;
static LwConfig cfg;

/* What the collection reported, one "kind what" a line. */
static char removed[1 << 18];

static void note(void *data, const char *kind, const char *what)
{
  (void)data;
  size_t n = strlen(removed);
  snprintf(removed + n, sizeof(removed) - n, "%s %s\n", kind, what);
}

static bool reported(const char *kind, const char *what)
{
  char line[512];
  snprintf(line, sizeof(line), "%s %s\n", kind, what);
  return strstr(removed, line) != NULL;
}

static void collect(void)
{
  removed[0] = '\0';
  LwRetentionOptions o = {false, note, NULL};
  LwRetentionStats stats;
  LwError err;
  CHECK_INT_EQ(lw_retention_run(rc, &cfg, &o, &stats, &err), LW_OK);
}

static bool exists(const char *pattern, const char *id)
{
  return lw_test_redis_int(rc, "EXISTS", lw_key(cfg.prefix, pattern, id).s, NULL) == 1;
}

static bool in_zset(const char *index, const char *member)
{
  return lw_test_redis_int(rc, "ZSCORE", lw_key(cfg.prefix, index, NULL).s, member, NULL) > 0;
}

static bool in_set(const char *index, const char *member)
{
  return lw_test_redis_int(rc, "SISMEMBER", lw_key(cfg.prefix, index, NULL).s, member,
                           NULL) == 1;
}

/* What MONITOR saw of our keys: commands, and SCANs among them. */
typedef struct {
  int commands, scans;
} Seen;

static void count(void *arg, const char *line)
{
  Seen *seen = arg;
  ++seen->commands;
  seen->scans += strstr(line, "\"SCAN\"") != NULL;
}

static void exec_txn(LwTxn *txn)
{
  LwError err;
  CHECK_INT_EQ(lw_txn_exec(rc, txn, &err), LW_OK);
  lw_txn_free(txn);
}

/* Records written before the indexes (by hand, as an older version left
 * them): the first collection indexes them with one SCAN and collects. */
static void test_upgrade(void)
{
  const char *old = "0123456789abcdef0123456789abcdef";
  LwKey seed = lw_key(cfg.prefix, LW_KEY_SEED, old);
  freeReplyObject(redisCommand(
    rc, "HSET %s status parsed uri http://h/old.nt provider p harvest p:old updated 1000",
    seed.s));
  freeReplyObject(redisCommand(rc, "SET %s %s", lw_key(cfg.prefix, LW_KEY_CLEAN_OF,
                                                       "feedfeedfeedfeedfeedfeedfeedfeed p").s,
                               old));
  /* two harvests of a provider (the older goes), the seed its VoID lists
   * (stays), a budget whose harvest is gone (goes) */
  const char *h1 = "o:1", *h2 = "o:2";
  freeReplyObject(redisCommand(rc, "HSET %s provider o started 1000 status done",
                               lw_key(cfg.prefix, LW_KEY_HARVEST, h1).s));
  freeReplyObject(redisCommand(rc, "HSET %s provider o started 2000 status done",
                               lw_key(cfg.prefix, LW_KEY_HARVEST, h2).s));
  freeReplyObject(redisCommand(rc, "HSET %s harvest %s void_dumps [\"http://h/o.nt\"]",
                               lw_key(cfg.prefix, LW_KEY_PROVIDER, "o").s, h2));
  char listed[LW_HASH_HEX_LEN + 1];
  lw_seed_hash_for("http://h/o.nt", "o", listed);
  freeReplyObject(redisCommand(rc, "HSET %s status parsed provider o harvest o:0 updated 1000",
                               lw_key(cfg.prefix, LW_KEY_SEED, listed).s));
  freeReplyObject(redisCommand(rc, "HSET %s %s %s",
                               lw_key(cfg.prefix, LW_KEY_UNPACKED, "o:0").s, listed, "1 1"));
  collect();
  CHECK_INT_EQ(lw_test_redis_int(rc, "HEXISTS", lw_key(cfg.prefix, LW_KEY_INDEXES, NULL).s,
                                 "gc", NULL),
               1);
  CHECK(reported("seed", old));
  CHECK(reported("cleanof", "feedfeedfeedfeedfeedfeedfeedfeed p"));
  CHECK(!exists(LW_KEY_SEED, old));
  CHECK(!in_zset(LW_KEY_SEED_INDEX, old));
  CHECK(!in_set(LW_KEY_CLEAN_OF_INDEX, "feedfeedfeedfeedfeedfeedfeedfeed p"));
  CHECK(reported("harvest", h1));
  CHECK(!exists(LW_KEY_HARVEST, h1));
  CHECK(exists(LW_KEY_HARVEST, h2) && in_zset(LW_KEY_HARVEST_INDEX, h2));
  CHECK(exists(LW_KEY_SEED, listed) && in_zset(LW_KEY_SEED_INDEX, listed));
  CHECK(in_set(LW_KEY_PROVIDER_INDEX, "o"));
  CHECK(reported("budget", "o:0"));
  CHECK(!exists(LW_KEY_UNPACKED, "o:0"));
}

/* A harvest of provider with one dump, finished. */
static void harvest(const char *provider, const char *url, char id[LW_HARVEST_ID_MAX])
{
  LwVersion v = {false, 0, "00000000000000000000000000000000"};
  LwHarvestDump dump = {url, NULL, NULL, false};
  LwHarvestStart h = {.provider = provider,
                      .void_url = "http://h/void.ttl",
                      .version = &v,
                      .source = "document",
                      .kind = "full",
                      .dumps = &dump,
                      .dump_count = 1};
  LwError err;
  CHECK_INT_EQ(lw_harvest_start(rc, cfg.prefix, &h, id, &err), LW_OK);
  CHECK_INT_EQ(lw_harvest_finish(rc, cfg.prefix, id, true, NULL, &err), LW_OK);
  struct timespec ms = {0, 2000000}; /* ids are made of the ms */
  nanosleep(&ms, NULL);
}

static void test_each_path(void)
{
  LwError err;
  /* the scheduler's dump seeds and harvests, the claim: the older
   * harvest (beyond --keep-harvests 1) goes with the seed only it lists */
  char first[LW_HARVEST_ID_MAX], second[LW_HARVEST_ID_MAX];
  harvest("p", "http://h/one.nt", first);
  harvest("p", "http://h/two.nt", second);
  char one[LW_HASH_HEX_LEN + 1], two[LW_HASH_HEX_LEN + 1];
  lw_seed_hash_for("http://h/one.nt", "p", one);
  lw_seed_hash_for("http://h/two.nt", "p", two);
  CHECK(in_zset(LW_KEY_HARVEST_INDEX, first));
  CHECK(in_zset(LW_KEY_SEED_INDEX, one));
  CHECK(in_set(LW_KEY_PROVIDER_INDEX, "p"));
  /* their download jobs are not waiting any more (a queued seed is live) */
  freeReplyObject(redisCommand(rc, "DEL %s", lw_key(cfg.prefix, LW_KEY_QUEUED, "download").s));

  /* a seed added by hand (lodwash seed add): indexed, never collected */
  char by_hand[LW_HASH_HEX_LEN + 1];
  CHECK_INT_EQ(lw_seed_record(rc, cfg.prefix, "http://h/hand.nt", NULL, NULL, by_hand, &err),
               LW_OK);
  CHECK(in_zset(LW_KEY_SEED_INDEX, by_hand));

  /* a worker's ack creating an archive entry (status from none) */
  const char *entry = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  LwTxn *txn = lw_txn_new(cfg.prefix);
  lw_txn_seed_set(txn, entry, "parent", two);
  lw_txn_seed_set(txn, entry, "uri", "http://h/two.nt#x.nt");
  lw_txn_seed_status(txn, entry, "filed");
  exec_txn(txn);

  /* a clean record and its cleanof entry, as the parse stage writes them */
  const char *clean = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  const char *content = "cccccccccccccccccccccccccccccccc p";
  txn = lw_txn_new(cfg.prefix);
  lw_txn_seed_status(txn, clean, "cleaned");
  lw_txn_seed_set(txn, clean, "provider", "p");
  lw_txn_clean_of_set(txn, content, clean);
  exec_txn(txn);

  /* the transition script (a stage's working status, a retried dead job) */
  const char *moved = "dddddddddddddddddddddddddddddddd";
  freeReplyObject(redisCommand(rc, "HSET %s provider p uri http://h/m.nt",
                               lw_key(cfg.prefix, LW_KEY_SEED, moved).s));
  CHECK_INT_EQ(lw_seed_set_status(rc, cfg.prefix, moved, "filed", &err), LW_OK);

  /* an unpack budget of a harvest that is gone */
  txn = lw_txn_new(cfg.prefix);
  lw_txn_unpack_budget_settle(txn, "p:gone", entry, 10, 1, 5);
  exec_txn(txn);

  /* a VoID visit's dumps: its provider's seed lives while the VoID lists it */
  const char *fields[] = {"void_dumps", "[\"http://h/listed.nt\"]"};
  CHECK_INT_EQ(lw_provider_record_visit(rc, cfg.prefix, "q", true, NULL, fields, 2, &err),
               LW_OK);
  CHECK(in_set(LW_KEY_PROVIDER_INDEX, "q"));
  char listed[LW_HASH_HEX_LEN + 1];
  CHECK_INT_EQ(lw_seed_record(rc, cfg.prefix, "http://h/listed.nt", "q", "q:x", listed, &err),
               LW_OK);

  const char *indexed[] = {entry, clean, moved};
  for (size_t i = 0; i < 3; ++i) {
    CHECK(in_zset(LW_KEY_SEED_INDEX, indexed[i]));
  }
  CHECK(in_set(LW_KEY_CLEAN_OF_INDEX, content));
  CHECK(in_set(LW_KEY_UNPACKED_ALL, "p:gone"));

  /* the collection, watched */
  redisContext *mon = lw_test_monitor_start(rc);
  collect();
  char marker[256];
  snprintf(marker, sizeof(marker), "%send-of-collection", cfg.prefix);
  freeReplyObject(redisCommand(rc, "ECHO %s", marker));
  Seen seen = {0, 0};
  CHECK(lw_test_monitor_until(mon, cfg.prefix, marker, count, &seen));
  redisFree(mon);
  CHECK_INT_EQ(seen.scans, 0);
  CHECK(seen.commands > 10); /* the collection was seen */

  /* found through the indexes and collected, with their entries */
  CHECK(reported("harvest", first));
  CHECK(!exists(LW_KEY_HARVEST, first) && !in_zset(LW_KEY_HARVEST_INDEX, first));
  const char *seeds[] = {one, entry, moved};
  for (size_t i = 0; i < 3; ++i) {
    CHECK(reported("seed", seeds[i]));
    CHECK(!exists(LW_KEY_SEED, seeds[i]) && !in_zset(LW_KEY_SEED_INDEX, seeds[i]));
  }
  CHECK(reported("clean", clean));
  CHECK(!exists(LW_KEY_SEED, clean));
  CHECK(reported("cleanof", content));
  CHECK(!exists(LW_KEY_CLEAN_OF, content) && !in_set(LW_KEY_CLEAN_OF_INDEX, content));
  CHECK(reported("budget", "p:gone"));
  CHECK(!exists(LW_KEY_UNPACKED, "p:gone") && !in_set(LW_KEY_UNPACKED_ALL, "p:gone"));
  /* kept: the newest harvest and its seed, the seed the VoID lists, the
   * seed added by hand */
  CHECK(exists(LW_KEY_HARVEST, second) && in_zset(LW_KEY_HARVEST_INDEX, second));
  CHECK(exists(LW_KEY_SEED, two));
  CHECK(exists(LW_KEY_SEED, listed));
  CHECK(exists(LW_KEY_SEED, by_hand));

  /* a record removed behind the collection's back: its entry is pruned */
  freeReplyObject(redisCommand(rc, "DEL %s", lw_key(cfg.prefix, LW_KEY_SEED, listed).s));
  freeReplyObject(redisCommand(rc, "HSET %s void_dumps []",
                               lw_key(cfg.prefix, LW_KEY_PROVIDER, "q").s));
  collect();
  CHECK(!in_zset(LW_KEY_SEED_INDEX, listed));
}

/* Pages of the seed index: 2,500 seeds written in one ms (a page ends
 * with the whole group of its last score) and 1,500 after, removed while
 * the walk goes on: every one is met and collected; so are 1,500 cleanof
 * entries naming them (pages of a set). */
static void test_pages(void)
{
  LwKey index = lw_key(cfg.prefix, LW_KEY_SEED_INDEX, NULL);
  int n = 4000;
  for (int i = 0; i < n; ++i) {
    char hash[LW_HASH_HEX_LEN + 1];
    snprintf(hash, sizeof(hash), "%032x", i + 1);
    long long updated = i < 2500 ? 5000 : 5000 + i;
    redisAppendCommand(rc, "HSET %s status parsed provider p updated %lld",
                       lw_key(cfg.prefix, LW_KEY_SEED, hash).s, updated);
    redisAppendCommand(rc, "ZADD %s %lld %s", index.s, updated, hash);
  }
  /* and 1,500 cleanof entries naming them: pages of the set too */
  LwKey cleanofs = lw_key(cfg.prefix, LW_KEY_CLEAN_OF_INDEX, NULL);
  int entries = 1500;
  for (int i = 0; i < entries; ++i) {
    char hash[LW_HASH_HEX_LEN + 1], content[64];
    snprintf(hash, sizeof(hash), "%032x", i + 1);
    snprintf(content, sizeof(content), "%032x", i + 100000);
    redisAppendCommand(rc, "SET %s %s", lw_key(cfg.prefix, LW_KEY_CLEAN_OF, content).s, hash);
    redisAppendCommand(rc, "SADD %s %s", cleanofs.s, content);
  }
  int replies = 0;
  for (int i = 0; i < 2 * n + 2 * entries; ++i) {
    redisReply *r = NULL;
    replies += redisGetReply(rc, (void **)&r) == REDIS_OK;
    freeReplyObject(r);
  }
  CHECK_INT_EQ(replies, 2 * n + 2 * entries);
  long long before = lw_test_redis_int(rc, "ZCARD", index.s, NULL);
  collect();
  long long after = lw_test_redis_int(rc, "ZCARD", index.s, NULL);
  CHECK_INT_EQ(before - after, n);
  CHECK_INT_EQ(lw_test_redis_int(rc, "SCARD", cleanofs.s, NULL), 0);
  char last[LW_HASH_HEX_LEN + 1];
  snprintf(last, sizeof(last), "%032x", n);
  CHECK(reported("seed", last));
  CHECK(reported("seed", "000000000000000000000000000009c4")); /* 2,500th */
}

/* A seed of the re-check index has one entry: out of the collection's
 * index, where every status change writes those not in it; pruned from
 * the re-check index it goes back. Seeds an older version indexed in both
 * leave the collection's once, at the first collection. */
static void seed_parsed(const char *hash, const char *extra)
{
  freeReplyObject(redisCommand(rc, "HSET %s status parsed provider p harvest p:x updated 1000 "
                                   "processed 1000%s",
                               lw_key(cfg.prefix, LW_KEY_SEED, hash).s, extra));
}

static void both_indexes(const char *hash)
{
  freeReplyObject(redisCommand(rc, "ZADD %s 1000 %s",
                               lw_key(cfg.prefix, LW_KEY_SEED_INDEX, NULL).s, hash));
  freeReplyObject(redisCommand(rc, "ZADD %s 1000 %s",
                               lw_key(cfg.prefix, LW_KEY_RECHECKS, NULL).s, hash));
}

static void found_fn(void *arg, const char *hash, const char *const *values)
{
  (void)hash;
  (void)values;
  ++*(int *)arg;
}

static void test_one_entry(void)
{
  const char *gone = "aaaa0000aaaa0000aaaa0000aaaa0000"; /* nothing needs it */
  const char *kept = "bbbb0000bbbb0000bbbb0000bbbb0000"; /* added by hand: kept */
  seed_parsed(gone, "");
  freeReplyObject(redisCommand(rc, "HSET %s status parsed updated 1000 processed 1000",
                               lw_key(cfg.prefix, LW_KEY_SEED, kept).s));
  both_indexes(gone);
  both_indexes(kept);
  LwKey marks = lw_key(cfg.prefix, LW_KEY_INDEXES, NULL);
  freeReplyObject(redisCommand(rc, "HDEL %s gc_one_entry", marks.s));
  collect();
  CHECK(reported("seed", gone));
  CHECK(!in_zset(LW_KEY_SEED_INDEX, gone) && !in_zset(LW_KEY_RECHECKS, gone));
  CHECK(exists(LW_KEY_SEED, kept));
  CHECK(in_zset(LW_KEY_RECHECKS, kept) && !in_zset(LW_KEY_SEED_INDEX, kept));
  CHECK_INT_EQ(lw_test_redis_int(rc, "HEXISTS", marks.s, "gc_one_entry", NULL), 1);

  /* a status change (a re-harvest): none for a seed of the re-check
   * index, else one */
  LwError err;
  CHECK_INT_EQ(lw_seed_set_status(rc, cfg.prefix, kept, "added", &err), LW_OK);
  CHECK(!in_zset(LW_KEY_SEED_INDEX, kept));
  LwTxn *txn = lw_txn_new(cfg.prefix); /* a worker's ack */
  lw_txn_seed_status(txn, kept, "downloading");
  exec_txn(txn);
  CHECK(!in_zset(LW_KEY_SEED_INDEX, kept));
  char hash[LW_HASH_HEX_LEN + 1];
  CHECK_INT_EQ(lw_seed_record(rc, cfg.prefix, "http://h/fresh.nt", "p", NULL, hash, &err),
               LW_OK);
  CHECK(in_zset(LW_KEY_SEED_INDEX, hash));
  txn = lw_txn_new(cfg.prefix);
  lw_txn_seed_status(txn, hash, "downloading");
  exec_txn(txn);
  CHECK(in_zset(LW_KEY_SEED_INDEX, hash) && !in_zset(LW_KEY_RECHECKS, hash));

  /* processed: in the re-check index, out of the collection's */
  txn = lw_txn_new(cfg.prefix);
  lw_txn_seed_set(txn, hash, "processed", "2000");
  exec_txn(txn);
  CHECK(in_zset(LW_KEY_RECHECKS, hash) && !in_zset(LW_KEY_SEED_INDEX, hash));

  /* it became an archive entry: the re-check walk prunes it, and it is
   * back in the collection's index */
  freeReplyObject(redisCommand(rc, "HSET %s parent %s",
                               lw_key(cfg.prefix, LW_KEY_SEED, hash).s, kept));
  LwRecheckCursor cur;
  lw_recheck_cursor_reset(&cur);
  bool done = false;
  int found = 0;
  const char *fields[] = {"processed"};
  CHECK_INT_EQ(lw_recheck_index_step(rc, cfg.prefix, &cur, 3000, 1000, fields, 1, found_fn,
                                     &found, &done, &err),
               LW_OK);
  CHECK_INT_EQ(found, 1); /* kept, still re-checkable */
  CHECK(!in_zset(LW_KEY_RECHECKS, hash) && in_zset(LW_KEY_SEED_INDEX, hash));

  /* the re-check index built from older records takes them out of the
   * collection's */
  freeReplyObject(redisCommand(rc, "HDEL %s rechecks", marks.s));
  freeReplyObject(redisCommand(rc, "ZREM %s %s", lw_key(cfg.prefix, LW_KEY_RECHECKS, NULL).s,
                               kept));
  freeReplyObject(redisCommand(rc, "ZADD %s 1000 %s",
                               lw_key(cfg.prefix, LW_KEY_SEED_INDEX, NULL).s, kept));
  long long indexed = 0;
  bool built = false;
  CHECK_INT_EQ(lw_recheck_index_upgrade(rc, cfg.prefix, &indexed, &built, &err), LW_OK);
  CHECK(built);
  CHECK(in_zset(LW_KEY_RECHECKS, kept) && !in_zset(LW_KEY_SEED_INDEX, kept));
}

int main(void)
{
  lw_log_init("test_gc_index", LW_LOG_ERROR, false);
  rc = lw_test_redis();
  lw_test_redis_config(&cfg, "gc_index");
  char *dir = lw_test_tmpdir();
  LwError err;
  CHECK_INT_EQ(lw_config_set(&cfg, "data", dir, &err), LW_OK);
  cfg.gc_grace_s = 0;
  cfg.keep_harvests = 1;
  lw_test_redis_cleanup(rc, cfg.prefix);
  test_upgrade();
  test_each_path();
  test_pages();
  test_one_entry();
  lw_test_redis_cleanup(rc, cfg.prefix);
  lw_test_rmtree(dir);
  free(dir);
  lw_config_free(&cfg);
  redisFree(rc);
  return lw_test_finish();
}
