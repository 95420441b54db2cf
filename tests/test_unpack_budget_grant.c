/* The unpack budget's grants on a real Redis: archives of one harvest
 * unpacked at the same time (the .nt.gz entries of one small tar.gz, on two
 * workers) each get room. A grant asks for a step of 8 MiB beyond its need;
 * under a small chain cap (the 4 MiB floor of a 2 KB download) one greedy
 * grant took the whole cap and its sibling failed with "harvest expansion
 * ratio exceeded" (test_nested_zip's plain provider, now and then). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/unpack_budget.h"
#include "tests/support/check.h"
#include "tests/support/redis_support.h"

#define MIB (1024LL * 1024)

static LwUnpackBudgetRef sibling(redisContext *c, const char *prefix, const char *seed)
{
  LwUnpackBudgetRef ref = {c,       prefix, "h1", seed, 64LL * 1024 * MIB, 1000000,
                           0,       200,    4 * MIB, 0};
  return ref;
}

/* Asks for need and a step of 8 MiB more, as archive/archive_unpack.c does. */
static LwStatus ask(LwUnpackBudgetRef *ref, uint64_t need, uint64_t *granted, LwError *err)
{
  uint64_t files = 1 + 64;
  *granted = need + (uint64_t)(8 * MIB);
  return lw_unpack_budget_reserve(ref, need, 1, granted, &files, err);
}

static void test_siblings(void)
{
  redisContext *c = lw_test_redis();
  LwConfig cfg;
  lw_test_redis_config(&cfg, "budget_grant");
  LwKey key = lw_key(cfg.prefix, LW_KEY_UNPACKED, "h1");
  /* the tar.gz, downloaded 2,107 bytes, done: it wrote 3 files of 2 KB */
  redisReply *r = redisCommand(c, "HSET %s %s %s", key.s, "00000000000000000000000000000000",
                               "7254 3 2107");
  freeReplyObject(r);

  const char *seeds[] = {"11111111111111111111111111111111",
                         "22222222222222222222222222222222",
                         "33333333333333333333333333333333"};
  uint64_t granted[3];
  LwError err;
  for (int i = 0; i < 3; ++i) {
    LwUnpackBudgetRef ref = sibling(c, cfg.prefix, seeds[i]);
    CHECK_INT_EQ(ask(&ref, 29284, &granted[i], &err), LW_OK);
    CHECK(granted[i] >= 29284);
  }
  /* each left room for the next, and together they stay under the cap */
  CHECK(granted[0] < (uint64_t)(4 * MIB) - 7254);
  long long held = 0, files = 0;
  CHECK_INT_EQ(lw_unpack_budget_used(c, cfg.prefix, "h1", &held, &files, &err), LW_OK);
  CHECK(held <= 4 * MIB);

  /* a need that does not fit beside what the others hold still fails */
  LwUnpackBudgetRef big = sibling(c, cfg.prefix, "44444444444444444444444444444444");
  uint64_t g;
  CHECK_INT_EQ(ask(&big, (uint64_t)(4 * MIB), &g, &err), LW_ERR_LIMIT);
  CHECK(strstr(err.message, "harvest expansion ratio exceeded") != NULL);

  /* alone, an archive still gets its whole step when it fits */
  LwUnpackBudgetRef roomy = sibling(c, cfg.prefix, "55555555555555555555555555555555");
  roomy.harvest = "h2";
  roomy.in_bytes = 100 * MIB; /* a 100 MB download: a 20 GB chain */
  CHECK_INT_EQ(ask(&roomy, 29284, &g, &err), LW_OK);
  CHECK_INT_EQ((long long)g, 29284 + 8 * MIB);

  lw_test_redis_cleanup(c, cfg.prefix);
  lw_config_free(&cfg);
  redisFree(c);
}

int main(void)
{
  if (getenv("LODWASH_TEST_REDIS") && *getenv("LODWASH_TEST_REDIS")) {
    test_siblings();
  } else {
    printf("(no LODWASH_TEST_REDIS: not run)\n");
  }
  return lw_test_finish();
}
