#include "queue/job_timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/redis_cmd.h"

const double lw_job_timing_bounds[LW_JOB_TIMING_BUCKETS] = {
  0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800, 7200};

/* The field of the bucket a run of ms falls in. */
static void bucket_field(long long ms, char *buf, size_t size)
{
  for (int i = 0; i < LW_JOB_TIMING_BUCKETS; ++i) {
    if ((double)ms <= lw_job_timing_bounds[i] * 1000.0) {
      snprintf(buf, size, "b%d", i);
      return;
    }
  }
  snprintf(buf, size, "inf");
}

void lw_job_timing_ops(LwTxn *txn, const char *prefix, const char *stage, long long ms)
{
  LwKey key = lw_key(prefix, LW_KEY_TIMING, stage);
  char field[16], n[32];
  bucket_field(ms, field, sizeof(field));
  snprintf(n, sizeof(n), "%lld", ms < 0 ? 0 : ms);
  lw_txn_command(txn, 4, (const char *[]){"HINCRBY", key.s, field, "1"}, NULL);
  if (ms > 0) { /* each op is a command in the ack's script call: none that adds 0 */
    lw_txn_command(txn, 4, (const char *[]){"HINCRBY", key.s, "sum_ms", n}, NULL);
  }
}

LwStatus lw_job_timing_read(redisContext *c, const char *prefix, const char *stage,
                            LwJobTiming *out, LwError *err)
{
  memset(out, 0, sizeof(*out));
  LwKey key = lw_key(prefix, LW_KEY_TIMING, stage);
  redisReply *r = lw_redis_cmd(c, err, "HGETALL", key.s, NULL);
  if (!r) {
    return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = LW_OK;
  for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2) {
    const char *f = r->element[i]->str;
    long long v = strtoll(r->element[i + 1]->str, NULL, 10);
    if (f[0] == 'b') {
      int b = atoi(f + 1);
      if (b >= 0 && b < LW_JOB_TIMING_BUCKETS) {
        out->bucket[b] = v;
      }
    } else if (!strcmp(f, "inf")) {
      out->bucket[LW_JOB_TIMING_BUCKETS] = v;
    } else if (!strcmp(f, "sum_ms")) {
      out->sum_ms = v;
    }
  }
  /* the runs are the buckets' sum (a `count` field written by versions
   * before is that sum too, and ignored) */
  for (int b = 0; b <= LW_JOB_TIMING_BUCKETS; ++b) {
    out->count += out->bucket[b];
  }
  freeReplyObject(r);
  return st;
}
