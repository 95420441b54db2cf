/* Pieces of the queue that need no Redis: Redis URLs, key names, jobs. */
#include <stdlib.h>
#include <string.h>

#include "queue/job.h"
#include "queue/keys.h"
#include "queue/redis_cmd.h"
#include "tests/support/check.h"

static void test_urls(void)
{
  LwRedisUrl u;
  LwError err;
  CHECK_INT_EQ(lw_redis_url_parse("redis://127.0.0.1:6379/0", &u, &err), LW_OK);
  CHECK_STR_EQ(u.host, "127.0.0.1");
  CHECK_INT_EQ(u.port, 6379);
  CHECK_INT_EQ(u.db, 0);
  CHECK_STR_EQ(u.password, "");
  CHECK_INT_EQ(lw_redis_url_parse("redis://redis", &u, &err), LW_OK);
  CHECK_STR_EQ(u.host, "redis");
  CHECK_INT_EQ(u.port, 6379);
  CHECK_INT_EQ(lw_redis_url_parse("redis://:s%40cret@db.example:7000/3", &u, &err), LW_OK);
  CHECK_STR_EQ(u.host, "db.example");
  CHECK_INT_EQ(u.port, 7000);
  CHECK_INT_EQ(u.db, 3);
  CHECK_STR_EQ(u.user, "");
  CHECK_STR_EQ(u.password, "s@cret");
  CHECK_INT_EQ(lw_redis_url_parse("redis://alice:pw@h/1", &u, &err), LW_OK);
  CHECK_STR_EQ(u.user, "alice");
  CHECK_STR_EQ(u.password, "pw");
  CHECK_INT_EQ(lw_redis_url_parse("redis://pw@h", &u, &err), LW_OK);
  CHECK_STR_EQ(u.password, "pw");
  CHECK_INT_EQ(lw_redis_url_parse("redis://[::1]:6380/2", &u, &err), LW_OK);
  CHECK_STR_EQ(u.host, "::1");
  CHECK_INT_EQ(u.port, 6380);
  CHECK_INT_EQ(u.db, 2);
  CHECK_INT_EQ(lw_redis_url_parse("http://h", &u, &err), LW_ERR_USAGE);
  CHECK_INT_EQ(lw_redis_url_parse("redis://h:port", &u, &err), LW_ERR_USAGE);
  CHECK_INT_EQ(lw_redis_url_parse("redis://h:99999", &u, &err), LW_ERR_USAGE);
  CHECK_INT_EQ(lw_redis_url_parse("redis://h/x", &u, &err), LW_ERR_USAGE);
  CHECK_INT_EQ(lw_redis_url_parse("redis://[::1", &u, &err), LW_ERR_USAGE);
  CHECK_INT_EQ(lw_redis_url_parse(NULL, &u, &err), LW_ERR_USAGE);
  /* a Redis on the same machine, by its Unix socket */
  CHECK_INT_EQ(lw_redis_url_parse("unix:///run/redis/redis.sock", &u, &err), LW_OK);
  CHECK_STR_EQ(u.socket, "/run/redis/redis.sock");
  CHECK_STR_EQ(u.host, "");
  CHECK_INT_EQ(u.db, 0);
  CHECK_INT_EQ(lw_redis_url_parse("unix://alice:p%40w@/tmp/r%20s.sock?db=4", &u, &err), LW_OK);
  CHECK_STR_EQ(u.socket, "/tmp/r s.sock");
  CHECK_STR_EQ(u.user, "alice");
  CHECK_STR_EQ(u.password, "p@w");
  CHECK_INT_EQ(u.db, 4);
  CHECK_INT_EQ(lw_redis_url_parse("redis://h", &u, &err), LW_OK);
  CHECK_STR_EQ(u.socket, "");
  CHECK_INT_EQ(lw_redis_url_parse("unix://", &u, &err), LW_ERR_USAGE);
  CHECK_INT_EQ(lw_redis_url_parse("unix://relative.sock", &u, &err), LW_ERR_USAGE);
  CHECK_INT_EQ(lw_redis_url_parse("unix://host/tmp/r.sock", &u, &err), LW_ERR_USAGE);
  CHECK_INT_EQ(lw_redis_url_parse("unix:///tmp/r.sock?db=x", &u, &err), LW_ERR_USAGE);
  CHECK_INT_EQ(lw_redis_url_parse("unix:///tmp/r.sock?db=", &u, &err), LW_ERR_USAGE);
  CHECK_INT_EQ(lw_redis_url_parse("unix:///tmp/r.sock?timeout=1", &u, &err), LW_ERR_USAGE);

  /* unreachable: a clear error, no crash */
  redisContext *c = NULL;
  CHECK_INT_EQ(lw_redis_connect("redis://127.0.0.1:1/0", &c, &err), LW_ERR_REDIS);
  CHECK(c == NULL);
  CHECK(strstr(err.message, "cannot connect to Redis at 127.0.0.1:1") != NULL);
  CHECK_INT_EQ(lw_redis_connect("unix:///nonexistent/redis.sock", &c, &err), LW_ERR_REDIS);
  CHECK(c == NULL);
  CHECK(strstr(err.message, "cannot connect to Redis at /nonexistent/redis.sock") != NULL);
}

