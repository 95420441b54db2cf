/*
 * lodwash export: writes DATA/export/meta.nq.gz (the metadata graph, from
 * the records in Redis), DATA/export/all.nq.gz and its VoID now, whether or
 * not anything changed (the periodic export job skips what did not).
 */
#include <stdio.h>

#include "graph_store/graph_store.h"
#include "meta/meta.h"
#include "tools/commands.h"

/* The metadata graph first: the VoID written after it counts it. */
static int export_meta(LwTool *tool)
{
  LwRecords *redis = lw_tool_redis(tool);
  if (!redis) {
    return LW_EXIT_FAIL;
  }
  LwMetaExportReport report;
  LwError err;
  /* the graphs' views first: their refresh counts the properties it says */
  if (lw_graph_view_refresh_all(tool->config->data_dir, NULL, &err) != LW_OK) {
    return lw_tool_fail("export failed: %s", err.message);
  }
  if (lw_meta_export(redis, tool->config, true, &report, &err) > LW_NOTHING) {
    return lw_tool_fail("export of the metadata graph failed: %s", err.message);
  }
  printf("exported the metadata graph, %llu triples, to %s/export/meta.nq.gz%s\n",
         report.triples, tool->config->data_dir, report.stored ? " and the store" : "");
  return LW_EXIT_OK;
}

int lw_cmd_export(LwTool *tool, int argc, char **argv)
{
  (void)argv;
  if (argc != 1) {
    return lw_tool_usage_error("usage: lodwash export");
  }
  if (export_meta(tool) != LW_EXIT_OK) {
    return LW_EXIT_FAIL;
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
