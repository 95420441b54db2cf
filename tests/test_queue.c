/* The job queue against a real Redis: priorities, duplicate suppression,
 * ack with results, retries with backoff, the dead list, hand-back, the
 * reaper, counts and the status JSON. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "queue/controls.h"
#include "queue/heartbeat.h"
#include "queue/job_timing.h"
#include "queue/keys.h"
#include "queue/queue.h"
#include "queue/seed.h"
#include "tests/support/check.h"
#include "tests/support/redis_support.h"

static redisContext *c;
static LwConfig cfg;

static LwJob *job_for(const char *stage, const char *seed, const char *extra_json)
{
  json_t *extra = extra_json ? json_loads(extra_json, 0, NULL) : NULL;
  LwError err;
  LwJob *job = lw_job_new(stage, seed, "h1", extra, &err);
  json_decref(extra);
  return job;
}

static LwStatus push(const char *stage, const char *seed, LwPriority prio, char *id_out)
{
  LwJob *job = job_for(stage, seed, NULL);
  LwError err;
  LwStatus st = lw_queue_push(c, &cfg, job, prio, &err);
  if (id_out) {
    strcpy(id_out, job->id);
  }
  lw_job_free(job);
  return st;
}

/* The job worker takes from stages[0..n) (NULL: none), with cap. */
static LwJob *fetch_of(const char *worker, const char *const *stages, size_t n,
                       const LwFetchCap *cap)
{
  LwJob *job = NULL;
  LwError err;
  LwStatus st = lw_queue_fetch(c, &cfg, worker, stages, n, cap, &job, &err);
  CHECK(st == LW_OK || st == LW_NOTHING);
  return job;
}

static LwJob *fetch(const char *worker, const char *stage)
{
  return fetch_of(worker, (const char *[]){stage}, 1, NULL);
}

static LwStageCounts counts(const char *stage)
{
  LwStageCounts n;
  LwError err;
  CHECK_INT_EQ(lw_queue_counts(c, &cfg, stage, &n, &err), LW_OK);
  return n;
}

static void test_priorities_and_ack(void)
{
  char a[17], b[17], h[17];
  CHECK_INT_EQ(push("prio", "", LW_PRIORITY_NORMAL, a), LW_OK);
  CHECK_INT_EQ(push("prio", "", LW_PRIORITY_NORMAL, b), LW_OK);
  CHECK_INT_EQ(push("prio", "", LW_PRIORITY_HIGH, h), LW_OK);
  CHECK_INT_EQ(counts("prio").queued, 3);

  LwError err;
  CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, "w1", "prio", &err), LW_OK);
  LwJob *first = fetch("w1", "prio");
  CHECK(first && !strcmp(first->id, h)); /* high first */
  CHECK_INT_EQ(counts("prio").inflight, 1);
  CHECK_INT_EQ(counts("prio").queued, 2);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", first, NULL, &err), LW_OK);
  LwJob *second = fetch("w1", "prio");
  CHECK(second && !strcmp(second->id, a)); /* then normal jobs in order */
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", second, NULL, &err), LW_OK);
  LwJob *third = fetch("w1", "prio");
  CHECK(third && !strcmp(third->id, b));
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", third, NULL, &err), LW_OK);
  CHECK(fetch("w1", "prio") == NULL);

  LwStageCounts n = counts("prio");
  CHECK_INT_EQ(n.done, 3);
  CHECK_INT_EQ(n.inflight, 0);
  CHECK_INT_EQ(n.queued, 0);
  CHECK_INT_EQ(
    lw_test_redis_int(c, "LLEN", lw_key(cfg.prefix, LW_KEY_INFLIGHT, "w1").s, NULL), 0);
  lw_job_free(first);
  lw_job_free(second);
  lw_job_free(third);
}

static void test_duplicates(void)
{
  CHECK_INT_EQ(push("dup", "seedA", LW_PRIORITY_NORMAL, NULL), LW_OK);
  CHECK_INT_EQ(push("dup", "seedA", LW_PRIORITY_NORMAL, NULL), LW_NOTHING);
  CHECK_INT_EQ(push("dup", "seedA", LW_PRIORITY_HIGH, NULL), LW_NOTHING);
  CHECK_INT_EQ(push("other", "seedA", LW_PRIORITY_NORMAL, NULL), LW_OK); /* other stage */
  CHECK_INT_EQ(counts("dup").queued, 1);
  LwJob *job = fetch("w1", "dup");
  CHECK(job != NULL);
  /* still in flight: still suppressed */
  CHECK_INT_EQ(push("dup", "seedA", LW_PRIORITY_NORMAL, NULL), LW_NOTHING);
  LwError err;
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", job, NULL, &err), LW_OK);
  CHECK_INT_EQ(push("dup", "seedA", LW_PRIORITY_NORMAL, NULL), LW_OK);
  lw_job_free(job);

  /* push_many: jobs without a seed are never suppressed */
  LwJob *many[50];
  for (int i = 0; i < 50; ++i) {
    many[i] = job_for("many", i < 40 ? "" : "same", NULL);
  }
  size_t pushed = 0;
  CHECK_INT_EQ(lw_queue_push_many(c, &cfg, many, 50, LW_PRIORITY_NORMAL, &pushed, &err),
               LW_OK);
  CHECK_INT_EQ(pushed, 41);
  CHECK_INT_EQ(counts("many").queued, 41);
  for (int i = 0; i < 50; ++i) {
    lw_job_free(many[i]);
  }
}

