/* Seed records: the status machine (every allowed and refused transition),
 * recording URIs (relative ones too), counts per status, and refusal of
 * illegal transitions on a real Redis. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "queue/index_marks.h"
#include "queue/keys.h"
#include "queue/queue.h"
#include "queue/redis_cmd.h"
#include "queue/seed.h"
#include "tests/support/check.h"
#include "tests/support/redis_support.h"

/* The allowed moves, written out independently of the code's table. */
static const char *const allowed[][2] = {
  {"", "added"},
  {"", "filed"},
  {"", "cleaned"},
  {"added", "downloading"},
  {"added", "filed"},
  {"downloading", "filed"},
  {"downloading", "failed"},
  {"filed", "unarchiving"},
  {"unarchiving", "depleted"},
  {"unarchiving", "unarchived"},
  {"unarchiving", "failed"},
  {"unarchived", "guessing"},
  {"guessing", "guessed"},
  {"guessing", "failed"},
  {"guessing", "skipped"},
  {"guessed", "parsing"},
  {"parsing", "parsed"},
  {"parsing", "failed"},
  {"failed", "added"},
  {"failed", "filed"}, /* a dead job retried by hand: its stage again */
  {"failed", "unarchived"},
  {"failed", "guessed"},
  {"filed", "added"},
  {"depleted", "added"},
  {"unarchived", "added"},
  {"guessed", "added"},
  {"parsed", "added"},
  {"skipped", "added"},
  {"guessed", "unarchived"},
  {"skipped", "unarchived"},
  {"parsed", "unarchived"},
};

static bool in_allowed(const char *from, const char *to)
{
  if (!strcmp(from, to)) {
    return true;
  }
  for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); ++i) {
    if (!strcmp(allowed[i][0], from) && !strcmp(allowed[i][1], to)) {
      return true;
    }
  }
  return false;
}

static bool listed(const char *const *list, const char *s)
{
  for (; *list; ++list) {
    if (!strcmp(*list, s)) {
      return true;
    }
  }
  return false;
}

static void test_machine(void)
{
  const char *from_all[16] = {""};
  int n = 1;
  for (const char *const *s = lw_seed_statuses; *s; ++s) {
    from_all[n++] = *s;
  }
  CHECK_INT_EQ(n, 14);
  for (int i = 0; i < n; ++i) {
    for (const char *const *to = lw_seed_statuses; *to; ++to) {
      bool expect = in_allowed(from_all[i], *to);
      bool got = lw_seed_transition_allowed(from_all[i], *to);
      if (expect != got) {
        fprintf(stderr, "transition %s -> %s: expected %d\n", from_all[i], *to, expect);
      }
      CHECK(expect == got);
    }
  }
  CHECK(lw_seed_transition_allowed(NULL, "added"));
  CHECK(!lw_seed_transition_allowed("added", "bogus"));
  CHECK(!lw_seed_transition_allowed("added", NULL));
  CHECK(lw_seed_status_valid("parsed"));
  CHECK(!lw_seed_status_valid("Parsed"));

  /* at rest: what the scheduler may harvest again; done: what a report
   * counts as ok */
  static const char *const resting[] = {"failed",  "filed",  "depleted", "unarchived",
                                        "guessed", "skipped", "parsed", NULL};
  static const char *const done[] = {"depleted", "skipped", "parsed", "cleaned", NULL};
  for (const char *const *s = lw_seed_statuses; *s; ++s) {
    bool is_resting = listed(resting, *s), is_done = listed(done, *s);
    if (lw_seed_status_resting(*s) != is_resting || lw_seed_status_done(*s) != is_done) {
      fprintf(stderr, "status %s: resting %d done %d expected\n", *s, is_resting, is_done);
    }
    CHECK(lw_seed_status_resting(*s) == is_resting);
    CHECK(lw_seed_status_done(*s) == is_done);
  }
  CHECK(!lw_seed_status_resting(NULL) && !lw_seed_status_resting(""));
  CHECK(!lw_seed_status_done(NULL));

  char hash[LW_HASH_HEX_LEN + 1];
  lw_seed_hash_of("0123456789ABCDEF0123456789abcdef", hash);
  CHECK_STR_EQ(hash, "0123456789abcdef0123456789abcdef");
  char expected[LW_HASH_HEX_LEN + 1];
  lw_uri_hash("http://Example.org/a", expected);
  lw_seed_hash_of("http://Example.org/a", hash);
  CHECK_STR_EQ(hash, expected);
}

