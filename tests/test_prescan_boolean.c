/*
 * Prefixed names whose prefix starts like a boolean ("false.ish:o",
 * "true-x:o", "false:o"): serd 0.30 read them as the literal true / false
 * (serd's test-boolish-prefix); the pre-scanner renames such prefixes so that
 * serd reads a prefixed name (rdf_readers/rdf_readers.h). Checked in Turtle and
 * TriG, in every position a prefixed name can take, with "true" and "false"
 * alone still booleans, a renamed prefix kept apart from one that was
 * written with the 'Z' already, the same bytes whatever the blocks, and
 * messages quoting the name as written. And characters a name may hold
 * but not start (U+00B7, U+0300-036F, U+203F-2040) right after the
 * letters of an object's prefix (`true·x:o`, `a·b:o`), which serd 0.30
 * read but reported as invalid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "rdf/rdf.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"

#define BOOLEAN "^^<http://www.w3.org/2001/XMLSchema#boolean>"

static LwStatus collect_quad(void *handle, const LwQuad *q)
{
  return lw_nquads_append(handle, q);
}

static void collect_error(void *handle, unsigned line, unsigned column, const char *message)
{
  char text[512];
  snprintf(text, sizeof(text), "%u:%u: %s\n", line, column, message);
  lw_buf_append_str(handle, text);
}

/* Reads text in format; returns its statements as N-Quads (to free), the
 * error messages in errors (to free). */
static char *read_text(const char *text, LwFormat format, char **errors)
{
  LwBuf out = LW_BUF_INIT, messages = LW_BUF_INIT;
  FILE *in = fmemopen((void *)text, strlen(text), "rb");
  LwReadOptions o = {.format = format,
                     .base_iri = "http://example.org/",
                     .on_quad = collect_quad,
                     .quad_handle = &out,
                     .on_error = collect_error,
                     .error_handle = &messages};
  LwReadStats stats;
  LwError err;
  CHECK_INT_EQ(lw_rdf_read(in, &o, &stats, &err), LW_OK);
  fclose(in);
  lw_buf_append_char(&out, '\0');
  lw_buf_append_char(&messages, '\0');
  *errors = lw_buf_steal(&messages);
  return lw_buf_steal(&out);
}

static void check_read(const char *doc, LwFormat format, const char *want)
{
  char *errors;
  char *got = read_text(doc, format, &errors);
  CHECK_STR_EQ(got, want);
  CHECK_STR_EQ(errors, "");
  free(got);
  free(errors);
}

#define PREFIXES                                                                           \
  "@prefix false.ish: <http://f/> .\n"                                                     \
  "@prefix true-x: <http://t/> .\n"                                                        \
  "PREFIX false: <http://F/>\n"                                                            \
  "@prefix true_1: <http://t1/> .\n"

/* serd's own test, then every position and every character that ends
 * serd's word */
static void test_turtle_positions(void)
{
  check_read("@prefix false.ish: <http://example.org/falseish#> .\n"
             "@prefix true.ish: <http://example.org/trueish#> .\n"
             "<http://example.org/s> <http://example.org/p> false.ish:o .\n"
             "<http://example.org/s> <http://example.org/p> true.ish:o .\n",
             LW_FORMAT_TURTLE,
             "<http://example.org/s> <http://example.org/p> "
             "<http://example.org/falseish#o> .\n"
             "<http://example.org/s> <http://example.org/p> "
             "<http://example.org/trueish#o> .\n");
  check_read(
    PREFIXES "false.ish:s true-x:p false:o .\n"
             "true_1:s false:p true_1:o, true-x:o ; false.ish:p false.ish:o.\n"
             "<http://e/s> <http://e/p> \"1\"^^false.ish:dt , \"2\"^^true-x:dt.\n"
             "<http://e/s> <http://e/p> ( false:o true true_1:o ) .\n"
             "<http://e/s> <http://e/p> [ true-x:p false.ish:o ] .\n",
    LW_FORMAT_TURTLE,
    "<http://f/s> <http://t/p> <http://F/o> .\n"
    "<http://t1/s> <http://F/p> <http://t1/o> .\n"
    "<http://t1/s> <http://F/p> <http://t/o> .\n"
    "<http://t1/s> <http://f/p> <http://f/o> .\n"
    "<http://e/s> <http://e/p> \"1\"^^<http://f/dt> .\n"
    "<http://e/s> <http://e/p> \"2\"^^<http://t/dt> .\n"
    "<http://e/s> <http://e/p> _:b1 .\n"
    "_:b1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://F/o> .\n"
    "_:b1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:b2 .\n"
    "_:b2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> \"true\"" BOOLEAN " .\n"
    "_:b2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:b3 .\n"
    "_:b3 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://t1/o> .\n"
    "_:b3 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .\n"
    "<http://e/s> <http://e/p> _:b4 .\n"
    "_:b4 <http://t/p> <http://f/o> .\n");
}