static void test_retries_and_dead(void)
{
  LwError err;
  char seed[LW_HASH_HEX_LEN + 1];
  CHECK_INT_EQ(
    lw_seed_record(c, cfg.prefix, "http://example.org/flaky", NULL, NULL, seed, &err),
    LW_OK);
  CHECK_INT_EQ(lw_seed_set_status(c, cfg.prefix, seed, "downloading", &err), LW_OK);
  char id[17];
  CHECK_INT_EQ(push("retry", seed, LW_PRIORITY_NORMAL, id), LW_OK);

  LwError failure;
  lw_error_set(&failure, LW_ERR_NET, "connection refused");
  /* Backoff from 500 ms (the suite's 100 ms, with a few checks between the
   * fail and the fetch that must find the job not due yet, left no room for
   * a process that a loaded machine stalls for a tenth of a second). */
  const long long base_ms = cfg.retry_base_ms;
  cfg.retry_base_ms = 500;
  long long expected_delay[] = {500, 1000};
  for (int attempt = 1; attempt <= 3; ++attempt) {
    LwJob *job = fetch("w1", "retry");
    CHECK(job != NULL);
    if (!job) {
      return;
    }
    CHECK_STR_EQ(job->id, id);
    CHECK_INT_EQ(job->attempt, attempt - 1);
    LwFailOutcome outcome;
    long long delay = -1;
    CHECK_INT_EQ(lw_queue_fail(c, &cfg, "w1", job, &failure, NULL, &outcome, &delay, &err),
                 LW_OK);
    lw_job_free(job);
    if (attempt < 3) {
      CHECK_INT_EQ(outcome, LW_FAIL_RETRY);
      CHECK_INT_EQ(delay, expected_delay[attempt - 1]);
      CHECK_INT_EQ(counts("retry").delayed, 1);
      CHECK(fetch("w1", "retry") == NULL); /* not due yet */
      /* while delayed the seed still counts as queued */
      CHECK_INT_EQ(push("retry", seed, LW_PRIORITY_NORMAL, NULL), LW_NOTHING);
      lw_sleep_ms(delay + 60);
    } else {
      CHECK_INT_EQ(outcome, LW_FAIL_DEAD);
    }
  }
  LwStageCounts n = counts("retry");
  CHECK_INT_EQ(n.dead, 1);
  CHECK_INT_EQ(n.failed, 3);
  CHECK_INT_EQ(n.delayed, 0);
  CHECK_INT_EQ(n.inflight, 0);
  cfg.retry_base_ms = base_ms;

  json_t *rec = NULL;
  CHECK_INT_EQ(lw_seed_get(c, cfg.prefix, seed, &rec, &err), LW_OK);
  CHECK_STR_EQ(json_string_value(json_object_get(rec, "status")), "failed");
  CHECK_STR_EQ(json_string_value(json_object_get(rec, "error")), "net: connection refused");
  json_decref(rec);

  json_t *dead = NULL;
  long long total = 0;
  CHECK_INT_EQ(lw_queue_dead_list(c, &cfg, 0, &dead, &total, &err), LW_OK);
  CHECK_INT_EQ(total, 1);
  json_t *entry = json_array_get(dead, 0);
  CHECK_STR_EQ(json_string_value(json_object_get(entry, "id")), id);
  CHECK_INT_EQ(json_integer_value(json_object_get(entry, "attempt")), 3);
  CHECK_STR_EQ(json_string_value(json_object_get(entry, "error")), "connection refused");
  CHECK_STR_EQ(json_string_value(json_object_get(entry, "error_kind")), "net");
  CHECK(json_integer_value(json_object_get(entry, "first_failed")) > 0);
  CHECK(json_integer_value(json_object_get(entry, "failed")) >=
        json_integer_value(json_object_get(entry, "first_failed")));
  json_decref(dead);

  /* retry an unknown id: nothing; the right id: back in the queue */
  long long moved = -1;
  CHECK_INT_EQ(lw_queue_retry_dead(c, &cfg, NULL, "0000000000000000", &moved, &err),
               LW_NOTHING);
  CHECK_INT_EQ(moved, 0);
  CHECK_INT_EQ(lw_queue_retry_dead(c, &cfg, NULL, id, &moved, &err), LW_OK);
  CHECK_INT_EQ(moved, 1);
  n = counts("retry");
  CHECK_INT_EQ(n.dead, 0);
  CHECK_INT_EQ(n.queued, 1);
  LwJob *again = fetch("w1", "retry");
  CHECK(again && again->attempt == 0 && !strcmp(again->id, id));
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", again, NULL, &err), LW_OK);
  lw_job_free(again);

  /* a server's Retry-After beats a shorter backoff, capped by retry_max_ms */
  CHECK_INT_EQ(push("later", "l1", LW_PRIORITY_NORMAL, NULL), LW_OK);
  LwJob *slow = fetch("w1", "later");
  lw_error_set(&failure, LW_ERR_NET, "HTTP 429, Retry-After: 2");
  failure.retry_after_ms = 2000;
  LwFailOutcome later_outcome;
  long long later_delay = -1;
  CHECK_INT_EQ(
    lw_queue_fail(c, &cfg, "w1", slow, &failure, NULL, &later_outcome, &later_delay, &err),
    LW_OK);
  CHECK_INT_EQ(later_outcome, LW_FAIL_RETRY);
  CHECK_INT_EQ(later_delay, cfg.retry_max_ms < 2000 ? cfg.retry_max_ms : 2000);
  lw_job_free(slow);

  /* permanent errors skip the retries */
  CHECK_INT_EQ(push("perm", "p1", LW_PRIORITY_NORMAL, NULL), LW_OK);
  LwJob *job = fetch("w1", "perm");
  lw_error_set(&failure, LW_ERR_SYNTAX, "bad Turtle at line 3");
  LwFailOutcome outcome;
  CHECK_INT_EQ(lw_queue_fail(c, &cfg, "w1", job, &failure, NULL, &outcome, NULL, &err),
               LW_OK);
  CHECK_INT_EQ(outcome, LW_FAIL_DEAD);
  CHECK_INT_EQ(counts("perm").dead, 1);
  CHECK_INT_EQ(counts("perm").delayed, 0);
  lw_job_free(job);
  /* a dead job releases its seed */
  CHECK_INT_EQ(push("perm", "p1", LW_PRIORITY_NORMAL, NULL), LW_OK);

  CHECK_INT_EQ(lw_queue_backoff_ms(&cfg, 1), 100);
  CHECK_INT_EQ(lw_queue_backoff_ms(&cfg, 4), 800);
  CHECK_INT_EQ(lw_queue_backoff_ms(&cfg, 60), 1000); /* capped */
}

