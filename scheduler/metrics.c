#include "scheduler/metrics.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *data;
  size_t len;
  size_t cap;
  int failed;
} Out;

static void emit(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(Out *o, const char *fmt, ...)
{
  if (o->failed) {
    return;
  }
  for (;;) {
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(o->data + o->len, o->cap - o->len, fmt, args);
    va_end(args);
    if (n < 0) {
      o->failed = 1;
      return;
    }
    if ((size_t)n < o->cap - o->len) {
      o->len += (size_t)n;
      return;
    }
    size_t cap = (o->cap + (size_t)n + 1) * 2;
    char *grown = realloc(o->data, cap);
    if (!grown) {
      o->failed = 1;
      return;
    }
    o->data = grown;
    o->cap = cap;
  }
}

/* A label value with \, " and newlines escaped, in a static buffer. */
static const char *label(const char *value)
{
  static char buf[512];
  size_t j = 0;
  for (size_t i = 0; value[i] && j + 3 < sizeof(buf); ++i) {
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

static long long int_of(const json_t *obj, const char *key)
{
  const json_t *v = json_object_get(obj, key);
  return json_is_integer(v) ? (long long)json_integer_value(v)
         : json_is_real(v)  ? (long long)json_real_value(v)
                            : 0;
}

static void render_stages(Out *o, const json_t *stages)
{
  static const char *const states[] = {"queued", "inflight", "delayed", "dead"};
  const char *stage;
  const json_t *counts;
  emit(o, "# HELP lodwash_jobs Jobs per stage and state.\n# TYPE lodwash_jobs gauge\n");
  json_object_foreach((json_t *)stages, stage, counts) {
    for (size_t i = 0; i < 4; ++i) {
      emit(o, "lodwash_jobs{stage=\"%s\",state=\"%s\"} %lld\n", label(stage), states[i],
           int_of(counts, states[i]));
    }
  }
  emit(o, "# HELP lodwash_jobs_done_total Jobs finished.\n"
          "# TYPE lodwash_jobs_done_total counter\n");
  json_object_foreach((json_t *)stages, stage, counts) {
    emit(o, "lodwash_jobs_done_total{stage=\"%s\"} %lld\n", label(stage),
         int_of(counts, "done"));
  }
  emit(o, "# HELP lodwash_jobs_failed_total Job runs that failed.\n"
          "# TYPE lodwash_jobs_failed_total counter\n");
  json_object_foreach((json_t *)stages, stage, counts) {
    emit(o, "lodwash_jobs_failed_total{stage=\"%s\"} %lld\n", label(stage),
         int_of(counts, "failed"));
  }
  emit(o, "# HELP lodwash_job_seconds_total Time spent running jobs.\n"
          "# TYPE lodwash_job_seconds_total counter\n");
  json_object_foreach((json_t *)stages, stage, counts) {
    emit(o, "lodwash_job_seconds_total{stage=\"%s\"} %.3f\n", label(stage),
         (double)int_of(counts, "ms") / 1000.0);
  }
}

static void render_seeds(Out *o, const json_t *seeds)
{
  const char *status;
  const json_t *n;
  emit(o, "# HELP lodwash_seeds Seeds per status.\n# TYPE lodwash_seeds gauge\n");
  json_object_foreach((json_t *)seeds, status, n) {
    emit(o, "lodwash_seeds{status=\"%s\"} %lld\n", label(status),
         (long long)json_integer_value(n));
  }
}

/* "bytes_downloaded" -> lodwash_bytes_downloaded_total; "errors:syntax" ->
 * lodwash_errors_total{kind="syntax"}. */
static void render_counters(Out *o, const json_t *counters)
{
  const char *name;
  const json_t *n;
  json_object_foreach((json_t *)counters, name, n) {
    const char *colon = strchr(name, ':');
    char metric[128];
    size_t len = colon ? (size_t)(colon - name) : strlen(name);
    if (len >= sizeof(metric)) {
      continue;
    }
    for (size_t i = 0; i < len; ++i) {
      metric[i] = isalnum((unsigned char)name[i]) ? name[i] : '_';
    }
    metric[len] = '\0';
    if (colon) {
      emit(o, "lodwash_%s_total{kind=\"%s\"} %lld\n", metric, label(colon + 1),
           (long long)json_integer_value(n));
    } else {
      emit(o, "# TYPE lodwash_%s_total counter\nlodwash_%s_total %lld\n", metric, metric,
           (long long)json_integer_value(n));
    }
  }
}

static void render_providers(Out *o, const json_t *providers)
{
  size_t i;
  const json_t *p;
  emit(o, "# HELP lodwash_provider_state 1 for the provider's current state.\n"
          "# TYPE lodwash_provider_state gauge\n");
  json_array_foreach(providers, i, p) {
    const char *name = json_string_value(json_object_get(p, "name"));
    const char *state = json_string_value(json_object_get(p, "state"));
    if (name && state) {
      char n[256];
      snprintf(n, sizeof(n), "%s", label(name));
      emit(o, "lodwash_provider_state{provider=\"%s\",state=\"%s\"} 1\n", n, label(state));
    }
  }
  emit(o, "# HELP lodwash_provider_last_harvest_timestamp_seconds When the last harvest ended.\n"
          "# TYPE lodwash_provider_last_harvest_timestamp_seconds gauge\n");
  json_array_foreach(providers, i, p) {
    const char *name = json_string_value(json_object_get(p, "name"));
    long long ended = int_of(p, "harvest_ended");
    if (name && ended) {
      emit(o, "lodwash_provider_last_harvest_timestamp_seconds{provider=\"%s\"} %lld\n",
           label(name), ended / 1000);
    }
  }
  emit(o, "# HELP lodwash_provider_triples Triples in the provider's graph.\n"
          "# TYPE lodwash_provider_triples gauge\n");
  json_array_foreach(providers, i, p) {
    const char *name = json_string_value(json_object_get(p, "name"));
    if (name) {
      emit(o, "lodwash_provider_triples{provider=\"%s\"} %lld\n", label(name),
           int_of(p, "triples"));
    }
  }
}

char *lw_metrics_render(const json_t *status)
{
  Out o = {0};
  emit(&o, "%s", "");
  const json_t *stages = json_object_get(status, "stages");
  if (json_is_object(stages)) {
    render_stages(&o, stages);
  }
  const json_t *workers = json_object_get(status, "workers");
  emit(&o, "# HELP lodwash_workers_alive Workers with a live heartbeat.\n"
           "# TYPE lodwash_workers_alive gauge\nlodwash_workers_alive %zu\n",
       json_is_array(workers) ? json_array_size(workers) : 0);
  const json_t *seeds = json_object_get(status, "seeds");
  if (json_is_object(seeds)) {
    render_seeds(&o, seeds);
  }
  const json_t *counters = json_object_get(status, "counters");
  if (json_is_object(counters)) {
    render_counters(&o, counters);
  }
  const json_t *providers = json_object_get(status, "providers");
  if (json_is_array(providers)) {
    render_providers(&o, providers);
  }
  if (o.failed) {
    free(o.data);
    return NULL;
  }
  return o.data;
}
