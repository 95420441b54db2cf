#include "base/base.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
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

bool lw_log_enabled(LwLogLevel level)
{
  return level <= log_level;
}

/* A JSON string of s[0..len); bytes that are not UTF-8 become '?'. */
static json_t *string_of(const char *s, size_t len)
{
  json_t *v = json_stringn(s, len);
  if (v) {
    return v;
  }
  char copy[4096];
  size_t n = len < sizeof(copy) ? len : sizeof(copy) - 1;
  for (size_t i = 0; i < n; ++i) {
    copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
  }
  return json_stringn(copy, n);
}

/* A quoted value's JSON string: its \" and \\ (lw_escape_quoted) read back
 * as the characters they stand for. */
static json_t *quoted_of(const char *s, size_t len)
{
  char plain[4096];
  size_t n = 0;
  for (size_t i = 0; i < len && n < sizeof(plain); ++i) {
    if (s[i] == '\\' && i + 1 < len && (s[i + 1] == '"' || s[i + 1] == '\\')) {
      ++i;
    }
    plain[n++] = s[i];
  }
  return string_of(plain, n);
}

/* Splits a key=value message into fields of obj: key=value, key="quoted
 * value" (a quote ends the value only before a space or the end, so a
 * message quoting something inside stays whole), numbers as numbers. Words
 * that are not key=value go to "msg", joined by spaces. */
static void add_fields(json_t *obj, const char *message)
{
  char text[4096];
  size_t free_len = 0;
  const char *p = message;
  while (*p) {
    while (*p == ' ') {
      ++p;
    }
    const char *key = p;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
           (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-') {
      ++p;
    }
    size_t key_len = (size_t)(p - key);
    const char *value = NULL, *value_end = NULL;
    if (key_len && *p == '=') {
      value = ++p;
      if (*p == '"') {
        value = ++p;
        while (*p && !(*p == '"' && (p[1] == ' ' || !p[1]))) {
          p += (*p == '\\' && p[1]) ? 2 : 1; /* \" is a quote inside (lw_escape_quoted) */
        }
        value_end = p;
        if (*p) {
          ++p;
        }
      } else {
        while (*p && *p != ' ') {
          ++p;
        }
        value_end = p;
      }
    } else { /* a free word: up to the next space */
      while (*p && *p != ' ') {
        ++p;
      }
      if (p > key && free_len + (size_t)(p - key) + 2 < sizeof(text)) {
        if (free_len) {
          text[free_len++] = ' ';
        }
        memcpy(text + free_len, key, (size_t)(p - key));
        free_len += (size_t)(p - key);
      }
      continue;
    }
    char name[64];
    snprintf(name, sizeof(name), "%.*s", (int)(key_len < 63 ? key_len : 63), key);
    if (json_object_get(obj, name)) { /* time, level, program stay the frame's */
      char own[64];
      snprintf(own, sizeof(own), "field_%s", name);
      memcpy(name, own, sizeof(name));
    }
    size_t len = (size_t)(value_end - value);
    char number[32];
    char *end = NULL;
    double d = 0;
    if (len && len < sizeof(number) && value[-1] != '"') {
      memcpy(number, value, len);
      number[len] = '\0';
      d = strtod(number, &end);
    }
    if (end && !*end && (number[0] == '-' || (number[0] >= '0' && number[0] <= '9'))) {
      long long i = strtoll(number, &end, 10);
      json_object_set_new(obj, name, !*end ? json_integer(i) : json_real(d));
    } else {
      json_object_set_new(obj, name,
                          value[-1] == '"' ? quoted_of(value, len) : string_of(value, len));
    }
  }
  if (free_len) {
    json_t *msg = json_object_get(obj, "msg");
    if (!msg) {
      json_object_set_new(obj, "msg", string_of(text, free_len));
    }
  }
}

/* The JSON line: time, level, program, then the message's own fields. */
static void put_json_line(FILE *out, const char *stamp, LwLogLevel level,
                          const char *message)
{
  json_t *obj = json_pack("{s:s, s:s, s:s}", "time", stamp, "level", level_names[level],
                          "program", log_program);
  if (obj) {
    add_fields(obj, message);
  }
  char *line = obj ? json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII)
                   : NULL;
  if (line) {
    fprintf(out, "%s\n", line);
  } else { /* out of memory: the plain line rather than nothing */
    fprintf(out, "%s %s %s %s\n", stamp, level_names[level], log_program, message);
  }
  free(line);
  json_decref(obj);
}

void lw_log(LwLogLevel level, const char *fmt, ...)
{
  if (!lw_log_enabled(level)) {
    return;
  }
  char raw[4096];
  va_list args;
  va_start(args, fmt);
  vsnprintf(raw, sizeof(raw), fmt, args);
  va_end(args);
  /* Whatever a value from outside holds, one event stays one line: a
   * newline in it is printed as \n, never as the start of a forged line. */
  lw_redact_userinfo(raw);
  char message[4096];
  lw_escape_text(raw, strlen(raw), sizeof(raw), message, sizeof(message));

  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct tm tm;
  gmtime_r(&now.tv_sec, &tm);
  char stamp[40];
  size_t n = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(stamp + n, sizeof(stamp) - n, ".%03ldZ", now.tv_nsec / 1000000);

  /* One fprintf per line keeps lines whole when several threads log. */
  if (log_json) {
    put_json_line(stderr, stamp, level, message);
  } else {
    fprintf(stderr, "%s %s %s %s\n", stamp, level_names[level], log_program, message);
  }
}
