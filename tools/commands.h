/*
 * The commands of the `lodwash` tool. Each command group is one file,
 * tools/cmd_<group>.c, with one function of type LwCommandFn; the table in
 * tools/lodwash_main.c maps the command name to it. Adding a command is
 * adding a file, a declaration here and a row there.
 *
 * A command gets argv[0] = its own name and the arguments after it, and
 * returns the exit code: 0 success, 1 failure (Redis unreachable, no such
 * seed, ...), 2 bad arguments (print one line with lw_tool_usage_error).
 * It reaches Redis through lw_tool_redis(tool), which connects on first use
 * and prints a clear message when Redis is unreachable (then return 1).
 */
#ifndef LW_TOOLS_COMMANDS_H
#define LW_TOOLS_COMMANDS_H

#include "queue/redis.h"
#include <stdbool.h>

#include "config/config.h"

enum { LW_EXIT_OK = 0, LW_EXIT_FAIL = 1, LW_EXIT_USAGE = 2 };

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
  bool own_help;     /* the command prints its own --help (else the tool
                        prints usage and doc) */
} LwCommand;

/* The Redis connection, connected on first use; NULL (message printed to
 * stderr) when Redis is unreachable. */
LwRecords *lw_tool_redis(LwTool *tool);

/* Prints "lodwash: <message>" (printf-style) to stderr; returns
 * LW_EXIT_USAGE. */
int lw_tool_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "lodwash: <message>" to stderr; returns LW_EXIT_FAIL. */
int lw_tool_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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
