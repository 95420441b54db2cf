/*
 * The W3C JSON-LD 1.1 suite's HTML tests (html-manifest.jsonld, tests/html/)
 * that apply to lodwash: the toRdf ones (ToRDFTest), read through
 * lw_rdf_read as LW_FORMAT_JSONLD_HTML pages, with their options:
 * extractAllScripts (LW_HTML_SCRIPTS_ALL, else LW_HTML_SCRIPTS_FIRST as the
 * API's default), a fragment in the input naming one script, base. The
 * expand, compact and flatten tests are not applicable (lodwash makes RDF).
 *
 * Positive tests: no error reported, quads isomorphic to the expected
 * N-Quads (tests/support/jsonld_nquads_compare.h, as test_jsonld_suite).
 * Negative tests: lodwash is lax, so the bad script (or the missing one) is
 * a reported error, not a failed read: the first error reported must start
 * with the expected error code, and no quad comes out.
 *
 * Then lodwash's own default (LW_HTML_SCRIPTS_EACH) and a page with both
 * RDFa and JSON-LD, on pages written here.
 *
 * JSONLD_TEST=tr001 runs one test and prints its quads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonld/jsonld.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"
#include "tests/support/jsonld_nquads_compare.h"

#define SUITE_URL "https://w3c.github.io/json-ld-api/tests/"

typedef struct {
  unsigned errors;
  char first[512];
} Errors;

static void on_error(void *handle, unsigned line, unsigned column, const char *message)
{
  Errors *e = handle;
  (void)line;
  (void)column;
  if (e->errors++ == 0) {
    snprintf(e->first, sizeof(e->first), "%s", message);
  }
}

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  size_t got = fread(buf, 1, (size_t)n, f);
  buf[got] = 0;
  fclose(f);
  return buf;
}

/* Reads a page (a file, or text when path is NULL) into set. */
static LwStatus read_page(const char *path, const char *text, LwFormat format,
                          const char *base, LwHtmlScripts scripts, LwNqSet *set,
                          Errors *errors)
{
  FILE *in = path ? fopen(path, "rb") : fmemopen((void *)text, strlen(text), "rb");
  if (!in) {
    return LW_ERR_IO;
  }
  LwReadOptions o = {.format = format,
                     .base_iri = base,
                     .on_quad = lw_nq_set_sink,
                     .quad_handle = set,
                     .on_error = on_error,
                     .error_handle = errors,
                     .html_scripts = scripts};
  LwError err;
  LwStatus st = lw_rdf_read(in, &o, NULL, &err);
  fclose(in);
  return st;
}

/* Whether the expected quads (expect, a file of the suite) match actual. */
static bool same_quads(const char *dir, const char *expect, LwNqSet *actual, char *why,
                       size_t size)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, expect);
  char *text = slurp(path);
  LwNqSet *expected = lw_nq_set_new();
  bool ok = text && lw_nq_set_parse(expected, text, why, size);
  if (ok && !lw_nq_isomorphic(actual, expected)) {
    snprintf(why, size, "not isomorphic: %zu quads, expected %zu", lw_nq_set_size(actual),
             lw_nq_set_size(expected));
    ok = false;
  }
  free(text);
  lw_nq_set_free(expected);
  return ok;
}

typedef enum { R_PASS, R_FAIL, R_NA } Result;

