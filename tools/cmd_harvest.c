/*
 * `lodwash harvest NAME`: harvests provider NAME now, whatever its VoID's
 * dcterms:modified says, with its download jobs at high priority (they run
 * before the normal queue). It visits the VoID itself, the way the scheduler
 * does, so the harvest starts at once. If a harvest of NAME is running, the
 * forced one is kept as its follow-up and starts when that one ends. A
 * provider disabled in the registry is harvested too: it was named.
 *
 * `lodwash harvest cancel NAME` cancels NAME's running harvest
 * (scheduler/harvest_cancel.h). A held provider (`lodwash provider hold`)
 * is not harvested: release it first.
 *
 * Exit codes: 0 started, kept as the follow-up or cancelled, 1 failed (the
 * VoID could not be read, Redis down, held, nothing to cancel, ...), 2 bad
 * usage, 3 no such provider.
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "scheduler/harvest_cancel.h"
#include "scheduler/scheduler.h"
#include "tools/commands.h"

static int harvest_cancel(LwTool *tool, const char *name)
{
  LwError err;
  LwRegistry *reg = lw_tool_registry(tool, "harvest cancel");
  if (!reg) {
    return LW_EXIT_FAIL;
  }
  bool known = lw_registry_find(reg, name) != NULL;
  lw_registry_free(reg);
  if (!known) {
    return lw_tool_not_found("harvest cancel: no provider '%s' in %s", name,
                             tool->config->registry);
  }
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    return LW_EXIT_FAIL;
  }
  long long dropped = 0;
  LwStatus st = lw_harvest_cancel(c, tool->config, name, &dropped, &err);
  if (st == LW_NOTHING) {
    return lw_tool_fail("harvest cancel: %s has no harvest running", name);
  }
  if (st != LW_OK) {
    return lw_tool_fail("harvest cancel: %s", err.message);
  }
  printf("%s: harvest cancelled, %lld waiting job%s dropped\n", name, dropped,
         dropped == 1 ? "" : "s");
  return LW_EXIT_OK;
}

int lw_cmd_harvest(LwTool *tool, int argc, char **argv)
{
  if (argc == 3 && !strcmp(argv[1], "cancel") && argv[2][0] != '-') {
    return harvest_cancel(tool, argv[2]);
  }
  if (argc != 2 || argv[1][0] == '-') {
    return lw_tool_usage_error("usage: lodwash harvest NAME | harvest cancel NAME");
  }
  const char *name = argv[1];
  LwError err;
  lw_error_clear(&err);
  LwScheduler *s = lw_scheduler_new(tool->config);
  if (!s) {
    return lw_tool_fail("harvest: out of memory");
  }
  int code = LW_EXIT_FAIL;
  const LwProvider *p = NULL;
  LwVisit visit;
  /* the file, or the last good registry when it does not load */
  LwRegistry *last_good = NULL;
  const LwRegistry *reg = lw_scheduler_reload(s, &err) == LW_OK
                            ? lw_scheduler_registry(s)
                            : (last_good = lw_tool_registry(tool, "harvest"));
  if (!reg) {
    code = LW_EXIT_FAIL;
  } else if (!(p = lw_registry_find(reg, name))) {
    code = lw_tool_not_found("harvest: no provider '%s' in %s", name,
                             tool->config->registry);
  } else if (lw_scheduler_visit(s, p, true, &visit, &err) != LW_OK) {
    lw_tool_fail("harvest: %s: %s", name, err.message);
  } else if (!strcmp(visit.outcome, "started")) {
    printf("%s: harvest %s started with %zu dump%s at high priority\n", name, visit.harvest,
           visit.dumps, visit.dumps == 1 ? "" : "s");
    code = LW_EXIT_OK;
  } else if (!strcmp(visit.outcome, "held")) {
    lw_tool_fail("harvest: %s is held; `lodwash provider release %s` first", name, name);
  } else if (!strcmp(visit.outcome, "busy")) {
    printf("%s: harvest %s is running; the forced harvest starts when it ends\n", name,
           visit.harvest);
    code = LW_EXIT_OK;
  } else {
    lw_tool_fail("harvest: %s: %s", name, visit.error[0] ? visit.error : visit.outcome);
  }
  lw_scheduler_free(s);
  lw_registry_free(last_good);
  return code;
}
