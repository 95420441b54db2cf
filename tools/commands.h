/*
 * The commands of the `lodwash` tool. Each command group is one file,
 * tools/cmd_<group>.c, with one function of type LwCommandFn; the table in
 * tools/lodwash_main.c maps the command name to it. Adding a command is
 * adding a file, a declaration here and a row there.
 *
 * A command gets argv[0] = its own name and the arguments after it, and
 * returns the exit code, one per kind of mistake (docs/cli.md): 0 success,
 * 1 failure (Redis unreachable, the thing's state forbids it, ...), 2 bad
 * arguments (one line with lw_tool_usage_error), 3 no such provider, seed,
 * dead job or graph (lw_tool_not_found).
 * It reaches Redis through lw_tool_redis(tool), which connects on first use
 * and prints a clear message when Redis is unreachable (then return 1).
 */
#ifndef LW_TOOLS_COMMANDS_H
#define LW_TOOLS_COMMANDS_H

#include "queue/redis.h"
#include <stdbool.h>

#include "config/config.h"

enum { LW_EXIT_OK = 0, LW_EXIT_FAIL = 1, LW_EXIT_USAGE = 2, LW_EXIT_NOT_FOUND = 3 };

typedef struct {
  const LwConfig *config;
  LwRecords *redis; /* NULL until lw_tool_redis connects */
} LwTool;

typedef int (*LwCommandFn)(LwTool *tool, int argc, char **argv);

typedef struct {
  const char *name;
  LwCommandFn run;
  const char *usage; /* "status [--json]": shown by `lodwash --help` */
  const char *doc;   /* one line */
  const char *help;  /* its own arguments and options, for COMMAND --help */
  bool own_help;     /* the command prints its own --help (else the tool
                        prints usage and doc) */
} LwCommand;

/* The Redis connection, connected on first use; NULL (message printed to
 * stderr) when Redis is unreachable. */
LwRecords *lw_tool_redis(LwTool *tool);

/* The registry (tool->config->registry), or the last good one the
 * scheduler recorded when the file does not load (queue/registry_state.h):
 * then a warning with the file's error goes to stderr. NULL (said on
 * stderr, prefixed with what) when neither can be had. */
LwRegistry *lw_tool_registry(LwTool *tool, const char *what);

/* Prints "lodwash: <message>" (printf-style) to stderr; returns
 * LW_EXIT_USAGE. */
int lw_tool_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "lodwash: <message>" to stderr; returns LW_EXIT_FAIL. */
int lw_tool_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "lodwash: <message>" to stderr; returns LW_EXIT_NOT_FOUND. */
int lw_tool_not_found(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Rewrites the fields of obj that hold a time as milliseconds since the
 * epoch (an integer, or a string of digits) as ISO 8601 in UTC, for people;
 * fields is NULL-terminated. */
void lw_tool_times_readable(void *obj, const char *const *fields);

/* Prints a JSON value to stdout, indented, with a newline. */
void lw_tool_print_json(const void *json);

int lw_cmd_hash(LwTool *tool, int argc, char **argv);
int lw_cmd_status(LwTool *tool, int argc, char **argv);
int lw_cmd_reclean(LwTool *tool, int argc, char **argv);
int lw_cmd_seed(LwTool *tool, int argc, char **argv);
int lw_cmd_jobs(LwTool *tool, int argc, char **argv);
int lw_cmd_providers(LwTool *tool, int argc, char **argv);
int lw_cmd_harvest(LwTool *tool, int argc, char **argv);
int lw_cmd_export(LwTool *tool, int argc, char **argv);
int lw_cmd_meta(LwTool *tool, int argc, char **argv);
int lw_cmd_graph(LwTool *tool, int argc, char **argv);
int lw_cmd_clean(LwTool *tool, int argc, char **argv);
int lw_cmd_stage(LwTool *tool, int argc, char **argv);
int lw_cmd_queue(LwTool *tool, int argc, char **argv);
int lw_cmd_provider(LwTool *tool, int argc, char **argv);
int lw_cmd_gc(LwTool *tool, int argc, char **argv);

#endif
