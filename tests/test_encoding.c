/* Encoding settlement: every input is written byte by byte by the test
 * (Latin-1 é as 0xE9, Windows-1252 € as 0x80, smart quotes 0x93/0x94, UTF-16
 * with hand-made code units) and the UTF-8 a user would expect is checked. */
#include "archive/archive.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/check.h"

static char *tmp;
static char in_path[4096];
static char out_path[4096];

static void write_file(const char *path, const void *data, size_t len)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

/* Reads a whole (small) file; caller frees; *len gets its size. */
static char *read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    *len = 0;
    return NULL;
  }
  char *buf = malloc(1 << 20);
  *len = fread(buf, 1, (1 << 20) - 1, f);
  buf[*len] = '\0';
  fclose(f);
  return buf;
}

/* Settles in_path (written from data) and returns the result; out_path is
 * removed first so that "nothing written" can be checked. */
static LwEncodingResult settle(const void *data, size_t len, LwStatus *st)
{
  write_file(in_path, data, len);
  unlink(out_path);
  LwEncodingResult res;
  LwError err;
  lw_error_clear(&err);
  *st = lw_encoding_settle(tmp, in_path, out_path, &res, &err);
  if (*st) {
    fprintf(stderr, "settle: %s\n", err.message);
  }
  return res;
}

/* Checks that out_path holds exactly expected (a UTF-8 string). */
static void check_output(const char *expected)
{
  size_t len;
  char *got = read_file(out_path, &len);
  CHECK(got != NULL);
  CHECK_INT_EQ(len, strlen(expected));
  CHECK_STR_EQ(got, expected);
  free(got);
}

static bool exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

static const char TTL_ASCII[] = "@prefix ex: <http://example.org/> .\n"
                                "ex:paris ex:name \"Paris\" ; ex:country ex:france .\n";

static void test_ascii_and_utf8_untouched(void)
{
  LwStatus st;
  LwEncodingResult r = settle(TTL_ASCII, strlen(TTL_ASCII), &st);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(r.encoding, "ASCII");
  CHECK(!r.recoded);
  CHECK(!exists(out_path));
  CHECK_INT_EQ(r.bytes_in, strlen(TTL_ASCII));

  const char *utf8 =
    "ex:a ex:name \"Zo\xC3\xAB caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\" .\n";
  r = settle(utf8, strlen(utf8), &st);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(r.encoding, "UTF-8");
  CHECK(!r.recoded);
  CHECK_INT_EQ(r.replaced, 0);
  CHECK(!exists(out_path));

  /* An empty file is ASCII. */
  r = settle("", 0, &st);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(r.encoding, "ASCII");
  CHECK(!r.recoded);
}

static void test_utf8_bom_removed(void)
{
  const char data[] = "\xEF\xBB\xBF"
                      "ex:a ex:b \"caf\xC3\xA9\" .\n";
  LwStatus st;
  LwEncodingResult r = settle(data, strlen(data), &st);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(r.encoding, "UTF-8");
  CHECK_STR_EQ(r.source, "bom");
  CHECK(r.bom);
  CHECK(r.recoded);
  CHECK_INT_EQ(r.replaced, 0);
  check_output("ex:a ex:b \"caf\xC3\xA9\" .\n");
  CHECK_INT_EQ(r.bytes_out, strlen(data) - 3);
  /* The output's content record: 19 characters, one LF line, its MD5. */
  char md5[LW_HASH_HEX_LEN + 1];
  lw_md5_hex(data + 3, strlen(data) - 3, md5);
  CHECK_STR_EQ(r.content.hash, md5);
  CHECK_INT_EQ(r.content.number_of_bytes, strlen(data) - 3);
  CHECK_INT_EQ(r.content.number_of_chars, 19);
  CHECK_INT_EQ(r.content.number_of_lines, 1);
  CHECK_INT_EQ(r.content.newline, LW_NEWLINE_LF);
}

