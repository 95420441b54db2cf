/* The records' transitions against a real Redis, with the faults that used
 * to break a harvest's fan-in caused on purpose: the script cache flushed
 * right before an ack (NOSCRIPT), an ack sent twice (its reply lost), the
 * late ack of a worker whose job was reaped and done by another, its late
 * move of the seed to its working status, a file job
 * that goes dead (and its fail sent twice), one whose workers keep dying
 * (the reaper buries it), refused and stale results. Each
 * time the harvest's sets, counters and follow-up job are checked. */
#include <stdlib.h>
#include <string.h>

#include "queue/harvest.h"
#include "queue/heartbeat.h"
#include "queue/keys.h"
#include "queue/pipeline.h"
#include "queue/queue.h"
#include "queue/record.h"
#include "queue/redis_cmd.h"
#include "queue/seed.h"
#include "tests/support/check.h"
#include "tests/support/redis_support.h"
#include "workers/stage.h"

static redisContext *c;
static LwConfig cfg;

static long long hint(const char *harvest, const char *field)
{
  return lw_test_redis_int(c, "HGET", lw_key(cfg.prefix, LW_KEY_HARVEST, harvest).s, field,
                           NULL);
}

static long long finished(const char *harvest)
{
  return lw_test_redis_int(c, "SCARD",
                           lw_key(cfg.prefix, LW_KEY_HARVEST_FINISHED, harvest).s, NULL);
}

static long long llen(const char *pattern, const char *arg)
{
  return lw_test_redis_int(c, "LLEN", lw_key(cfg.prefix, pattern, arg).s, NULL);
}

static long long done(const char *stage)
{
  return lw_test_redis_int(c, "HGET", lw_key(cfg.prefix, LW_KEY_STATS, stage).s, "done",
                           NULL);
}

static void cmd(const char *a, const char *b, const char *d, const char *e, const char *f)
{
  LwError err;
  redisReply *r = lw_redis_cmd(c, &err, a, b, d, e, f, NULL);
  CHECK(r != NULL);
  freeReplyObject(r);
}

/* A running harvest waiting for files, each a seed in `parsing` of it. */
static void harvest(const char *id, const char *const *files, size_t n)
{
  LwKey key = lw_key(cfg.prefix, LW_KEY_HARVEST, id);
  cmd("HSET", key.s, "status", "running", NULL);
  for (size_t i = 0; i < n; ++i) {
    LwKey seed = lw_key(cfg.prefix, LW_KEY_SEED, files[i]);
    cmd("HSET", seed.s, "status", "parsing", NULL);
    cmd("HSET", seed.s, "harvest", id, NULL);
  }
  LwTxn *txn = lw_txn_new(cfg.prefix);
  lw_txn_harvest_expect_files(txn, id, files, n);
  LwError err;
  CHECK_INT_EQ(lw_txn_exec(c, txn, &err), LW_OK);
  lw_txn_free(txn);
}

/* Queues and fetches the parse job of file in harvest as worker. */
static LwJob *take(const char *worker, const char *file, const char *harvest_id)
{
  LwError err;
  LwJob *job = lw_job_new("parse", file, harvest_id, NULL, &err);
  CHECK_INT_EQ(lw_queue_push(c, &cfg, job, LW_PRIORITY_NORMAL, &err), LW_OK);
  lw_job_free(job);
  CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, worker, "parse", &err), LW_OK);
  const char *stages[] = {"parse"};
  job = NULL;
  CHECK_INT_EQ(lw_queue_fetch(c, &cfg, worker, stages, 1, NULL, &job, &err), LW_OK);
  return job;
}

/* What the parse stage and the frame put in the ack of a cleaned file. */
static LwTxn *results(const LwJob *job)
{
  LwTxn *txn = lw_txn_new(cfg.prefix);
  lw_txn_seed_set(txn, job->seed, "clean", "cafe");
  lw_txn_seed_status(txn, job->seed, "parsed");
  lw_stage_fan_in(job, txn);
  return txn;
}

