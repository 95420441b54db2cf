/* The download stage handler against real Redis and real HTTP on loopback:
 * seed states, the records it writes, the follow-up unpack job, unchanged
 * revisits counted by the harvest, failures recorded, the per-host slots;
 * politeness: a dump robots.txt disallows is refused with a clear error and
 * never asked for, robots.txt is cached per host with a TTL, Crawl-delay
 * spaces two requests, the per-host slot is taken on the host a redirect
 * leads to.
 * The handler is called as the worker frame calls it, and its transaction
 * is executed as the frame's ack would. */
#include "config/config.h"
#include "files/files.h"
#include "queue/harvest.h"
#include "queue/job.h"
#include "queue/keys.h"
#include "queue/record.h"
#include "queue/seed.h"
#include "queue/txn.h"
#include "tests/support/check.h"
#include "tests/support/http_server.h"
#include "tests/support/redis_support.h"
#include "workers/stage.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>


static redisContext *redis;
static LwConfig cfg;
static LwTestServer *srv;
static char *dir;

static void set(const char *name, const char *value)
{
  LwError err;
  LwStatus st = lw_config_set(&cfg, name, value, &err);
  lw_test_report(st == LW_OK, __FILE__, __LINE__, name, err.message);
}

/* Adds the seed of the test server's path; hash_out gets its hash. */
static void add_seed(const char *path, char hash[LW_HASH_HEX_LEN + 1])
{
  char url[256];
  lw_test_server_url(srv, path, url, sizeof(url));
  LwError err;
  CHECK_INT_EQ(lw_seed_record(redis, cfg.prefix, url, "prov", "h1", hash, &err), LW_OK);
}

/* Runs one download job for hash like the worker frame: the transaction is
 * executed only when the handler succeeded. */
static LwStatus run(const char *hash, const json_t *extra, LwError *err)
{
  LwJob *job = lw_job_new("download", hash, "h1", extra, err);
  LwTxn *txn = lw_txn_new(cfg.prefix);
  lw_error_clear(err);
  LwStageCtx ctx = {.config = &cfg, .redis = redis, .job = job, .txn = txn, .err = err};
  LwStatus st = lw_stage_download_run(&ctx);
  if (st <= LW_NOTHING) {
    lw_stage_results(&ctx, st);
    LwError exec_err;
    LwStatus ex = lw_txn_exec(redis, txn, &exec_err);
    lw_test_report(ex == LW_OK, __FILE__, __LINE__, "txn exec", exec_err.message);
  }
  lw_txn_free(txn);
  lw_job_free(job);
  return st;
}

static json_t *seed_of(const char *hash)
{
  json_t *seed = NULL;
  LwError err;
  lw_seed_get(redis, cfg.prefix, hash, &seed, &err);
  return seed;
}

static long long queue_len(const char *stage)
{
  return lw_test_queue_len(redis, cfg.prefix, stage);
}

