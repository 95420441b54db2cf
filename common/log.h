/*
 * The one logging module: levels, printf-format checking, one line per event
 * with key=value fields, to stderr (docker collects it). --log-json switches
 * to one JSON object per line for log collectors.
 *
 *   lw_log(LW_LOG_INFO, "stage=%s seed=%s outcome=done ms=%ld", ...);
 *
 * The message itself should be key=value fields; a free-text message goes in
 * msg="...". Each line starts with time, level and program.
 */
#ifndef LW_LOG_H
#define LW_LOG_H

#include <stdbool.h>

typedef enum {
  LW_LOG_ERROR = 0,
  LW_LOG_WARN,
  LW_LOG_INFO,
  LW_LOG_DEBUG
} LwLogLevel;

/* Sets the program name shown on each line, the lowest level printed and
 * whether lines are JSON. Safe to call again. */
void lw_log_init(const char *program, LwLogLevel level, bool json);

/* Parses "error", "warn", "info" or "debug"; returns false if unknown. */
bool lw_log_level_parse(const char *name, LwLogLevel *level);

/* True if a line at level would be printed. */
bool lw_log_enabled(LwLogLevel level);

void lw_log(LwLogLevel level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define lw_error(...) lw_log(LW_LOG_ERROR, __VA_ARGS__)
#define lw_warn(...) lw_log(LW_LOG_WARN, __VA_ARGS__)
#define lw_info(...) lw_log(LW_LOG_INFO, __VA_ARGS__)
#define lw_debug(...) lw_log(LW_LOG_DEBUG, __VA_ARGS__)

#endif