static void test_handback(void)
{
  char a[17];
  CHECK_INT_EQ(push("hb", "", LW_PRIORITY_NORMAL, a), LW_OK);
  CHECK_INT_EQ(push("hb", "", LW_PRIORITY_NORMAL, NULL), LW_OK);
  LwJob *job = fetch("w1", "hb");
  CHECK(job && !strcmp(job->id, a));
  LwError err;
  CHECK_INT_EQ(lw_queue_handback(c, &cfg, "w1", job, &err), LW_OK);
  CHECK_INT_EQ(counts("hb").inflight, 0);
  CHECK_INT_EQ(counts("hb").failed, 0);
  LwJob *again = fetch("w1", "hb");
  CHECK(again && !strcmp(again->id, a) && again->attempt == 0); /* front, unchanged */
  CHECK_STR_EQ(again->raw, job->raw);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", again, NULL, &err), LW_OK);
  lw_job_free(job);
  lw_job_free(again);
}

static void test_reaper(void)
{
  LwError err;
  char id[17];
  CHECK_INT_EQ(push("reap", "r1", LW_PRIORITY_NORMAL, id), LW_OK);
  CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, "doomed", "reap", &err), LW_OK);
  LwJob *job = fetch("doomed", "reap");
  CHECK(job != NULL);
  long long returned = -1;
  CHECK_INT_EQ(lw_queue_reap(c, &cfg, &returned, &err), LW_OK);
  CHECK_INT_EQ(returned, 0); /* alive: nothing taken */
  CHECK_INT_EQ(counts("reap").inflight, 1);
  lw_sleep_ms(1300); /* heartbeat TTL is 1 s and nobody beats */
  CHECK_INT_EQ(lw_queue_reap(c, &cfg, &returned, &err), LW_OK);
  CHECK_INT_EQ(returned, 1);
  LwStageCounts n = counts("reap");
  CHECK_INT_EQ(n.inflight, 0);
  CHECK_INT_EQ(n.queued, 1);
  CHECK_INT_EQ(lw_test_redis_int(c, "SISMEMBER", lw_key(cfg.prefix, LW_KEY_WORKERS, NULL).s,
                                 "doomed", NULL),
               0);
  CHECK_INT_EQ(
    lw_test_redis_int(c, "EXISTS", lw_key(cfg.prefix, LW_KEY_INFLIGHT, "doomed").s, NULL),
    0);
  /* the doomed worker's late ack changes nothing: it lost the job */
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "doomed", job, NULL, &err), LW_NOTHING);
  CHECK_INT_EQ(counts("reap").done, 0);
  CHECK_INT_EQ(counts("reap").queued, 1);
  lw_job_free(job);

  LwJob *back = fetch("w1", "reap");
  CHECK(back && !strcmp(back->id, id));
  CHECK_INT_EQ(lw_job_get_int(back, "reaped", 0), 1);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", back, NULL, &err), LW_OK);
  lw_job_free(back);
  /* a job that keeps killing its workers ends up dead */
  CHECK_INT_EQ(push("reap", "r2", LW_PRIORITY_NORMAL, NULL), LW_OK);
  for (int i = 0; i < 3; ++i) {
    CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, "doomed2", "reap", &err), LW_OK);
    LwJob *j = fetch("doomed2", "reap");
    CHECK(j != NULL);
    lw_job_free(j);
    redisReply *r = redisCommand(c, "DEL %s",
                                 lw_key(cfg.prefix, LW_KEY_WORKER, "doomed2").s);
    freeReplyObject(r);
    CHECK_INT_EQ(lw_queue_reap(c, &cfg, &returned, &err), LW_OK);
    CHECK_INT_EQ(returned, 1);
  }
  CHECK_INT_EQ(counts("reap").dead, 1);
  CHECK_INT_EQ(counts("reap").queued, 0);
}

