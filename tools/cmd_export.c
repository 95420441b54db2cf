/*
 * lodwash export: writes DATA/export/all.nq.gz and its VoID now, whether or
 * not a graph changed (the periodic export job skips when nothing did).
 */
#include <stdio.h>

#include "graph_store/graph_store.h"
#include "tools/commands.h"

int lw_cmd_export(LwTool *tool, int argc, char **argv)
{
  (void)argv;
  if (argc != 1) {
    return lw_tool_usage_error("usage: lodwash export");
  }
  LwExportReport report;
  LwError err;
  if (lw_export(tool->config->data_dir, true, &report, &err) > LW_NOTHING) {
    return lw_tool_fail("export failed: %s", err.message);
  }
  printf("exported %u graphs, %llu triples, %llu bytes to %s/export/all.nq.gz "
         "(VoID: %s/export/void.ttl)\n",
         report.graphs, report.triples, report.bytes, tool->config->data_dir,
         tool->config->data_dir);
  return LW_EXIT_OK;
}
