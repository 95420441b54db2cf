/*
 * Lexical validation of XSD literals: one small scanner per family of
 * datatypes, each a straight walk over the bytes (XML Schema 1.1 Part 2,
 * the lexical space grammars of section 3 and the facets of the built-in
 * derived types). No allocation, no locale, no regex.
 */
#include "rdf/rdf.h"

#include <stdint.h>
#include <string.h>

/* A cursor over the lexical form. */
typedef struct {
  const unsigned char *s;
  size_t len;
  size_t pos;
} Scan;

static bool at_end(const Scan *sc)
{
  return sc->pos >= sc->len;
}

static int peek(const Scan *sc)
{
  return sc->pos < sc->len ? sc->s[sc->pos] : -1;
}

static bool eat(Scan *sc, int c)
{
  if (peek(sc) == c) {
    ++sc->pos;
    return true;
  }
  return false;
}

static bool is_digit(int c)
{
  return c >= '0' && c <= '9';
}

/* Reads one or more digits; returns how many. */
static size_t digits(Scan *sc)
{
  size_t start = sc->pos;
  while (is_digit(peek(sc))) {
    ++sc->pos;
  }
  return sc->pos - start;
}

/* Reads exactly n digits as a number, or returns -1. */
static int fixed_digits(Scan *sc, size_t n)
{
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    int c = peek(sc);
    if (!is_digit(c)) {
      return -1;
    }
    v = v * 10 + (c - '0');
    ++sc->pos;
  }
  return v;
}

/* ---- integers ------------------------------------------------------- */

/* A bound on an integer value: NULL magnitude = unbounded on that side. */
typedef struct {
  const char *min_mag; /* magnitude of the minimum */
  bool min_neg;        /* the minimum is negative (or -0) */
  const char *max_mag; /* magnitude of the maximum */
  bool max_neg;
} IntRange;

/* Compares two magnitudes written without leading zeros ("" = 0). */
static int cmp_mag(const char *a, size_t alen, const char *b, size_t blen)
{
  if (alen != blen) {
    return alen < blen ? -1 : 1;
  }
  int c = memcmp(a, b, alen);
  return (c > 0) - (c < 0);
}

/* Compares signed values (neg, magnitude); -0 equals 0. */
static int cmp_signed(bool an, const char *a, size_t alen, bool bn, const char *b,
                      size_t blen)
{
  if (alen == 0) {
    an = false;
  }
  if (blen == 0) {
    bn = false;
  }
  if (an != bn) {
    return an ? -1 : 1;
  }
  int c = cmp_mag(a, alen, b, blen);
  return an ? -c : c;
}

static bool valid_integer(const char *lex, size_t len, const IntRange *range)
{
  Scan sc = {(const unsigned char *)lex, len, 0};
  bool neg = eat(&sc, '-');
  if (!neg) {
    eat(&sc, '+');
  }
  size_t start = sc.pos;
  if (digits(&sc) == 0 || !at_end(&sc)) {
    return false;
  }
  while (start < len && lex[start] == '0') {
    ++start;
  }
  const char *mag = lex + start;
  size_t mlen = len - start;
  if (range && range->min_mag &&
      cmp_signed(neg, mag, mlen, range->min_neg, range->min_mag, strlen(range->min_mag)) <
        0) {
    return false;
  }
  if (range && range->max_mag &&
      cmp_signed(neg, mag, mlen, range->max_neg, range->max_mag, strlen(range->max_mag)) >
        0) {
    return false;
  }
  return true;
}

/* ---- decimal, double, float, boolean -------------------------------- */

/* [+-]? (digits ('.' digits?)? | '.' digits): true when a numeral was read. */
static bool decimal_numeral(Scan *sc)
{
  if (!eat(sc, '-')) {
    eat(sc, '+');
  }
  size_t whole = digits(sc);
  size_t frac = 0;
  if (eat(sc, '.')) {
    frac = digits(sc);
  }
  return whole > 0 || frac > 0;
}