static void test_noscript_and_resent_ack(void)
{
  harvest("h1", (const char *[]){"f1", "f2"}, 2);
  LwJob *job = take("w1", "f1", "h1");
  LwTxn *txn = results(job);
  LwError err;
  /* Redis forgets its scripts (restart, failover, SCRIPT FLUSH) */
  cmd("SCRIPT", "FLUSH", NULL, NULL, NULL);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", job, txn, &err), LW_OK);
  CHECK_INT_EQ(hint("h1", "pending"), 1);
  CHECK_INT_EQ(finished("h1"), 1);
  CHECK_INT_EQ(done("parse"), 1);
  /* the reply was lost and the ack is sent again: it lost the job */
  cmd("SCRIPT", "FLUSH", NULL, NULL, NULL);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", job, txn, &err), LW_NOTHING);
  CHECK_INT_EQ(hint("h1", "pending"), 1);
  CHECK_INT_EQ(finished("h1"), 1);
  CHECK_INT_EQ(done("parse"), 1);
  CHECK_INT_EQ(lw_test_queue_len(c, cfg.prefix, "import"), 0);
  lw_txn_free(txn);
  lw_job_free(job);
}

/* frozen's heartbeat expires (the worker is stopped): the reaper gives its
 * job (of seed) back, and worker takes it. */
static LwJob *reap_and_retake(const char *frozen, const char *worker, const char *seed)
{
  cmd("DEL", lw_key(cfg.prefix, LW_KEY_WORKER, frozen).s, NULL, NULL, NULL);
  long long returned = 0;
  LwError err;
  CHECK_INT_EQ(lw_queue_reap(c, &cfg, &returned, &err), LW_OK);
  CHECK_INT_EQ(returned, 1);
  const char *stages[] = {"parse"};
  LwJob *job = NULL;
  CHECK_INT_EQ(lw_queue_fetch(c, &cfg, worker, stages, 1, NULL, &job, &err), LW_OK);
  CHECK(job && !strcmp(job->seed, seed));
  return job;
}

static void test_late_ack_of_a_reaped_worker(void)
{
  LwJob *frozen = take("frozen", "f2", "h1");
  /* its heartbeat expires (the worker is stopped): the reaper gives the job
   * back, another worker does it */
  LwJob *job = reap_and_retake("frozen", "w2", "f2");
  LwError err;
  LwTxn *txn = job ? results(job) : NULL;
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w2", job, txn, &err), LW_OK);
  lw_txn_free(txn);
  lw_job_free(job);
  CHECK_INT_EQ(hint("h1", "pending"), 0);
  CHECK_INT_EQ(finished("h1"), 2);
  CHECK_INT_EQ(lw_test_queue_len(c, cfg.prefix, "import"), 1);
  CHECK_INT_EQ(done("parse"), 2);
  /* the frozen worker thaws and acks: nothing changes */
  cmd("HSET", lw_key(cfg.prefix, LW_KEY_SEED, "f2").s, "status", "parsing", NULL);
  txn = results(frozen);
  lw_txn_seed_set(txn, "f2", "clean", "late");
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "frozen", frozen, txn, &err), LW_NOTHING);
  lw_txn_free(txn);
  lw_job_free(frozen);
  CHECK_INT_EQ(done("parse"), 2);
  CHECK_INT_EQ(lw_test_queue_len(c, cfg.prefix, "import"), 1);
  CHECK_INT_EQ(finished("h1"), 2);
  char *clean = NULL;
  CHECK_INT_EQ(lw_seed_get_field(c, cfg.prefix, "f2", "clean", &clean, &err), LW_OK);
  CHECK_STR_EQ(clean, "cafe");
  free(clean);
}

/* The seed's record and the seed counts, as one JSON text (caller frees). */
static char *seed_snapshot(const char *seed)
{
  json_t *record = NULL;
  LwError err;
  CHECK_INT_EQ(lw_seed_get(c, cfg.prefix, seed, &record, &err), LW_OK);
  redisReply *counts = lw_redis_cmd(c, &err, "HGETALL",
                                    lw_key(cfg.prefix, LW_KEY_SEED_COUNTS, NULL).s, NULL);
  CHECK(counts != NULL);
  json_t *all = json_pack("{s:o, s:[]}", "seed", record, "counts");
  for (size_t i = 0; counts && i < counts->elements; ++i) {
    json_array_append_new(json_object_get(all, "counts"),
                          json_string(counts->element[i]->str));
  }
  freeReplyObject(counts);
  char *text = json_dumps(all, JSON_SORT_KEYS | JSON_COMPACT);
  json_decref(all);
  return text;
}

static const char *seed_status(const char *seed, char *buf, size_t size)
{
  char *status = NULL;
  LwError err;
  lw_seed_get_field(c, cfg.prefix, seed, "status", &status, &err);
  snprintf(buf, size, "%s", status ? status : "");
  free(status);
  return buf;
}

