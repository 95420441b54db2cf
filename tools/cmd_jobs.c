/*
 * lodwash jobs push STAGE [--count N] [--priority high|normal] [JSON]
 * lodwash jobs dead [--json]
 * lodwash jobs retry ID|--all
 * lodwash jobs delete ID|--all
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/controls.h"
#include "queue/job.h"
#include "queue/pipeline.h"
#include "queue/queue.h"
#include "tools/commands.h"
#include "workers/stage.h"

static int jobs_push(LwTool *tool, int argc, char **argv)
{
  const char *stage = NULL;
  const char *json_text = NULL;
  long long count = 1;
  LwPriority priority = LW_PRIORITY_NORMAL;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--count") || !strcmp(argv[i], "--priority")) {
      if (i + 1 >= argc) {
        return lw_tool_usage_error("jobs push: %s needs a value", argv[i]);
      }
      const char *value = argv[++i];
      if (!strcmp(argv[i - 1], "--count")) {
        if (!lw_parse_size(value, &count) || count < 1) {
          return lw_tool_usage_error("jobs push: --count '%s' is not a positive number",
                                     value);
        }
      } else if (!strcmp(value, "high")) {
        priority = LW_PRIORITY_HIGH;
      } else if (!strcmp(value, "normal")) {
        priority = LW_PRIORITY_NORMAL;
      } else {
        return lw_tool_usage_error("jobs push: --priority is high or normal, not '%s'",
                                   value);
      }
    } else if (argv[i][0] == '-' && argv[i][1] == '-') {
      return lw_tool_usage_error("jobs push: unknown option '%s'", argv[i]);
    } else if (!stage) {
      stage = argv[i];
    } else if (!json_text) {
      json_text = argv[i];
    } else {
      return lw_tool_usage_error("jobs push: unexpected argument '%s'", argv[i]);
    }
  }
  if (!stage) {
    return lw_tool_usage_error("jobs push: give a stage");
  }
  if (!lw_stage_find(stage)) {
    return lw_tool_usage_error("jobs push: unknown stage '%s'", stage);
  }
  json_t *extra = NULL;
  if (json_text) {
    json_error_t jerr;
    extra = json_loads(json_text, 0, &jerr);
    if (!json_is_object(extra)) {
      json_decref(extra);
      return lw_tool_usage_error("jobs push: JSON must be an object (%s)",
                                 jerr.text[0] ? jerr.text : "not an object");
    }
  }
  const char *seed = extra ? json_string_value(json_object_get(extra, "seed")) : NULL;
  const char *harvest = extra ? json_string_value(json_object_get(extra, "harvest")) : NULL;
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    json_decref(extra);
    return LW_EXIT_FAIL;
  }
  enum { BATCH = 1000 };
  LwJob *batch[BATCH];
  size_t pushed_total = 0;
  int code = LW_EXIT_OK;
  LwError err;
  for (long long done = 0; done < count && code == LW_EXIT_OK;) {
    size_t n = 0;
    while (n < BATCH && done + (long long)n < count) {
      batch[n] = lw_job_new(stage, seed, harvest, extra, &err);
      if (!batch[n]) {
        code = lw_tool_usage_error("jobs push: %s", err.message);
        break;
      }
      ++n;
    }
    size_t pushed = 0;
    if (code == LW_EXIT_OK &&
        lw_queue_push_many(c, tool->config, batch, n, priority, &pushed, &err) != LW_OK) {
      code = lw_tool_fail("jobs push: %s", err.message);
    }
    pushed_total += pushed;
    for (size_t i = 0; i < n; ++i) {
      lw_job_free(batch[i]);
    }
    done += (long long)n;
  }
  json_decref(extra);
  if (code == LW_EXIT_OK) {
    printf("queued %zu %s job%s", pushed_total, stage, pushed_total == 1 ? "" : "s");
    if ((long long)pushed_total < count) {
      printf(" (%lld suppressed: already queued)", count - (long long)pushed_total);
    }
    printf("\n");
  }
  return code;
}

/* A string field for printing: "-" when absent or not a string. */
static const char *field(const json_t *job, const char *key)
{
  const char *s = json_string_value(json_object_get(job, key));
  return s ? s : "-";
}