/* true and false alone, before every kind of end, stay booleans; names that
 * only start with the letters are left alone */
static void test_booleans_stay(void)
{
  check_read(
    "@prefix truex: <http://tx/> .\n"
    "@prefix falsehood: <http://fh/> .\n"
    "<http://e/s> <http://e/p> true, false ; <http://e/q> true.\n"
    "<http://e/s> <http://e/p> false .\n"
    "<http://e/s> <http://e/p> (true) , [ <http://e/q> false] .\n"
    "<http://e/s> <http://e/p> true.#end\n"
    "<http://e/s> <http://e/p> truex:o , falsehood:o .\n",
    LW_FORMAT_TURTLE,
    "<http://e/s> <http://e/p> \"true\"" BOOLEAN " .\n"
    "<http://e/s> <http://e/p> \"false\"" BOOLEAN " .\n"
    "<http://e/s> <http://e/q> \"true\"" BOOLEAN " .\n"
    "<http://e/s> <http://e/p> \"false\"" BOOLEAN " .\n"
    "<http://e/s> <http://e/p> _:b1 .\n"
    "_:b1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> \"true\"" BOOLEAN " .\n"
    "_:b1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .\n"
    "<http://e/s> <http://e/p> _:b2 .\n"
    "_:b2 <http://e/q> \"false\"" BOOLEAN " .\n"
    "<http://e/s> <http://e/p> \"true\"" BOOLEAN " .\n"
    "<http://e/s> <http://e/p> <http://tx/o> .\n"
    "<http://e/s> <http://e/p> <http://fh/o> .\n");
}

/* The added 'Z' keeps a renamed prefix apart from one written with it. */
static void test_renamed_apart(void)
{
  check_read("@prefix true.x: <http://a/> .\n"
             "@prefix Ztrue.x: <http://b/> .\n"
             "@prefix ZZfalse: <http://c/> .\n"
             "@prefix Zfalse: <http://d/> .\n"
             "@prefix false: <http://e/> .\n"
             "<http://e/s> <http://e/p> true.x:o, Ztrue.x:o, ZZfalse:o, "
             "Zfalse:o, false:o .\n",
             LW_FORMAT_TURTLE,
             "<http://e/s> <http://e/p> <http://a/o> .\n"
             "<http://e/s> <http://e/p> <http://b/o> .\n"
             "<http://e/s> <http://e/p> <http://c/o> .\n"
             "<http://e/s> <http://e/p> <http://d/o> .\n"
             "<http://e/s> <http://e/p> <http://e/o> .\n");
}

static void test_trig(void)
{
  check_read(PREFIXES "false.ish:g { false.ish:s true-x:p false:o, true . }\n"
                      "GRAPH true-x:g { true_1:s false:p false.ish:o }\n"
                      "{ <http://e/s> true-x:p false }\n",
             LW_FORMAT_TRIG,
             "<http://f/s> <http://t/p> <http://F/o> <http://f/g> .\n"
             "<http://f/s> <http://t/p> \"true\"" BOOLEAN " <http://f/g> .\n"
             "<http://t1/s> <http://F/p> <http://f/o> <http://t/g> .\n"
             "<http://e/s> <http://t/p> \"false\"" BOOLEAN " .\n");
}

/* Messages quote the name as written, not as serd got it. */
static void test_messages(void)
{
  char *errors;
  char *got = read_text("<http://e/s> <http://e/p> false.ish:o .\n"
                        "@prefix true-x: <rel/> .\n",
                        LW_FORMAT_TURTLE, &errors);
  CHECK_STR_EQ(got, "");
  CHECK(strstr(errors, "undefined prefix: false.ish:o") != NULL);
  CHECK(strstr(errors, "Zfalse") == NULL);
  free(got);
  free(errors);
}

