#include "queue/samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/queue.h"
#include "queue/redis_cmd.h"

static LwStatus reply_error(LwError *err)
{
  return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
}

/* The sums over every stage: done, failed, waiting. */
static LwStatus totals(LwRecords *c, const LwConfig *cfg, long long sum[3], LwError *err)
{
  json_t *stages = NULL;
  LW_TRY(lw_queue_stages(c, cfg, &stages, err));
  LwStatus st = LW_OK;
  size_t i;
  json_t *name;
  json_array_foreach(stages, i, name) {
    LwStageCounts n;
    st = lw_queue_counts(c, cfg, json_string_value(name), &n, err);
    if (st != LW_OK) {
      break;
    }
    sum[0] += n.done;
    sum[1] += n.failed;
    sum[2] += n.queued + n.delayed + n.inflight;
  }
  json_decref(stages);
  return st;
}

LwStatus lw_samples_record(LwRecords *c, const LwConfig *cfg, long long now_ms,
                           LwError *err)
{
  long long sum[3] = {0, 0, 0};
  LW_TRY(totals(c, cfg, sum, err));
  LwKey key = lw_key(cfg->prefix, LW_KEY_SAMPLES, NULL);
  long long minute = now_ms / 60000;
  char sample[128];
  snprintf(sample, sizeof(sample), "%lld %lld %lld %lld", minute, sum[0], sum[1], sum[2]);
  redisReply *head = lw_redis_cmd(c, err, "LINDEX", key.s, "0", NULL);
  if (!head) {
    return reply_error(err);
  }
  bool same = head->type == REDIS_REPLY_STRING && strtoll(head->str, NULL, 10) == minute;
  freeReplyObject(head);
  redisReply *r = same ? lw_redis_cmd(c, err, "LSET", key.s, "0", sample, NULL)
                       : lw_redis_cmd(c, err, "LPUSH", key.s, sample, NULL);
  if (!r) {
    return reply_error(err);
  }
  freeReplyObject(r);
  char last[24];
  snprintf(last, sizeof(last), "%d", LW_SAMPLES_MAX - 1);
  r = lw_redis_cmd(c, err, "LTRIM", key.s, "0", last, NULL);
  if (!r) {
    return reply_error(err);
  }
  freeReplyObject(r);
  return LW_OK;
}

LwStatus lw_samples_read(LwRecords *c, const char *prefix, json_t **out, LwError *err)
{
  *out = NULL;
  redisReply *r = lw_redis_cmd(c, err, "LRANGE", lw_key(prefix, LW_KEY_SAMPLES, NULL).s,
                               "0", "-1", NULL);
  if (!r) {
    return reply_error(err);
  }
  json_t *list = json_array();
  for (size_t i = r->type == REDIS_REPLY_ARRAY ? r->elements : 0; i-- > 0;) {
    long long v[4];
    if (r->element[i]->type == REDIS_REPLY_STRING &&
        sscanf(r->element[i]->str, "%lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3]) ==
          4) {
      json_array_append_new(list,
                            json_pack("{s:I, s:I, s:I, s:I}", "minute", (json_int_t)v[0],
                                      "done", (json_int_t)v[1], "failed", (json_int_t)v[2],
                                      "waiting", (json_int_t)v[3]));
    }
  }
  freeReplyObject(r);
  *out = list;
  return LW_OK;
}
