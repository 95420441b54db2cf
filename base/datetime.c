#include "base/base.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define USEC_PER_SEC INT64_C(1000000)
#define SEC_PER_DAY INT64_C(86400)

/* A cursor over the text being parsed. */
typedef struct {
  const char *p;
  const char *end;
} Cursor;

static bool is_leap(int y)
{
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil), so no dependence on timegm or the process time zone. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = (int)(yoe + era * 400 + (*m <= 2));
}

static bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

/* Reads exactly n digits. */
static bool read_digits(Cursor *c, int n, int *out)
{
  int v = 0;
  for (int i = 0; i < n; ++i) {
    if (c->p >= c->end || !is_digit(*c->p)) {
      return false;
    }
    v = v * 10 + (*c->p++ - '0');
  }
  *out = v;
  return true;
}

static bool take(Cursor *c, char ch)
{
  if (c->p < c->end && *c->p == ch) {
    ++c->p;
    return true;
  }
  return false;
}

static void skip_spaces(Cursor *c)
{
  while (c->p < c->end &&
         (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) {
    ++c->p;
  }
}

static LwStatus parse_date(Cursor *c, int *y, int *m, int *d, LwError *err)
{
  if (!read_digits(c, 4, y) || !take(c, '-') || !read_digits(c, 2, m) || !take(c, '-') ||
      !read_digits(c, 2, d)) {
    return lw_error_set(err, LW_ERR_SYNTAX, "expected a date YYYY-MM-DD");
  }
  if (c->p < c->end && is_digit(*c->p)) {
    return lw_error_set(err, LW_ERR_SYNTAX, "too many digits in the day");
  }
  if (*y < 1) {
    return lw_error_set(err, LW_ERR_SYNTAX, "year 0000 is not allowed");
  }
  if (*m < 1 || *m > 12) {
    return lw_error_set(err, LW_ERR_SYNTAX, "month %02d out of range", *m);
  }
  if (*d < 1 || *d > days_in_month(*y, *m)) {
    return lw_error_set(err, LW_ERR_SYNTAX, "day %02d out of range for %04d-%02d", *d, *y,
                        *m);
  }
  return LW_OK;
}

/* HH:MM[:SS[.fraction]] into microseconds of the day (24:00:00 allowed). */
static LwStatus parse_time(Cursor *c, int64_t *usec, LwError *err)
{
  int h = 0, mi = 0, s = 0;
  if (!read_digits(c, 2, &h) || !take(c, ':') || !read_digits(c, 2, &mi)) {
    return lw_error_set(err, LW_ERR_SYNTAX, "expected a time HH:MM:SS");
  }
  int64_t frac = 0;
  bool has_frac = false;
  if (take(c, ':')) {
    if (!read_digits(c, 2, &s)) {
      return lw_error_set(err, LW_ERR_SYNTAX, "expected two digits of seconds");
    }
    if (take(c, '.')) {
      int64_t scale = 100000;
      if (c->p >= c->end || !is_digit(*c->p)) {
        return lw_error_set(err, LW_ERR_SYNTAX, "expected digits after '.'");
      }
      while (c->p < c->end && is_digit(*c->p)) {
        /* Digits past the microsecond are read and dropped. */
        frac += (*c->p - '0') * scale;
        scale /= 10;
        has_frac = has_frac || *c->p != '0';
        ++c->p;
      }
    }
  }
  if (h == 24 && mi == 0 && s == 0 && !has_frac) {
    *usec = SEC_PER_DAY * USEC_PER_SEC;
    return LW_OK;
  }
  if (h > 23 || mi > 59 || s > 59) {
    return lw_error_set(err, LW_ERR_SYNTAX, "time %02d:%02d:%02d out of range", h, mi, s);
  }
  *usec = ((int64_t)h * 3600 + mi * 60 + s) * USEC_PER_SEC + frac;
  return LW_OK;
}

/* Z, +HH:MM, +HHMM, +HH or +H (YAML), as seconds east of UTC. */
static LwStatus parse_zone(Cursor *c, bool *zoned, int64_t *offset, LwError *err)
{
  const char *before = c->p;
  skip_spaces(c);
  if (c->p == c->end) {
    c->p = before;
    return LW_OK;
  }
  if (take(c, 'Z') || take(c, 'z')) {
    *zoned = true;
    *offset = 0;
    return LW_OK;
  }
  int sign = take(c, '+') ? 1 : take(c, '-') ? -1 : 0;
  if (!sign) {
    return lw_error_set(err, LW_ERR_SYNTAX, "unexpected '%c'", *c->p);
  }
  int h = 0, mi = 0;
  const char *digits = c->p;
  while (c->p < c->end && is_digit(*c->p)) {
    ++c->p;
  }
  size_t n = (size_t)(c->p - digits);
  if (n == 1 || n == 2) {
    for (size_t i = 0; i < n; ++i) {
      h = h * 10 + (digits[i] - '0');
    }
    if (take(c, ':') && !read_digits(c, 2, &mi)) {
      return lw_error_set(err, LW_ERR_SYNTAX, "expected zone minutes");
    }
  } else if (n == 4) {
    h = (digits[0] - '0') * 10 + (digits[1] - '0');
    mi = (digits[2] - '0') * 10 + (digits[3] - '0');
  } else {
    return lw_error_set(err, LW_ERR_SYNTAX, "bad zone offset");
  }
  if (h > 14 || mi > 59 || (h == 14 && mi != 0)) {
    return lw_error_set(err, LW_ERR_SYNTAX, "zone offset out of range");
  }
  *zoned = true;
  *offset = sign * ((int64_t)h * 3600 + mi * 60);
  return LW_OK;
}

LwStatus lw_datetime_parse(const char *text, size_t len, LwDateTime *out, LwError *err)
{
  Cursor c = {text, text + len};
  skip_spaces(&c);
  while (c.end > c.p && (c.end[-1] == ' ' || c.end[-1] == '\t' || c.end[-1] == '\n' ||
                         c.end[-1] == '\r')) {
    --c.end;
  }
  if (c.p == c.end) {
    return lw_error_set(err, LW_ERR_SYNTAX, "empty date");
  }
  int y = 0, m = 0, d = 0;
  LW_TRY(parse_date(&c, &y, &m, &d, err));

  LwDateTime v = {0, true, false};
  int64_t time_of_day = 0;
  if (c.p < c.end && (*c.p == 'T' || *c.p == 't' || *c.p == ' ')) {
    /* A space may also precede a zone ("2015-10-10 Z" is odd but harmless);
     * a time follows when a digit does. */
    const char *sep = c.p++;
    skip_spaces(&c);
    if (c.p < c.end && is_digit(*c.p)) {
      LW_TRY(parse_time(&c, &time_of_day, err));
      v.date_only = false;
    } else if (*sep != ' ') {
      return lw_error_set(err, LW_ERR_SYNTAX, "expected a time after 'T'");
    } else {
      c.p = sep;
    }
  }
  int64_t offset = 0;
  LW_TRY(parse_zone(&c, &v.zoned, &offset, err));
  if (c.p != c.end) {
    return lw_error_set(err, LW_ERR_SYNTAX, "unexpected text after the date: '%.*s'",
                        (int)(c.end - c.p > 20 ? 20 : c.end - c.p), c.p);
  }
  v.usec = (days_from_civil(y, m, d) * SEC_PER_DAY - offset) * USEC_PER_SEC + time_of_day;
  *out = v;
  return LW_OK;
}

bool lw_datetime_parse_str(const char *text, LwDateTime *out)
{
  return text && lw_datetime_parse(text, strlen(text), out, NULL) == LW_OK;
}

static int64_t floor_div(int64_t a, int64_t b)
{
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

char *lw_datetime_format_usec(int64_t usec, char out[LW_DATETIME_BUF])
{
  const int64_t secs = floor_div(usec, USEC_PER_SEC);
  const int64_t frac = usec - secs * USEC_PER_SEC;
  const int64_t days = floor_div(secs, SEC_PER_DAY);
  const int64_t sod = secs - days * SEC_PER_DAY;
  int y = 0, m = 0, d = 0;
  civil_from_days(days, &y, &m, &d);
  int n = snprintf(out, LW_DATETIME_BUF, "%04d-%02d-%02dT%02d:%02d:%02d", y, m, d,
                   (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
  if (frac && n > 0 && n < LW_DATETIME_BUF) {
    n += snprintf(out + n, (size_t)(LW_DATETIME_BUF - n), ".%06lld", (long long)frac);
  }
  if (n > 0 && n < LW_DATETIME_BUF - 1) {
    out[n] = 'Z';
    out[n + 1] = '\0';
  }
  return out;
}

char *lw_datetime_format_ms(long long ms, char out[LW_DATETIME_BUF])
{
  lw_datetime_format_usec((int64_t)(ms - ms % 1000) * 1000, out);
  size_t n = strlen(out);
  if (n > 1) { /* "...:43Z" -> "...:43.801Z" */
    snprintf(out + n - 1, (size_t)LW_DATETIME_BUF - (n - 1), ".%03lldZ",
             (long long)((ms % 1000 + 1000) % 1000));
  }
  return out;
}

char *lw_datetime_format(const LwDateTime *value, char out[LW_DATETIME_BUF])
{
  const int64_t day_usec = SEC_PER_DAY * USEC_PER_SEC;
  if (value->date_only && !value->zoned && value->usec % day_usec == 0) {
    int y = 0, m = 0, d = 0;
    civil_from_days(floor_div(value->usec, day_usec), &y, &m, &d);
    snprintf(out, LW_DATETIME_BUF, "%04d-%02d-%02d", y, m, d);
    return out;
  }
  return lw_datetime_format_usec(value->usec, out);
}

int lw_datetime_compare(const LwDateTime *a, const LwDateTime *b)
{
  return (a->usec > b->usec) - (a->usec < b->usec);
}

bool lw_datetime_parse_http(const char *text, LwDateTime *out)
{
  if (!text || !*text) {
    return false;
  }
  time_t t = curl_getdate(text, NULL);
  if (t == (time_t)-1) {
    return false;
  }
  out->usec = (int64_t)t * USEC_PER_SEC;
  out->date_only = false;
  out->zoned = true;
  return true;
}

int64_t lw_datetime_now_usec(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / 1000;
}

double lw_monotonic_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void lw_sleep_ms(long long ms)
{
  if (ms <= 0) {
    return;
  }
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}