/* Code points as UTF-16 (surrogate pairs above U+FFFF) or UTF-32 units,
 * little or big endian, after the matching BOM. */
static size_t encode_utf(const unsigned *cps, size_t n, int unit, bool le,
                         unsigned char *out)
{
  size_t o = 0;
  unsigned bom = 0xFEFF;
  for (size_t i = 0; i <= n; ++i) {
    unsigned cp = i == 0 ? bom : cps[i - 1];
    unsigned units[2] = {cp, 0};
    int count = 1;
    if (unit == 2 && cp > 0xFFFF) {
      units[0] = 0xD800 + ((cp - 0x10000) >> 10);
      units[1] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
      count = 2;
    }
    for (int u = 0; u < count; ++u) {
      for (int b = 0; b < unit; ++b) {
        int shift = le ? 8 * b : 8 * (unit - 1 - b);
        out[o++] = (unsigned char)(units[u] >> shift);
      }
    }
  }
  return o;
}

static void test_utf16_utf32_bom(void)
{
  /* ex:a ex:b "café €😀" . */
  static const unsigned cps[] = {'e',    'x',     ':', 'a', ' ', 'e', 'x',  ':',
                                 'b',    ' ',     '"', 'c', 'a', 'f', 0xE9, ' ',
                                 0x20AC, 0x1F600, '"', ' ', '.', '\n'};
  const char *expected = "ex:a ex:b \"caf\xC3\xA9 \xE2\x82\xAC\xF0\x9F\x98\x80\" .\n";
  size_t n = sizeof(cps) / sizeof(cps[0]);
  unsigned char buf[256];
  struct {
    int unit;
    bool le;
    const char *name;
  } cases[] = {{2, true, "UTF-16LE"},
               {2, false, "UTF-16BE"},
               {4, true, "UTF-32LE"},
               {4, false, "UTF-32BE"}};
  for (size_t c = 0; c < 4; ++c) {
    size_t len = encode_utf(cps, n, cases[c].unit, cases[c].le, buf);
    LwStatus st;
    LwEncodingResult r = settle(buf, len, &st);
    CHECK_INT_EQ(st, LW_OK);
    CHECK_STR_EQ(r.encoding, cases[c].name);
    CHECK_STR_EQ(r.source, "bom");
    CHECK(r.recoded);
    CHECK_INT_EQ(r.replaced, 0);
    check_output(expected);
  }

  /* A lone surrogate and an odd trailing byte: replaced, not a crash. */
  size_t len = encode_utf(cps, 4, 2, true, buf);
  buf[len++] = 0x00; /* U+D800 alone, little endian */
  buf[len++] = 0xD8;
  buf[len++] = 'b';
  buf[len++] = 0;
  buf[len++] = 'c'; /* half a code unit */
  LwStatus st;
  LwEncodingResult r = settle(buf, len, &st);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(r.replaced, 2);
  check_output("ex:a\xEF\xBF\xBD"
               "b\xEF\xBF\xBD");
}

/* A Turtle file as a French data provider would write it in Latin-1. */
static const char LATIN1_TTL[] =
  "@prefix ex: <http://example.org/> .\n"
  "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
  "ex:montreal rdfs:label \"Montr\xE9"
  "al\"@fr ; ex:pays \"Canada\" .\n"
  "ex:quebec rdfs:label \"Qu\xE9"
  "bec\"@fr ; rdfs:comment \"Ville fond\xE9"
  "e en 1608, "
  "capitale de la province. La r\xE9gion est c\xE9l\xE8"
  "bre pour ses for\xEAts, "
  "ses lacs et son caf\xE9 tr\xE8s fran\xE7"
  "ais.\"@fr .\n"
  "ex:geneve rdfs:label \"Gen\xE8ve\"@fr ; rdfs:comment \"Une ville o\xF9 l'on "
  "parle fran\xE7"
  "ais, pr\xE8s du lac L\xE9man, tr\xE8s visit\xE9"
  "e en \xE9t\xE9.\"@fr .\n";

