#include "report/status_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "files/files.h"
#include "config/config.h"
#include "queue/controls.h"
#include "queue/job_timing.h"
#include "queue/registry_state.h"
#include "queue/report_read.h"
#include "queue/scheduler_lease.h"
#include "report/provider_report.h"

/* The run time histogram of each stage: count, sum_seconds and buckets
 * (cumulative, "le" bound -> runs at most that long; "+Inf" = count). */
static LwStatus timings_json(LwRecords *c, const LwConfig *cfg, const json_t *stages,
                             json_t *out, LwError *err)
{
  const char *stage;
  const json_t *counts;
  json_object_foreach((json_t *)stages, stage, counts) {
    LwJobTiming t;
    LW_TRY(lw_job_timing_read(c, cfg->prefix, stage, &t, err));
    json_t *buckets = json_array();
    long long cumulative = 0;
    for (int i = 0; i <= LW_JOB_TIMING_BUCKETS; ++i) {
      cumulative += t.bucket[i];
      json_array_append_new(buckets, json_pack("{s:o, s:I}", "le",
                                               i < LW_JOB_TIMING_BUCKETS
                                                 ? json_real(lw_job_timing_bounds[i])
                                                 : json_string("+Inf"),
                                               "count", (json_int_t)cumulative));
    }
    json_object_set_new(out, stage,
                        json_pack("{s:I, s:f, s:o}", "count", (json_int_t)t.count,
                                  "sum_seconds", (double)t.sum_ms / 1000.0, "buckets",
                                  buckets));
  }
  return LW_OK;
}

/* Redis's own figures: used memory (INFO memory). */
static LwStatus redis_json(LwRecords *c, json_t *report, LwError *err)
{
  long long used;
  LW_TRY(lw_report_redis_memory(c, &used, err));
  json_object_set_new(report, "redis",
                      json_pack("{s:b, s:o}", "up", 1, "used_memory_bytes",
                                used >= 0 ? json_integer(used) : json_null()));
  return LW_OK;
}

/* Who holds the scheduler's lease, and for how long still. */
static LwStatus lease_json(LwRecords *c, const LwConfig *cfg, json_t *report, LwError *err)
{
  char holder[256];
  long long ttl_ms;
  LW_TRY(lw_scheduler_lease_read(c, cfg->prefix, holder, sizeof(holder), &ttl_ms, err));
  json_object_set_new(
    report, "scheduler",
    json_pack("{s:o, s:o}", "lease_holder", *holder ? json_string(holder) : json_null(),
              "lease_ttl_s",
              ttl_ms > 0 ? json_real((double)ttl_ms / 1000.0) : json_null()));
  return LW_OK;
}

/* A ms-since-epoch integer field of o as ISO 8601 in place. */
static void iso_in_place(json_t *o, const char *field)
{
  json_t *v = json_object_get(o, field);
  if (json_is_integer(v) && json_integer_value(v) > 0) {
    char iso[LW_DATETIME_BUF];
    json_object_set_new(o, field,
                        json_string(lw_datetime_format_ms(json_integer_value(v), iso)));
  }
}

/* People read this report: the workers' times as ISO 8601, with how long
 * the current job has run in seconds. */
static void workers_readable(json_t *workers)
{
  long long now = lw_datetime_now_usec() / 1000;
  size_t i;
  json_t *w;
  json_array_foreach(workers, i, w) {
    json_t *since = json_object_get(w, "since");
    if (json_is_integer(since) && json_object_get(w, "job") != json_null()) {
      json_object_set_new(w, "job_seconds",
                          json_real((double)(now - json_integer_value(since)) / 1000.0));
    }
    iso_in_place(w, "started");
    iso_in_place(w, "since");
    json_t *job = json_object_get(w, "job");
    if (json_is_object(job)) {
      iso_in_place(job, "queued");
      iso_in_place(job, "first_failed");
    }
  }
}

static LwStatus queue_extras(LwRecords *c, const LwConfig *cfg, json_t *report,
                             LwError *err)
{
  json_t *timings = json_object();
  json_object_set_new(report, "timings", timings);
  LW_TRY(timings_json(c, cfg, json_object_get(report, "stages"), timings, err));
  LW_TRY(redis_json(c, report, err));
  LW_TRY(lease_json(c, cfg, report, err));
  json_t *paused = NULL;
  LW_TRY(lw_controls_paused(c, cfg->prefix, &paused, err));
  json_object_set_new(report, "paused", paused);
  workers_readable(json_object_get(report, "workers"));
  char now[LW_DATETIME_BUF];
  json_object_set_new(
    report, "generated",
    json_string(lw_datetime_format_ms(lw_datetime_now_usec() / 1000, now)));
  return LW_OK;
}

LwStatus lw_status_report(LwRecords *c, const LwConfig *cfg, json_t **out, LwError *err)
{
  LW_TRY(lw_report_json(c, cfg, out, err));
  LwStatus qst = queue_extras(c, cfg, *out, err);
  if (qst != LW_OK) {
    json_decref(*out);
    *out = NULL;
    return qst;
  }
  LwRegistry *reg = NULL;
  LwError rerr;
  lw_error_clear(&rerr);
  json_t *providers = NULL, *registry = NULL;
  /* a registry broken by an edit: the last good one's providers, and the
   * error in "registry" */
  LwStatus st = lw_registry_state_load(c, cfg, &reg, &registry, &rerr);
  json_object_set_new(*out, "registry", registry);
  if (st == LW_OK) {
    st = lw_providers_json(c, cfg->prefix, reg, &providers, &rerr);
  }
  lw_registry_free(reg);
  if (st == LW_ERR_REDIS) {
    json_decref(*out);
    *out = NULL;
    *err = rerr;
    return st;
  }
  if (st != LW_OK) {
    json_object_set_new(*out, "providers_error", json_string(rerr.message));
  }
  json_object_set_new(*out, "providers", providers ? providers : json_array());
  return LW_OK;
}

LwStatus lw_status_report_write(const LwConfig *cfg, const json_t *report, LwError *err)
{
  char tmp[4096], path[4096];
  FILE *f = NULL;
  LW_TRY(lw_store_tmpfile(cfg->data_dir, tmp, sizeof(tmp), &f, err));
  int rc = json_dumpf(report, f, JSON_INDENT(2) | JSON_SORT_KEYS);
  if (fclose(f) != 0 || rc != 0) {
    unlink(tmp);
    return lw_error_set(err, LW_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
  }
  snprintf(path, sizeof(path), "%s/status.json", cfg->data_dir);
  return lw_store_commit(tmp, path, err);
}
