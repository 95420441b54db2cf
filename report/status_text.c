/*
 * The status report (report/status_report.h) as people read it in a
 * terminal: `lodwash status` prints the table, the status stage logs the
 * one-line summary.
 */
#include "report/status_text.h"

/* A string field for printing: "-" when absent or not a string. */
static const char *str(const json_t *obj, const char *key)
{
  const char *s = json_string_value(json_object_get(obj, key));
  return s ? s : "-";
}

void lw_status_text_print(FILE *out, const json_t *status)
{
  fprintf(out, "%-12s %9s %9s %9s %9s %9s %9s\n", "stage", "queued", "inflight", "delayed",
          "dead", "done", "failed");
  const char *name;
  const json_t *s;
  json_object_foreach(json_object_get(status, "stages"), name, s) {
    fprintf(out, "%-12s %9lld %9lld %9lld %9lld %9lld %9lld\n", name,
            (long long)json_integer_value(json_object_get(s, "queued")),
            (long long)json_integer_value(json_object_get(s, "inflight")),
            (long long)json_integer_value(json_object_get(s, "delayed")),
            (long long)json_integer_value(json_object_get(s, "dead")),
            (long long)json_integer_value(json_object_get(s, "done")),
            (long long)json_integer_value(json_object_get(s, "failed")));
  }
  size_t k;
  const json_t *paused;
  json_array_foreach(json_object_get(status, "paused"), k, paused) {
    fprintf(out, "%s%s", k ? ", " : "\npaused (lodwash stage resume STAGE): ",
            json_string_value(paused));
  }
  if (json_array_size(json_object_get(status, "paused"))) {
    fprintf(out, "\n");
  }
  json_t *workers = json_object_get(status, "workers");
  fprintf(out, "\nworkers alive: %zu\n", json_array_size(workers));
  size_t i;
  json_t *w;
  json_array_foreach(workers, i, w) {
    fprintf(out, "  %s host=%s pid=%lld stages=%s", str(w, "id"), str(w, "host"),
            (long long)json_integer_value(json_object_get(w, "pid")), str(w, "stages"));
    json_t *job = json_object_get(w, "job");
    if (json_is_object(job)) {
      fprintf(out, " job=%s stage=%s seed=%s since=%s for=%.1fs", str(job, "id"),
              str(job, "stage"), str(job, "seed"), str(w, "since"),
              json_number_value(json_object_get(w, "job_seconds")));
      const char *progress = json_string_value(json_object_get(w, "progress"));
      if (progress) {
        fprintf(out, " progress=\"%s\"", progress);
      }
    } else {
      fprintf(out, " idle");
    }
    fprintf(out, "\n");
  }
  size_t p;
  json_t *prov;
  json_array_foreach(json_object_get(status, "providers"), p, prov) {
    if (p == 0) {
      fprintf(out, "\nproviders:\n");
    }
    json_t *h = json_object_get(prov, "harvest");
    fprintf(out, "  %s %s", str(prov, "name"), str(prov, "state"));
    if (json_is_object(h)) {
      fprintf(out, " harvest=%s status=%s pending=%lld failed=%lld triples=%lld",
              str(h, "id"), str(h, "status"),
              (long long)json_integer_value(json_object_get(h, "pending")),
              (long long)json_integer_value(json_object_get(h, "failed")),
              (long long)json_integer_value(json_object_get(h, "triples")));
    }
    fprintf(out, "\n");
  }
  fprintf(out, "\nseeds:");
  json_t *n;
  json_object_foreach(json_object_get(status, "seeds"), name, n) {
    fprintf(out, " %s=%lld", name, (long long)json_integer_value(n));
  }
  fprintf(out, "\n");
}

long long lw_status_report_total(const json_t *report, const char *count)
{
  long long n = 0;
  const char *stage;
  const json_t *counts;
  json_object_foreach(json_object_get(report, "stages"), stage, counts) {
    n += json_integer_value(json_object_get(counts, count));
  }
  return n;
}
