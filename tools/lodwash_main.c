/*
 * lodwash: the command-line tool. `lodwash [OPTIONS] COMMAND [ARGS]`.
 * Commands live in tools/cmd_*.c; this table maps their names (see
 * tools/commands.h for how to add one).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "common/log.h"
#include "queue/redis.h"
#include "tools/commands.h"

static const LwCommand commands[] = {
  {"hash", lw_cmd_hash, "hash URI...", "seed hash and normalized form of URIs"},
  {"status", lw_cmd_status, "status [--json]", "queues, workers and seeds"},
  {"seed", lw_cmd_seed, "seed show URI|HASH [--json] | seed add URI",
   "show a seed record, or add a URI (and queue its download)"},
  {"jobs", lw_cmd_jobs,
   "jobs push STAGE [--count N] [--priority high|normal] [JSON] | jobs dead [--json] [--limit N] | "
   "jobs retry ID|--all",
   "queue jobs, list dead jobs, retry them"},
  {"providers", lw_cmd_providers, "providers [--json]",
   "providers of the registry with their state and last harvest"},
  {"harvest", lw_cmd_harvest, "harvest NAME", "harvest a provider now (high priority)"},
  {"export", lw_cmd_export, "export", "write all graphs as one dump with its VoID now"},
  {"gc", lw_cmd_gc, "gc [--dry-run]",
   "remove old harvest records, seeds and files nothing needs, extra dead jobs"},
  {"clean", lw_cmd_clean, "clean FILE [--format F] [--base IRI] [-o OUT]",
   "guess, parse and clean a local file into canonical N-Quads (no Redis)"},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

int main(int argc, char **argv)
{
  char description[4096];
  size_t n = (size_t)snprintf(description, sizeof(description), "Commands:");
  for (size_t i = 0; i < N_COMMANDS && n < sizeof(description); ++i) {
    n += (size_t)snprintf(description + n, sizeof(description) - n, "\n  %s\n      %s",
                          commands[i].usage, commands[i].doc);
  }
  LwProgram prog = {"lodwash", "[OPTIONS] COMMAND [ARGS]", description, NULL, 0};
  LwConfig cfg;
  LwError err;
  int first = 0;
  LwStatus st = lw_config_parse(&cfg, argc, argv, &prog, &first, &err);
  if (st == LW_NOTHING) {
    lw_config_free(&cfg);
    return LW_EXIT_OK;
  }
  if (st != LW_OK) {
    lw_config_free(&cfg);
    return lw_tool_usage_error("%s", err.message);
  }
  if (first >= argc) {
    lw_config_free(&cfg);
    return lw_tool_usage_error("no command given (see lodwash --help)");
  }
  LwRedisUrl url;
  if (lw_redis_url_parse(cfg.redis_url, &url, &err) != LW_OK) {
    lw_config_free(&cfg);
    return lw_tool_usage_error("%s", err.message);
  }
  lw_log_init("lodwash", cfg.log_level, cfg.log_json);
  const LwCommand *command = NULL;
  for (size_t i = 0; i < N_COMMANDS; ++i) {
    if (!strcmp(commands[i].name, argv[first])) {
      command = &commands[i];
    }
  }
  int code;
  if (!command) {
    code = lw_tool_usage_error("unknown command '%s' (see lodwash --help)", argv[first]);
  } else {
    LwTool tool = {&cfg, NULL};
    code = command->run(&tool, argc - first, argv + first);
    redisFree(tool.redis);
  }
  lw_config_free(&cfg);
  return code;
}