static bool valid_decimal(const char *lex, size_t len)
{
  Scan sc = {(const unsigned char *)lex, len, 0};
  return decimal_numeral(&sc) && at_end(&sc);
}

static bool lex_is(const char *lex, size_t len, const char *word)
{
  return strlen(word) == len && !memcmp(lex, word, len);
}

static bool valid_double(const char *lex, size_t len)
{
  if (lex_is(lex, len, "INF") || lex_is(lex, len, "-INF") || lex_is(lex, len, "+INF") ||
      lex_is(lex, len, "NaN")) {
    return true;
  }
  Scan sc = {(const unsigned char *)lex, len, 0};
  if (!decimal_numeral(&sc)) {
    return false;
  }
  if (eat(&sc, 'e') || eat(&sc, 'E')) {
    if (!eat(&sc, '-')) {
      eat(&sc, '+');
    }
    if (digits(&sc) == 0) {
      return false;
    }
  }
  return at_end(&sc);
}

static bool valid_boolean(const char *lex, size_t len)
{
  return lex_is(lex, len, "true") || lex_is(lex, len, "false") || lex_is(lex, len, "1") ||
         lex_is(lex, len, "0");
}

/* ---- dates and times ------------------------------------------------ */

/* The year: '-'? (four digits | [1-9] digit{4,}); sets *leap. */
static bool year(Scan *sc, bool *leap)
{
  eat(sc, '-');
  size_t start = sc->pos;
  size_t n = digits(sc);
  if (n < 4 || (n > 4 && sc->s[start] == '0')) {
    return false;
  }
  /* Leap if divisible by 400, or by 4 and not by 100 (XSD 1.1 uses the
   * year number as written, with 0000 a leap year). */
  unsigned mod400 = 0;
  for (size_t i = start; i < sc->pos; ++i) {
    mod400 = (mod400 * 10 + (unsigned)(sc->s[i] - '0')) % 400;
  }
  *leap = mod400 % 400 == 0 || (mod400 % 4 == 0 && mod400 % 100 != 0);
  return true;
}

static int days_in_month(int month, bool leap)
{
  static const int days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2) {
    return leap ? 29 : 28;
  }
  return days[month - 1];
}

static bool month(Scan *sc, int *m)
{
  *m = fixed_digits(sc, 2);
  return *m >= 1 && *m <= 12;
}

static bool day(Scan *sc, int *d)
{
  *d = fixed_digits(sc, 2);
  return *d >= 1 && *d <= 31;
}

/* Optional timezone: Z | [+-]hh:mm with hh:mm at most 14:00. */
static bool tz_part(Scan *sc, bool required)
{
  if (eat(sc, 'Z')) {
    return true;
  }
  if (!eat(sc, '+') && !eat(sc, '-')) {
    return !required;
  }
  int h = fixed_digits(sc, 2);
  if (h < 0 || !eat(sc, ':')) {
    return false;
  }
  int m = fixed_digits(sc, 2);
  return m >= 0 && m <= 59 && (h < 14 || (h == 14 && m == 0));
}

/* hh:mm:ss('.'digits)?, with 24:00:00 (and zero fractions) allowed. */
static bool time_of_day(Scan *sc)
{
  int h = fixed_digits(sc, 2);
  if (h < 0 || h > 24 || !eat(sc, ':')) {
    return false;
  }
  int m = fixed_digits(sc, 2);
  if (m < 0 || m > 59 || !eat(sc, ':')) {
    return false;
  }
  int s = fixed_digits(sc, 2);
  if (s < 0 || s > 59) {
    return false;
  }
  bool zero_frac = true;
  if (eat(sc, '.')) {
    size_t start = sc->pos;
    if (digits(sc) == 0) {
      return false;
    }
    for (size_t i = start; i < sc->pos; ++i) {
      zero_frac = zero_frac && sc->s[i] == '0';
    }
  }
  return h < 24 || (m == 0 && s == 0 && zero_frac);
}

