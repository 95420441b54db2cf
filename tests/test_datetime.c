/* Dates and date-times: the forms providers and registry files use, the
 * comparison rule (no zone = UTC, a date = midnight) and ISO 8601 output. */
#include "base/base.h"
#include "tests/support/check.h"

static int64_t usec_of(const char *text)
{
  LwDateTime v = {0, false, false};
  LwError err;
  lw_error_clear(&err);
  LwStatus st = lw_datetime_parse(text, strlen(text), &v, &err);
  if (st != LW_OK) {
    fprintf(stderr, "parse '%s': %s\n", text, err.message);
    return INT64_MIN;
  }
  return v.usec;
}

static const char *fmt(const char *text)
{
  static char buf[LW_DATETIME_BUF];
  LwDateTime v;
  if (!lw_datetime_parse_str(text, &v)) {
    return "(unparsable)";
  }
  return lw_datetime_format(&v, buf);
}

static bool bad(const char *text)
{
  LwDateTime v;
  return !lw_datetime_parse_str(text, &v);
}

static void test_forms(void)
{
  /* The epoch and well-known instants. */
  CHECK_INT_EQ(usec_of("1970-01-01"), 0);
  CHECK_INT_EQ(usec_of("1970-01-01T00:00:01Z"), 1000000);
  CHECK_INT_EQ(usec_of("2015-10-10"), INT64_C(1444435200) * 1000000);
  CHECK_INT_EQ(usec_of("2015-12-04T14:25:44Z"), INT64_C(1449239144) * 1000000);
  /* The registry forms of the proposal. */
  CHECK_INT_EQ(usec_of("2015-12-04 14:25:44.758604"),
               INT64_C(1449239144) * 1000000 + 758604);
  CHECK_INT_EQ(usec_of("2015-12-04T14:25:44.758604"),
               usec_of("2015-12-04 14:25:44.758604"));
  CHECK_INT_EQ(usec_of("2015-12-04t14:25:44.758604z"),
               usec_of("2015-12-04 14:25:44.758604"));
  /* Fractions shorter and longer than microseconds. */
  CHECK_INT_EQ(usec_of("2015-12-04T14:25:44.5Z") - usec_of("2015-12-04T14:25:44Z"), 500000);
  CHECK_INT_EQ(usec_of("2015-12-04T14:25:44.1234567Z") - usec_of("2015-12-04T14:25:44Z"),
               123456);
  /* Zones shift to UTC. */
  CHECK_INT_EQ(usec_of("2015-12-04T16:25:44+02:00"), usec_of("2015-12-04T14:25:44Z"));
  CHECK_INT_EQ(usec_of("2015-12-04T09:25:44-05:00"), usec_of("2015-12-04T14:25:44Z"));
  CHECK_INT_EQ(usec_of("2015-12-04T16:25:44+0200"), usec_of("2015-12-04T14:25:44Z"));
  CHECK_INT_EQ(usec_of("2015-12-04 09:25:44 -5"), usec_of("2015-12-04T14:25:44Z"));
  CHECK_INT_EQ(usec_of("2015-12-04 14:25"), usec_of("2015-12-04T14:25:00Z"));
  /* A date with a zone starts at midnight there. */
  CHECK_INT_EQ(usec_of("2015-10-10+02:00"), usec_of("2015-10-09T22:00:00Z"));
  CHECK_INT_EQ(usec_of("2015-10-10Z"), usec_of("2015-10-10"));
  /* Whitespace around the value (xsd whitespace collapse). */
  CHECK_INT_EQ(usec_of("  2015-10-10\n"), usec_of("2015-10-10"));
  /* 24:00:00 is the end of the day. */
  CHECK_INT_EQ(usec_of("2015-10-10T24:00:00"), usec_of("2015-10-11"));
  /* Leap days and dates before the epoch. */
  CHECK_INT_EQ(usec_of("2016-03-01") - usec_of("2016-02-29"), INT64_C(86400000000));
  CHECK_INT_EQ(usec_of("1969-12-31"), INT64_C(-86400000000));
  CHECK_INT_EQ(usec_of("0001-01-01"), INT64_C(-62135596800) * 1000000);
  CHECK_INT_EQ(usec_of("9999-12-31T23:59:59Z"), INT64_C(253402300799) * 1000000);
}

static void test_flags(void)
{
  LwDateTime v;
  CHECK(lw_datetime_parse_str("2015-10-10", &v) && v.date_only && !v.zoned);
  CHECK(lw_datetime_parse_str("2015-10-10Z", &v) && v.date_only && v.zoned);
  CHECK(lw_datetime_parse_str("2015-10-10 10:00", &v) && !v.date_only && !v.zoned);
  CHECK(lw_datetime_parse_str("2015-10-10T10:00:00+01:00", &v) && !v.date_only && v.zoned);
}