static void test_download_and_revisit(void)
{
  const char *body = "<http://x/a> <http://p> \"a\" .\n<http://x/b> <http://p> \"b\" .\n";
  lw_test_server_add(srv, "/old", &(LwTestResponse){.status = 301, .location = "/dump.nt"});
  lw_test_server_add(srv, "/dump.nt",
                     &(LwTestResponse){.body = body,
                                       .etag = "\"e1\"",
                                       .content_type = "application/n-triples"});
  char hash[LW_HASH_HEX_LEN + 1];
  add_seed("/old", hash);
  LwError err;
  CHECK_INT_EQ(run(hash, NULL, &err), LW_OK);
  json_t *seed = seed_of(hash);
  CHECK_STR_EQ(lw_record_str(seed, "status", ""), "filed");
  CHECK(lw_record_str(seed, "unchanged", NULL) == NULL); /* absent: changed */
  CHECK_STR_EQ(lw_record_str(seed, "etag", ""), "\"e1\"");
  CHECK_STR_EQ(lw_record_str(seed, "content_type", ""), "application/n-triples");
  json_t *http = json_loads(lw_record_str(seed, "http", "null"), 0, NULL);
  CHECK_INT_EQ(json_array_size(http), 2);
  CHECK_INT_EQ(json_integer_value(json_object_get(json_array_get(http, 0), "status")), 301);
  CHECK_INT_EQ(json_integer_value(json_object_get(json_array_get(http, 1), "status")), 200);
  /* kept short (queue/seed_http.h): no headers; a URI only where it is
   * not the seed's own (the redirect's target) */
  CHECK(json_object_get(json_array_get(http, 0), "headers") == NULL);
  CHECK(json_object_get(json_array_get(http, 0), "uri") == NULL);
  CHECK(strstr(lw_record_str(seed, "http", ""), "/dump.nt\"") != NULL);
  json_decref(http);
  json_t *content = json_loads(lw_record_str(seed, "content", "null"), 0, NULL);
  CHECK_INT_EQ(json_integer_value(json_object_get(content, "number_of_lines")), 2);
  /* LF and as many characters as bytes: said by their absence (files.h) */
  CHECK(json_object_get(content, "newline") == NULL);
  CHECK(json_object_get(content, "number_of_chars") == NULL);
  CHECK(json_integer_value(json_object_get(content, "number_of_bytes")) > 0);
  json_decref(content);
  json_t *ts = json_loads(lw_record_str(seed, "timestamp", "null"), 0, NULL);
  CHECK(json_real_value(json_object_get(ts, "end")) >=
        json_real_value(json_object_get(ts, "begin")));
  json_decref(ts);
  char path[4096], rel[512];
  lw_store_relpath("raw", hash, NULL, rel, sizeof(rel));
  CHECK_STR_EQ(lw_record_str(seed, "file", ""), rel);
  lw_store_path(dir, "raw", hash, NULL, path, sizeof(path));
  struct stat st;
  CHECK(stat(path, &st) == 0 && (size_t)st.st_size == strlen(body));
  json_decref(seed);
  CHECK_INT_EQ(queue_len("unpack"), 1);

  /* The same job again: already filed, nothing fetched. */
  int hits = lw_test_server_hits(srv, "/dump.nt");
  CHECK_INT_EQ(run(hash, NULL, &err), LW_NOTHING);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/dump.nt"), hits);

  /* A re-harvest after the file was parsed: the 304 leaves it unchanged,
   * no unpack job, and the harvest counts the file as done. */
  LwKey harvest = lw_key(cfg.prefix, LW_KEY_HARVEST, "h1");
  redisReply *reply = redisCommand(redis, "HSET %s pending 0 provider prov status running",
                                   harvest.s);
  freeReplyObject(reply);
  LwTxn *expect = lw_txn_new(cfg.prefix);
  lw_txn_harvest_expect_files(expect, "h1", (const char *[]){hash}, 1);
  CHECK_INT_EQ(lw_txn_exec(redis, expect, &err), LW_OK);
  lw_txn_free(expect);
  CHECK_INT_EQ(lw_test_redis_int(redis, "HGET", harvest.s, "pending", NULL), 1);
  lw_seed_set(redis, cfg.prefix, hash, "clean", "0123456789abcdef0123456789abcdef", &err);
  lw_seed_set(redis, cfg.prefix, hash, "status", "parsed", &err);
  CHECK_INT_EQ(lw_seed_set_status(redis, cfg.prefix, hash, "added", &err), LW_OK);
  lw_test_queue_clear(redis, cfg.prefix, "unpack");
  CHECK_INT_EQ(run(hash, NULL, &err), LW_OK);
  seed = seed_of(hash);
  CHECK_STR_EQ(lw_record_str(seed, "status", ""), "filed");
  CHECK_STR_EQ(lw_record_str(seed, "unchanged", ""), "true");
  http = json_loads(lw_record_str(seed, "http", "null"), 0, NULL);
  CHECK_INT_EQ(json_integer_value(json_object_get(json_array_get(http, 1), "status")), 304);
  json_decref(http);
  json_decref(seed);
  CHECK_INT_EQ(queue_len("unpack"), 0);
  CHECK_INT_EQ(lw_test_redis_int(redis, "HGET", harvest.s, "pending", NULL), 0);
  CHECK_INT_EQ(queue_len("import"), 1);
  char want[64];
  CHECK_STR_EQ(
    lw_test_server_request_header(srv, "/dump.nt", "If-None-Match", want, sizeof(want)),
    "\"e1\"");
}

