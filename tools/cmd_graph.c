/*
 * lodwash graph NAME [--subject IRI]: prints a provider's graph from the
 * files store as N-Quads, or only what it says about one subject ("what do
 * you have about X?"). Reads a snapshot: an import running meanwhile is
 * seen whole or not at all. NAME lodwash-meta: the metadata graph
 * (meta/meta.h), as the last export wrote it.
 */
#include <stdio.h>
#include <string.h>

#include "graph_store/graph_store.h"
#include "meta/meta.h"
#include "tools/commands.h"

#define USAGE "usage: lodwash graph NAME|lodwash-meta [--subject IRI]"

int lw_cmd_graph(LwTool *tool, int argc, char **argv)
{
  const char *name = NULL, *subject = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--subject") && i + 1 < argc) {
      subject = argv[++i];
    } else if (argv[i][0] != '-' && !name) {
      name = argv[i];
    } else {
      return lw_tool_usage_error(USAGE);
    }
  }
  if (!name || (!lw_graph_name_is_provider(name) && strcmp(name, LW_META_STORE_NAME))) {
    return lw_tool_usage_error(USAGE);
  }
  if (subject && subject[0] == '<') {
    return lw_tool_usage_error("--subject takes the IRI without <>");
  }
  LwError err;
  LwStatus st = lw_graph_view_print(tool->config->data_dir, name, subject, stdout, &err);
  if (st == LW_NOTHING) {
    return lw_tool_not_found("no graph %s in %s", name, tool->config->data_dir);
  }
  if (st != LW_OK || fflush(stdout) != 0) {
    return lw_tool_fail("graph %s: %s", name, st != LW_OK ? err.message : "write error");
  }
  return LW_EXIT_OK;
}