/* year '-' mm '-' dd */
static bool date_part(Scan *sc)
{
  bool leap;
  int m, d;
  return year(sc, &leap) && eat(sc, '-') && month(sc, &m) && eat(sc, '-') && day(sc, &d) &&
         d <= days_in_month(m, leap);
}

typedef enum {
  DT_DATE,
  DT_DATETIME,
  DT_DATETIMESTAMP,
  DT_TIME,
  DT_GYEAR,
  DT_GYEARMONTH,
  DT_GMONTH,
  DT_GMONTHDAY,
  DT_GDAY
} DateKind;

static bool valid_date(const char *lex, size_t len, DateKind kind)
{
  Scan sc = {(const unsigned char *)lex, len, 0};
  bool leap;
  int m, d;
  bool ok;
  switch (kind) {
  case DT_DATE:
    ok = date_part(&sc);
    break;
  case DT_DATETIME:
  case DT_DATETIMESTAMP:
    ok = date_part(&sc) && eat(&sc, 'T') && time_of_day(&sc);
    break;
  case DT_TIME:
    ok = time_of_day(&sc);
    break;
  case DT_GYEAR:
    ok = year(&sc, &leap);
    break;
  case DT_GYEARMONTH:
    ok = year(&sc, &leap) && eat(&sc, '-') && month(&sc, &m);
    break;
  case DT_GMONTH:
    ok = eat(&sc, '-') && eat(&sc, '-') && month(&sc, &m);
    break;
  case DT_GMONTHDAY:
    /* --02-29 is allowed: a gMonthDay has no year. */
    ok = eat(&sc, '-') && eat(&sc, '-') && month(&sc, &m) && eat(&sc, '-') &&
         day(&sc, &d) && d <= days_in_month(m, true);
    break;
  case DT_GDAY:
    ok = eat(&sc, '-') && eat(&sc, '-') && eat(&sc, '-') && day(&sc, &d);
    break;
  default:
    ok = false;
  }
  return ok && tz_part(&sc, kind == DT_DATETIMESTAMP) && at_end(&sc);
}

/* ---- durations ------------------------------------------------------ */

typedef enum { DUR_ANY, DUR_DAYTIME, DUR_YEARMONTH } DurKind;

/* -?P (nY)? (nM)? (nD)? (T (nH)? (nM)? (n(.n)?S)?)? with at least one
 * component, and at least one after a T. */
static bool valid_duration(const char *lex, size_t len, DurKind kind)
{
  Scan sc = {(const unsigned char *)lex, len, 0};
  eat(&sc, '-');
  if (!eat(&sc, 'P')) {
    return false;
  }
  static const char date_units[] = "YMD";
  static const char time_units[] = "HMS";
  size_t components = 0;
  size_t next = 0; /* index of the next allowed unit */
  bool in_time = false;
  while (!at_end(&sc)) {
    if (!in_time && eat(&sc, 'T')) {
      if (kind == DUR_YEARMONTH) {
        return false;
      }
      in_time = true;
      next = 0;
      if (at_end(&sc)) {
        return false; /* a T needs a component */
      }
      continue;
    }
    size_t n = digits(&sc);
    bool frac = false;
    if (in_time && eat(&sc, '.')) {
      if (digits(&sc) == 0) {
        return false;
      }
      frac = true;
    }
    if (n == 0) {
      return false;
    }
    const char *units = in_time ? time_units : date_units;
    int u = peek(&sc);
    size_t k = next;
    while (k < 3 && units[k] != u) {
      ++k;
    }
    if (k == 3 || (frac && u != 'S')) {
      return false;
    }
    if (kind == DUR_DAYTIME && !in_time && u != 'D') {
      return false;
    }
    if (kind == DUR_YEARMONTH && u == 'D') {
      return false;
    }
    ++sc.pos;
    next = k + 1;
    ++components;
  }
  return components > 0;
}