static void test_records(void)
{
  redisContext *c = lw_test_redis();
  LwConfig cfg;
  lw_test_redis_config(&cfg, "seed");
  lw_test_redis_cleanup(c, cfg.prefix);
  LwError err;

  char hash[LW_HASH_HEX_LEN + 1];
  bool queued = false;
  CHECK_INT_EQ(lw_seed_add(c, cfg.prefix, "HTTP://Example.ORG/a/./b", "geo", "h1", hash,
                           &queued, &err),
               LW_OK);
  CHECK(queued);
  char expected[LW_HASH_HEX_LEN + 1];
  lw_seed_hash_for("http://example.org/a/b", "geo", expected);
  CHECK_STR_EQ(hash, expected);
  /* a provider's seed is its own: not the seed of the bare URI */
  lw_uri_hash("http://example.org/a/b", expected);
  CHECK(strcmp(hash, expected) != 0);
  /* twice: the record stays, no second download */
  CHECK_INT_EQ(
    lw_seed_add(c, cfg.prefix, "http://example.org/a/b", "geo", "h1", hash, &queued, &err),
    LW_NOTHING);
  CHECK(!queued);
  LwStageCounts n;
  CHECK_INT_EQ(lw_queue_counts(c, &cfg, "download", &n, &err), LW_OK);
  CHECK_INT_EQ(n.queued, 1);

  json_t *rec = NULL;
  CHECK_INT_EQ(lw_seed_get(c, cfg.prefix, hash, &rec, &err), LW_OK);
  CHECK_STR_EQ(json_string_value(json_object_get(rec, "status")), "added");
  CHECK_STR_EQ(json_string_value(json_object_get(rec, "uri")), "HTTP://Example.ORG/a/./b");
  CHECK(json_object_get(rec, "relative") == NULL); /* absent: not relative */
  CHECK_STR_EQ(json_string_value(json_object_get(rec, "provider")), "geo");
  CHECK(json_object_get(rec, "added") != NULL);
  json_decref(rec);

  /* found by its URI through its provider */
  freeReplyObject(lw_redis_cmd(
    c, &err, "HSET", lw_key(cfg.prefix, LW_KEY_PROVIDER, "geo").s, "state", "idle", NULL));
  char found[LW_HASH_HEX_LEN + 1];
  CHECK_INT_EQ(lw_seed_find(c, cfg.prefix, "http://example.org/a/b", found, &rec, &err),
               LW_OK);
  CHECK_STR_EQ(found, hash);
  json_decref(rec);
  CHECK_INT_EQ(lw_seed_find(c, cfg.prefix, "http://example.org/none", found, &rec, &err),
               LW_NOTHING);
  CHECK(rec == NULL);
  /* once the collection's indexes are built, the providers are read from
   * their index (queue/gc_index.h), no longer from a SCAN of the keys */
  CHECK_INT_EQ(lw_index_mark_built(c, cfg.prefix, "gc", &err), LW_OK);
  CHECK_INT_EQ(lw_seed_find(c, cfg.prefix, "http://example.org/a/b", found, &rec, &err),
               LW_NOTHING);
  freeReplyObject(lw_redis_cmd(c, &err, "SADD",
                               lw_key(cfg.prefix, LW_KEY_PROVIDER_INDEX, NULL).s, "geo", NULL));
  CHECK_INT_EQ(lw_seed_find(c, cfg.prefix, "http://example.org/a/b", found, &rec, &err),
               LW_OK);
  CHECK_STR_EQ(found, hash);
  json_decref(rec);

  char *field = NULL;
  CHECK_INT_EQ(lw_seed_get_field(c, cfg.prefix, hash, "provider", &field, &err), LW_OK);
  CHECK_STR_EQ(field, "geo");
  free(field);
  CHECK_INT_EQ(lw_seed_get_field(c, cfg.prefix, hash, "nofield", &field, &err), LW_NOTHING);
  CHECK(field == NULL);

  /* relative: recorded, never queued */
  char rel[LW_HASH_HEX_LEN + 1];
  CHECK_INT_EQ(lw_seed_add(c, cfg.prefix, "../data/x.ttl", NULL, NULL, rel, &queued, &err),
               LW_OK);
  CHECK(!queued);
  CHECK_INT_EQ(lw_seed_get(c, cfg.prefix, rel, &rec, &err), LW_OK);
  CHECK_STR_EQ(json_string_value(json_object_get(rec, "relative")), "true");
  json_decref(rec);
  CHECK_INT_EQ(lw_queue_counts(c, &cfg, "download", &n, &err), LW_OK);
  CHECK_INT_EQ(n.queued, 1);

  /* a walk through the machine, with illegal moves refused on the way */
  CHECK_INT_EQ(lw_seed_set_status(c, cfg.prefix, hash, "guessed", &err), LW_ERR_STATE);
  CHECK(strstr(err.message, "added") && strstr(err.message, "guessed"));
  const char *walk[] = {"downloading", "downloading", "filed",   "unarchiving",
                        "unarchived",  "guessing",    "guessed", "parsing",
                        "parsed",      "added"};
  for (size_t i = 0; i < sizeof(walk) / sizeof(walk[0]); ++i) {
    CHECK_INT_EQ(lw_seed_set_status(c, cfg.prefix, hash, walk[i], &err), LW_OK);
  }
  CHECK_INT_EQ(lw_seed_set_status(c, cfg.prefix, hash, "parsed", &err), LW_ERR_STATE);
  CHECK_INT_EQ(lw_seed_set_status(c, cfg.prefix, hash, "cleaned", &err), LW_ERR_STATE);
  CHECK_INT_EQ(lw_seed_set_status(c, cfg.prefix, hash, "failed", &err), LW_ERR_STATE);
  CHECK_INT_EQ(lw_seed_set_status(c, cfg.prefix, hash, "nonsense", &err), LW_ERR_STATE);
  CHECK_INT_EQ(lw_seed_get(c, cfg.prefix, hash, &rec, &err), LW_OK);
  CHECK_STR_EQ(json_string_value(json_object_get(rec, "status")), "added");
  json_decref(rec);
  /* a record that does not exist cannot be moved along */
  CHECK_INT_EQ(lw_seed_set_status(c, cfg.prefix, "00000000000000000000000000000000",
                                  "downloading", &err),
               LW_ERR_STATE);
  CHECK_INT_EQ(
    lw_seed_set_status(c, cfg.prefix, "11111111111111111111111111111111", "cleaned", &err),
    LW_OK);
  CHECK_INT_EQ(lw_seed_get(c, cfg.prefix, "22222222222222222222222222222222", &rec, &err),
               LW_NOTHING);
  CHECK(rec == NULL);
  /* many at once (pipelined): each record, or NULL where none */
  const char *some[] = {hash, "22222222222222222222222222222222",
                        "11111111111111111111111111111111"};
  json_t *recs[3];
  CHECK_INT_EQ(lw_seed_get_many(c, cfg.prefix, some, 3, recs, &err), LW_OK);
  CHECK(recs[0] && !strcmp(json_string_value(json_object_get(recs[0], "status")), "added"));
  CHECK(recs[1] == NULL);
  CHECK(recs[2] && !strcmp(json_string_value(json_object_get(recs[2], "status")), "cleaned"));
  for (size_t i = 0; i < 3; ++i) {
    json_decref(recs[i]);
  }

  /* the per-status counts follow every move */
  LwKey counts = lw_key(cfg.prefix, LW_KEY_SEED_COUNTS, NULL);
  CHECK_INT_EQ(lw_test_redis_int(c, "HGET", counts.s, "added", NULL), 2);
  CHECK_INT_EQ(lw_test_redis_int(c, "HGET", counts.s, "parsed", NULL), 0);
  CHECK_INT_EQ(lw_test_redis_int(c, "HGET", counts.s, "cleaned", NULL), 1);

  lw_test_redis_cleanup(c, cfg.prefix);
  lw_config_free(&cfg);
  redisFree(c);
}

int main(void)
{
  test_machine();
  if (getenv("LODWASH_TEST_REDIS") && *getenv("LODWASH_TEST_REDIS")) {
    test_records();
  } else {
    printf("(no LODWASH_TEST_REDIS: Redis part not run)\n");
  }
  return lw_test_finish();
}
