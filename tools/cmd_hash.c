/* lodwash hash URI...: the seed hash and normalized form of each URI. */
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"
#include "tools/commands.h"

int lw_cmd_hash(LwTool *tool, int argc, char **argv)
{
  (void)tool;
  if (argc < 2) {
    return lw_tool_usage_error("hash: give one or more URIs");
  }
  for (int i = 1; i < argc; ++i) {
    char *normal = lw_uri_normalize(argv[i]);
    if (!normal) {
      return lw_tool_fail("out of memory");
    }
    char hash[LW_HASH_HEX_LEN + 1];
    lw_uri_hash(argv[i], hash);
    printf("%s %s\n", hash, normal);
    free(normal);
  }
  return LW_EXIT_OK;
}