/* ---- binary --------------------------------------------------------- */

static int hex_value(int c)
{
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

static bool valid_hex_binary(const char *lex, size_t len)
{
  if (len % 2) {
    return false;
  }
  for (size_t i = 0; i < len; ++i) {
    if (hex_value((unsigned char)lex[i]) < 0) {
      return false;
    }
  }
  return true;
}

static bool is_b64(int c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '+' ||
         c == '/';
}

/* XSD's Base64Binary grammar: groups of four characters, single spaces
 * allowed between any two characters (not at the ends), '=' padding only at
 * the end, and the last character before the padding must have its unused
 * bits zero (B16 before '=', B04 before '=='). */
static bool valid_base64(const char *lex, size_t len)
{
  size_t count = 0;
  size_t pad = 0;
  int before_pad = -1; /* the last data character */
  bool space_ok = false;
  for (size_t i = 0; i < len; ++i) {
    int c = (unsigned char)lex[i];
    if (c == ' ') {
      if (!space_ok || i + 1 == len) {
        return false;
      }
      space_ok = false;
      continue;
    }
    space_ok = true;
    if (c == '=') {
      ++pad;
      if (pad > 2) {
        return false;
      }
    } else if (is_b64(c) && pad == 0) {
      before_pad = c;
    } else {
      return false;
    }
    ++count;
  }
  if (count % 4) {
    return false;
  }
  if (pad == 1) {
    return before_pad >= 0 && strchr("AEIMQUYcgkosw048", before_pad);
  }
  if (pad == 2) {
    return before_pad >= 0 && strchr("AQgw", before_pad);
  }
  return true;
}

/* ---- strings, names, URIs ------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (not overlong, no surrogates,
 * at most U+10FFFF, not U+FFFE/U+FFFF), or 0. *cp gets the code point. */
static size_t utf8_char(const unsigned char *s, size_t avail, uint32_t *cp)
{
  unsigned char c = s[0];
  size_t n;
  uint32_t v;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    v = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    v = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    v = c & 0x07;
  } else {
    return 0;
  }
  if (avail < n) {
    return 0;
  }
  for (size_t i = 1; i < n; ++i) {
    if ((s[i] & 0xC0) != 0x80) {
      return 0;
    }
    v = (v << 6) | (s[i] & 0x3F);
  }
  if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || v > 0x10FFFF ||
      (v >= 0xD800 && v <= 0xDFFF) || v == 0xFFFE || v == 0xFFFF) {
    return 0;
  }
  *cp = v;
  return n;
}

typedef enum { STR_STRING, STR_NORMALIZED, STR_TOKEN } StrKind;

/* XML characters only; normalizedString without tab/CR/LF; token also
 * without leading, trailing or double spaces. */
static bool valid_string(const char *lex, size_t len, StrKind kind)
{
  const unsigned char *s = (const unsigned char *)lex;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    size_t n = utf8_char(s + i, len - i, &cp);
    if (n == 0) {
      return false;
    }
    if (cp < 0x20) {
      if ((cp != '\t' && cp != '\n' && cp != '\r') || kind != STR_STRING) {
        return false;
      }
    }
    if (kind == STR_TOKEN && cp == ' ' && (i == 0 || i + 1 == len || s[i + 1] == ' ')) {
      return false;
    }
    i += n;
  }
  return true;
}