static void test_failures(void)
{
  char hash[LW_HASH_HEX_LEN + 1];
  LwError err;
  add_seed("/missing", hash);
  CHECK_INT_EQ(run(hash, NULL, &err), LW_ERR_HTTP);
  CHECK(strstr(err.message, "HTTP 404") != NULL);
  json_t *seed = seed_of(hash);
  CHECK_STR_EQ(lw_record_str(seed, "status", ""), "downloading"); /* the frame fails it */
  json_t *http = json_loads(lw_record_str(seed, "http", "null"), 0, NULL);
  CHECK_INT_EQ(json_integer_value(json_object_get(json_array_get(http, 0), "status")), 404);
  json_decref(http);
  json_decref(seed);

  /* A retry after a 429 notes Retry-After on the seed. */
  lw_test_server_add(srv, "/busy",
                     &(LwTestResponse){.status = 429, .headers = "Retry-After: 30\n"});
  lw_test_server_add(srv, "/busy", &(LwTestResponse){.body = "ok\n"});
  add_seed("/busy", hash);
  CHECK_INT_EQ(run(hash, NULL, &err), LW_ERR_NET);
  seed = seed_of(hash);
  CHECK_STR_EQ(lw_record_str(seed, "retry_after", ""), "30");
  json_decref(seed);
  CHECK_INT_EQ(run(hash, NULL, &err), LW_OK); /* the retry: downloading -> filed */
  seed = seed_of(hash);
  CHECK_STR_EQ(lw_record_str(seed, "status", ""), "filed");
  CHECK_STR_EQ(lw_record_str(seed, "retry_after", "gone"), "gone");
  json_decref(seed);

  /* A redirect to a refused address. */
  char other[128];
  snprintf(other, sizeof(other), "http://127.0.0.2:%u/x", lw_test_server_port(srv));
  lw_test_server_add(srv, "/evil", &(LwTestResponse){.location = other});
  add_seed("/evil", hash);
  CHECK_INT_EQ(run(hash, NULL, &err), LW_ERR_REFUSED);

  /* A declared checksum (job field) that does not match. */
  lw_test_server_add(srv, "/sum", &(LwTestResponse){.body = "data\n"});
  add_seed("/sum", hash);
  json_t *extra = json_pack("{s:s}", "checksum", "md5:00000000000000000000000000000000");
  CHECK_INT_EQ(run(hash, extra, &err), LW_ERR_CHECKSUM);
  CHECK(strstr(err.message, "declared (the VoID's or catalogue's checksum)") != NULL);
  json_decref(extra);

  /* A job for a seed that is not there, and one whose seed is no hash
   * (it would name a file). */
  CHECK_INT_EQ(run("ffffffffffffffffffffffffffffffff", NULL, &err), LW_ERR_STATE);
  CHECK_INT_EQ(run("../../../../etc/passwd", NULL, &err), LW_ERR_USAGE);
}

/* A broken transfer is resumed by the retry, and the record says so. */
static void test_resume(void)
{
  const uint64_t size = 2 * 1024 * 1024;
  LwTestResponse cut = {.kind = LW_TEST_BODY_LINES,
                        .size = size,
                        .ranges = true,
                        .etag = "\"big\"",
                        .truncate_after = 700000};
  LwTestResponse rest = cut;
  rest.truncate_after = 0;
  lw_test_server_add(srv, "/big.nt", &cut);
  lw_test_server_add(srv, "/big.nt", &rest);
  char hash[LW_HASH_HEX_LEN + 1];
  add_seed("/big.nt", hash);
  LwError err;
  CHECK_INT_EQ(run(hash, NULL, &err), LW_ERR_NET);
  char partial[4096];
  lw_store_path(dir, "partial", hash, NULL, partial, sizeof(partial));
  struct stat st;
  CHECK(stat(partial, &st) == 0 && st.st_size > 0);
  CHECK_INT_EQ(run(hash, NULL, &err), LW_OK);
  json_t *seed = seed_of(hash);
  CHECK_STR_EQ(lw_record_str(seed, "status", ""), "filed");
  CHECK(lw_record_int(seed, "resumed_from", 0) == st.st_size);
  json_t *content = json_loads(lw_record_str(seed, "content", "null"), 0, NULL);
  char md5[33];
  lw_test_lines_md5(size, md5);
  CHECK_STR_EQ(json_string_value(json_object_get(content, "hash")), md5);
  json_decref(content);
  json_decref(seed);
  CHECK(stat(partial, &st) != 0);
}

static void test_host_slots(void)
{
  set("per-host-concurrency", "1");
  set("total-timeout", "1");
  lw_test_server_add(srv, "/slot", &(LwTestResponse){.body = "slot\n"});
  char hash[LW_HASH_HEX_LEN + 1];
  add_seed("/slot", hash);
  /* Another worker holds the only slot for 127.0.0.1 (lease far ahead). */
  LwKey key = lw_key(cfg.prefix, LW_KEY_HOST_SLOTS, "127.0.0.1");
  redisReply *reply = redisCommand(redis, "ZADD %s 99999999999999 other-job", key.s);
  freeReplyObject(reply);
  LwError err;
  CHECK_INT_EQ(run(hash, NULL, &err), LW_ERR_NET);
  CHECK(strstr(err.message, "host busy") != NULL);
  CHECK(err.defer_ms > 0); /* deferred by the worker, no attempt spent */
  CHECK_INT_EQ(lw_test_server_hits(srv, "/slot"), 0);
  /* The slot is free again: the download runs and gives its lease back. */
  reply = redisCommand(redis, "ZREM %s other-job", key.s);
  freeReplyObject(reply);
  CHECK_INT_EQ(run(hash, NULL, &err), LW_OK);
  CHECK_INT_EQ(lw_test_redis_int(redis, "ZCARD", key.s, NULL), 0);
  set("per-host-concurrency", "2");
  set("total-timeout", "60");
}