static Result run_test(const char *dir, json_t *t, bool verbose, bool *negative, char *why,
                       size_t size)
{
  json_t *types = json_object_get(t, "@type");
  if (strcmp(json_string_value(json_array_get(types, 1)), "jld:ToRDFTest")) {
    snprintf(why, size, "not a toRdf test");
    return R_NA;
  }
  json_t *option = json_object_get(t, "option");
  const char *input = json_string_value(json_object_get(t, "input"));
  const char *code = json_string_value(json_object_get(t, "expectErrorCode"));
  *negative = strstr(json_string_value(json_array_get(types, 0)), "Negative") != NULL;
  char path[4096], url[4096];
  /* the fragment names a script: it is part of the URL, not of the file */
  snprintf(path, sizeof(path), "%s/%.*s", dir, (int)strcspn(input, "#"), input);
  snprintf(url, sizeof(url), "%s%s", SUITE_URL, input);
  const char *base = json_string_value(json_object_get(option, "base"));
  if (base && strchr(input, '#')) {
    snprintf(url, sizeof(url), "%s%s", base, strchr(input, '#'));
  }
  LwHtmlScripts scripts = json_is_true(json_object_get(option, "extractAllScripts"))
                            ? LW_HTML_SCRIPTS_ALL
                            : LW_HTML_SCRIPTS_FIRST;
  LwNqSet *actual = lw_nq_set_new();
  Errors errors = {0};
  LwStatus st = read_page(path, NULL, LW_FORMAT_JSONLD_HTML, base ? base : url, scripts,
                          actual, &errors);
  if (verbose) {
    char *dump = lw_nq_set_dump(actual);
    printf("status %s, %u errors, first '%s'\n%s", lw_status_name(st), errors.errors,
           errors.first, dump);
    free(dump);
  }
  Result r = R_PASS;
  if (st != LW_OK) {
    snprintf(why, size, "status %s", lw_status_name(st));
    r = R_FAIL;
  } else if (*negative) {
    if (errors.errors == 0 || strncmp(errors.first, code, strlen(code)) ||
        lw_nq_set_size(actual) != 0) {
      snprintf(why, size, "expected error '%s' and no quads, got %zu quads, error '%.300s'",
               code, lw_nq_set_size(actual), errors.first);
      r = R_FAIL;
    }
  } else if (errors.errors) {
    snprintf(why, size, "error: %.400s", errors.first);
    r = R_FAIL;
  } else if (!same_quads(dir, json_string_value(json_object_get(t, "expect")), actual, why,
                         size)) {
    r = R_FAIL;
  }
  lw_nq_set_free(actual);
  return r;
}

static void run_suite(const char *dir, json_t *manifest)
{
  const char *only = getenv("JSONLD_TEST");
  int pass[2] = {0, 0}, all[2] = {0, 0}, na = 0;
  size_t i;
  json_t *t;
  json_array_foreach(json_object_get(manifest, "sequence"), i, t) {
    const char *id = json_string_value(json_object_get(t, "@id")) + 1;
    if (only && strcmp(only, id)) {
      continue;
    }
    char why[1024] = "";
    bool negative = false;
    Result r = run_test(dir, t, only != NULL, &negative, why, sizeof(why));
    if (r == R_NA) {
      na++;
      continue;
    }
    all[negative]++;
    pass[negative] += r == R_PASS;
    if (r == R_FAIL) {
      printf("FAIL %s (%s): %s\n", id, json_string_value(json_object_get(t, "name")), why);
      lw_test_report(false, __FILE__, __LINE__, id, why);
    }
  }
  printf("JSON-LD HTML toRdf: %d of %d positive, %d of %d negative pass; %d not "
         "applicable (expand, compact, flatten)\n",
         pass[0], all[0], pass[1], all[1], na);
  CHECK(only || all[0] + all[1] > 0);
}

/* lodwash's default: every script its own document (so that a lone @graph
 * object gives default-graph triples), a bad script skipped with an error,
 * the others read; the base from <base href>. */