static void test_ack_records_results(void)
{
  LwError err;
  char seed[LW_HASH_HEX_LEN + 1];
  CHECK_INT_EQ(
    lw_seed_record(c, cfg.prefix, "http://example.org/data.ttl", "geo", "h1", seed, &err),
    LW_OK);
  CHECK_INT_EQ(lw_seed_set_status(c, cfg.prefix, seed, "downloading", &err), LW_OK);
  CHECK_INT_EQ(push("dl", seed, LW_PRIORITY_NORMAL, NULL), LW_OK);
  LwJob *job = fetch("w1", "dl");
  CHECK(job != NULL);
  LwTxn *txn = lw_txn_new(cfg.prefix);
  lw_txn_seed_set(txn, seed, "format", "turtle");
  lw_txn_seed_status(txn, seed, "filed");
  lw_txn_push_job(txn, "next", seed, "h1", LW_PRIORITY_NORMAL, NULL);
  lw_txn_push_job(txn, "next", seed, "h1", LW_PRIORITY_NORMAL, NULL); /* suppressed */
  CHECK_INT_EQ(lw_txn_count(txn), 4);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", job, txn, &err), LW_OK);
  lw_txn_free(txn);
  lw_job_free(job);

  json_t *rec = NULL;
  CHECK_INT_EQ(lw_seed_get(c, cfg.prefix, seed, &rec, &err), LW_OK);
  CHECK_STR_EQ(json_string_value(json_object_get(rec, "status")), "filed");
  CHECK_STR_EQ(json_string_value(json_object_get(rec, "format")), "turtle");
  CHECK_STR_EQ(json_string_value(json_object_get(rec, "provider")), "geo");
  json_decref(rec);
  CHECK_INT_EQ(counts("next").queued, 1);
  CHECK_INT_EQ(counts("dl").done, 1);

  /* a refused transition fails the exec with LW_ERR_STATE */
  txn = lw_txn_new(cfg.prefix);
  lw_txn_seed_status(txn, seed, "parsed");
  CHECK_INT_EQ(lw_txn_exec(c, txn, &err), LW_ERR_STATE);
  CHECK(strstr(err.message, "filed") && strstr(err.message, "parsed"));
  lw_txn_free(txn);
  /* bad input to a txn is reported at exec */
  txn = lw_txn_new(cfg.prefix);
  lw_txn_push_job(txn, "bad stage!", seed, NULL, LW_PRIORITY_NORMAL, NULL);
  CHECK_INT_EQ(lw_txn_exec(c, txn, &err), LW_ERR_USAGE);
  lw_txn_free(txn);
  lw_txn_free(NULL);
}

/* w1 acks job with the fetch of stages folded in: the ack's status is
 * expect and no next job comes. */
static void ack_fetch_none_as(const char *worker, const LwJob *job, const char *const *stages,
                              size_t n, LwStatus expect)
{
  LwError err;
  LwJob *next = NULL;
  CHECK_INT_EQ(lw_queue_ack_fetch(c, &cfg, worker, job, NULL, stages, n, NULL, &next, &err),
               expect);
  CHECK(next == NULL);
  lw_job_free(next);
}

static void ack_fetch_none(const LwJob *job, const char *const *stages, size_t n,
                           LwStatus expect)
{
  ack_fetch_none_as("w1", job, stages, n, expect);
}

static void test_ack_fetch_and_orphans(void)
{
  LwError err;
  char a[17], b[17];
  /* w1's heartbeat (1 s) expired long ago and the reaper dropped it */
  CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, "w1", "af", &err), LW_OK);
  CHECK_INT_EQ(push("af", "", LW_PRIORITY_NORMAL, a), LW_OK);
  CHECK_INT_EQ(push("af", "", LW_PRIORITY_NORMAL, b), LW_OK);
  LwJob *first = fetch("w1", "af");
  CHECK(first && !strcmp(first->id, a));
  const char *stages[] = {"af"};
  LwJob *next = NULL;
  CHECK_INT_EQ(lw_queue_ack_fetch(c, &cfg, "w1", first, NULL, stages, 1, NULL, &next, &err),
               LW_OK);
  CHECK(next && !strcmp(next->id, b));
  CHECK_INT_EQ(counts("af").done, 1);
  CHECK_INT_EQ(counts("af").inflight, 1);
  ack_fetch_none(next, stages, 1, LW_OK);
  CHECK_INT_EQ(counts("af").done, 2);
  CHECK_INT_EQ(counts("af").inflight, 0);
  lw_job_free(first);
  lw_job_free(next);

  /* a job in the in-flight list the worker does not know about (its fetch
   * reply was lost) is handed back; the one it holds stays */
  CHECK_INT_EQ(push("af", "", LW_PRIORITY_NORMAL, a), LW_OK);
  CHECK_INT_EQ(push("af", "", LW_PRIORITY_NORMAL, b), LW_OK);
  LwJob *held = fetch("w1", "af");
  LwJob *lost = fetch("w1", "af");
  long long released = 0;
  CHECK_INT_EQ(lw_queue_release_orphans(c, &cfg, "w1", held, &released, &err), LW_OK);
  CHECK_INT_EQ(released, 1);
  CHECK_INT_EQ(counts("af").queued, 1);
  CHECK_INT_EQ(counts("af").inflight, 1);
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", held, NULL, &err), LW_OK);
  LwJob *again = fetch("w1", "af");
  CHECK(again && lost && !strcmp(again->id, lost->id));
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", again, NULL, &err), LW_OK);
  lw_job_free(held);
  lw_job_free(lost);
  lw_job_free(again);
}

/* The ack and the next fetch are one script call: it runs again with its
 * body after a flushed script cache, counts the job's time with the ack
 * (once: a lost ack counts nothing), and a job of a stage paused meanwhile
 * is handed back, not run. */