static void test_rejects(void)
{
  CHECK(bad(""));
  CHECK(bad("   "));
  CHECK(bad("2015"));
  CHECK(bad("2015-10"));
  CHECK(bad("15-10-10"));
  CHECK(bad("2015/10/10"));
  CHECK(bad("2015-13-01"));
  CHECK(bad("2015-00-01"));
  CHECK(bad("2015-02-29"));
  CHECK(bad("2015-04-31"));
  CHECK(bad("0000-01-01"));
  CHECK(bad("2015-10-100"));
  CHECK(bad("2015-10-10T"));
  CHECK(bad("2015-10-10T25:00:00"));
  CHECK(bad("2015-10-10T10:60:00"));
  CHECK(bad("2015-10-10T10:00:60"));
  CHECK(bad("2015-10-10T24:00:01"));
  CHECK(bad("2015-10-10T10:00:00."));
  CHECK(bad("2015-10-10T10:00:00+15:00"));
  CHECK(bad("2015-10-10T10:00:00+02:0"));
  CHECK(bad("2015-10-10T10:00:00 GMT"));
  CHECK(bad("2015-10-10 and more"));
  CHECK(bad("yesterday"));
  CHECK(bad("-2015-10-10"));
  LwError err;
  lw_error_clear(&err);
  LwDateTime v;
  CHECK_INT_EQ(lw_datetime_parse("2015-02-30", 10, &v, &err), LW_ERR_SYNTAX);
  CHECK(strstr(err.message, "day 30") != NULL);
  /* len is honoured: the text need not be NUL-terminated. */
  CHECK_INT_EQ(lw_datetime_parse("2015-10-10garbage", 10, &v, NULL), LW_OK);
}

static void test_format(void)
{
  CHECK_STR_EQ(fmt("2015-10-10"), "2015-10-10");
  CHECK_STR_EQ(fmt("2015-10-10Z"), "2015-10-10T00:00:00Z");
  CHECK_STR_EQ(fmt("2015-12-04 14:25:44.758604"), "2015-12-04T14:25:44.758604Z");
  CHECK_STR_EQ(fmt("2015-12-04T14:25:44.5"), "2015-12-04T14:25:44.500000Z");
  CHECK_STR_EQ(fmt("2015-12-04T16:25:44+02:00"), "2015-12-04T14:25:44Z");
  CHECK_STR_EQ(fmt("1969-12-31T23:59:59.999999Z"), "1969-12-31T23:59:59.999999Z");
  char buf[LW_DATETIME_BUF];
  CHECK_STR_EQ(lw_datetime_format_usec(0, buf), "1970-01-01T00:00:00Z");
  CHECK_STR_EQ(lw_datetime_format_usec(-1, buf), "1969-12-31T23:59:59.999999Z");
  /* Round trip: formatting then parsing gives the same instant. */
  const char *samples[] = {"2015-10-10", "2015-12-04 14:25:44.758604",
                           "2000-02-29T23:59:59+14:00", "0001-01-01"};
  for (size_t i = 0; i < sizeof(samples) / sizeof(*samples); ++i) {
    LwDateTime a, b;
    CHECK(lw_datetime_parse_str(samples[i], &a));
    CHECK(lw_datetime_parse_str(lw_datetime_format(&a, buf), &b));
    CHECK_INT_EQ(b.usec, a.usec);
  }
}

static void test_compare(void)
{
  LwDateTime a, b;
  CHECK(lw_datetime_parse_str("2015-10-10", &a));
  CHECK(lw_datetime_parse_str("2015-10-10T00:00:00Z", &b));
  CHECK_INT_EQ(lw_datetime_compare(&a, &b), 0);
  CHECK(lw_datetime_parse_str("2015-10-10T00:00:00.000001", &b));
  CHECK(lw_datetime_compare(&a, &b) < 0);
  CHECK(lw_datetime_compare(&b, &a) > 0);
  CHECK(lw_datetime_parse_str("2015-11-05", &a));
  CHECK(lw_datetime_parse_str("2015-10-01", &b));
  CHECK(lw_datetime_compare(&a, &b) > 0);
}

static void test_http(void)
{
  LwDateTime v;
  CHECK(lw_datetime_parse_http("Sun, 06 Nov 1994 08:49:37 GMT", &v));
  CHECK_INT_EQ(v.usec, usec_of("1994-11-06T08:49:37Z"));
  CHECK(lw_datetime_parse_http("Sunday, 06-Nov-94 08:49:37 GMT", &v));
  CHECK_INT_EQ(v.usec, usec_of("1994-11-06T08:49:37Z"));
  CHECK(!lw_datetime_parse_http("not a date", &v));
  CHECK(!lw_datetime_parse_http("", &v));
  CHECK(!lw_datetime_parse_http(NULL, &v));
  CHECK(lw_datetime_now_usec() > usec_of("2020-01-01"));
}

int main(void)
{
  test_forms();
  test_flags();
  test_rejects();
  test_format();
  test_compare();
  test_http();
  return lw_test_finish();
}
