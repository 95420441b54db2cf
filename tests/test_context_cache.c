/*
 * The JSON-LD context cache (workers/context_cache.h) against a real Redis,
 * with documents fetched over loopback HTTP by the real document loader:
 * only JSON-LD contexts are cached (with the TTL), a second load of a cached
 * context does not fetch it again, and the cache's bodies stay under their
 * total cap (oldest evicted first; one larger than the cap alone refused;
 * expired entries leave the index).
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonld/jsonld.h"
#include "base/base.h"
#include "queue/keys.h"
#include "tests/support/check.h"
#include "tests/support/http_server.h"
#include "tests/support/redis_support.h"
#include "workers/context_cache.h"

static LwTestServer *srv;
static redisContext *redis;
static const char *prefix;
static LwContextCache cache;
static LwDocumentLoader loader;

static LwKey context_key(const char *path)
{
  char url[256], hash[LW_HASH_HEX_LEN + 1];
  lw_test_server_url(srv, path, url, sizeof(url));
  lw_md5_hex(url, strlen(url), hash);
  return lw_key(prefix, LW_KEY_CONTEXT, hash);
}

/* Loads path through the loader (and so the cache); true when it loaded. */
static bool load(const char *path)
{
  char url[256], *body = NULL, *document_url = NULL;
  size_t len = 0;
  LwError err;
  lw_test_server_url(srv, path, url, sizeof(url));
  LwStatus st = lw_document_load(&loader, url, &body, &len, &document_url, &err);
  free(body);
  free(document_url);
  return st == LW_OK;
}

static bool cached(const char *path)
{
  return lw_test_redis_int(redis, "EXISTS", context_key(path).s, NULL) == 1;
}

/* The total size of the cached bodies, from the bodies themselves. */
static long long cached_bytes(void)
{
  redisReply *r = redisCommand(redis, "ZRANGE %s 0 -1",
                               lw_key(prefix, LW_KEY_CONTEXTS, NULL).s);
  long long total = 0;
  for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; ++i) {
    total += lw_test_redis_int(
      redis, "HSTRLEN", lw_key(prefix, LW_KEY_CONTEXT, r->element[i]->str).s, "body", NULL);
  }
  freeReplyObject(r);
  return total;
}

/* A context of about size bytes. */
static void add_context(const char *path, size_t size)
{
  char *body = malloc(size + 1);
  int n = snprintf(body, size + 1,
                   "{\"@context\": {\"name\": \"http://schema.org/name\", \"pad\": \"");
  memset(body + n, 'x', size - (size_t)n - 3);
  memcpy(body + size - 3, "\"}}", 4);
  lw_test_server_add(
    srv, path, &(LwTestResponse){.body = body, .content_type = "application/ld+json"});
  free(body);
}

static void test_only_contexts(void)
{
  lw_test_server_add(
    srv, "/ctx.jsonld",
    &(LwTestResponse){.body = "{\"@context\": {\"@vocab\": \"http://schema.org/\"}}",
                      .content_type = "application/ld+json"});
  lw_test_server_add(
    srv, "/data.jsonld",
    &(LwTestResponse){
      .body = "{\"@id\": \"http://example.org/a\", \"http://example.org/p\": \"v\"}"});
  lw_test_server_add(srv, "/list.json", &(LwTestResponse){.body = "[{\"@context\": {}}]"});
  lw_test_server_add(srv, "/page.html",
                     &(LwTestResponse){.body = "<html><body>Not found</body></html>",
                                       .content_type = "text/html"});

  CHECK(load("/ctx.jsonld"));
  CHECK(cached("/ctx.jsonld"));
  long long ttl = lw_test_redis_int(redis, "TTL", context_key("/ctx.jsonld").s, NULL);
  CHECK(ttl > 0 && ttl <= LW_CONTEXT_CACHE_TTL_S);
  CHECK(load("/ctx.jsonld"));
  CHECK_INT_EQ(lw_test_server_hits(srv, "/ctx.jsonld"), 1); /* the second from Redis */

  const char *others[] = {"/data.jsonld", "/list.json", "/page.html"};
  for (size_t i = 0; i < 3; ++i) {
    CHECK(load(others[i]));    /* loaded for the caller ... */
    CHECK(!cached(others[i])); /* ... but never cached */
    CHECK(load(others[i]));
    CHECK_INT_EQ(lw_test_server_hits(srv, others[i]), 2);
  }
  CHECK_INT_EQ(
    lw_test_redis_int(redis, "ZCARD", lw_key(prefix, LW_KEY_CONTEXTS, NULL).s, NULL), 1);
}

static void test_size_cap(void)
{
  lw_test_redis_cleanup(redis, prefix);
  cache.max_bytes = 10000;
  char path[32];
  for (int i = 0; i < 6; ++i) {
    snprintf(path, sizeof(path), "/big%d.jsonld", i);
    add_context(path, 3000);
    CHECK(load(path));
    CHECK(cached(path)); /* the newest is always kept */
    CHECK(cached_bytes() <= 10000);
  }
  CHECK_INT_EQ(cached_bytes(), 9000); /* three of them fit */
  CHECK(!cached("/big0.jsonld"));     /* the oldest went first */
  CHECK(!cached("/big2.jsonld"));
  CHECK(cached("/big3.jsonld"));

  /* Larger than the whole cache: loaded, not cached, nothing evicted. */
  add_context("/huge.jsonld", 12000);
  CHECK(load("/huge.jsonld"));
  CHECK(!cached("/huge.jsonld"));
  CHECK_INT_EQ(cached_bytes(), 9000);

  /* An entry whose TTL ran out leaves the index at the next store. */
  redisReply *r = redisCommand(redis, "PEXPIRE %s 1", context_key("/big3.jsonld").s);
  freeReplyObject(r);
  struct timespec ts = {0, 20 * 1000000L};
  nanosleep(&ts, NULL);
  add_context("/small.jsonld", 500);
  CHECK(load("/small.jsonld"));
  CHECK_INT_EQ(
    lw_test_redis_int(redis, "ZCARD", lw_key(prefix, LW_KEY_CONTEXTS, NULL).s, NULL), 3);
  CHECK_INT_EQ(cached_bytes(), 6500);
}

int main(void)
{
  lw_test_require_redis();
  curl_global_init(CURL_GLOBAL_DEFAULT);
  redis = lw_test_redis();
  prefix = lw_test_prefix("context_cache");
  srv = lw_test_server_start();
  if (!srv) {
    lw_test_skip("cannot start the test HTTP server");
  }
  LwNetGuard *guard = NULL;
  LwError err;
  CHECK_INT_EQ(lw_netguard_new(lw_test_server_allow(srv), &guard, &err), LW_OK);
  cache = (LwContextCache){redis, prefix, 64 << 20};
  loader = (LwDocumentLoader){.guard = guard,
                              .cache_get = lw_context_cache_get,
                              .cache_put = lw_context_cache_put,
                              .cache_handle = &cache};
  test_only_contexts();
  test_size_cap();
  lw_test_redis_cleanup(redis, prefix);
  lw_netguard_free(guard);
  lw_test_server_stop(srv);
  redisFree(redis);
  curl_global_cleanup();
  return lw_test_finish();
}