/* The working-status write before a stage's work is fenced like the ack:
 * a worker frozen between taking its job and writing it, whose job was
 * reaped and taken by another, changes nothing when it thaws, whether the
 * other has started (the seed still in the status the stage takes) or
 * finished. The undisturbed write of the job's holder applies. */
static void test_late_working_write_of_a_reaped_worker(void)
{
  char buf[32];
  LwError err;
  /* undisturbed: the holder moves its seed to working */
  harvest("hw1", (const char *[]){"n1"}, 1);
  cmd("HSET", lw_key(cfg.prefix, LW_KEY_SEED, "n1").s, "status", "guessed", NULL);
  LwJob *calm = take("calm", "n1", "hw1");
  CHECK_INT_EQ(lw_seed_set_working(c, cfg.prefix, "calm", calm, "parsing", &err), LW_OK);
  CHECK_STR_EQ(seed_status("n1", buf, sizeof(buf)), "parsing");
  LwTxn *txn = results(calm);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "calm", calm, txn, &err), LW_OK);
  lw_txn_free(txn);
  lw_job_free(calm);

  harvest("hw2", (const char *[]){"m1"}, 1);
  cmd("HSET", lw_key(cfg.prefix, LW_KEY_SEED, "m1").s, "status", "guessed", NULL);
  LwJob *frozen = take("frozen2", "m1", "hw2");
  /* stopped before its working write, past its heartbeat: reaped */
  LwJob *job = reap_and_retake("frozen2", "w3", "m1");
  /* it thaws before the new holder starts: the seed stays as it is */
  char *before = seed_snapshot("m1");
  CHECK_INT_EQ(lw_seed_set_working(c, cfg.prefix, "frozen2", frozen, "parsing", &err),
               LW_NOTHING);
  char *after = seed_snapshot("m1");
  CHECK_STR_EQ(after, before);
  CHECK_STR_EQ(seed_status("m1", buf, sizeof(buf)), "guessed");
  free(before);
  free(after);
  /* the holder works and acks */
  CHECK_INT_EQ(lw_seed_set_working(c, cfg.prefix, "w3", job, "parsing", &err), LW_OK);
  txn = job ? results(job) : NULL;
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w3", job, txn, &err), LW_OK);
  lw_txn_free(txn);
  lw_job_free(job);
  /* it thaws after: still nothing */
  before = seed_snapshot("m1");
  CHECK_INT_EQ(lw_seed_set_working(c, cfg.prefix, "frozen2", frozen, "parsing", &err),
               LW_NOTHING);
  after = seed_snapshot("m1");
  CHECK_STR_EQ(after, before);
  CHECK_STR_EQ(seed_status("m1", buf, sizeof(buf)), "parsed");
  CHECK_INT_EQ(finished("hw2"), 1);
  free(before);
  free(after);
  lw_job_free(frozen);
}

/* The working move with the seed's read in one round trip: the record
 * comes back as it is after the move; a seed past the stage or another
 * harvest's is left as it is (LW_ERR_STATE), a seed of no harvest is
 * taken, and a job the worker no longer holds writes nothing. */
static void test_take_working_reads_the_seed(void)
{
  char buf[32];
  LwError err;
  harvest("hw3", (const char *[]){"k1"}, 1);
  LwKey key = lw_key(cfg.prefix, LW_KEY_SEED, "k1");
  cmd("HSET", key.s, "status", "guessed", NULL);
  LwJob *job = take("wk", "k1", "hw3");
  json_t *rec = NULL;
  CHECK_INT_EQ(lw_seed_take_working(c, cfg.prefix, "wk", job, "parsing", &rec, &err), LW_OK);
  CHECK_STR_EQ(lw_record_str(rec, "status", ""), "parsing");
  CHECK_STR_EQ(lw_record_str(rec, "harvest", ""), "hw3");
  json_decref(rec);
  /* run again: the working status to itself */
  CHECK_INT_EQ(lw_seed_take_working(c, cfg.prefix, "wk", job, "parsing", &rec, &err), LW_OK);
  json_decref(rec);
  /* past the stage */
  cmd("HSET", key.s, "status", "parsed", NULL);
  CHECK_INT_EQ(lw_seed_take_working(c, cfg.prefix, "wk", job, "parsing", &rec, &err),
               LW_ERR_STATE);
  CHECK(rec != NULL);
  json_decref(rec);
  CHECK_STR_EQ(seed_status("k1", buf, sizeof(buf)), "parsed");
  /* another harvest's seed */
  cmd("HSET", key.s, "status", "guessed", NULL);
  cmd("HSET", key.s, "harvest", "hw-other", NULL);
  CHECK_INT_EQ(lw_seed_take_working(c, cfg.prefix, "wk", job, "parsing", &rec, &err),
               LW_ERR_STATE);
  json_decref(rec);
  CHECK_STR_EQ(seed_status("k1", buf, sizeof(buf)), "guessed");
  /* a job the worker does not hold */
  char *before = seed_snapshot("k1");
  CHECK_INT_EQ(lw_seed_take_working(c, cfg.prefix, "nobody", job, "parsing", &rec, &err),
               LW_NOTHING);
  json_decref(rec);
  char *after = seed_snapshot("k1");
  CHECK_STR_EQ(after, before);
  free(before);
  free(after);
  /* a seed of no harvest */
  cmd("HDEL", key.s, "harvest", NULL, NULL);
  CHECK_INT_EQ(lw_seed_take_working(c, cfg.prefix, "wk", job, "parsing", &rec, &err), LW_OK);
  json_decref(rec);
  CHECK_STR_EQ(seed_status("k1", buf, sizeof(buf)), "parsing");
  /* no seed at all */
  cmd("DEL", key.s, NULL, NULL, NULL);
  CHECK_INT_EQ(lw_seed_take_working(c, cfg.prefix, "wk", job, "parsing", &rec, &err),
               LW_ERR_STATE);
  CHECK(rec == NULL);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "wk", job, NULL, &err), LW_OK);
  lw_job_free(job);
}