static void test_latin1(void)
{
  LwStatus st;
  LwEncodingResult r = settle(LATIN1_TTL, strlen(LATIN1_TTL), &st);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(!strcmp(r.encoding, "ISO-8859-1") || !strcmp(r.encoding, "WINDOWS-1252") ||
        !strcmp(r.encoding, "ISO-8859-15"));
  CHECK_STR_EQ(r.source, "uchardet");
  CHECK(r.recoded);
  CHECK_INT_EQ(r.replaced, 0);
  size_t len;
  char *got = read_file(out_path, &len);
  CHECK(got && strstr(got, "\"Montr\xC3\xA9"
                           "al\"@fr"));
  CHECK(got && strstr(got, "\"Qu\xC3\xA9"
                           "bec\"@fr"));
  CHECK(got && strstr(got, "Gen\xC3\xA8ve"));
  CHECK(got && strstr(got, "fran\xC3\xA7"
                           "ais"));
  CHECK_INT_EQ(r.bytes_out, len);
  free(got);
}

/* The same from a Windows editor: euro signs and “smart quotes”. */
static const char CP1252_TTL[] =
  "@prefix ex: <http://example.org/> .\n"
  "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
  "ex:offre rdfs:label \"Caf\xE9 \x93"
  "cr\xE8me\x94 \xE0 3 \x80\"@fr ;\n"
  "  rdfs:comment \"Le menu \x93"
  "d\xE9jeuner\x94 co\xFBte 12 \x80, le \x93"
  "d\xEEner\x94 "
  "co\xFBte 20 \x80 \x96 boissons comprises. C\x92"
  "est l\x92offre la plus "
  "appr\xE9"
  "ci\xE9"
  "e de l\x92"
  "\xE9t\xE9.\"@fr .\n"
  "ex:prix ex:montant \"15 \x80\" ; rdfs:comment \"Prix \x93sp\xE9"
  "cial\x94 pour "
  "les \xE9tudiants\x85\"@fr .\n";

static void test_cp1252(void)
{
  LwStatus st;
  LwEncodingResult r = settle(CP1252_TTL, strlen(CP1252_TTL), &st);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(!strcmp(r.encoding, "WINDOWS-1252") || !strcmp(r.encoding, "ISO-8859-1"));
  CHECK(r.recoded);
  CHECK_INT_EQ(r.replaced, 0);
  size_t len;
  char *got = read_file(out_path, &len);
  /* “crème” à 3 € */
  CHECK(got && strstr(got, "Caf\xC3\xA9 \xE2\x80\x9C"
                           "cr\xC3\xA8me\xE2\x80\x9D \xC3\xA0 3 \xE2\x82\xAC"));
  CHECK(got && strstr(got, "C\xE2\x80\x99"
                           "est"));                          /* ’ */
  CHECK(got && strstr(got, "20 \xE2\x82\xAC \xE2\x80\x93")); /* € – */
  CHECK(got && strstr(got, "\xC3\xA9tudiants\xE2\x80\xA6")); /* … */
  free(got);
}

static void test_invalid_utf8(void)
{
  /* Mostly good UTF-8 with a stray 0xFF, 0xFE, a lead byte followed by
   * ASCII and a sequence cut off at the end of the file. */
  const char data[] = "ex:a ex:b \"caf\xC3\xA9 na\xC3\xAFve \xFF r\xC3\xA9sum\xC3\xA9 \xFE"
                      " \xC3(\" .\n\xE2\x82";
  LwStatus st;
  LwEncodingResult r = settle(data, strlen(data), &st);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(r.encoding, "UTF-8");
  CHECK(r.recoded);
  CHECK_INT_EQ(r.replaced, 4);
  check_output("ex:a ex:b \"caf\xC3\xA9 na\xC3\xAFve \xEF\xBF\xBD r\xC3\xA9sum\xC3\xA9 "
               "\xEF\xBF\xBD \xEF\xBF\xBD(\" .\n\xEF\xBF\xBD");
}

