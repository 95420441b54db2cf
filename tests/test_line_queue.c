/*
 * The line queue (clean/line_queue.c): every line reaches the consumer on
 * its thread, in order, long lines too; the consumer's error comes back to
 * the producer; freeing a queue with lines in flight stops its thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "clean/clean.h"
#include "tests/support/check.h"

typedef struct {
  LwMd5 *md5;
  unsigned long long lines;
  unsigned long long fail_at; /* 0: never */
} Consumer;

static LwStatus consume(void *handle, const char *line, size_t len, LwError *err)
{
  Consumer *c = handle;
  if (c->fail_at && c->lines + 1 == c->fail_at) {
    return lw_error_set(err, LW_ERR_IO, "cannot write line %llu", c->fail_at);
  }
  c->lines++;
  lw_md5_update(c->md5, line, len);
  lw_md5_update(c->md5, "|", 1);
  return LW_OK;
}

/* Line i: a few bytes, now and then longer than a block. */
static size_t make_line(unsigned long i, char *buf, size_t cap)
{
  size_t len = i % 997 == 0 ? 9000 + i % 5000 : (size_t)snprintf(buf, cap, "line %lu", i);
  if (len > 100) {
    for (size_t k = 0; k < len; ++k) {
      buf[k] = (char)('a' + (i + k) % 26);
    }
  }
  return len;
}

static void test_order(void)
{
  static char buf[16384];
  LwMd5 *expect = lw_md5_new();
  Consumer c = {.md5 = lw_md5_new()};
  LwLineQueueOptions o = {.block_bytes = 8192, .blocks = 3};
  LwLineQueue *q = NULL;
  LwError err = {0};
  CHECK_INT_EQ(lw_line_queue_new(&o, consume, &c, &q, &err), LW_OK);
  for (unsigned long i = 0; i < 200000; ++i) {
    size_t len = make_line(i, buf, sizeof(buf));
    lw_md5_update(expect, buf, len);
    lw_md5_update(expect, "|", 1);
    CHECK_INT_EQ(lw_line_queue_put(q, buf, len, &err), LW_OK);
  }
  CHECK_INT_EQ(lw_line_queue_finish(q, &err), LW_OK);
  lw_line_queue_free(q);
  char a[LW_HASH_HEX_LEN + 1], b[LW_HASH_HEX_LEN + 1];
  lw_md5_finish(expect, a);
  lw_md5_finish(c.md5, b);
  CHECK_INT_EQ(c.lines, 200000);
  CHECK_STR_EQ(b, a);
  lw_md5_free(expect);
  lw_md5_free(c.md5);
}

static void test_consumer_error(void)
{
  char buf[16384];
  Consumer c = {.md5 = lw_md5_new(), .fail_at = 5000};
  LwLineQueue *q = NULL;
  LwError err = {0};
  CHECK_INT_EQ(lw_line_queue_new(&(LwLineQueueOptions){.block_bytes = 4096}, consume, &c, &q,
                                 &err),
               LW_OK);
  LwStatus st = LW_OK;
  unsigned long i = 0;
  for (; i < 1000000 && st == LW_OK; ++i) {
    size_t len = (size_t)snprintf(buf, sizeof(buf), "line %lu", i);
    st = lw_line_queue_put(q, buf, len, &err);
  }
  CHECK_INT_EQ(st, LW_ERR_IO); /* the producer hears of it, long before the end */
  CHECK(i < 1000000);
  CHECK(strstr(err.message, "line 5000") != NULL);
  LwError ferr = {0};
  CHECK_INT_EQ(lw_line_queue_finish(q, &ferr), LW_ERR_IO);
  CHECK_INT_EQ(c.lines, 4999);
  lw_line_queue_free(q);
  lw_md5_free(c.md5);
}

/* Freed with lines queued and no finish (the caller's own error): the
 * thread stops; the sanitizer build sees leaks. */
static void test_free_in_flight(void)
{
  Consumer c = {.md5 = lw_md5_new()};
  LwLineQueue *q = NULL;
  LwError err = {0};
  CHECK_INT_EQ(lw_line_queue_new(NULL, consume, &c, &q, &err), LW_OK);
  for (int i = 0; i < 100000; ++i) {
    CHECK_INT_EQ(lw_line_queue_put(q, "a line in flight", 16, &err), LW_OK);
  }
  lw_line_queue_free(q);
  lw_line_queue_free(NULL);
  CHECK(c.lines <= 100000);
  lw_md5_free(c.md5);
}

int main(void)
{
  test_order();
  test_consumer_error();
  test_free_in_flight();
  return lw_test_finish();
}
