#include "queue/report_read.h"

#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/queue.h"
#include "queue/record.h"
#include "queue/redis_cmd.h"

/* The counters hash with its values as integers. */
static LwStatus counters_json(redisContext *c, const LwConfig *cfg, json_t **out,
                              LwError *err)
{
  json_t *record = NULL;
  LwStatus st = lw_record_get(c, lw_key(cfg->prefix, LW_KEY_COUNTERS, NULL).s, &record,
                              err);
  if (st > LW_NOTHING) {
    return st;
  }
  *out = json_object();
  const char *name;
  json_t *value;
  json_object_foreach(record, name, value) {
    json_object_set_new(*out, name, json_integer(atoll(json_string_value(value))));
  }
  json_decref(record);
  return LW_OK;
}

LwStatus lw_report_json(redisContext *c, const LwConfig *cfg, json_t **out, LwError *err)
{
  *out = NULL;
  json_t *report = NULL;
  LW_TRY(lw_queue_status(c, cfg, &report, err));
  json_t *counters = NULL;
  LwStatus st = counters_json(c, cfg, &counters, err);
  if (st == LW_OK) {
    json_object_set_new(report, "counters", counters);
    *out = report;
    return LW_OK;
  }
  json_decref(report);
  return st;
}

LwStatus lw_report_redis_memory(redisContext *c, long long *used, LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, "INFO", "memory", NULL);
  if (!r) {
    return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
  }
  *used = -1;
  const char *at = r->type == REDIS_REPLY_STRING ? strstr(r->str, "used_memory:") : NULL;
  if (at) {
    *used = strtoll(at + strlen("used_memory:"), NULL, 10);
  }
  freeReplyObject(r);
  return LW_OK;
}