static bool valid_language(const char *lex, size_t len)
{
  /* [a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})* */
  size_t run = 0;
  bool first = true;
  for (size_t i = 0; i < len; ++i) {
    int c = (unsigned char)lex[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (c == '-') {
      if (run == 0) {
        return false;
      }
      run = 0;
      first = false;
    } else if (alpha || (!first && is_digit(c))) {
      if (++run > 8) {
        return false;
      }
    } else {
      return false;
    }
  }
  return run > 0;
}

typedef enum { NAME_NAME, NAME_NCNAME, NAME_NMTOKEN } NameKind;

/* XML names at the ASCII level; any valid non-ASCII character counts as a
 * name character (the full Unicode tables are not worth it here). */
static bool valid_name(const char *lex, size_t len, NameKind kind)
{
  const unsigned char *s = (const unsigned char *)lex;
  if (len == 0) {
    return false;
  }
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    size_t n = utf8_char(s + i, len - i, &cp);
    if (n == 0) {
      return false;
    }
    bool start = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_' ||
                 (cp == ':' && kind != NAME_NCNAME) ||
                 (cp >= 0xC0 && cp != 0xD7 && cp != 0xF7);
    bool other = is_digit((int)cp) || cp == '-' || cp == '.' || cp == 0xB7;
    if (!start && !(other && (i > 0 || kind == NAME_NMTOKEN))) {
      return false;
    }
    i += n;
  }
  return true;
}

/* An IRI reference (RFC 3987 characters): no controls, spaces or the
 * characters IRIs exclude, '%' followed by two hex digits, valid UTF-8. */
static bool valid_any_uri(const char *lex, size_t len)
{
  const unsigned char *s = (const unsigned char *)lex;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    size_t n = utf8_char(s + i, len - i, &cp);
    if (n == 0 || cp <= 0x20 || (cp >= 0x7F && cp <= 0x9F) ||
        (cp < 0x80 && strchr("<>\"{}|\\^`", (int)cp))) {
      return false;
    }
    if (cp == '%' && (i + 2 >= len || hex_value(s[i + 1]) < 0 || hex_value(s[i + 2]) < 0)) {
      return false;
    }
    i += n;
  }
  return true;
}

/* ---- the datatype table --------------------------------------------- */

typedef enum {
  K_INTEGER,
  K_DECIMAL,
  K_DOUBLE,
  K_BOOLEAN,
  K_DATE,
  K_DURATION,
  K_HEX,
  K_BASE64,
  K_ANYURI,
  K_STRING,
  K_LANGUAGE,
  K_NAME
} Kind;

typedef struct {
  const char *local; /* the local name in the XSD namespace */
  Kind kind;
  int sub;        /* DateKind, DurKind, StrKind or NameKind */
  IntRange range; /* for K_INTEGER */
} Datatype;

#define INT_TYPE(n, mn, mneg, mx, mxneg)                                                   \
  {                                                                                        \
    n, K_INTEGER, 0,                                                                       \
    {                                                                                      \
      mn, mneg, mx, mxneg                                                                  \
    }                                                                                      \
  }
#define OTHER(n, k, sub)                                                                   \
  {                                                                                        \
    n, k, sub,                                                                             \
    {                                                                                      \
      NULL, false, NULL, false                                                             \
    }                                                                                      \
  }