static int jobs_dead(LwTool *tool, int argc, char **argv)
{
  bool json = false;
  long long limit = 100;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      json = true;
    } else if (!strcmp(argv[i], "--limit") && i + 1 < argc) {
      if (!lw_parse_size(argv[++i], &limit)) {
        return lw_tool_usage_error("jobs dead: --limit '%s' is not a number", argv[i]);
      }
    } else {
      return lw_tool_usage_error("jobs dead: unexpected argument '%s'", argv[i]);
    }
  }
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  json_t *list = NULL;
  long long total = 0;
  LwError err;
  if (lw_queue_dead_list(c, tool->config, limit, &list, &total, &err) != LW_OK) {
    return lw_tool_fail("jobs dead: %s", err.message);
  }
  size_t i;
  json_t *job;
  json_array_foreach(list, i, job) {
    static const char *const times[] = {"failed", "first_failed", "queued", NULL};
    lw_tool_times_readable(job, times);
  }
  if (json) {
    lw_tool_print_json(list);
  } else {
    json_array_foreach(list, i, job) {
      if (!json_is_object(job)) { /* not a job at all: kept as it was */
        printf("- not a job: %s\n", json_is_string(job) ? json_string_value(job) : "?");
        continue;
      }
      printf("%s stage=%s seed=%s attempt=%lld error=\"%s\" failed=%s\n", field(job, "id"),
             field(job, "stage"), field(job, "seed"),
             (long long)json_integer_value(json_object_get(job, "attempt")),
             field(job, "error"), field(job, "failed"));
    }
    if (!json_array_size(list)) {
      printf("no dead jobs\n");
    } else if ((long long)json_array_size(list) < total) {
      printf("(%lld dead jobs in all; --limit N shows more per stage, 0 all)\n", total);
    }
  }
  json_decref(list);
  return LW_EXIT_OK;
}

/* jobs retry|delete ID|--all: the dead job (or all) back to its queue, or
 * gone for good. */
static int jobs_dead_out(LwTool *tool, int argc, char **argv)
{
  bool retry = !strcmp(argv[1], "retry");
  if (argc != 3) {
    return lw_tool_usage_error("jobs %s: give a job id or --all", argv[1]);
  }
  bool all = !strcmp(argv[2], "--all");
  if (!all && argv[2][0] == '-') {
    return lw_tool_usage_error("jobs %s: unknown option '%s'", argv[1], argv[2]);
  }
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  long long moved = 0;
  LwError err;
  const char *id = all ? NULL : argv[2];
  LwStatus st = retry ? lw_pipeline_retry_dead(c, tool->config, id, &moved, &err)
                      : lw_controls_dead_delete(c, tool->config, id, &moved, &err);
  if (st > LW_NOTHING) {
    return lw_tool_fail("jobs %s: %s", argv[1], err.message);
  }
  if (!moved && !all) {
    return lw_tool_not_found("jobs %s: no dead job %s", argv[1], argv[2]);
  }
  printf("%lld job%s %s\n", moved, moved == 1 ? "" : "s",
         retry ? "queued again" : "deleted");
  return LW_EXIT_OK;
}

int lw_cmd_jobs(LwTool *tool, int argc, char **argv)
{
  if (argc < 2) {
    return lw_tool_usage_error("jobs: expected 'push', 'dead', 'retry' or 'delete'");
  }
  if (!strcmp(argv[1], "push")) {
    return jobs_push(tool, argc, argv);
  }
  if (!strcmp(argv[1], "dead")) {
    return jobs_dead(tool, argc, argv);
  }
  if (!strcmp(argv[1], "retry") || !strcmp(argv[1], "delete")) {
    return jobs_dead_out(tool, argc, argv);
  }
  return lw_tool_usage_error("jobs: unknown sub-command '%s' (push, dead, retry, delete)",
                             argv[1]);
}