/* The scanner gives the same bytes whatever the blocks: cut at every byte. */
static void test_blocks(void)
{
  const char *doc = "@prefix false.ish: <x> .\n<s> <p> \"1\"^^true-1:d, "
                    "false.ish:o, Ztrue:o, true.\n<s> <p> false";
  LwScanner s;
  LwBuf whole = LW_BUF_INIT;
  lw_scanner_init(&s, true, 64, 1024, NULL, NULL);
  CHECK_INT_EQ(lw_scanner_feed(&s, doc, strlen(doc), &whole), LW_SCAN_OK);
  CHECK_INT_EQ(lw_scanner_finish(&s, &whole), LW_SCAN_OK);
  CHECK_STR_EQ(whole.data, "@prefix Zfalse.ish: <x> .\n<s> <p> \"1\"^^Ztrue-1:d, "
                           "Zfalse.ish:o, ZZtrue:o, true .\n<s> <p> false");
  for (size_t cut = 0; cut <= strlen(doc); ++cut) {
    LwBuf bytes = LW_BUF_INIT;
    lw_scanner_init(&s, true, 64, 1024, NULL, NULL);
    CHECK_INT_EQ(lw_scanner_feed(&s, doc, cut, &bytes), LW_SCAN_OK);
    CHECK_INT_EQ(lw_scanner_feed(&s, doc + cut, strlen(doc) - cut, &bytes), LW_SCAN_OK);
    CHECK_INT_EQ(lw_scanner_finish(&s, &bytes), LW_SCAN_OK);
    CHECK_STR_EQ(bytes.data, whole.data);
    lw_buf_free(&bytes);
  }
  lw_buf_free(&whole);
  CHECK_STR_EQ(lw_scanner_written_name("Zfalse.ish:o"), "false.ish:o");
  CHECK_STR_EQ(lw_scanner_written_name("ZZtrue:o"), "Ztrue:o");
  CHECK_STR_EQ(lw_scanner_written_name("Ztruex:o"), "Ztruex:o");
  CHECK_STR_EQ(lw_scanner_written_name("ex:o"), "ex:o");
}

/* Valid Turtle with a character names hold but do not start, right after
 * the letters of a prefix: read without an error (serd reported "invalid
 * character U+00B7 in name" for objects); at the start of a name the
 * error stays. */
static void test_inner_name_characters(void)
{
  check_read("@prefix true\xC2\xB7x: <http://t/> .\n"
             "@prefix a\xC2\xB7" "b\xCC\x80" "c: <http://a/> .\n"
             "@prefix false\xE2\x80\xBFx: <http://f/> .\n"
             "<http://e/s> <http://e/p> true\xC2\xB7x:o, a\xC2\xB7" "b\xCC\x80" "c:o ;\n"
             "  <http://e/q> ( false\xE2\x80\xBFx:o true ), [ <http://e/r> true\xC2\xB7x: ] .\n"
             "true\xC2\xB7x:s a\xC2\xB7" "b\xCC\x80" "c:p false\xE2\x80\xBFx:o .\n",
             LW_FORMAT_TURTLE,
             "<http://e/s> <http://e/p> <http://t/o> .\n"
             "<http://e/s> <http://e/p> <http://a/o> .\n"
             "<http://e/s> <http://e/q> _:b1 .\n"
             "_:b1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://f/o> .\n"
             "_:b1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:b2 .\n"
             "_:b2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> \"true\"" BOOLEAN " .\n"
             "_:b2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> "
             "<http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .\n"
             "<http://e/s> <http://e/q> _:b3 .\n"
             "_:b3 <http://e/r> <http://t/> .\n"
             "<http://t/s> <http://a/p> <http://f/o> .\n");
  check_read("@prefix a\xC2\xB7" "b: <http://a/> .\n"
             "<http://e/s> <http://e/p> a\xC2\xB7" "b:o .\n",
             LW_FORMAT_TRIG, "<http://e/s> <http://e/p> <http://a/o> .\n");
  char *errors;
  char *got = read_text("<http://e/s> <http://e/p> \xC2\xB7x:o .\n", LW_FORMAT_TURTLE,
                        &errors);
  CHECK(strstr(errors, "1:") == errors);
  CHECK(strstr(errors, "invalid character U+00B7 in name") != NULL);
  free(got);
  free(errors);
}

int main(void)
{
  test_turtle_positions();
  test_booleans_stay();
  test_renamed_apart();
  test_trig();
  test_messages();
  test_blocks();
  test_inner_name_characters();
  return lw_test_finish();
}