static const Datatype datatypes[] = {
  OTHER("NCName", K_NAME, NAME_NCNAME),
  OTHER("NMTOKEN", K_NAME, NAME_NMTOKEN),
  OTHER("Name", K_NAME, NAME_NAME),
  OTHER("anyURI", K_ANYURI, 0),
  OTHER("base64Binary", K_BASE64, 0),
  OTHER("boolean", K_BOOLEAN, 0),
  INT_TYPE("byte", "128", true, "127", false),
  OTHER("date", K_DATE, DT_DATE),
  OTHER("dateTime", K_DATE, DT_DATETIME),
  OTHER("dateTimeStamp", K_DATE, DT_DATETIMESTAMP),
  OTHER("dayTimeDuration", K_DURATION, DUR_DAYTIME),
  OTHER("decimal", K_DECIMAL, 0),
  OTHER("double", K_DOUBLE, 0),
  OTHER("duration", K_DURATION, DUR_ANY),
  OTHER("float", K_DOUBLE, 0),
  OTHER("gDay", K_DATE, DT_GDAY),
  OTHER("gMonth", K_DATE, DT_GMONTH),
  OTHER("gMonthDay", K_DATE, DT_GMONTHDAY),
  OTHER("gYear", K_DATE, DT_GYEAR),
  OTHER("gYearMonth", K_DATE, DT_GYEARMONTH),
  OTHER("hexBinary", K_HEX, 0),
  INT_TYPE("int", "2147483648", true, "2147483647", false),
  INT_TYPE("integer", NULL, false, NULL, false),
  OTHER("language", K_LANGUAGE, 0),
  INT_TYPE("long", "9223372036854775808", true, "9223372036854775807", false),
  INT_TYPE("negativeInteger", NULL, false, "1", true),
  INT_TYPE("nonNegativeInteger", "", false, NULL, false),
  INT_TYPE("nonPositiveInteger", NULL, false, "", false),
  OTHER("normalizedString", K_STRING, STR_NORMALIZED),
  INT_TYPE("positiveInteger", "1", false, NULL, false),
  INT_TYPE("short", "32768", true, "32767", false),
  OTHER("string", K_STRING, STR_STRING),
  OTHER("time", K_DATE, DT_TIME),
  OTHER("token", K_STRING, STR_TOKEN),
  INT_TYPE("unsignedByte", "", false, "255", false),
  INT_TYPE("unsignedInt", "", false, "4294967295", false),
  INT_TYPE("unsignedLong", "", false, "18446744073709551615", false),
  INT_TYPE("unsignedShort", "", false, "65535", false),
  OTHER("yearMonthDuration", K_DURATION, DUR_YEARMONTH),
};

/* Called for every typed literal: compare the namespace once, then only
 * the table entries with the same local-name length and first letter. */
static const Datatype *find_datatype(const char *iri)
{
  static const size_t ns_len = sizeof(LW_XSD_NS) - 1;
  if (!iri || strncmp(iri, LW_XSD_NS, ns_len) != 0) {
    return NULL;
  }
  const char *local = iri + ns_len;
  size_t n = strlen(local);
  for (size_t i = 0; i < sizeof(datatypes) / sizeof(datatypes[0]); ++i) {
    const char *name = datatypes[i].local;
    if (name[0] == local[0] && strlen(name) == n && !memcmp(name, local, n)) {
      return &datatypes[i];
    }
  }
  return NULL;
}

bool lw_literal_datatype_checked(const char *datatype_iri)
{
  return find_datatype(datatype_iri) != NULL;
}

bool lw_literal_valid(const char *datatype_iri, const char *lexical, size_t len)
{
  const Datatype *dt = find_datatype(datatype_iri);
  if (!dt) {
    return true;
  }
  if (!lexical) {
    return len == 0 && (dt->kind == K_STRING || dt->kind == K_HEX || dt->kind == K_BASE64 ||
                        dt->kind == K_ANYURI);
  }
  switch (dt->kind) {
  case K_INTEGER:
    return valid_integer(lexical, len, &dt->range);
  case K_DECIMAL:
    return valid_decimal(lexical, len);
  case K_DOUBLE:
    return valid_double(lexical, len);
  case K_BOOLEAN:
    return valid_boolean(lexical, len);
  case K_DATE:
    return valid_date(lexical, len, (DateKind)dt->sub);
  case K_DURATION:
    return valid_duration(lexical, len, (DurKind)dt->sub);
  case K_HEX:
    return valid_hex_binary(lexical, len);
  case K_BASE64:
    return valid_base64(lexical, len);
  case K_ANYURI:
    return valid_any_uri(lexical, len);
  case K_STRING:
    return valid_string(lexical, len, (StrKind)dt->sub);
  case K_LANGUAGE:
    return valid_language(lexical, len);
  case K_NAME:
    return valid_name(lexical, len, (NameKind)dt->sub);
  }
  return false;
}
