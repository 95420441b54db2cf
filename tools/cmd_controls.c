/*
 * The operator's controls (queue/controls.h), the same as the dashboard's
 * actions:
 *
 *   lodwash stage pause|resume STAGE    workers stop / go on fetching STAGE
 *   lodwash queue purge STAGE           drop STAGE's waiting jobs
 *   lodwash provider hold|release NAME  NAME is not harvested / is again
 *
 * Exit codes: 0 done (or already so: said on stdout), 1 Redis or registry
 * unusable, 2 bad usage (unknown stage), 3 provider not in the registry.
 */
#include <stdio.h>
#include <string.h>

#include "queue/controls.h"
#include "config/config.h"
#include "queue/pipeline.h"
#include "tools/commands.h"
#include "workers/stage.h"

int lw_cmd_stage(LwTool *tool, int argc, char **argv)
{
  if (argc != 3 || (strcmp(argv[1], "pause") && strcmp(argv[1], "resume"))) {
    return lw_tool_usage_error("usage: lodwash stage pause|resume STAGE");
  }
  if (!lw_stage_find(argv[2])) {
    return lw_tool_usage_error("stage: unknown stage '%s'", argv[2]);
  }
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  bool pause = !strcmp(argv[1], "pause");
  LwError err;
  LwStatus st = lw_controls_stage_pause(c, tool->config->prefix, argv[2], pause, &err);
  if (st > LW_NOTHING) {
    return lw_tool_fail("stage %s: %s", argv[1], err.message);
  }
  printf("%s: %s%s\n", argv[2], st == LW_NOTHING ? "already " : "",
         pause ? "paused" : "running");
  return LW_EXIT_OK;
}

int lw_cmd_queue(LwTool *tool, int argc, char **argv)
{
  if (argc != 3 || strcmp(argv[1], "purge")) {
    return lw_tool_usage_error("usage: lodwash queue purge STAGE");
  }
  if (!lw_stage_find(argv[2])) {
    return lw_tool_usage_error("queue purge: unknown stage '%s'", argv[2]);
  }
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  long long n = 0;
  LwError err;
  if (lw_controls_purge(c, tool->config, argv[2], lw_pipeline_follow_up, &n, &err) >
      LW_NOTHING) {
    return lw_tool_fail("queue purge: %s", err.message);
  }
  printf("%s: %lld waiting job%s dropped\n", argv[2], n, n == 1 ? "" : "s");
  return LW_EXIT_OK;
}

int lw_cmd_provider(LwTool *tool, int argc, char **argv)
{
  if (argc != 3 || (strcmp(argv[1], "hold") && strcmp(argv[1], "release"))) {
    return lw_tool_usage_error("usage: lodwash provider hold|release NAME");
  }
  LwError err;
  LwRegistry *reg = lw_tool_registry(tool, "provider");
  if (!reg) {
    return LW_EXIT_FAIL;
  }
  bool known = lw_registry_find(reg, argv[2]) != NULL;
  lw_registry_free(reg);
  if (!known) { /* the registry stays the source of providers */
    return lw_tool_not_found("provider: no provider '%s' in %s", argv[2],
                             tool->config->registry);
  }
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  bool hold = !strcmp(argv[1], "hold");
  LwStatus st = lw_controls_provider_hold(c, tool->config->prefix, argv[2], hold, &err);
  if (st > LW_NOTHING) {
    return lw_tool_fail("provider %s: %s", argv[1], err.message);
  }
  printf("%s: %s%s\n", argv[2], st == LW_NOTHING ? "already " : "",
         hold ? "held (not harvested until released)" : "released");
  return LW_EXIT_OK;
}
