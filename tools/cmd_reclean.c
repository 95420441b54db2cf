/*
 * `lodwash reclean NAME | reclean --all`: cleans provider NAME's data again
 * from the raw files kept in the data directory, without downloading them
 * (queue/reclean.h): guess, parse and import run as the jobs of a
 * harvest of NAME, and its import writes the changeset of what the new
 * cleaner changed. --all does it for every provider of the registry that
 * has data and no harvest running.
 *
 * Exit codes: 0 started (--all: at least one, or none had data), 1 failed
 * (never harvested, a harvest running, Redis down, ...), 2 bad usage, 3 no
 * such provider.
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "queue/reclean.h"
#include "tools/commands.h"

#define USAGE "usage: lodwash reclean NAME | reclean --all"

/* Starts one reclean; quiet_skip: a provider with nothing to clean or busy
 * is only mentioned (--all). Returns the exit code. */
static int reclean_one(LwRecords *c, const LwConfig *cfg, const char *name, bool quiet_skip)
{
  char id[LW_HARVEST_ID_MAX];
  size_t files = 0;
  LwError err;
  lw_error_clear(&err);
  LwStatus st = lw_reclean_start(c, cfg->prefix, name, id, &files, &err);
  if (st == LW_OK) {
    printf("%s: reclean %s started with %zu file%s\n", name, id, files,
           files == 1 ? "" : "s");
    return LW_EXIT_OK;
  }
  if (quiet_skip && (st == LW_NOTHING || st == LW_ERR_STATE)) {
    printf("%s: skipped: %s\n", name,
           st == LW_NOTHING ? "a harvest is running" : err.message);
    return LW_EXIT_OK;
  }
  if (st == LW_NOTHING) {
    return lw_tool_fail("reclean: %s has a harvest running; try again when it ends", name);
  }
  return lw_tool_fail("reclean: %s", err.message);
}

int lw_cmd_reclean(LwTool *tool, int argc, char **argv)
{
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("%s\n\nCleans a provider's data again from the raw files kept in the data\n"
           "directory (no download): guess, parse and import run as the jobs of a\n"
           "harvest, whose changeset shows what the cleaner changed. --all: every\n"
           "provider of the registry with data and no harvest running.\n",
           USAGE);
    return LW_EXIT_OK;
  }
  if (argc != 2 || (argv[1][0] == '-' && strcmp(argv[1], "--all"))) {
    return lw_tool_usage_error(USAGE);
  }
  LwRegistry *reg = lw_tool_registry(tool, "reclean");
  if (!reg) {
    return LW_EXIT_FAIL;
  }
  bool all = !strcmp(argv[1], "--all");
  int code = LW_EXIT_OK;
  LwRecords *c = NULL;
  if (!all && !lw_registry_find(reg, argv[1])) {
    code = lw_tool_not_found("reclean: no provider '%s' in %s", argv[1],
                             tool->config->registry);
  } else if (!(c = lw_tool_redis(tool))) {
    code = LW_EXIT_FAIL;
  } else if (!all) {
    code = reclean_one(c, tool->config, argv[1], false);
  } else {
    for (size_t i = 0; i < reg->count; ++i) {
      if (reclean_one(c, tool->config, reg->providers[i].name, true) != LW_EXIT_OK) {
        code = LW_EXIT_FAIL;
      }
    }
  }
  lw_registry_free(reg);
  return code;
}