static void test_ack_fetch_folded(void)
{
  LwError err;
  char a[17], b[17], p[17];
  CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, "w1", "fa,fp", &err), LW_OK);
  CHECK_INT_EQ(push("fa", "", LW_PRIORITY_NORMAL, a), LW_OK);
  CHECK_INT_EQ(push("fa", "", LW_PRIORITY_NORMAL, b), LW_OK);
  LwJob *first = fetch("w1", "fa");
  CHECK(first && !strcmp(first->id, a));
  freeReplyObject(redisCommand(c, "SCRIPT FLUSH"));
  first->timed = true;
  first->ran_ms = 7;
  const char *stages[] = {"fp", "fa"};
  LwJob *next = NULL;
  CHECK_INT_EQ(lw_queue_ack_fetch(c, &cfg, "w1", first, NULL, stages, 2, NULL, &next, &err),
               LW_OK);
  CHECK(next && !strcmp(next->id, b));
  CHECK_INT_EQ(counts("fa").done, 1);
  LwJobTiming timing;
  CHECK_INT_EQ(lw_job_timing_read(c, cfg.prefix, "fa", &timing, &err), LW_OK);
  CHECK_INT_EQ(timing.count, 1);
  CHECK_INT_EQ(timing.sum_ms, 7);
  /* the same ack again (its reply lost): fenced, nothing counted */
  ack_fetch_none(first, stages, 2, LW_NOTHING);
  CHECK_INT_EQ(lw_job_timing_read(c, cfg.prefix, "fa", &timing, &err), LW_OK);
  CHECK_INT_EQ(timing.count, 1);
  CHECK_INT_EQ(counts("fa").done, 1);

  /* fp paused after the worker last looked: its job comes with the ack and
   * goes back to the front of its queue; the next ask leaves fp out */
  CHECK_INT_EQ(push("fp", "", LW_PRIORITY_NORMAL, p), LW_OK);
  CHECK_INT_EQ(push("fa", "", LW_PRIORITY_NORMAL, a), LW_OK);
  CHECK_INT_EQ(lw_controls_stage_pause(c, cfg.prefix, "fp", true, &err), LW_OK);
  next->timed = true; /* a run under a millisecond: counted, adds no time */
  next->ran_ms = 0;
  ack_fetch_none(next, stages, 2, LW_OK);
  CHECK_INT_EQ(lw_job_timing_read(c, cfg.prefix, "fa", &timing, &err), LW_OK);
  CHECK_INT_EQ(timing.count, 2);
  CHECK_INT_EQ(timing.bucket[0], 2);
  CHECK_INT_EQ(timing.sum_ms, 7);
  CHECK_INT_EQ(counts("fp").queued, 1);
  CHECK_INT_EQ(counts("fp").inflight, 0);
  LwJob *other = fetch("w1", "fa");
  CHECK(other && !strcmp(other->id, a));
  ack_fetch_none(other, stages, 2, LW_OK); /* fp left out: its job stays queued */
  CHECK_INT_EQ(counts("fp").queued, 1);
  CHECK_INT_EQ(lw_controls_stage_pause(c, cfg.prefix, "fp", false, &err), LW_OK);
  LwJob *resumed = fetch("w1", "fp");
  CHECK(resumed && !strcmp(resumed->id, p));
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", resumed, NULL, &err), LW_OK);
  lw_job_free(first);
  lw_job_free(next);
  lw_job_free(other);
  lw_job_free(resumed);
}

/* Every stage paused when an ack came, then resumed: the ack after the
 * resume brings the next job again (the paused set it had seen is not
 * kept for good: a fetch of its own reads it anew). */
static void test_ack_fetch_after_resume(void)
{
  LwError err;
  char a[17], b[17], d[17];
  const char *stages[] = {"ra"};
  CHECK_INT_EQ(push("ra", "", LW_PRIORITY_NORMAL, a), LW_OK);
  CHECK_INT_EQ(push("ra", "", LW_PRIORITY_NORMAL, b), LW_OK);
  CHECK_INT_EQ(push("ra", "", LW_PRIORITY_NORMAL, d), LW_OK);
  LwJob *first = fetch("w1", "ra");
  CHECK(first && !strcmp(first->id, a));
  LwJob *second = NULL;
  CHECK_INT_EQ(lw_queue_ack_fetch(c, &cfg, "w1", first, NULL, stages, 1, NULL, &second, &err),
               LW_OK);
  CHECK(second && !strcmp(second->id, b));
  CHECK_INT_EQ(lw_controls_stage_pause(c, cfg.prefix, "ra", true, &err), LW_OK);
  LwJob *held = fetch("w1", "ra");
  CHECK(held == NULL); /* paused: nothing handed out */
  CHECK(lw_queue_paused_seen("ra")); /* and the fetch saw it so */
  lw_job_free(held);
  ack_fetch_none(second, stages, 1, LW_OK); /* ra seen paused with this ack */
  CHECK_INT_EQ(lw_controls_stage_pause(c, cfg.prefix, "ra", false, &err), LW_OK);
  LwJob *third = fetch("w1", "ra");
  CHECK(third && !strcmp(third->id, d));
  CHECK_INT_EQ(push("ra", "", LW_PRIORITY_NORMAL, a), LW_OK);
  /* that fetch read the paused set: from the next ack on, the next job
   * comes with it */
  LwJob *fourth = NULL;
  CHECK_INT_EQ(lw_queue_ack_fetch(c, &cfg, "w1", third, NULL, stages, 1, NULL, &fourth, &err),
               LW_OK);
  CHECK(fourth && !strcmp(fourth->id, a));
  CHECK(lw_queue_paused_seen("ra") == false);
  CHECK_INT_EQ(push("ra", "", LW_PRIORITY_NORMAL, b), LW_OK);
  LwJob *fifth = NULL;
  CHECK_INT_EQ(lw_queue_ack_fetch(c, &cfg, "w1", fourth, NULL, stages, 1, NULL, &fifth, &err),
               LW_OK);
  CHECK(fifth != NULL);
  if (fifth) {
    CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", fifth, NULL, &err), LW_OK);
  }
  lw_job_free(first);
  lw_job_free(second);
  lw_job_free(third);
  lw_job_free(fourth);
  lw_job_free(fifth);
}

/* Pushes a job of stage "fair" for harvest and seed; its id into id. */
static void push_of(const char *harvest, const char *seed, LwPriority prio, char *id)
{
  LwError err;
  LwJob *job = lw_job_new("fair", seed, harvest, NULL, &err);
  CHECK_INT_EQ(lw_queue_push(c, &cfg, job, prio, &err), LW_OK);
  strcpy(id, job->id);
  lw_job_free(job);
}

/* Fetches the next job of "fair" and acks it; its harvest into harvest. */
static void take(char *harvest)
{
  LwError err;
  LwJob *job = fetch("w-fair", "fair");
  CHECK(job != NULL);
  strcpy(harvest, job ? job->harvest : "");
  if (job) {
    CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w-fair", job, NULL, &err), LW_OK);
  }
  lw_job_free(job);
}

