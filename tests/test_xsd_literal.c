/* XSD lexical forms: valid and invalid vectors for every checked datatype. */
#include "rdf/rdf.h"
#include "tests/support/check.h"

#define XSD LW_XSD_NS

typedef struct {
  const char *type;  /* local name in the XSD namespace */
  const char *lex;
  bool valid;
} Vector;

static const Vector vectors[] = {
  /* integer */
  {"integer", "0", true}, {"integer", "-0", true}, {"integer", "+0", true},
  {"integer", "42", true}, {"integer", "-42", true}, {"integer", "007", true},
  {"integer", "123456789012345678901234567890", true},
  {"integer", "", false}, {"integer", "-", false}, {"integer", "+", false},
  {"integer", "1.0", false}, {"integer", " 1", false}, {"integer", "1 ", false},
  {"integer", "1e3", false}, {"integer", "0x10", false}, {"integer", "--1", false},
  {"integer", "+-1", false}, {"integer", "1,000", false}, {"integer", "abc", false},
  /* long */
  {"long", "9223372036854775807", true}, {"long", "-9223372036854775808", true},
  {"long", "0009223372036854775807", true},
  {"long", "9223372036854775808", false}, {"long", "-9223372036854775809", false},
  {"long", "99999999999999999999", false},
  /* int */
  {"int", "2147483647", true}, {"int", "-2147483648", true}, {"int", "+2147483647", true},
  {"int", "2147483648", false}, {"int", "-2147483649", false}, {"int", "1.5", false},
  /* short, byte */
  {"short", "32767", true}, {"short", "-32768", true},
  {"short", "32768", false}, {"short", "-32769", false},
  {"byte", "127", true}, {"byte", "-128", true}, {"byte", "0127", true},
  {"byte", "128", false}, {"byte", "-129", false}, {"byte", "1000", false},
  /* signs and zero */
  {"nonNegativeInteger", "0", true}, {"nonNegativeInteger", "-0", true},
  {"nonNegativeInteger", "+5", true}, {"nonNegativeInteger", "-1", false},
  {"positiveInteger", "1", true}, {"positiveInteger", "+000001", true},
  {"positiveInteger", "0", false}, {"positiveInteger", "-0", false},
  {"positiveInteger", "-5", false},
  {"nonPositiveInteger", "0", true}, {"nonPositiveInteger", "-0", true},
  {"nonPositiveInteger", "+0", true}, {"nonPositiveInteger", "-99", true},
  {"nonPositiveInteger", "1", false},
  {"negativeInteger", "-1", true}, {"negativeInteger", "-12345678901234567890", true},
  {"negativeInteger", "0", false}, {"negativeInteger", "-0", false},
  {"negativeInteger", "1", false},
  /* unsigned */
  {"unsignedLong", "18446744073709551615", true}, {"unsignedLong", "0", true},
  {"unsignedLong", "18446744073709551616", false}, {"unsignedLong", "-1", false},
  {"unsignedInt", "4294967295", true}, {"unsignedInt", "4294967296", false},
  {"unsignedShort", "65535", true}, {"unsignedShort", "65536", false},
  {"unsignedByte", "255", true}, {"unsignedByte", "-0", true},
  {"unsignedByte", "256", false}, {"unsignedByte", "-1", false},
  /* decimal */
  {"decimal", "0", true}, {"decimal", "-1.23", true}, {"decimal", "+100000.00", true},
  {"decimal", "210", true}, {"decimal", ".5", true}, {"decimal", "5.", true},
  {"decimal", "-.5", true},
  {"decimal", "", false}, {"decimal", ".", false}, {"decimal", "1e5", false},
  {"decimal", "1.2.3", false}, {"decimal", "INF", false}, {"decimal", "1,5", false},
  {"decimal", "- 1", false}, {"decimal", "+.", false},
  /* double and float */
  {"double", "1", true}, {"double", "-1E4", true}, {"double", "1267.43233E12", true},
  {"double", "12.78e-2", true}, {"double", "12", true}, {"double", "-0", true},
  {"double", "0", true}, {"double", "INF", true}, {"double", "-INF", true},
  {"double", "+INF", true}, {"double", "NaN", true}, {"double", ".5e+3", true},
  {"double", "1.e5", true}, {"double", "1e400", true},
  {"double", "inf", false}, {"double", "nan", false}, {"double", "-NaN", false},
  {"double", "Infinity", false}, {"double", "1e", false}, {"double", "e5", false},
  {"double", "1.5e2.5", false}, {"double", "", false}, {"double", "1E+", false},
  {"double", "0x1p3", false}, {"double", " 1.0", false},
  {"float", "-3E2", true}, {"float", "4268.22752E11", true}, {"float", "+24.3e-3", true},
  {"float", "INF", true}, {"float", "NaN", true}, {"float", "-INF", true},
  {"float", "1.0f", false}, {"float", "E3", false}, {"float", "--1", false},
  /* boolean */
  {"boolean", "true", true}, {"boolean", "false", true}, {"boolean", "1", true},
  {"boolean", "0", true},
  {"boolean", "TRUE", false}, {"boolean", "True", false}, {"boolean", "yes", false},
  {"boolean", "", false}, {"boolean", "01", false}, {"boolean", "true ", false},
  /* date */
  {"date", "2023-01-31", true}, {"date", "2024-02-29", true}, {"date", "2000-02-29", true},
  {"date", "-0044-03-15", true}, {"date", "12023-06-01", true}, {"date", "0000-01-01", true},
  {"date", "2023-12-31Z", true}, {"date", "2023-12-31+14:00", true},
  {"date", "2023-12-31-05:30", true},
  {"date", "2023-02-29", false}, {"date", "1900-02-29", false}, {"date", "2023-04-31", false},
  {"date", "2023-13-01", false}, {"date", "2023-00-10", false}, {"date", "2023-01-00", false},
  {"date", "2023-1-01", false}, {"date", "23-01-01", false}, {"date", "02023-01-01", false},
  {"date", "2023-01-01T00:00:00", false}, {"date", "2023-01-01+14:01", false},
  {"date", "2023-01-01+15:00", false}, {"date", "2023-01-01z", false},
  {"date", "2023/01/01", false}, {"date", "", false}, {"date", "2023-01-01 ", false},
  {"date", "2023-01-01+5:00", false},
  /* dateTime */
  {"dateTime", "2002-10-10T12:00:00-05:00", true}, {"dateTime", "2002-10-10T17:00:00Z", true},
  {"dateTime", "2002-10-10T12:00:00", true}, {"dateTime", "2002-10-10T12:00:00.123456", true},
  {"dateTime", "2002-10-10T24:00:00", true}, {"dateTime", "2002-10-10T24:00:00.000", true},
  {"dateTime", "-0001-01-01T00:00:00", true}, {"dateTime", "2016-12-31T23:59:59Z", true},
  {"dateTime", "2002-10-10T24:00:01", false}, {"dateTime", "2002-10-10T24:30:00", false},
  {"dateTime", "2002-10-10T25:00:00", false}, {"dateTime", "2002-10-10T12:60:00", false},
  {"dateTime", "2002-10-10T12:00:60", false}, {"dateTime", "2002-10-10T12:00", false},
  {"dateTime", "2002-10-10 12:00:00", false}, {"dateTime", "2002-10-10T12:00:00.", false},
  {"dateTime", "2002-10-10", false}, {"dateTime", "2023-02-29T00:00:00", false},
  {"dateTime", "2002-10-10T12:00:00+24:00", false}, {"dateTime", "2002-10-10t12:00:00", false},
  /* dateTimeStamp: the timezone is required */
  {"dateTimeStamp", "2002-10-10T12:00:00Z", true},
  {"dateTimeStamp", "2002-10-10T12:00:00+01:00", true},
  {"dateTimeStamp", "2002-10-10T12:00:00", false},
  /* time */
  {"time", "13:20:00", true}, {"time", "13:20:30.5555", true}, {"time", "13:20:00-05:00", true},
  {"time", "00:00:00Z", true}, {"time", "24:00:00", true},
  {"time", "13:20", false}, {"time", "1:20:00", false}, {"time", "13:20:00.", false},
  {"time", "24:00:00.1", false}, {"time", "13:61:00", false}, {"time", "T13:20:00", false},
  /* gYear and friends */
  {"gYear", "1999", true}, {"gYear", "-0001", true}, {"gYear", "12345", true},
  {"gYear", "1999Z", true}, {"gYear", "1999-05:00", true},
  {"gYear", "99", false}, {"gYear", "012345", false}, {"gYear", "1999-01", false},
  {"gYear", "+1999", false}, {"gYear", "", false},
  {"gYearMonth", "1999-05", true}, {"gYearMonth", "-0044-03Z", true},
  {"gYearMonth", "1999-13", false}, {"gYearMonth", "1999-5", false},
  {"gYearMonth", "1999", false}, {"gYearMonth", "1999-05-01", false},
  {"gMonth", "--05", true}, {"gMonth", "--12Z", true}, {"gMonth", "--11+02:00", true},
  {"gMonth", "--13", false}, {"gMonth", "-05", false}, {"gMonth", "--05--", false},
  {"gMonth", "05", false}, {"gMonth", "--00", false},
  {"gMonthDay", "--05-01", true}, {"gMonthDay", "--02-29", true},
  {"gMonthDay", "--12-31Z", true},
  {"gMonthDay", "--02-30", false}, {"gMonthDay", "--04-31", false},
  {"gMonthDay", "--5-01", false}, {"gMonthDay", "05-01", false},
  {"gDay", "---01", true}, {"gDay", "---31", true}, {"gDay", "---15Z", true},
  {"gDay", "---32", false}, {"gDay", "---00", false}, {"gDay", "--01", false},
  {"gDay", "---1", false},
  /* duration */
  {"duration", "P2Y6M5DT12H35M30S", true}, {"duration", "P1DT2H", true},
  {"duration", "P20M", true}, {"duration", "PT20M", true}, {"duration", "P0Y20M0D", true},
  {"duration", "P0Y", true}, {"duration", "-P60D", true}, {"duration", "PT1M30.5S", true},
  {"duration", "PT0.5S", true}, {"duration", "P1Y2M3DT4H5M6.7S", true}, {"duration", "PT36H", true},
  {"duration", "P-20M", false}, {"duration", "P20MT", false}, {"duration", "P1YM5D", false},
  {"duration", "P15.5Y", false}, {"duration", "P1D2H", false}, {"duration", "1Y", false},
  {"duration", "P", false}, {"duration", "PT", false}, {"duration", "PT15.S", false},
  {"duration", "P2M1Y", false}, {"duration", "PT1.5M", false}, {"duration", "P1Y1Y", false},
  {"duration", "-P", false}, {"duration", "+P1D", false}, {"duration", "P1W", false},
  {"duration", "p1d", false}, {"duration", "PT.5S", false},
  {"dayTimeDuration", "P1DT2H", true}, {"dayTimeDuration", "PT20M", true},
  {"dayTimeDuration", "-P3D", true},
  {"dayTimeDuration", "P1Y", false}, {"dayTimeDuration", "P1M", false},
  {"dayTimeDuration", "P1Y1D", false},
  {"yearMonthDuration", "P1Y2M", true}, {"yearMonthDuration", "-P20M", true},
  {"yearMonthDuration", "P1D", false}, {"yearMonthDuration", "PT1H", false},
  {"yearMonthDuration", "P1Y2MT", false},
  /* hexBinary */
  {"hexBinary", "", true}, {"hexBinary", "0FB7", true}, {"hexBinary", "0fb7", true},
  {"hexBinary", "deadBEEF", true},
  {"hexBinary", "0FB", false}, {"hexBinary", "0G", false}, {"hexBinary", "0F B7", false},
  {"hexBinary", "0x0F", false},
  /* base64Binary */
  {"base64Binary", "", true}, {"base64Binary", "QUJD", true}, {"base64Binary", "QUI=", true},
  {"base64Binary", "QQ==", true}, {"base64Binary", "QQ= =", true},
  {"base64Binary", "QU JD", true}, {"base64Binary", "Q U J D", true},
  {"base64Binary", "aGVsbG8gd29ybGQ=", true}, {"base64Binary", "+/+/", true},
  {"base64Binary", "QUJ", false}, {"base64Binary", "QUJD=", false},
  {"base64Binary", "QR==", false}, {"base64Binary", "QUJ=", false},
  {"base64Binary", "Q===", false}, {"base64Binary", "QU=D", false},
  {"base64Binary", " QUJD", false}, {"base64Binary", "QUJD ", false},
  {"base64Binary", "QU  JD", false}, {"base64Binary", "QU\nJD", false},
  {"base64Binary", "QU\tJD", false}, {"base64Binary", "QU_D", false},
  {"base64Binary", "====", false},
  /* anyURI */
  {"anyURI", "http://example.org/a?b=c#d", true}, {"anyURI", "", true},
  {"anyURI", "relative/path", true}, {"anyURI", "#frag", true},
  {"anyURI", "urn:isbn:0451450523", true}, {"anyURI", "http://example.org/%C3%A9", true},
  {"anyURI", "http://example.org/\xC3\xA9t\xC3\xA9", true}, {"anyURI", "mailto:a@b.c", true},
  {"anyURI", "http://example.org/a b", false}, {"anyURI", "http://example.org/<a>", false},
  {"anyURI", "http://example.org/\"", false}, {"anyURI", "http://example.org/{x}", false},
  {"anyURI", "http://example.org/a|b", false}, {"anyURI", "http://example.org/\\", false},
  {"anyURI", "http://example.org/%zz", false}, {"anyURI", "http://example.org/%4", false},
  {"anyURI", "http://example.org/\n", false}, {"anyURI", "http://example.org/\x7f", false},
  {"anyURI", "http://example.org/\xC3", false}, {"anyURI", "http://example.org/^", false},
  {"anyURI", "http://example.org/`", false},
  /* string family */
  {"string", "", true}, {"string", "hello world", true}, {"string", "tab\there\nline\r", true},
  {"string", "caf\xC3\xA9 \xF0\x9F\x98\x80", true},
  {"string", "bell\x07", false}, {"string", "\xC3\x28", false}, {"string", "\xED\xA0\x80", false},
  {"string", "\xC0\xAF", false}, {"string", "\xEF\xBF\xBE", false}, {"string", "\xF5\x80\x80\x80", false},
  {"normalizedString", "a b  c ", true}, {"normalizedString", "a\tb", false},
  {"normalizedString", "a\nb", false},
  {"token", "a b c", true}, {"token", "", true}, {"token", "one", true},
  {"token", " a", false}, {"token", "a ", false}, {"token", "a  b", false},
  {"token", "a\tb", false},
  {"language", "en", true}, {"language", "en-US", true}, {"language", "zh-Hant-TW", true},
  {"language", "x-klingon", true}, {"language", "de-1996", true},
  {"language", "", false}, {"language", "en_US", false}, {"language", "123", false},
  {"language", "en-", false}, {"language", "abcdefghi", false}, {"language", "en--US", false},
  {"Name", "foo", true}, {"Name", "_foo", true}, {"Name", "a:b", true}, {"Name", ":a", true},
  {"Name", "a-b.c1", true}, {"Name", "\xC3\xA9t\xC3\xA9", true},
  {"Name", "", false}, {"Name", "1a", false}, {"Name", "-a", false}, {"Name", "a b", false},
  {"Name", ".a", false},
  {"NCName", "foo", true}, {"NCName", "_x-1", true},
  {"NCName", "a:b", false}, {"NCName", ":a", false}, {"NCName", "1", false},
  {"NMTOKEN", "1a", true}, {"NMTOKEN", "-.:x", true},
  {"NMTOKEN", "", false}, {"NMTOKEN", "a b", false},
};

