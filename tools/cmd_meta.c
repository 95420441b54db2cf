/*
 * lodwash meta [--provider NAME] [--triples|--turtle]: prints the metadata
 * graph (meta/meta.h) as it is now in the records, sorted N-Quads without
 * repeats (N-Triples with --triples; Turtle, as the scheduler's page
 * /providers/NAME/void.ttl, with --turtle), the whole graph or one
 * provider's part. Nothing is written: `lodwash export` writes
 * DATA/export/meta.nq.gz.
 */
#include <stdio.h>
#include <string.h>

#include "meta/meta.h"
#include "tools/commands.h"

static int print_turtle(LwRecords *redis, const LwMetaOptions *o)
{
  LwBuf ttl = LW_BUF_INIT;
  LwError err;
  lw_error_clear(&err);
  LwStatus st = lw_meta_turtle(redis, o, &ttl, &err);
  bool written = st == LW_OK && fwrite(ttl.data, 1, ttl.len, stdout) == ttl.len;
  lw_buf_free(&ttl);
  if (st != LW_OK) {
    return lw_tool_fail("meta: %s", err.message);
  }
  return written && fflush(stdout) == 0 ? LW_EXIT_OK : lw_tool_fail("meta: write error");
}

static LwStatus add_line(void *handle, const char *line, size_t len)
{
  LwError ignored;
  return lw_sorter_add(handle, line, len, &ignored);
}

static LwStatus print_line(void *handle, const char *line, size_t len)
{
  return fwrite(line, 1, len, handle) == len ? LW_OK : LW_ERR_IO;
}

int lw_cmd_meta(LwTool *tool, int argc, char **argv)
{
  LwMetaOptions o = {.prefix = tool->config->prefix,
                     .data_dir = tool->config->data_dir,
                     .graph_base = tool->config->graph_base,
                     .sort_memory = (size_t)tool->config->sort_memory_bytes};
  bool turtle = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--provider") && i + 1 < argc) {
      o.provider = argv[++i];
    } else if (!strcmp(argv[i], "--triples")) {
      o.triples = true;
    } else if (!strcmp(argv[i], "--turtle")) {
      turtle = true;
    } else {
      return lw_tool_usage_error(
        "usage: lodwash meta [--provider NAME] [--triples|--turtle]");
    }
  }
  LwRecords *redis = lw_tool_redis(tool);
  if (!redis) {
    return LW_EXIT_FAIL;
  }
  if (turtle) {
    return print_turtle(redis, &o);
  }
  LwSorter *sorter = lw_sorter_new(&(LwSortOptions){.data_dir = tool->config->data_dir, .memory_budget = o.sort_memory});
  if (!sorter) {
    return lw_tool_fail("out of memory");
  }
  LwError err;
  lw_error_clear(&err);
  LwStatus st = lw_meta_write(redis, &o, add_line, sorter, NULL, &err);
  if (st == LW_OK) {
    st = lw_sorter_finish(sorter, print_line, stdout, &err);
  }
  lw_sorter_free(sorter);
  if (st > LW_NOTHING) {
    return lw_tool_fail("meta: %s", *err.message ? err.message : "write error");
  }
  return fflush(stdout) == 0 ? LW_EXIT_OK : lw_tool_fail("meta: write error");
}