/* What glibc's iconv lets through (code points above U+10FFFF), surrogates,
 * overlong forms and a cut sequence: each maximal ill-formed subpart is one
 * U+FFFD, as the Unicode standard recommends. */
static void test_utf8_subparts(void)
{
  const char data[] = "\xEF\xBB\xBF"
                      "a\xF7\xBE\xBE\xBE"
                      "b\xED\xA0\x80"
                      "c\xC0\xAF"
                      "d\xF0\x9F\x98"
                      "x"
                      "\xF0\x9F\x98\x80.";
  LwStatus st;
  LwEncodingResult r = settle(data, strlen(data), &st);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(r.source, "bom");
  CHECK_INT_EQ(r.replaced, 10);
  const char *R = "\xEF\xBF\xBD";
  char expected[256];
  snprintf(expected, sizeof(expected), "a%s%s%s%sb%s%s%sc%s%sd%sx\xF0\x9F\x98\x80.", R, R,
           R, R, R, R, R, R, R, R);
  check_output(expected);
}

/* A file whose sample is pure ASCII and whose first accent (Latin-1) comes
 * after the sample: the second look recodes it as Latin-1, not as broken
 * UTF-8. */
static void test_latin1_after_sample(void)
{
  size_t pad = LW_ENCODING_SAMPLE + 1000;
  size_t len = pad + strlen(LATIN1_TTL);
  char *data = malloc(len + 1);
  for (size_t i = 0; i < pad; ++i) {
    data[i] = (i % 64 == 63) ? '\n' : '#';
  }
  memcpy(data + pad, LATIN1_TTL, strlen(LATIN1_TTL) + 1);
  LwStatus st;
  LwEncodingResult r = settle(data, len, &st);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(strcmp(r.encoding, "UTF-8") && strcmp(r.encoding, "ASCII"));
  CHECK(r.recoded);
  CHECK_INT_EQ(r.replaced, 0);
  size_t got_len;
  char *got = read_file(out_path, &got_len);
  CHECK(got && strstr(got, "\"Montr\xC3\xA9"
                           "al\"@fr"));
  free(got);
  free(data);
}

/* Recoding in place: out_path == in_path replaces the original atomically. */
static void test_in_place(void)
{
  write_file(in_path, LATIN1_TTL, strlen(LATIN1_TTL));
  LwEncodingResult r;
  LwError err;
  CHECK_INT_EQ(lw_encoding_settle(tmp, in_path, in_path, &r, &err), LW_OK);
  CHECK(r.recoded);
  size_t len;
  char *got = read_file(in_path, &len);
  CHECK(got && strstr(got, "Montr\xC3\xA9"
                           "al"));
  free(got);
}

static void test_errors(void)
{
  LwEncodingResult r;
  LwError err;
  CHECK_INT_EQ(lw_encoding_settle(tmp, "/nonexistent/file", out_path, &r, &err), LW_ERR_IO);
  CHECK(strstr(err.message, "/nonexistent/file") != NULL);

  FILE *in = fopen(in_path, "rb");
  FILE *out = tmpfile();
  uint64_t replaced = 0, bytes = 0;
  CHECK_INT_EQ(
    lw_encoding_recode(in, "NO-SUCH-ENCODING-42", out, NULL, &replaced, &bytes, &err),
    LW_ERR_FORMAT);
  fclose(in);
  fclose(out);
}

int main(void)
{
  tmp = lw_test_tmpdir();
  snprintf(in_path, sizeof(in_path), "%s/input.ttl", tmp);
  snprintf(out_path, sizeof(out_path), "%s/utf8/out.ttl", tmp);
  test_ascii_and_utf8_untouched();
  test_utf8_bom_removed();
  test_utf16_utf32_bom();
  test_latin1();
  test_cp1252();
  test_invalid_utf8();
  test_utf8_subparts();
  test_latin1_after_sample();
  test_in_place();
  test_errors();
  lw_test_rmtree(tmp);
  free(tmp);
  return lw_test_finish();
}