static void check_vector(const Vector *v)
{
  char iri[128];
  snprintf(iri, sizeof(iri), "%s%s", XSD, v->type);
  bool got = lw_literal_valid(iri, v->lex, strlen(v->lex));
  char detail[256];
  snprintf(detail, sizeof(detail), "\"%s\"^^xsd:%s should be %s", v->lex, v->type,
           v->valid ? "valid" : "invalid");
  lw_test_report(got == v->valid, __FILE__, __LINE__, "lw_literal_valid", detail);
}

int main(void)
{
  size_t n = sizeof(vectors) / sizeof(vectors[0]);
  size_t types = 0;
  for (size_t i = 0; i < n; ++i) {
    check_vector(&vectors[i]);
    if (i == 0 || strcmp(vectors[i].type, vectors[i - 1].type)) {
      char iri[128];
      snprintf(iri, sizeof(iri), "%s%s", XSD, vectors[i].type);
      /* Every datatype with vectors is one the module checks (this also
       * catches a mis-sorted lookup table). */
      lw_test_report(lw_literal_datatype_checked(iri), __FILE__, __LINE__,
                     "datatype checked", vectors[i].type);
      ++types;
    }
  }

  /* Datatypes we do not check are valid whatever the lexical form. */
  CHECK(lw_literal_valid("http://www.w3.org/1999/02/22-rdf-syntax-ns#langString", "x", 1));
  CHECK(lw_literal_valid("http://example.org/myType", "\x01", 1));
  CHECK(lw_literal_valid(XSD "gYearDay", "nonsense", 8));
  CHECK(lw_literal_valid(NULL, "x", 1));
  CHECK(!lw_literal_datatype_checked(XSD "anySimpleType"));
  CHECK(!lw_literal_datatype_checked(XSD));
  CHECK(!lw_literal_datatype_checked("http://www.w3.org/2001/XMLSchema#integer2"));
  CHECK(!lw_literal_datatype_checked(NULL));

  /* Lengths are respected: no NUL termination needed, embedded NUL refused. */
  CHECK(lw_literal_valid(XSD "integer", "12abc", 2));
  CHECK(!lw_literal_valid(XSD "integer", "1\0002", 3));
  CHECK(!lw_literal_valid(XSD "string", "a\0b", 3));
  CHECK(lw_literal_valid(XSD "date", "2024-02-29trailing", 10));
  CHECK(!lw_literal_valid(XSD "date", "2024-02-2", 9));
  CHECK(lw_literal_valid(XSD "string", NULL, 0));
  CHECK(!lw_literal_valid(XSD "integer", NULL, 0));

  /* Big years: leap-year rule on years beyond four digits. */
  CHECK(lw_literal_valid(XSD "date", "12000-02-29", 11));
  CHECK(!lw_literal_valid(XSD "date", "12100-02-29", 11));
  CHECK(lw_literal_valid(XSD "date", "123456789012345678904-02-29", 27));
  CHECK(!lw_literal_valid(XSD "date", "-1900-02-29", 11));
  CHECK(lw_literal_valid(XSD "date", "-0004-02-29", 11));

  printf("%zu vectors over %zu datatypes\n", n, types);
  return lw_test_finish();
}