/* A flood of one harvest's jobs never holds back another's: jobs are
 * taken round robin by harvest, each harvest's in order. */
static void test_round_robin(void)
{
  char id[17], seed[8], h[64];
  for (int i = 0; i < 1000; ++i) {
    snprintf(seed, sizeof(seed), "f%d", i);
    push_of("flood", seed, LW_PRIORITY_NORMAL, id);
  }
  push_of("control", "c1", LW_PRIORITY_NORMAL, id);
  push_of("third", "t1", LW_PRIORITY_NORMAL, id);
  push_of("third", "t2", LW_PRIORITY_NORMAL, id);
  CHECK_INT_EQ(counts("fair").queued, 1003);
  const char *expected[] = {"flood", "control", "third", "flood", "third", "flood", "flood"};
  for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i) {
    take(h);
    CHECK_STR_EQ(h, expected[i]);
  }
  CHECK_INT_EQ(counts("fair").queued, 996);
  /* a high job: its harvest's turn is next */
  push_of("late", "l1", LW_PRIORITY_NORMAL, id);
  push_of("urgent", "u1", LW_PRIORITY_HIGH, id);
  take(h);
  CHECK_STR_EQ(h, "urgent");
  take(h);
  CHECK_STR_EQ(h, "flood");
  take(h);
  CHECK_STR_EQ(h, "late");
  /* a harvest's lane dropped: the ring goes on without it */
  LwError err;
  long long dropped = 0;
  CHECK_INT_EQ(lw_controls_drop_harvest(c, &cfg, "flood", &dropped, &err), LW_OK);
  CHECK_INT_EQ(dropped, 995);
  CHECK_INT_EQ(counts("fair").queued, 0);
  CHECK(fetch("w-fair", "fair") == NULL);
  /* ring entries whose lanes were emptied by other means: each is dropped
   * when its turn comes, and the fetch goes on to a lane with a job, or
   * ends with none */
  LwKey ring = lw_key(cfg.prefix, LW_KEY_QUEUE, "fair");
  freeReplyObject(redisCommand(c, "RPUSH %s ghost1 ghost2", ring.s));
  push_of("real", "r1", LW_PRIORITY_NORMAL, id);
  freeReplyObject(redisCommand(c, "RPUSH %s ghost3", ring.s));
  take(h);
  CHECK_STR_EQ(h, "real");
  CHECK(fetch("w-fair", "fair") == NULL);
  redisReply *left = redisCommand(c, "LLEN %s", ring.s);
  CHECK(left && left->integer == 0);
  freeReplyObject(left);
  /* a job queued by a version before the lanes, in the list itself: taken
   * all the same (an upgrade loses none) */
  LwJob *old = lw_job_new("fair", "o1", "h-old", NULL, &err);
  freeReplyObject(
    redisCommand(c, "RPUSH %s %s", lw_key(cfg.prefix, LW_KEY_QUEUE, "fair").s, old->raw));
  CHECK_INT_EQ(counts("fair").queued, 1);
  LwJob *got = fetch("w-fair", "fair");
  CHECK(got && !strcmp(got->id, old->id));
  if (got) {
    CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w-fair", got, NULL, &err), LW_OK);
  }
  CHECK_INT_EQ(counts("fair").queued, 0);
  lw_job_free(got);
  lw_job_free(old);
}

static void test_bad_jobs_parked(void)
{
  LwError err;
  char good[17];
  CHECK_INT_EQ(push("junk", "", LW_PRIORITY_NORMAL, good), LW_OK);
  LwKey queue = lw_key(cfg.prefix, LW_KEY_QUEUE, "junk:h1"); /* the lane of harvest h1 */
  redisReply *r = redisCommand(c, "RPUSH %s %s", queue.s, "not json at all");
  freeReplyObject(r);
  const char *stages[] = {"junk"};
  LwJob *job = NULL;
  CHECK_INT_EQ(lw_queue_fetch(c, &cfg, "w1", stages, 1, NULL, &job, &err), LW_ERR_FORMAT);
  CHECK(job == NULL);
  CHECK_INT_EQ(
    lw_test_redis_int(c, "LLEN", lw_key(cfg.prefix, LW_KEY_DEAD, "unknown").s, NULL), 1);
  CHECK_INT_EQ(
    lw_test_redis_int(c, "LLEN", lw_key(cfg.prefix, LW_KEY_INFLIGHT, "w1").s, NULL), 0);
  job = fetch("w1", "junk"); /* the queue goes on */
  CHECK(job && !strcmp(job->id, good));
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", job, NULL, &err), LW_OK);
  lw_job_free(job);
}

static void test_status_json(void)
{
  LwError err;
  json_t *status = NULL;
  CHECK_INT_EQ(lw_queue_status(c, &cfg, &status, &err), LW_OK);
  json_t *stages = json_object_get(status, "stages");
  CHECK(json_is_object(stages));
  json_t *next = json_object_get(stages, "next");
  const char *keys[] = {"queued", "inflight", "delayed", "dead", "done", "failed"};
  for (int i = 0; i < 6; ++i) {
    CHECK(json_is_integer(json_object_get(next, keys[i])));
  }
  CHECK_INT_EQ(json_integer_value(json_object_get(next, "queued")), 1);
  CHECK(json_is_array(json_object_get(status, "workers")));
  json_t *seeds = json_object_get(status, "seeds");
  CHECK_INT_EQ(json_integer_value(json_object_get(seeds, "filed")), 1);
  CHECK_INT_EQ(json_integer_value(json_object_get(seeds, "failed")), 1);
  json_decref(status);

  bool idle = true;
  const char *busy[] = {"next"};
  CHECK_INT_EQ(lw_queue_idle(c, &cfg, busy, 1, NULL, &idle, &err), LW_OK);
  CHECK(!idle);
  const char *quiet[] = {"prio", "dl"}; /* "hb" still has a job queued */
  CHECK_INT_EQ(lw_queue_idle(c, &cfg, quiet, 2, NULL, &idle, &err), LW_OK);
  CHECK(idle);
}

