#include "report/metrics.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "report/provider_report.h"

#ifndef LODWASH_VERSION
#define LODWASH_VERSION "0"
#endif

/* The text being built; the first failure sticks (checked once, at the end). */
typedef struct {
  LwBuf buf;
  bool failed;
} Out;

static void emit(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(Out *o, const char *fmt, ...)
{
  if (o->failed) {
    return;
  }
  char line[2048];
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(line, sizeof(line), fmt, args);
  va_end(args);
  o->failed = n < 0 || (size_t)n >= sizeof(line) ||
              lw_buf_append(&o->buf, line, (size_t)n) != LW_OK;
}

/* The HELP and TYPE lines of a family. */
static void family(Out *o, const char *name, const char *type, const char *help)
{
  emit(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value with \, " and newlines escaped (the exposition format's
 * rule), into buf. */
static const char *label_in(const char *value, char *buf, size_t size)
{
  size_t j = 0;
  for (size_t i = 0; value && value[i] && j + 3 < size; ++i) {
    char c = value[i];
    if (c == '\\' || c == '"') {
      buf[j++] = '\\';
      buf[j++] = c;
    } else if (c == '\n') {
      buf[j++] = '\\';
      buf[j++] = 'n';
    } else {
      buf[j++] = c;
    }
  }
  buf[j] = '\0';
  return buf;
}

#define LABEL(name, value)                                                                 \
  char name[512];                                                                          \
  label_in(value, name, sizeof(name))

static long long int_of(const json_t *obj, const char *key)
{
  const json_t *v = json_object_get(obj, key);
  return json_is_integer(v) ? (long long)json_integer_value(v)
         : json_is_real(v)  ? (long long)json_real_value(v)
                            : 0;
}

/* Epoch seconds of an ISO 8601 field, 0 when absent. */
static double seconds_of(const json_t *obj, const char *key)
{
  LwDateTime t;
  const char *s = json_string_value(json_object_get(obj, key));
  return s && lw_datetime_parse_str(s, &t) ? (double)t.usec / 1e6 : 0;
}

/* One line per stage of the integer count `key` of each stage object. */
static void per_stage(Out *o, const json_t *stages, const char *metric, const char *key)
{
  const char *stage;
  const json_t *counts;
  json_object_foreach((json_t *)stages, stage, counts) {
    LABEL(s, stage);
    emit(o, "%s{stage=\"%s\"} %lld\n", metric, s, int_of(counts, key));
  }
}

static void render_stages(Out *o, const json_t *stages)
{
  static const char *const states[] = {"queued", "inflight", "delayed", "dead"};
  const char *stage;
  const json_t *counts;
  family(o, "lodwash_jobs", "gauge",
         "Jobs per stage and state (queued, inflight, delayed, dead).");
  json_object_foreach((json_t *)stages, stage, counts) {
    LABEL(s, stage);
    for (size_t i = 0; i < 4; ++i) {
      emit(o, "lodwash_jobs{stage=\"%s\",state=\"%s\"} %lld\n", s, states[i],
           int_of(counts, states[i]));
    }
  }
  family(o, "lodwash_jobs_done_total", "counter", "Jobs finished successfully.");
  per_stage(o, stages, "lodwash_jobs_done_total", "done");
  family(o, "lodwash_jobs_failed_total", "counter",
         "Job runs that failed (retried or dead).");
  per_stage(o, stages, "lodwash_jobs_failed_total", "failed");
}

static void render_timings(Out *o, const json_t *timings)
{
  family(o, "lodwash_job_duration_seconds", "histogram",
         "How long job runs took, per stage.");
  const char *stage;
  const json_t *t;
  json_object_foreach((json_t *)timings, stage, t) {
    LABEL(s, stage);
    size_t i;
    const json_t *b;
    json_array_foreach(json_object_get(t, "buckets"), i, b) {
      const json_t *le = json_object_get(b, "le");
      char bound[32];
      if (json_is_real(le)) {
        snprintf(bound, sizeof(bound), "%g", json_real_value(le));
      } else {
        snprintf(bound, sizeof(bound), "+Inf");
      }
      emit(o, "lodwash_job_duration_seconds_bucket{stage=\"%s\",le=\"%s\"} %lld\n", s,
           bound, int_of(b, "count"));
    }
    emit(o, "lodwash_job_duration_seconds_sum{stage=\"%s\"} %.3f\n", s,
         json_number_value(json_object_get(t, "sum_seconds")));
    emit(o, "lodwash_job_duration_seconds_count{stage=\"%s\"} %lld\n", s,
         int_of(t, "count"));
  }
}

static void render_paused(Out *o, const json_t *stages, const json_t *paused)
{
  family(o, "lodwash_stage_paused", "gauge", "1 when an operator paused the stage.");
  const char *stage;
  const json_t *counts;
  json_object_foreach((json_t *)stages, stage, counts) {
    bool is = false;
    size_t i;
    const json_t *p;
    json_array_foreach(paused, i, p) {
      is = is || !strcmp(json_string_value(p) ? json_string_value(p) : "", stage);
    }
    LABEL(s, stage);
    emit(o, "lodwash_stage_paused{stage=\"%s\"} %d\n", s, is ? 1 : 0);
  }
}

static void render_seeds(Out *o, const json_t *seeds)
{
  const char *status;
  const json_t *n;
  family(o, "lodwash_seeds", "gauge", "Seeds per status.");
  json_object_foreach((json_t *)seeds, status, n) {
    LABEL(s, status);
    emit(o, "lodwash_seeds{status=\"%s\"} %lld\n", s, (long long)json_integer_value(n));
  }
}

/* The counters hash: known names with their own help, "errors:KIND" as
 * lodwash_errors_total{kind}. Absent counters show as 0. */
static void render_counters(Out *o, const json_t *counters)
{
  static const struct {
    const char *field, *metric, *help;
  } known[] = {
    {"bytes_downloaded", "lodwash_bytes_downloaded_total", "Body bytes downloaded."},
    {"triples_cleaned", "lodwash_triples_cleaned_total",
     "Triples written by the clean step."},
    {"triples_imported", "lodwash_triples_imported_total",
     "Triples added to graphs by imports."},
  };
  for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); ++i) {
    family(o, known[i].metric, "counter", known[i].help);
    emit(o, "%s %lld\n", known[i].metric, int_of(counters, known[i].field));
  }
  family(o, "lodwash_errors_total", "counter", "Errors found in data, by kind.");
  const char *name;
  const json_t *n;
  json_object_foreach((json_t *)counters, name, n) {
    if (!strncmp(name, "errors:", 7)) {
      LABEL(kind, name + 7);
      emit(o, "lodwash_errors_total{kind=\"%s\"} %lld\n", kind,
           (long long)json_integer_value(n));
    }
  }
}

