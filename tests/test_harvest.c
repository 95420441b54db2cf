/* The harvest fan-in on a real Redis: the expected and finished files are
 * sets; the file that completes the finished set queues exactly one import
 * job, whoever finishes first, and finishing a file twice counts once. */
#include "queue/harvest.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "queue/keys.h"
#include "queue/redis_cmd.h"
#include "tests/support/check.h"

static const char *prefix;

static long long int_reply(redisContext *c, const char *a, const char *b, const char *d)
{
  LwError err;
  redisReply *r = d ? lw_redis_cmd(c, &err, a, b, d, NULL)
                    : lw_redis_cmd(c, &err, a, b, NULL);
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

static void finish(redisContext *c, const char *harvest, const char *file, bool failed)
{
  LwTxn *txn = lw_txn_new(prefix);
  lw_txn_harvest_finish_file(txn, harvest, file, failed, "import");
  LwError err;
  CHECK_INT_EQ(lw_txn_exec(c, txn, &err), LW_OK);
  lw_txn_free(txn);
}

static void expect(redisContext *c, const char *harvest, const char *const *files, size_t n)
{
  LwTxn *txn = lw_txn_new(prefix);
  lw_txn_harvest_expect_files(txn, harvest, files, n);
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
  LwKey queue = lw_key(prefix, LW_KEY_QUEUE, "import:h1"); /* h1's lane */
  freeReplyObject(
    lw_redis_cmd(c, &err, "HSET", h.s, "pending", "0", "status", "running", NULL));
  expect(c, "h1", (const char *[]){"a", "b", "c"}, 3);
  expect(c, "h1", (const char *[]){"a"}, 1); /* again: a set */
  CHECK_INT_EQ(int_reply(c, "HGET", h.s, "pending"), 3);

  finish(c, "h1", "a", false);
  finish(c, "h1", "b", true);
  finish(c, "h1", "b", true); /* an ack sent twice counts once */
  CHECK_INT_EQ(int_reply(c, "HGET", h.s, "pending"), 1);
  CHECK_INT_EQ(int_reply(c, "HGET", h.s, "failed"), 1);
  CHECK_INT_EQ(int_reply(c, "LLEN", queue.s, NULL), 0);

  /* c is an archive of three entries: they are expected, c is finished */
  expect(c, "h1", (const char *[]){"c1", "c2", "c3"}, 3);
  finish(c, "h1", "c", false);
  CHECK_INT_EQ(int_reply(c, "HGET", h.s, "pending"), 3);

  /* three workers finish at once */
  for (int i = 0; i < 3; ++i) {
    if (fork() == 0) {
      redisContext *cc = NULL;
      lw_redis_connect(url, &cc, &err);
      const char *file[] = {"c1", "c2", "c3"};
      LwTxn *t = lw_txn_new(prefix);
      lw_txn_harvest_finish_file(t, "h1", file[i], false, "import");
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
  CHECK(int_reply(c, "HGET", h.s, "follow_up_queued") > 0);
  redisReply *job = lw_redis_cmd(c, &err, "LINDEX", queue.s, "0", NULL);
  CHECK(job && job->str && strstr(job->str, "\"stage\":\"import\""));
  CHECK(job && job->str && strstr(job->str, "\"harvest\":\"h1\""));
  freeReplyObject(job);

  /* a late duplicate (a job run twice) does not queue a second import */
  finish(c, "h1", "c2", false);
  CHECK_INT_EQ(int_reply(c, "LLEN", queue.s, NULL), 1);
  CHECK_INT_EQ(int_reply(c, "HGET", h.s, "pending"), 0);
  /* no such harvest: nothing happens */
  finish(c, "nope", "x", false);
  CHECK_INT_EQ(int_reply(c, "LLEN", queue.s, NULL), 1);
  CHECK_INT_EQ(int_reply(c, "EXISTS", lw_key(prefix, LW_KEY_HARVEST, "nope").s, NULL), 0);

  /* a harvest that is over (timed out) queues no import */
  LwKey h2 = lw_key(prefix, LW_KEY_HARVEST, "h2");
  freeReplyObject(
    lw_redis_cmd(c, &err, "HSET", h2.s, "pending", "0", "status", "failed", NULL));
  expect(c, "h2", (const char *[]){"z"}, 1);
  finish(c, "h2", "z", false);
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
