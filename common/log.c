#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *log_program = "lodwash";
static LwLogLevel log_level = LW_LOG_INFO;
static bool log_json = false;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void lw_log_init(const char *program, LwLogLevel level, bool json)
{
  if (program) {
    log_program = program;
  }
  log_level = level;
  log_json = json;
}

bool lw_log_level_parse(const char *name, LwLogLevel *level)
{
  for (int i = 0; i <= LW_LOG_DEBUG; ++i) {
    if (!strcmp(name, level_names[i])) {
      *level = (LwLogLevel)i;
      return true;
    }
  }
  return false;
}

bool lw_log_enabled(LwLogLevel level) { return level <= log_level; }

/* Writes s as the body of a JSON string. */
static void put_json_string(FILE *out, const char *s)
{
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      fprintf(out, "\\%c", c);
    } else if (c < 0x20) {
      fprintf(out, "\\u%04x", c);
    } else {
      fputc(c, out);
    }
  }
}

void lw_log(LwLogLevel level, const char *fmt, ...)
{
  if (!lw_log_enabled(level)) {
    return;
  }
  char message[4096];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);

  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct tm tm;
  gmtime_r(&now.tv_sec, &tm);
  char stamp[40];
  size_t n = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(stamp + n, sizeof(stamp) - n, ".%03ldZ", now.tv_nsec / 1000000);

  /* One fprintf per line keeps lines whole when several threads log. */
  if (log_json) {
    flockfile(stderr);
    fprintf(stderr, "{\"time\":\"%s\",\"level\":\"%s\",\"program\":\"%s\",\"msg\":\"",
            stamp, level_names[level], log_program);
    put_json_string(stderr, message);
    fputs("\"}\n", stderr);
    funlockfile(stderr);
  } else {
    fprintf(stderr, "%s %s %s %s\n", stamp, level_names[level], log_program, message);
  }
}