static void test_keys(void)
{
  CHECK_STR_EQ(lw_key("lodwash:", LW_KEY_QUEUE, "download").s, "lodwash:queue:download");
  CHECK_STR_EQ(lw_key("p:", LW_KEY_WORKERS, NULL).s, "p:workers");
  CHECK_STR_EQ(lw_key("p:", LW_KEY_SEED, "abc").s, "p:seed:abc");
  CHECK_STR_EQ(lw_key("p:", LW_KEY_QUEUE, "").s, "p:queue:");
}

static void test_jobs(void)
{
  LwError err;
  json_t *extra = json_pack("{s:i, s:s, s:s}", "sleep_ms", 25, "note", "x", "stage",
                            "evil");
  LwJob *job = lw_job_new("noop", "abc", "h1", extra, &err);
  json_decref(extra);
  CHECK(job != NULL);
  CHECK_STR_EQ(job->stage, "noop"); /* extra cannot override the stage */
  CHECK_STR_EQ(job->seed, "abc");
  CHECK_STR_EQ(job->harvest, "h1");
  CHECK_INT_EQ(strlen(job->id), 16);
  CHECK_INT_EQ(job->attempt, 0);
  CHECK(job->queued_ms > 0);
  CHECK_INT_EQ(lw_job_get_int(job, "sleep_ms", 0), 25);
  CHECK_STR_EQ(lw_job_get_string(job, "note", NULL), "x");
  CHECK_INT_EQ(lw_job_get_int(job, "missing", 7), 7);

  LwJob *parsed = NULL;
  CHECK_INT_EQ(lw_job_parse(job->raw, strlen(job->raw), &parsed, &err), LW_OK);
  CHECK_STR_EQ(parsed->id, job->id);
  CHECK_STR_EQ(parsed->raw, job->raw);
  json_t *changes = json_pack("{s:i}", "attempt", 2);
  LwJob *next = lw_job_with(parsed, changes, &err);
  json_decref(changes);
  CHECK_INT_EQ(next->attempt, 2);
  CHECK_STR_EQ(next->id, job->id);
  lw_job_free(next);
  lw_job_free(parsed);
  lw_job_free(job);
  lw_job_free(NULL);

  CHECK(lw_job_new("", NULL, NULL, NULL, &err) == NULL);
  CHECK(lw_job_new("a b", NULL, NULL, NULL, &err) == NULL);
  CHECK_INT_EQ(lw_job_parse("{", 1, &parsed, &err), LW_ERR_FORMAT);
  CHECK_INT_EQ(lw_job_parse("[1]", 3, &parsed, &err), LW_ERR_FORMAT);
  CHECK_INT_EQ(lw_job_parse("{\"stage\":1}", 11, &parsed, &err), LW_ERR_FORMAT);
  CHECK(parsed == NULL);

  char a[17], b[17];
  lw_job_new_id(a);
  lw_job_new_id(b);
  CHECK(strcmp(a, b) != 0);
}

int main(void)
{
  test_urls();
  test_keys();
  test_jobs();
  return lw_test_finish();
}