static void render_provider_states(Out *o, const json_t *providers)
{
  size_t i;
  const json_t *p;
  family(o, "lodwash_provider_state", "gauge",
         "1 for the provider's current state, 0 for the others.");
  json_array_foreach(providers, i, p) {
    LABEL(name, json_string_value(json_object_get(p, "name")));
    const char *state = json_string_value(json_object_get(p, "state"));
    for (const char *const *s = lw_provider_states; *s; ++s) {
      emit(o, "lodwash_provider_state{provider=\"%s\",state=\"%s\"} %d\n", name, *s,
           state && !strcmp(state, *s) ? 1 : 0);
    }
  }
}

/* The last harvest that finished: triples, its end, failed dumps. */
static void render_provider_harvests(Out *o, const json_t *providers)
{
  size_t i;
  const json_t *p;
  family(o, "lodwash_provider_last_harvest_timestamp_seconds", "gauge",
         "When the provider's last harvest with every dump in ended (Unix time).");
  json_array_foreach(providers, i, p) {
    double at = seconds_of(p, "harvested_at");
    if (at > 0) {
      LABEL(name, json_string_value(json_object_get(p, "name")));
      emit(o, "lodwash_provider_last_harvest_timestamp_seconds{provider=\"%s\"} %.3f\n",
           name, at);
    }
  }
  family(o, "lodwash_provider_triples", "gauge",
         "Triples in the provider's graph after its last harvest.");
  json_array_foreach(providers, i, p) {
    const json_t *h = json_object_get(p, "harvest");
    if (json_is_integer(json_object_get(h, "triples"))) {
      LABEL(name, json_string_value(json_object_get(p, "name")));
      emit(o, "lodwash_provider_triples{provider=\"%s\"} %lld\n", name,
           int_of(h, "triples"));
    }
  }
  family(o, "lodwash_provider_failed_dumps", "gauge",
         "Files of the provider's last harvest that failed.");
  json_array_foreach(providers, i, p) {
    const json_t *h = json_object_get(p, "harvest");
    if (json_is_object(h)) {
      LABEL(name, json_string_value(json_object_get(p, "name")));
      emit(o, "lodwash_provider_failed_dumps{provider=\"%s\"} %zu\n", name,
           json_array_size(json_object_get(h, "failed_files")));
    }
  }
  family(o, "lodwash_provider_harvest_running_seconds", "gauge",
         "How long the provider's running harvest has run (0: none running).");
  double now = (double)lw_datetime_now_usec() / 1e6;
  json_array_foreach(providers, i, p) {
    const json_t *h = json_object_get(p, "harvest");
    const char *status = json_string_value(json_object_get(h, "status"));
    double started = seconds_of(h, "started");
    bool running = status && !strcmp(status, "running") && started > 0;
    LABEL(name, json_string_value(json_object_get(p, "name")));
    emit(o, "lodwash_provider_harvest_running_seconds{provider=\"%s\"} %.3f\n", name,
         running ? now - started : 0.0);
  }
}

