/*
 * Dates and date-times as providers write them: xsd:date, xsd:dateTime and
 * the forms people type into registry.yaml, turned into one comparable value.
 *
 * Accepted (surrounding whitespace ignored):
 *   2015-10-10                      a date
 *   2015-10-10Z, 2015-10-10+02:00   a date with a zone
 *   2015-12-04T14:25:44Z            xsd:dateTime
 *   2015-12-04T14:25:44.758604      fraction of any length (kept to the
 *                                   microsecond, the rest truncated)
 *   2015-12-04 14:25:44.758604      a space instead of T (Python's str(),
 *                                   YAML timestamps), also "t"
 *   2015-12-04 14:25                seconds may be left out
 *   ... +02:00, +0200, +02, -05:00, " -5", Z   zones, optionally after spaces
 *   2015-12-04T24:00:00             end of day = next day 00:00:00
 * Years 0001..9999 only.
 *
 * The rule that makes them comparable: a value is the number of microseconds
 * since 1970-01-01T00:00:00Z (UTC). A value without a zone is read as UTC,
 * and a date is the instant its day starts, midnight; so "2015-10-10" equals
 * "2015-10-10T00:00:00Z" and is earlier than "2015-10-10T00:00:01". A date
 * with a zone starts at midnight in that zone ("2015-10-10+02:00" is
 * 2015-10-09T22:00:00Z).
 */
#ifndef LW_DATETIME_H
#define LW_DATETIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/status.h"

typedef struct {
  int64_t usec;   /* microseconds since 1970-01-01T00:00:00Z */
  bool date_only; /* written as a date, without a time of day */
  bool zoned;     /* written with a zone (Z or an offset) */
} LwDateTime;

/* Long enough for any formatted value, with its NUL. */
#define LW_DATETIME_BUF 40

/* Parses text (len bytes, need not be NUL-terminated) into out. Returns
 * LW_OK, or LW_ERR_SYNTAX with a message in err saying what is wrong. */
LwStatus lw_datetime_parse(const char *text, size_t len, LwDateTime *out,
                           LwError *err);

/* Convenience for a NUL-terminated string; false when it does not parse. */
bool lw_datetime_parse_str(const char *text, LwDateTime *out);

/* Formats usec as ISO 8601 in UTC: "2015-12-04T14:25:44Z", with ".758604"
 * when there is a fraction. Returns out. */
char *lw_datetime_format_usec(int64_t usec, char out[LW_DATETIME_BUF]);

/* Formats ms (milliseconds since the epoch) as ISO 8601 in UTC with
 * milliseconds: "2026-11-24T15:40:43.801Z". Returns out. */
char *lw_datetime_format_ms(long long ms, char out[LW_DATETIME_BUF]);

/* Formats value: a date written without a zone comes back as a date
 * ("2015-10-10"); anything else as lw_datetime_format_usec. Returns out. */
char *lw_datetime_format(const LwDateTime *value, char out[LW_DATETIME_BUF]);

/* <0, 0 or >0 as a is earlier than, the same instant as, or later than b. */
int lw_datetime_compare(const LwDateTime *a, const LwDateTime *b);

/* Parses an HTTP date such as a Last-Modified header ("Sun, 06 Nov 1994
 * 08:49:37 GMT", and the obsolete RFC 850 and asctime forms; libcurl's
 * curl_getdate does the work). False when it does not parse. */
bool lw_datetime_parse_http(const char *text, LwDateTime *out);

/* The current time in microseconds since the epoch. */
int64_t lw_datetime_now_usec(void);

/* Seconds on a clock that only moves forward (CLOCK_MONOTONIC), to measure
 * how long something took. */
double lw_monotonic_seconds(void);

#endif
