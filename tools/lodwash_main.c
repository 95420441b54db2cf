/*
 * lodwash: the command-line tool. `lodwash [OPTIONS] COMMAND [ARGS]`.
 * Commands live in tools/cmd_*.c; this table maps their names (see
 * tools/commands.h for how to add one).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "base/base.h"
#include "queue/redis.h"
#include "tools/commands.h"
#include "workers/stage.h"

static const LwCommand commands[] = {
  {"hash", lw_cmd_hash, "hash URI...", "seed hash and normalized form of URIs",
   "  URI...            one line per URI: the seed hash, a space, the normalized URI\n",
   false},
  {"status", lw_cmd_status, "status [--json] [--watch [--every S]]",
   "queues, workers, seeds and providers (--watch: again every S seconds, 2 by default)",
   "  --json            the report as JSON (with --watch: one report a line)\n"
   "  --watch           print it again every S seconds until Ctrl-C\n"
   "  --every S         seconds between reports with --watch (1 to 86400; 2)\n",
   false},
  {"seed", lw_cmd_seed, "seed show URI|HASH [--json] | seed add URI",
   "show a seed record, or add a URI (and queue its download)",
   "  show URI|HASH     the seed's record (exit 3 if there is none)\n"
   "  --json            show it as JSON\n"
   "  add URI           record the seed and queue its download; refused (exit 2)\n"
   "                    when the download would refuse it: not http(s), or an\n"
   "                    address that is private, loopback, ... and not in\n"
   "                    --allow-net\n",
   false},
  {"jobs", lw_cmd_jobs,
   "jobs push STAGE [--count N] [--priority high|normal] [JSON] | jobs dead [--json] [--limit N] | "
   "jobs retry ID|--all | jobs delete ID|--all",
   "queue jobs, list dead jobs, retry or delete them",
   "  push STAGE        queue a job of STAGE (stages below); JSON: its fields\n"
   "  --count N         queue N of them\n"
   "  --priority P      high or normal (default)\n"
   "  dead              the dead jobs, newest first\n"
   "  --json            as JSON\n"
   "  --limit N         at most N per stage (100; 0: all)\n"
   "  retry ID|--all    queue dead jobs again with attempt 0 (exit 3: no such job)\n"
   "  delete ID|--all   delete dead jobs for good (exit 3: no such job)\n",
   false},
  {"providers", lw_cmd_providers, "providers [--json]",
   "providers of the registry with their state and last harvest",
   "  --json            as JSON\n"
   "A registry that does not parse: the providers of the last good registry\n"
   "the scheduler loaded, with the error (exit 1 when there are none).\n",
   false},
  {"harvest", lw_cmd_harvest, "harvest NAME | harvest cancel NAME",
   "harvest a provider now (high priority), or cancel its running harvest",
   "  NAME              the provider's name in the registry (exit 3: none such)\n"
   "  cancel NAME       cancel NAME's running harvest (exit 1: none running)\n",
   false},
  {"reclean", lw_cmd_reclean, "reclean NAME | reclean --all",
   "clean a provider's kept downloads again (no download) and import them, with a changeset",
   NULL, true},
  {"provider", lw_cmd_provider, "provider hold|release NAME",
   "hold a provider (not harvested, shown as held) or release it",
   "  hold NAME         NAME is not harvested until released (exit 3: no such provider)\n"
   "  release NAME      NAME is harvested again\n",
   false},
  {"stage", lw_cmd_stage, "stage pause|resume STAGE",
   "pause a stage (workers fetch none of its jobs) or resume it",
   "  pause STAGE       workers fetch no job of STAGE\n"
   "  resume STAGE      they fetch its jobs again\n",
   false},
  {"queue", lw_cmd_queue, "queue purge STAGE", "drop the waiting jobs of a stage",
   "  purge STAGE       drop STAGE's waiting jobs (not those running)\n", false},
  {"export", lw_cmd_export, "export",
   "write all graphs as one dump with its VoID, and the metadata graph, now",
   "  (no arguments)\n", false},
  {"meta", lw_cmd_meta, "meta [--provider NAME] [--triples|--turtle]",
   "print the metadata graph (providers, harvests, documents) from the records",
   "  --provider NAME   only NAME's graph, harvests and documents\n"
   "  --triples         N-Triples, not N-Quads\n"
   "  --turtle          Turtle (what /providers/NAME/void.ttl serves)\n",
   false},
  {"graph", lw_cmd_graph, "graph NAME [--subject IRI]",
   "print a provider's graph, or what it says about one subject",
   "  NAME              the provider (exit 3: it has no graph)\n"
   "  --subject IRI     only the triples about IRI (without <>), or _:label\n",
   false},
  {"gc", lw_cmd_gc, "gc [--dry-run]",
   "remove old harvest records, seeds and files nothing needs, extra dead jobs",
   "  --dry-run         say what would be removed; remove nothing\n", false},
  {"clean", lw_cmd_clean, "clean FILE [--format F] [--base IRI] [-o OUT]",
   "guess, parse and clean a local file into canonical N-Quads (no Redis)", NULL, true},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The shared settings given after the command ("lodwash providers --registry
 * F") move before it, where the common parser reads them: people type them
 * after. A value is taken from "--flag=value" or the next argument. Returns
 * a new argv (caller frees; its strings are argv's) or NULL. */