/* A worker's progress note: set on a live heartbeat in one round trip
 * (a download among many writes them), never creating a heartbeat that
 * would have no TTL. */
static void test_progress_note(void)
{
  LwError err;
  LwKey worker = lw_key(cfg.prefix, LW_KEY_WORKER, "noted");
  CHECK_INT_EQ(lw_heartbeat_progress(c, &cfg, "noted", "1.0 MB", &err), LW_NOTHING);
  CHECK_INT_EQ(lw_test_redis_int(c, "EXISTS", worker.s, NULL), 0);

  CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, "noted", "download", &err), LW_OK);
  redisContext *mon = lw_test_monitor_start(c);
  CHECK_INT_EQ(lw_heartbeat_progress(c, &cfg, "noted", "2.0 MB", &err), LW_OK);
  CHECK_INT_EQ(lw_test_monitor_calls(c, mon, cfg.prefix), 1);
  redisReply *note = redisCommand(c, "HGET %s progress", worker.s);
  CHECK(note && note->type == REDIS_REPLY_STRING && !strcmp(note->str, "2.0 MB"));
  freeReplyObject(note);
  CHECK(lw_test_redis_int(c, "PTTL", worker.s, NULL) > 0);
}

/* The heartbeat tells the job a worker runs: the fetch writes it (progress
 * cleared) in the same call as the ack before it, an idle fetch clears it,
 * and a heartbeat the fetch makes anew (it had expired) gets its TTL. */
static void test_heartbeat_marks(void)
{
  LwError err;
  char a[17], b[17];
  LwKey worker = lw_key(cfg.prefix, LW_KEY_WORKER, "marked");
  CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, "marked", "mark", &err), LW_OK);
  CHECK_INT_EQ(push("mark", "", LW_PRIORITY_NORMAL, a), LW_OK);
  CHECK_INT_EQ(push("mark", "", LW_PRIORITY_NORMAL, b), LW_OK);
  LwJob *first = fetch("marked", "mark");
  CHECK(first && !strcmp(first->id, a));
  CHECK_INT_EQ(lw_heartbeat_progress(c, &cfg, "marked", "3 of 4", &err), LW_OK);
  const char *stages[] = {"mark"};
  LwJob *next = NULL;
  CHECK_INT_EQ(lw_queue_ack_fetch(c, &cfg, "marked", first, NULL, stages, 1, NULL, &next, &err),
               LW_OK);
  CHECK(next && !strcmp(next->id, b));
  redisReply *r = redisCommand(c, "HMGET %s job progress", worker.s);
  CHECK(r && r->elements == 2 && r->element[0]->type == REDIS_REPLY_STRING && next &&
        !strcmp(r->element[0]->str, next->raw));
  CHECK(r && r->elements == 2 && r->element[1]->type == REDIS_REPLY_STRING &&
        r->element[1]->len == 0);
  freeReplyObject(r);
  json_t *status = NULL;
  CHECK_INT_EQ(lw_queue_status(c, &cfg, &status, &err), LW_OK);
  json_t *w, *workers = json_object_get(status, "workers");
  size_t i, seen = 0;
  json_array_foreach(workers, i, w) {
    if (!strcmp(json_string_value(json_object_get(w, "id")), "marked")) {
      CHECK(json_is_null(json_object_get(w, "progress")));
      CHECK(json_is_object(json_object_get(w, "job")));
      seen++;
    }
  }
  CHECK_INT_EQ(seen, 1);
  json_decref(status);
  /* nothing left: the ack's fetch finds none and the worker is idle */
  ack_fetch_none_as("marked", next, stages, 1, LW_OK);
  CHECK_INT_EQ(lw_test_redis_int(c, "HEXISTS", worker.s, "job", NULL), 0);
  CHECK_INT_EQ(lw_test_redis_int(c, "HEXISTS", worker.s, "since", NULL), 0);
  CHECK(lw_test_redis_int(c, "PTTL", worker.s, NULL) > 0);
  /* the heartbeat expired: the fetch that takes a job makes it anew, with
   * a TTL (no key that outlives its worker) */
  CHECK_INT_EQ(lw_test_redis_int(c, "DEL", worker.s, NULL), 1);
  CHECK_INT_EQ(push("mark", "", LW_PRIORITY_NORMAL, a), LW_OK);
  LwJob *again = fetch("marked", "mark");
  CHECK(again && !strcmp(again->id, a));
  CHECK(lw_test_redis_int(c, "PTTL", worker.s, NULL) > 0);
  if (again) {
    CHECK_INT_EQ(lw_queue_ack(c, &cfg, "marked", again, NULL, &err), LW_OK);
  }
  lw_job_free(again);
  lw_job_free(next);
  lw_job_free(first);
}

/* The cap on the workers in downloads (LwFetchCap): kept by the fetch and
 * the ack's fetch themselves, in their one round trip. */
static LwJob *fetch_capped(const char *worker, const LwFetchCap *cap)
{
  return fetch_of(worker, (const char *[]){"download", "cu"}, 2, cap);
}

static bool holds_place(const char *worker)
{
  LwKey places = lw_key(cfg.prefix, LW_KEY_DOWNLOAD_SLOTS, NULL);
  return lw_test_redis_int(c, "ZSCORE", places.s, worker, NULL) > 0;
}

