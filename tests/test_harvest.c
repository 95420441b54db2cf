/* The harvest fan-in on a real Redis: the file that brings `pending` to zero
 * queues exactly one import job, whoever finishes first. */
#include "queue/harvest.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "queue/keys.h"
#include "queue/redis.h"
#include "tests/support/check.h"

static const char *prefix;

static long long int_reply(redisContext *c, const char *a, const char *b, const char *d)
{
  LwError err;
  redisReply *r = d ? lw_redis_cmd(c, &err, a, b, d, NULL) : lw_redis_cmd(c, &err, a, b, NULL);
  long long v = -1;
  if (r && r->type == REDIS_REPLY_INTEGER) {
    v = r->integer;
  } else if (r && r->type == REDIS_REPLY_STRING) {
    v = atoll(r->str);
  }
  if (r) {
    freeReplyObject(r);
  }
  return v;
}

static void file_done(redisContext *c, const char *harvest, bool failed)
{
  LwTxn *txn = lw_txn_new(prefix);
  lw_txn_harvest_file_done(txn, harvest, failed);
  LwError err;
  CHECK_INT_EQ(lw_txn_exec(c, txn, &err), LW_OK);
  lw_txn_free(txn);
}

int main(void)
{
  const char *url = lw_test_require_redis();
  prefix = lw_test_prefix("harvest");
  redisContext *c = NULL;
  LwError err;
  CHECK_INT_EQ(lw_redis_connect(url, &c, &err), LW_OK);
  if (!c) {
    return lw_test_finish();
  }
  LwKey h = lw_key(prefix, LW_KEY_HARVEST, "h1");
  LwKey queue = lw_key(prefix, LW_KEY_QUEUE, "import");
  freeReplyObject(lw_redis_cmd(c, &err, "HSET", h.s, "pending", "3", "state", "running", NULL));

  file_done(c, "h1", false);
  file_done(c, "h1", true);
  CHECK_INT_EQ(int_reply(c, "HGET", h.s, "pending"), 1);
  CHECK_INT_EQ(int_reply(c, "LLEN", queue.s, NULL), 0);

  /* unpack found an archive of three entries in place of one file */
  LwTxn *txn = lw_txn_new(prefix);
  lw_txn_harvest_expect(txn, "h1", 2);
  CHECK_INT_EQ(lw_txn_exec(c, txn, &err), LW_OK);
  lw_txn_free(txn);
  CHECK_INT_EQ(int_reply(c, "HGET", h.s, "pending"), 3);

  /* three workers finish at once */
  for (int i = 0; i < 3; ++i) {
    if (fork() == 0) {
      redisContext *cc = NULL;
      lw_redis_connect(url, &cc, &err);
      LwTxn *t = lw_txn_new(prefix);
      lw_txn_harvest_file_done(t, "h1", false);
      int rc = lw_txn_exec(cc, t, &err) == LW_OK ? 0 : 1;
      lw_txn_free(t);
      redisFree(cc);
      _exit(rc);
    }
  }
  for (int i = 0; i < 3; ++i) {
    int status = 0;
    wait(&status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  CHECK_INT_EQ(int_reply(c, "HGET", h.s, "pending"), 0);
  CHECK_INT_EQ(int_reply(c, "HGET", h.s, "failed"), 1);
  CHECK_INT_EQ(int_reply(c, "LLEN", queue.s, NULL), 1);
  CHECK_INT_EQ(int_reply(c, "HGET", h.s, "import_queued"), 1);
  redisReply *job = lw_redis_cmd(c, &err, "LINDEX", queue.s, "0", NULL);
  CHECK(job && job->str && strstr(job->str, "\"stage\":\"import\""));
  CHECK(job && job->str && strstr(job->str, "\"harvest\":\"h1\""));
  freeReplyObject(job);

  /* a late duplicate (a job run twice) does not queue a second import */
  CHECK_INT_EQ(lw_harvest_file_done_now(c, prefix, "h1", false, &err), LW_OK);
  CHECK_INT_EQ(int_reply(c, "LLEN", queue.s, NULL), 1);
  /* no such harvest: nothing happens */
  CHECK_INT_EQ(lw_harvest_file_done_now(c, prefix, "nope", false, &err), LW_OK);
  CHECK_INT_EQ(int_reply(c, "LLEN", queue.s, NULL), 1);

  /* clean up this test's keys */
  redisReply *keys = lw_redis_cmd(c, &err, "KEYS", "lwtest:harvest:*", NULL);
  for (size_t i = 0; keys && i < keys->elements; ++i) {
    if (!strncmp(keys->element[i]->str, prefix, strlen(prefix))) {
      freeReplyObject(lw_redis_cmd(c, &err, "DEL", keys->element[i]->str, NULL));
    }
  }
  freeReplyObject(keys);
  redisFree(c);
  return lw_test_finish();
}