static double now_s(void)
{
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static void test_robots_over_http(void)
{
  lw_test_server_add(srv, "/robots.txt",
                     &(LwTestResponse){.body = "User-agent: *\nDisallow: /private/\n"
                                               "Crawl-delay: 1\n",
                                       .content_type = "text/plain"});
  lw_test_server_add(srv, "/private/dump.nt", &(LwTestResponse){.body = "<a> <b> <c> .\n"});
  lw_test_server_add(srv, "/pub/a.nt", &(LwTestResponse){.body = "<a> <b> <c> .\n"});
  lw_test_server_add(srv, "/pub/b.nt", &(LwTestResponse){.body = "<a> <b> <d> .\n"});
  char hash[LW_HASH_HEX_LEN + 1];
  LwError err;
  /* The tests above cached this server's robots.txt (a 404: all allowed). */
  char origin[128];
  snprintf(origin, sizeof(origin), "http://%s", lw_test_server_allow(srv));
  LwKey robots = lw_key(cfg.prefix, LW_KEY_ROBOTS, origin);
  CHECK_INT_EQ(lw_test_redis_int(redis, "EXISTS", robots.s, NULL), 1);
  CHECK_INT_EQ(lw_test_redis_int(redis, "DEL", robots.s, NULL), 1);
  int robots_hits = lw_test_server_hits(srv, "/robots.txt");

  add_seed("/private/dump.nt", hash);
  CHECK_INT_EQ(run(hash, NULL, &err), LW_ERR_REFUSED);
  CHECK(strstr(err.message, "disallowed by robots.txt") != NULL);
  printf("disallowed dump: %s\n", err.message);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/private/dump.nt"), 0);

  /* Allowed dumps go, a Crawl-delay (1 s) apart; robots.txt was read once
   * and is cached with a TTL. */
  add_seed("/pub/a.nt", hash);
  double t0 = now_s();
  CHECK_INT_EQ(run(hash, NULL, &err), LW_OK);
  add_seed("/pub/b.nt", hash);
  CHECK_INT_EQ(run(hash, NULL, &err), LW_OK);
  CHECK(now_s() - t0 >= 1.0);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/robots.txt"), robots_hits + 1);
  long long ttl = lw_test_redis_int(redis, "TTL", robots.s, NULL);
  CHECK(ttl > 0 && ttl <= 3600);
}

/* A dump on this host that redirects to another host ("localhost"): the
 * per-host limit is taken on the host the redirect leads to. */
static void test_slot_after_redirect(void)
{
  set("per-host-concurrency", "1");
  set("total-timeout", "3");
  char target[256];
  snprintf(target, sizeof(target), "http://localhost:%u/moved.nt",
           lw_test_server_port(srv));
  lw_test_server_add(srv, "/redirect.nt", &(LwTestResponse){.location = target});
  lw_test_server_add(srv, "/moved.nt", &(LwTestResponse){.body = "<a> <b> <c> .\n"});
  LwKey other = lw_key(cfg.prefix, LW_KEY_HOST_SLOTS, "localhost");
  freeReplyObject(redisCommand(redis, "ZADD %s 99999999999999 other-job", other.s));
  char hash[LW_HASH_HEX_LEN + 1];
  add_seed("/redirect.nt", hash);
  LwError err;
  CHECK_INT_EQ(run(hash, NULL, &err), LW_ERR_NET);
  CHECK(strstr(err.message, "localhost") != NULL);
  printf("redirect to a busy host: %s\n", err.message);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/redirect.nt"), 1);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/moved.nt"), 0);
  /* and the first host's slot was given back */
  CHECK_INT_EQ(lw_test_redis_int(redis, "ZCARD",
                                 lw_key(cfg.prefix, LW_KEY_HOST_SLOTS, "127.0.0.1").s,
                                 NULL),
               0);
  set("per-host-concurrency", "2");
  set("total-timeout", "60");
}

int main(void)
{
  redis = lw_test_redis();
  srv = lw_test_server_start();
  if (!srv) {
    lw_test_skip("libmicrohttpd cannot start a server");
  }
  dir = lw_test_tmpdir();
  lw_test_redis_config(&cfg, "download");
  lw_test_redis_cleanup(redis, cfg.prefix);
  set("data", dir);
  set("allow-net", lw_test_server_allow(srv));
  set("contact", "https://example.org/lodwash-test");
  test_download_and_revisit();
  test_failures();
  test_resume();
  test_host_slots();
  set("robots-ttl", "3600");
  set("host-interval-ms", "0");
  test_robots_over_http();
  test_slot_after_redirect();
  lw_test_redis_cleanup(redis, cfg.prefix);
  lw_config_free(&cfg);
  redisFree(redis);
  lw_test_server_stop(srv);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