static char **settings_first(int argc, char **argv)
{
  char **out = calloc((size_t)argc + 1, sizeof(char *));
  if (!out) {
    return NULL;
  }
  int n = 0, command = argc;
  out[n++] = argv[0];
  /* before the command: as given, up to the first argument that is not an
   * option or an option's value */
  for (int i = 1; i < argc && command == argc; ++i) {
    bool takes = false;
    if (!strncmp(argv[i], "--", 2) && argv[i][2] && !strchr(argv[i], '=') &&
        lw_config_is_setting(argv[i] + 2, &takes) && takes && i + 1 < argc) {
      out[n++] = argv[i++];
    } else if (argv[i][0] != '-') {
      command = i;
      break;
    }
    out[n++] = argv[i];
  }
  for (int i = command + 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--")) {
      break;
    }
    char name[96];
    snprintf(name, sizeof(name), "%s", argv[i] + (strncmp(argv[i], "--", 2) ? 0 : 2));
    char *eq = strchr(name, '=');
    if (eq) {
      *eq = '\0';
    }
    bool takes = false;
    if (strncmp(argv[i], "--", 2) || !lw_config_is_setting(name, &takes)) {
      continue;
    }
    out[n++] = argv[i];
    argv[i] = NULL;
    if (takes && !eq && i + 1 < argc) {
      out[n++] = argv[++i];
      argv[i] = NULL;
    }
  }
  for (int i = command; i < argc; ++i) {
    if (argv[i]) {
      out[n++] = argv[i];
    }
  }
  out[n] = NULL;
  return out;
}

/* The stage names, for the help of the commands that take one. */
static void print_stages(const char *command)
{
  if (strcmp(command, "stage") && strcmp(command, "queue") && strcmp(command, "jobs")) {
    return;
  }
  printf("\nStages:\n");
  for (size_t i = 0; i < lw_stage_count; ++i) {
    printf("  %-17s %s\n", lw_stages[i].name, lw_stages[i].doc);
  }
}

/* `lodwash COMMAND --help`: the command's usage, what it does, its own
 * arguments and options. */
static bool command_help(const LwCommand *command, int argc, char **argv)
{
  for (int i = 1; i < argc && !command->own_help; ++i) {
    if (!strcmp(argv[i], "--")) {
      return false;
    }
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("Usage: lodwash [OPTIONS] %s\n\n%s.\n\n%s", command->usage, command->doc,
             command->help);
      print_stages(command->name);
      printf("\nExit codes: 0 done, 1 failed, 2 bad arguments, 3 no such provider, seed,\n"
             "job or graph. The common options (lodwash --help) may come before or\n"
             "after the command.\n");
      return true;
    }
  }
  return false;
}

/* After the common options are parsed (st): finds the command and runs it. */
static int run(LwConfig *cfg, LwStatus st, LwError *err, int argc, char **argv, int first)
{
  if (st == LW_NOTHING) {
    return LW_EXIT_OK;
  }
  if (st != LW_OK) {
    return lw_tool_usage_error("%s", err->message);
  }
  if (first >= argc) {
    return lw_tool_usage_error("no command given (see lodwash --help)");
  }
  const LwCommand *command = NULL;
  for (size_t i = 0; i < N_COMMANDS; ++i) {
    if (!strcmp(commands[i].name, argv[first])) {
      command = &commands[i];
    }
  }
  if (!command) {
    return lw_tool_usage_error("unknown command '%s' (see lodwash --help)", argv[first]);
  }
  if (command_help(command, argc - first, argv + first)) {
    return LW_EXIT_OK;
  }
  LwRedisUrl url;
  if (lw_redis_url_parse(cfg->redis_url, &url, err) != LW_OK) {
    return lw_tool_usage_error("%s", err->message);
  }
  lw_log_init("lodwash", cfg->log_level, cfg->log_json);
  LwTool tool = {cfg, NULL};
  int code = command->run(&tool, argc - first, argv + first);
  lw_records_close(tool.redis);
  return code;
}

/* The command list of `lodwash --help`, in help. */
static const char *commands_help(LwHelpText *help)
{
  lw_help_add(help, "Commands:");
  for (size_t i = 0; i < N_COMMANDS; ++i) {
    lw_help_add(help, "\n  %s\n      %s", commands[i].usage, commands[i].doc);
  }
  return help->text;
}

int main(int argc, char **argv)
{
  LwHelpText help = {.len = 0};
  LwProgram prog = {"lodwash", "[OPTIONS] COMMAND [ARGS]", commands_help(&help), NULL, 0};
  LwConfig cfg;
  LwError err;
  int first = 0;
  char **args = settings_first(argc, argv);
  if (!args) {
    return lw_tool_fail("out of memory");
  }
  argv = args;
  LwStatus st = lw_config_parse(&cfg, argc, argv, &prog, &first, &err);
  int code = run(&cfg, st, &err, argc, argv, first);
  lw_config_free(&cfg);
  free(args);
  return code;
}