static void test_dead_file_counted_once(void)
{
  harvest("h2", (const char *[]){"g1", "g2"}, 2);
  LwJob *job = take("w1", "g1", "h2");
  LwError failure, err;
  lw_error_set(&failure, LW_ERR_SYNTAX, "not RDF");
  LwTxn *res = lw_stage_fail_fan_in(&cfg, job, &failure);
  LwFailOutcome outcome = LW_FAIL_RETRY;
  CHECK_INT_EQ(lw_queue_fail(c, &cfg, "w1", job, &failure, res, &outcome, NULL, &err),
               LW_OK);
  CHECK_INT_EQ(outcome, LW_FAIL_DEAD);
  CHECK_INT_EQ(hint("h2", "pending"), 1);
  CHECK_INT_EQ(hint("h2", "failed"), 1);
  /* sent again (its reply lost): nothing more */
  lw_txn_free(res);
  res = lw_stage_fail_fan_in(&cfg, job, &failure);
  CHECK_INT_EQ(lw_queue_fail(c, &cfg, "w1", job, &failure, res, &outcome, NULL, &err),
               LW_NOTHING);
  lw_txn_free(res);
  lw_job_free(job);
  CHECK_INT_EQ(hint("h2", "pending"), 1);
  CHECK_INT_EQ(hint("h2", "failed"), 1);
  CHECK_INT_EQ(llen(LW_KEY_DEAD, "parse"), 1);
  char *status = NULL;
  CHECK_INT_EQ(lw_seed_get_field(c, cfg.prefix, "g1", "status", &status, &err), LW_OK);
  CHECK_STR_EQ(status, "failed");
  free(status);
  /* the last file: the import is queued, once */
  long long imports = lw_test_queue_len(c, cfg.prefix, "import");
  job = take("w1", "g2", "h2");
  LwTxn *txn = results(job);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", job, txn, &err), LW_OK);
  lw_txn_free(txn);
  lw_job_free(job);
  CHECK_INT_EQ(hint("h2", "pending"), 0);
  CHECK_INT_EQ(lw_test_queue_len(c, cfg.prefix, "import"), imports + 1);
}