static void test_fetch_download_cap(void)
{
  LwError err;
  const char *stages[] = {"download", "cu"};
  LwFetchCap a = {"wa", 1, 60000}, b = {"wb", 1, 60000};
  CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, "wa", "download,cu", &err), LW_OK);
  CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, "wb", "download,cu", &err), LW_OK);
  char d1[17], d2[17], u[17];
  CHECK_INT_EQ(push("download", "", LW_PRIORITY_NORMAL, d1), LW_OK);
  CHECK_INT_EQ(push("download", "", LW_PRIORITY_NORMAL, d2), LW_OK);
  CHECK_INT_EQ(push("cu", "", LW_PRIORITY_NORMAL, u), LW_OK);

  /* wa takes the one place with its download, in the fetch's one call */
  redisContext *mon = lw_test_monitor_start(c);
  LwJob *first = fetch_capped("wa", &a);
  CHECK_INT_EQ(lw_test_monitor_calls(c, mon, cfg.prefix), 1);
  CHECK(first && !strcmp(first->id, d1) && holds_place("wa"));

  /* no place left for wb: its later stage instead, the download stays */
  LwJob *other = fetch_capped("wb", &b);
  CHECK(other && !strcmp(other->id, u) && !holds_place("wb"));
  LwJob *none = NULL;
  CHECK_INT_EQ(lw_queue_ack_fetch(c, &cfg, "wb", other, NULL, stages, 2, &b, &none, &err),
               LW_OK);
  CHECK(!none && !holds_place("wb"));
  CHECK_INT_EQ(lw_test_queue_len(c, cfg.prefix, "download"), 1);

  /* wa's ack brings the next download with the place kept */
  LwJob *second = NULL;
  CHECK_INT_EQ(lw_queue_ack_fetch(c, &cfg, "wa", first, NULL, stages, 2, &a, &second, &err),
               LW_OK);
  CHECK(second && !strcmp(second->id, d2) && holds_place("wa"));
  /* and with nothing left the place is given back in the ack's call */
  CHECK_INT_EQ(lw_queue_ack_fetch(c, &cfg, "wa", second, NULL, stages, 2, &a, &none, &err),
               LW_OK);
  CHECK(!none && !holds_place("wa"));

  /* a place taken for a download queue found empty goes back too, and a
   * later stage's job gives it back */
  CHECK_INT_EQ(push("cu", "", LW_PRIORITY_NORMAL, u), LW_OK);
  LwJob *later = fetch_capped("wb", &b);
  CHECK(later && !strcmp(later->id, u) && !holds_place("wb"));
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "wb", later, NULL, &err), LW_OK);
  CHECK(fetch_capped("wb", &b) == NULL && !holds_place("wb"));
  /* the freed place is wb's with a download now */
  CHECK_INT_EQ(push("download", "", LW_PRIORITY_NORMAL, d1), LW_OK);
  LwJob *third = fetch_capped("wb", &b);
  CHECK(third && !strcmp(third->id, d1) && holds_place("wb"));
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "wb", third, NULL, &err), LW_OK);
  lw_job_free(first);
  lw_job_free(other);
  lw_job_free(second);
  lw_job_free(later);
  lw_job_free(third);
}

/* A fetch of its own reads the paused stages in its call too: a job of a
 * stage paused since the worker last looked goes back unrun, none taken;
 * with every stage paused as last seen the set is read anew, so a resume
 * is seen. */
static void test_fetch_paused_meanwhile(void)
{
  LwError err;
  CHECK_INT_EQ(lw_heartbeat_register(c, &cfg, "w1", "fq", &err), LW_OK);
  char q[17];
  CHECK_INT_EQ(push("fq", "", LW_PRIORITY_NORMAL, q), LW_OK);
  CHECK(fetch("w1", "fnone") == NULL); /* looked: nothing paused */
  CHECK_INT_EQ(lw_controls_stage_pause(c, cfg.prefix, "fq", true, &err), LW_OK);
  const char *stages[] = {"fq"};
  LwJob *job = NULL;
  CHECK_INT_EQ(lw_queue_fetch(c, &cfg, "w1", stages, 1, NULL, &job, &err), LW_NOTHING);
  CHECK(job == NULL);
  CHECK_INT_EQ(counts("fq").queued, 1);
  CHECK_INT_EQ(counts("fq").inflight, 0);
  CHECK_INT_EQ(lw_queue_fetch(c, &cfg, "w1", stages, 1, NULL, &job, &err), LW_NOTHING);
  CHECK_INT_EQ(lw_controls_stage_pause(c, cfg.prefix, "fq", false, &err), LW_OK);
  CHECK_INT_EQ(lw_queue_fetch(c, &cfg, "w1", stages, 1, NULL, &job, &err), LW_OK);
  CHECK(job && !strcmp(job->id, q));
  CHECK_INT_EQ(lw_queue_ack(c, &cfg, "w1", job, NULL, &err), LW_OK);
  lw_job_free(job);
}

int main(void)
{
  c = lw_test_redis();
  lw_test_redis_config(&cfg, "queue");
  lw_test_redis_cleanup(c, cfg.prefix);
  test_priorities_and_ack();
  test_duplicates();
  test_retries_and_dead();
  test_handback();
  test_reaper();
  test_ack_records_results();
  test_ack_fetch_and_orphans();
  test_ack_fetch_folded();
  test_ack_fetch_after_resume();
  test_bad_jobs_parked();
  test_round_robin();
  test_status_json();
  test_progress_note();
  test_heartbeat_marks();
  test_fetch_download_cap();
  test_fetch_paused_meanwhile();
  lw_test_redis_cleanup(c, cfg.prefix);
  lw_config_free(&cfg);
  redisFree(c);
  return lw_test_finish();
}