static void check_each_script(void)
{
  const char *page = "<!DOCTYPE html><html><head><base href=\"/dir/\">\n"
                     "<script type=\"application/ld+json\">{\"@id\": \"a\",\n"
                     " \"http://ex.org/p\": {\"@id\": \"_:x\"}}</script>\n"
                     "<script type=\"application/ld+json\">{ not json }</script>\n"
                     "<script type='Application/LD+JSON; charset=utf-8'>{\"@context\":"
                     " {\"@vocab\": \"http://ex.org/\"}, \"@graph\": [{\"@id\": \"_:x\","
                     " \"q\": \"</p> &amp;\"}]}</script>\n"
                     "<script type=\"text/javascript\">var x = {\"@id\": 1};</script>\n"
                     "</head><body><p>no RDFa here</p></body></html>\n";
  LwNqSet *got = lw_nq_set_new(), *want = lw_nq_set_new();
  Errors errors = {0};
  CHECK_INT_EQ(read_page(NULL, page, LW_FORMAT_JSONLD_HTML, "http://h.example/x/page#",
                         LW_HTML_SCRIPTS_EACH, got, &errors),
               LW_OK);
  CHECK_INT_EQ(errors.errors, 1);
  CHECK(!strncmp(errors.first, "invalid script element", 22));
  char why[256] = "";
  CHECK(lw_nq_set_parse(want,
                        "<http://h.example/dir/a> <http://ex.org/p> _:x .\n"
                        "_:y <http://ex.org/q> \"</p> &amp;\" .\n",
                        why, sizeof(why)));
  CHECK(lw_nq_isomorphic(got, want));
  lw_nq_set_free(got);
  lw_nq_set_free(want);
  /* a fragment naming no script is a resource's: every script is read;
   * one naming a script selects it */
  const char *urls[] = {"http://h.example/x/page#me", "http://h.example/x/page#s3"};
  const size_t quads[] = {2, 1};
  for (size_t i = 0; i < 2; ++i) {
    LwNqSet *set = lw_nq_set_new();
    Errors e = {0};
    const char *two = "<html><head><script type=\"application/ld+json\">{\"@id\": \"#me\","
                      " \"http://ex.org/p\": 1}</script><script id=\"s3\" "
                      "type=\"application/ld+json\">{\"@id\": \"#me\", \"http://ex.org/q\":"
                      " 2}</script></head></html>";
    CHECK_INT_EQ(
      read_page(NULL, two, LW_FORMAT_JSONLD_HTML, urls[i], LW_HTML_SCRIPTS_EACH, set, &e),
      LW_OK);
    CHECK_INT_EQ(e.errors, 0);
    CHECK_INT_EQ(lw_nq_set_size(set), quads[i]);
    lw_nq_set_free(set);
  }
}

/* A page with RDFa and a JSON-LD script gives both, whichever it is
 * guessed as. */
static void check_rdfa_and_jsonld(void)
{
  const char *page = "<html><head><title>t</title>\n"
                     "<script type=\"application/ld+json\">{\"@id\": \"http://ex.org/s\","
                     " \"http://ex.org/j\": \"from JSON-LD\"}</script></head>\n"
                     "<body><div about=\"http://ex.org/s\"><span property="
                     "\"http://ex.org/r\">from RDFa</span></div></body></html>\n";
  LwFormat formats[] = {LW_FORMAT_RDFA, LW_FORMAT_JSONLD_HTML};
  for (size_t i = 0; i < 2; ++i) {
    LwNqSet *got = lw_nq_set_new(), *want = lw_nq_set_new();
    Errors errors = {0};
    CHECK_INT_EQ(read_page(NULL, page, formats[i], "http://ex.org/page", 0, got, &errors),
                 LW_OK);
    CHECK_INT_EQ(errors.errors, 0);
    char why[256] = "";
    CHECK(lw_nq_set_parse(want,
                          "<http://ex.org/s> <http://ex.org/j> \"from JSON-LD\" .\n"
                          "<http://ex.org/s> <http://ex.org/r> \"from RDFa\" .\n",
                          why, sizeof(why)));
    if (!lw_nq_isomorphic(got, want)) {
      char *dump = lw_nq_set_dump(got);
      printf("%s gave:\n%s", lw_format_name(formats[i]), dump);
      free(dump);
      CHECK(false);
    }
    lw_nq_set_free(got);
    lw_nq_set_free(want);
  }
}

int main(void)
{
  check_each_script();
  check_rdfa_and_jsonld();
  const char *testdata = lw_test_testdata();
  char dir[2048], manifest_path[4096];
  snprintf(dir, sizeof(dir), "%s/jsonld-api-tests/tests", testdata ? testdata : ".");
  snprintf(manifest_path, sizeof(manifest_path), "%s/html-manifest.jsonld", dir);
  json_error_t jerr;
  json_t *manifest = testdata ? json_load_file(manifest_path, 0, &jerr) : NULL;
  if (!manifest) {
    /* the checks above fail the test rather than be hidden by the skip */
    if (lw_test_failed) {
      return lw_test_finish();
    }
    lw_test_skip("no JSON-LD html-manifest.jsonld in the shared test data");
  }
  run_suite(dir, manifest);
  json_decref(manifest);
  return lw_test_finish();
}