static void test_reaped_to_death(void)
{
  harvest("h5", (const char *[]){"m1"}, 1);
  LwError err;
  LwKey index = lw_key(cfg.prefix, LW_KEY_SEED_INDEX, NULL);
  long long indexed = lw_test_redis_int(c, "ZSCORE", index.s, "m1", NULL);
  lw_sleep_ms(5);
  LwJob *job = take("killed0", "m1", "h5");
  long long imports = lw_test_queue_len(c, cfg.prefix, "import");
  for (long long i = 0; job; ++i) {
    /* its worker dies each time it runs it */
    char worker[32];
    snprintf(worker, sizeof(worker), "killed%lld", i);
    cmd("DEL", lw_key(cfg.prefix, LW_KEY_WORKER, worker).s, NULL, NULL, NULL);
    long long returned = 0;
    CHECK_INT_EQ(lw_pipeline_reap(c, &cfg, &returned, &err), LW_OK);
    lw_job_free(job);
    job = NULL;
    snprintf(worker, sizeof(worker), "killed%lld", i + 1);
    CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, worker, "parse", &err), LW_OK);
    const char *stages[] = {"parse"};
    if (i < cfg.max_attempts) {
      lw_queue_fetch(c, &cfg, worker, stages, 1, NULL, &job, &err);
    }
  }
  CHECK_INT_EQ(llen(LW_KEY_DEAD, "parse"), 2);
  CHECK_INT_EQ(hint("h5", "failed"), 1);
  CHECK_INT_EQ(hint("h5", "pending"), 0);
  CHECK_INT_EQ(lw_test_queue_len(c, cfg.prefix, "import"), imports + 1);
  char *status = NULL;
  CHECK_INT_EQ(lw_seed_get_field(c, cfg.prefix, "m1", "status", &status, &err), LW_OK);
  CHECK_STR_EQ(status, "failed");
  free(status);
  /* the collection's index follows the failure (queue/gc_index.h) */
  CHECK(lw_test_redis_int(c, "ZSCORE", index.s, "m1", NULL) > indexed);
}

/* An archive of many entries: one ack of thousands of ops. */
static void test_large_ack(void)
{
  harvest("h6", (const char *[]){"big"}, 1);
  LwJob *job = take("w1", "big", "h6");
  LwTxn *txn = lw_txn_new(cfg.prefix);
  enum { N = 5000 };
  for (int i = 0; i < N; ++i) {
    char child[32];
    snprintf(child, sizeof(child), "entry%d", i);
    lw_txn_seed_status(txn, child, "filed");
    lw_txn_seed_set(txn, child, "harvest", "h6");
    lw_txn_push_job(txn, "unpack", child, "h6", LW_PRIORITY_NORMAL, NULL);
  }
  lw_stage_fan_in(job, txn);
  LwError err;
  cmd("SCRIPT", "FLUSH", NULL, NULL, NULL);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", job, txn, &err), LW_OK);
  lw_txn_free(txn);
  lw_job_free(job);
  CHECK_INT_EQ(hint("h6", "pending"), N);
  CHECK_INT_EQ(finished("h6"), 1);
  CHECK_INT_EQ(lw_test_queue_len(c, cfg.prefix, "unpack"), N);
}

static void test_results_all_or_nothing(void)
{
  harvest("h3", (const char *[]){"k1"}, 1);
  LwJob *job = take("w1", "k1", "h3");
  LwTxn *txn = lw_txn_new(cfg.prefix);
  lw_txn_seed_set(txn, "k1", "clean", "x");
  lw_txn_seed_status(txn, "k1", "filed"); /* parsing -> filed: refused */
  lw_stage_fan_in(job, txn);
  LwError err;
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", job, txn, &err), LW_ERR_STATE);
  lw_txn_free(txn);
  lw_job_free(job);
  char *clean = NULL;
  CHECK_INT_EQ(lw_seed_get_field(c, cfg.prefix, "k1", "clean", &clean, &err), LW_NOTHING);
  CHECK_INT_EQ(finished("h3"), 0);
  CHECK_INT_EQ(
    lw_test_redis_int(c, "LLEN", lw_key(cfg.prefix, LW_KEY_INFLIGHT, "w1").s, NULL), 0);

  /* a re-harvest took the seed: the old harvest's job records nothing */
  job = take("w1", "k1", "h3");
  cmd("HSET", lw_key(cfg.prefix, LW_KEY_SEED, "k1").s, "harvest", "h4", NULL);
  txn = results(job);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", job, txn, &err), LW_ERR_STATE);
  CHECK(strstr(err.message, "h4") != NULL);
  lw_txn_free(txn);
  lw_job_free(job);
  CHECK_INT_EQ(lw_seed_get_field(c, cfg.prefix, "k1", "clean", &clean, &err), LW_NOTHING);
  CHECK_INT_EQ(finished("h3"), 0);
}

int main(void)
{
  c = lw_test_redis();
  lw_test_redis_config(&cfg, "records");
  lw_test_redis_cleanup(c, cfg.prefix);
  test_noscript_and_resent_ack();
  test_late_ack_of_a_reaped_worker();
  test_late_working_write_of_a_reaped_worker();
  test_take_working_reads_the_seed();
  test_dead_file_counted_once();
  test_reaped_to_death();
  test_large_ack();
  test_results_all_or_nothing();
  lw_test_redis_cleanup(c, cfg.prefix);
  redisFree(c);
  lw_config_free(&cfg);
  return lw_test_finish();
}
