/*
 * lodwash status [--json] [--watch [--every S]]: queues, workers, seeds and
 * providers at a glance. --watch prints it again every S seconds (2 by
 * default), clearing the terminal first when stdout is one, until Ctrl-C.
 */
#include <jansson.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "common/datetime.h"
#include "queue/job.h"
#include "queue/queue.h"
#include "report/status_report.h"
#include "tools/commands.h"

/* A string field for printing: "-" when absent or not a string. */
static const char *str(const json_t *obj, const char *key)
{
  const char *s = json_string_value(json_object_get(obj, key));
  return s ? s : "-";
}

static void print_text(json_t *status)
{
  printf("%-12s %9s %9s %9s %9s %9s %9s\n", "stage", "queued", "inflight", "delayed",
         "dead", "done", "failed");
  const char *name;
  json_t *s;
  json_object_foreach(json_object_get(status, "stages"), name, s) {
    printf("%-12s %9lld %9lld %9lld %9lld %9lld %9lld\n", name,
           (long long)json_integer_value(json_object_get(s, "queued")),
           (long long)json_integer_value(json_object_get(s, "inflight")),
           (long long)json_integer_value(json_object_get(s, "delayed")),
           (long long)json_integer_value(json_object_get(s, "dead")),
           (long long)json_integer_value(json_object_get(s, "done")),
           (long long)json_integer_value(json_object_get(s, "failed")));
  }
  size_t k;
  json_t *paused;
  json_array_foreach(json_object_get(status, "paused"), k, paused) {
    printf("%s%s", k ? ", " : "\npaused (lodwash stage resume STAGE): ", json_string_value(paused));
  }
  if (json_array_size(json_object_get(status, "paused"))) {
    printf("\n");
  }
  json_t *workers = json_object_get(status, "workers");
  printf("\nworkers alive: %zu\n", json_array_size(workers));
  size_t i;
  json_t *w;
  json_array_foreach(workers, i, w) {
    printf("  %s host=%s pid=%lld stages=%s", str(w, "id"),
           str(w, "host"),
           (long long)json_integer_value(json_object_get(w, "pid")),
           str(w, "stages"));
    json_t *job = json_object_get(w, "job");
    if (json_is_object(job)) {
      printf(" job=%s stage=%s seed=%s since=%s for=%.1fs", str(job, "id"), str(job, "stage"),
             str(job, "seed"), str(w, "since"),
             json_number_value(json_object_get(w, "job_seconds")));
      const char *progress = json_string_value(json_object_get(w, "progress"));
      if (progress) {
        printf(" progress=\"%s\"", progress);
      }
    } else {
      printf(" idle");
    }
    printf("\n");
  }
  size_t p;
  json_t *prov;
  json_array_foreach(json_object_get(status, "providers"), p, prov) {
    if (p == 0) {
      printf("\nproviders:\n");
    }
    json_t *h = json_object_get(prov, "harvest");
    printf("  %s %s", str(prov, "name"), str(prov, "state"));
    if (json_is_object(h)) {
      printf(" harvest=%s status=%s pending=%lld failed=%lld triples=%lld",
             str(h, "id"), str(h, "status"),
             (long long)json_integer_value(json_object_get(h, "pending")),
             (long long)json_integer_value(json_object_get(h, "failed")),
             (long long)json_integer_value(json_object_get(h, "triples")));
    }
    printf("\n");
  }
  printf("\nseeds:");
  json_t *n;
  json_object_foreach(json_object_get(status, "seeds"), name, n) {
    printf(" %s=%lld", name, (long long)json_integer_value(n));
  }
  printf("\n");
}

static volatile sig_atomic_t watch_stop = 0;

static void on_interrupt(int sig)
{
  (void)sig;
  watch_stop = 1;
}

/* One report, printed. */
static int show(LwTool *tool, bool json)
{
  redisContext *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  json_t *status = NULL;
  LwError err;
  if (lw_status_report(c, tool->config, &status, &err) != LW_OK) {
    return lw_tool_fail("status: %s", err.message);
  }
  if (json) {
    lw_tool_print_json(status);
  } else {
    print_text(status);
  }
  json_decref(status);
  return LW_EXIT_OK;
}

/* Shows the report every `every` seconds until SIGINT or SIGTERM; a lost
 * Redis is said and tried again. */
static int watch(LwTool *tool, bool json, long long every)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  bool tty = isatty(STDOUT_FILENO);
  while (!watch_stop) {
    if (tty) {
      fputs("\033[H\033[2J", stdout);
    }
    char now[LW_DATETIME_BUF];
    printf("lodwash status, %s (every %llds; Ctrl-C stops)\n\n",
           lw_datetime_format_ms(lw_datetime_now_usec() / 1000, now), every);
    if (show(tool, json) != LW_EXIT_OK) {
      redisFree(tool->redis);
      tool->redis = NULL;
    }
    fflush(stdout);
    for (long long ms = 0; ms < every * 1000 && !watch_stop; ms += 100) {
      struct timespec ts = {0, 100 * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
  return LW_EXIT_OK;
}

int lw_cmd_status(LwTool *tool, int argc, char **argv)
{
  bool json = false, watching = false;
  long long every = 2;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      json = true;
    } else if (!strcmp(argv[i], "--watch")) {
      watching = true;
    } else if (!strcmp(argv[i], "--every") && i + 1 < argc) {
      if (!lw_parse_size(argv[++i], &every) || every < 1 || every > 86400) {
        return lw_tool_usage_error("status: --every '%s' is not a number of seconds (1 to 86400)",
                                   argv[i]);
      }
    } else {
      return lw_tool_usage_error("status: unexpected argument '%s'", argv[i]);
    }
  }
  return watching ? watch(tool, json, every) : show(tool, json);
}
