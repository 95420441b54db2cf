/* Helpers shared by the tool's commands (tools/commands.h). */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"
#include "queue/redis.h"
#include "queue/registry_state.h"
#include "tools/commands.h"

LwRegistry *lw_tool_registry(LwTool *tool, const char *what)
{
  LwRegistry *reg = NULL;
  LwError ferr;
  lw_error_clear(&ferr);
  if (lw_registry_load(tool->config->registry, &reg, &ferr) == LW_OK) {
    return reg; /* Redis only when the file does not load */
  }
  LwRecords *c = lw_tool_redis(tool);
  json_t *state = NULL;
  LwError err;
  lw_error_clear(&err);
  LwStatus st = c ? lw_registry_state_load(c, tool->config, &reg, &state, &err)
                  : LW_ERR_REDIS;
  json_decref(state);
  if (st != LW_OK) { /* the file's error first: it is what to fix */
    fprintf(stderr, "lodwash: %s: %s\n", what, ferr.message);
    return NULL;
  }
  fprintf(stderr,
          "lodwash: warning: the registry does not load: %s; using the last good "
          "registry the scheduler read\n",
          ferr.message);
  return reg;
}

LwRecords *lw_tool_redis(LwTool *tool)
{
  if (!tool->redis) {
    LwError err;
    if (lw_redis_connect(tool->config->redis_url, &tool->redis, &err) != LW_OK) {
      fprintf(stderr, "lodwash: %s (set --redis or LODWASH_REDIS)\n", err.message);
      return NULL;
    }
  }
  return tool->redis;
}

/* "lodwash: MESSAGE" on stderr; returns code. */
static int say(int code, const char *fmt, va_list args)
  __attribute__((format(printf, 2, 0)));

static int say(int code, const char *fmt, va_list args)
{
  fputs("lodwash: ", stderr);
  vfprintf(stderr, fmt, args);
  fputc('\n', stderr);
  return code;
}

int lw_tool_usage_error(const char *fmt, ...)
{
  va_list args;
  va_start(args, fmt);
  int code = say(LW_EXIT_USAGE, fmt, args);
  va_end(args);
  return code;
}

int lw_tool_not_found(const char *fmt, ...)
{
  va_list args;
  va_start(args, fmt);
  int code = say(LW_EXIT_NOT_FOUND, fmt, args);
  va_end(args);
  return code;
}

int lw_tool_fail(const char *fmt, ...)
{
  va_list args;
  va_start(args, fmt);
  int code = say(LW_EXIT_FAIL, fmt, args);
  va_end(args);
  return code;
}

void lw_tool_print_json(const void *json)
{
  char *text = json_dumps((const json_t *)json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  if (text) {
    puts(text);
    free(text);
  }
}

void lw_tool_times_readable(void *obj, const char *const *fields)
{
  for (; *fields; ++fields) {
    json_t *v = json_object_get(obj, *fields);
    long long ms = 0;
    if (json_is_integer(v)) {
      ms = json_integer_value(v);
    } else if (json_is_string(v)) {
      const char *s = json_string_value(v);
      char *end = NULL;
      ms = *s ? strtoll(s, &end, 10) : 0;
      ms = end && !*end ? ms : 0;
    }
    if (ms > 0) {
      char iso[LW_DATETIME_BUF];
      json_object_set_new(obj, *fields, json_string(lw_datetime_format_ms(ms, iso)));
    }
  }
}
