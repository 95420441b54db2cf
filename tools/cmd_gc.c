/*
 * `lodwash gc [--dry-run]`: removes now what lodwash no longer needs (the
 * collection the scheduler runs every --gc-interval seconds; see
 * queue/retention.h): harvest records beyond --keep-harvests per provider,
 * seeds and clean records nothing points at any more, their files, and dead
 * jobs beyond --dead-max per stage. One line per thing removed, then a
 * summary; with --dry-run, what would be removed, and nothing is.
 *
 * Exit codes: 0 done, 1 failed (Redis down, a file that cannot be removed),
 * 2 bad usage.
 */
#include <stdio.h>
#include <string.h>

#include "queue/retention.h"
#include "tools/commands.h"

static void print_removed(void *data, const char *kind, const char *what)
{
  const bool *dry = data;
  printf("%s %s %s\n", *dry ? "would remove" : "removed", kind, what);
}

int lw_cmd_gc(LwTool *tool, int argc, char **argv)
{
  bool dry = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--dry-run")) {
      dry = true;
    } else {
      return lw_tool_usage_error("usage: lodwash gc [--dry-run]");
    }
  }
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  LwRetentionOptions o = {dry, print_removed, &dry};
  LwRetentionStats s;
  LwError err;
  if (lw_retention_run(c, tool->config, &o, &s, &err) != LW_OK) {
    fflush(stdout);
    return lw_tool_fail("gc: %s", err.message);
  }
  printf("gc%s: %s %lld harvests, %lld seeds, %lld clean records, %lld cleanof entries, "
         "%lld budgets, %lld files, %lld dead jobs; %lld seeds and clean records live\n",
         dry ? " --dry-run" : "", dry ? "would remove" : "removed", s.harvests, s.seeds,
         s.cleaned, s.cleanof, s.budgets, s.files, s.dead_dropped, s.live);
  return LW_EXIT_OK;
}