/* Whether the registry file loads, and when the scheduler last read a good
 * one: a registry broken by an edit keeps the last good providers (and
 * their series), so only these say it (docs/operations.md's alert). */
static void render_registry(Out *o, const json_t *registry)
{
  family(o, "lodwash_registry_ok", "gauge",
         "1 when the registry file loads; 0: broken, the last good one is used.");
  emit(o, "lodwash_registry_ok %d\n",
       json_is_false(json_object_get(registry, "ok")) ? 0 : 1);
  long long ms = int_of(registry, "last_good_ms");
  if (ms > 0) {
    family(o, "lodwash_registry_last_good_timestamp_seconds", "gauge",
           "When the scheduler last read a registry that loads (Unix time).");
    emit(o, "lodwash_registry_last_good_timestamp_seconds %.3f\n", (double)ms / 1000.0);
  }
}

static void render_redis(Out *o, const json_t *status)
{
  const json_t *redis = json_object_get(status, "redis");
  family(o, "lodwash_redis_used_memory_bytes", "gauge",
         "Memory Redis uses (INFO used_memory).");
  emit(o, "lodwash_redis_used_memory_bytes %lld\n", int_of(redis, "used_memory_bytes"));
  const json_t *sched = json_object_get(status, "scheduler");
  family(o, "lodwash_scheduler_lease_held", "gauge",
         "1 while a scheduler holds the lease.");
  emit(o, "lodwash_scheduler_lease_held %d\n",
       json_is_string(json_object_get(sched, "lease_holder")) ? 1 : 0);
}

char *lw_metrics_render(const json_t *status)
{
  Out o = {LW_BUF_INIT, false};
  family(&o, "lodwash_build_info", "gauge",
         "The version of lodwash serving these metrics.");
  emit(&o, "lodwash_build_info{version=\"%s\"} 1\n", LODWASH_VERSION);
  family(&o, "lodwash_redis_up", "gauge", "1 when Redis answered this scrape.");
  emit(&o, "lodwash_redis_up %d\n", status ? 1 : 0);
  if (status) {
    render_redis(&o, status);
    const json_t *stages = json_object_get(status, "stages");
    render_stages(&o, stages);
    render_timings(&o, json_object_get(status, "timings"));
    render_paused(&o, stages, json_object_get(status, "paused"));
    family(&o, "lodwash_workers_alive", "gauge", "Workers with a live heartbeat.");
    emit(&o, "lodwash_workers_alive %zu\n",
         json_array_size(json_object_get(status, "workers")));
    render_seeds(&o, json_object_get(status, "seeds"));
    render_counters(&o, json_object_get(status, "counters"));
    render_registry(&o, json_object_get(status, "registry"));
    const json_t *providers = json_object_get(status, "providers");
    render_provider_states(&o, providers);
    render_provider_harvests(&o, providers);
  }
  if (o.failed) {
    lw_buf_free(&o.buf);
    return NULL;
  }
  return lw_buf_steal(&o.buf);
}
