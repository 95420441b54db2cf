/*
 * The W3C JSON-LD 1.1 toRdf test suite, run from its manifest in the shared
 * test data. Remote documents are served from the suite's folder through
 * the map loader (https://w3c.github.io/json-ld-api/tests/ -> tests/).
 *
 * Positive tests: the quads must be isomorphic to the expected N-Quads.
 * Syntax tests: the document must convert without error. Negative tests:
 * the conversion must fail with the expected error code. Tests only for
 * JSON-LD 1.0 processors (specVersion or processingMode json-ld-1.0) are
 * not applicable: lodwash runs in json-ld-1.1 mode.
 *
 * Tests known to fail are listed below with the reason; any other failure
 * fails this test, and so does a listed test that starts passing (so the
 * list, and docs/jsonld.md, stay true).
 *
 * JSONLD_TEST=te001 runs one test and prints its quads; JSONLD_INCLUDE_10=1
 * runs the JSON-LD 1.0 tests too (in 1.1 mode), for information;
 * JSONLD_VIA_PIPE=1 reads the inputs through pipes (the non-seekable path).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonld/jsonld.h"
#include "tests/support/check.h"
#include "tests/support/jsonld_nquads_compare.h"

#define SUITE_URL "https://w3c.github.io/json-ld-api/tests/"

/* Known failures and why (keep in step with docs/jsonld.md). */
static const char *const known_failures[] = {
  NULL,
};

static bool is_known_failure(const char *id)
{
  for (const char *const *k = known_failures; *k; k++) {
    if (!strcmp(*k, id)) {
      return true;
    }
  }
  return false;
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

typedef enum { R_PASS, R_FAIL, R_NA } Result;

static Result run_test(const char *dir /* < 2048 bytes */, LwJsonldMap *map, json_t *t,
                       const char *id, bool verbose, char *why, size_t size)
{
  json_t *types = json_object_get(t, "@type");
  json_t *option = json_object_get(t, "option");
  const char *spec = json_string_value(json_object_get(option, "specVersion"));
  const char *mode = json_string_value(json_object_get(option, "processingMode"));
  if (((spec && !strcmp(spec, "json-ld-1.0")) || (mode && !strcmp(mode, "json-ld-1.0"))) &&
      !getenv("JSONLD_INCLUDE_10")) {
    snprintf(why, size, "JSON-LD 1.0 only");
    return R_NA;
  }
  const char *input = json_string_value(json_object_get(t, "input"));
  const char *expect = json_string_value(json_object_get(t, "expect"));
  const char *code = json_string_value(json_object_get(t, "expectErrorCode"));
  const char *type0 = json_string_value(json_array_get(types, 0));
  bool negative = type0 && strstr(type0, "Negative");
  bool syntax = type0 && strstr(type0, "PositiveSyntax");

  char path[8192], base[8192];
  snprintf(path, sizeof(path), "%s/%s", dir, input);
  snprintf(base, sizeof(base), "%s%s", SUITE_URL, input);
  const char *obase = json_string_value(json_object_get(option, "base"));

  LwNqSet *actual = lw_nq_set_new();
  LwJsonldOptions opt = {0};
  opt.base_iri = obase ? obase : base;
  opt.load = lw_jsonld_map_load;
  opt.load_handle = map;
  opt.on_quad = lw_nq_set_sink;
  opt.quad_handle = actual;
  opt.rdf_direction = json_string_value(json_object_get(option, "rdfDirection"));
  opt.produce_generalized_rdf = json_is_true(
    json_object_get(option, "produceGeneralizedRdf"));
  LwError err;
  /* JSONLD_VIA_PIPE=1 reads every input through a pipe (not seekable) */
  bool pipe = getenv("JSONLD_VIA_PIPE") != NULL;
  char cmd[8300];
  snprintf(cmd, sizeof(cmd), "cat '%s' 2>/dev/null", path);
  FILE *probe = fopen(path, "rb");
  FILE *in = probe && pipe ? popen(cmd, "r") : probe;
  if (probe && pipe) {
    fclose(probe);
  }
  if (!in) {
    /* the manifest names a few inputs from other folders of the suite
     * (expand/) that the shared copy does not hold */
    lw_nq_set_free(actual);
    snprintf(why, size, "input %.900s is not in the shared test data", input);
    return R_NA;
  }
  LwStatus st = lw_jsonld_to_rdf(in, &opt, NULL, &err);
  if (pipe) {
    pclose(in);
  } else {
    fclose(in);
  }
  if (verbose) {
    char *dump = lw_nq_set_dump(actual);
    printf("%s: status %s, message '%s'\n%s", id, lw_status_name(st), err.message, dump);
    free(dump);
  }
  Result r = R_PASS;
  if (negative) {
    if (st == LW_OK) {
      snprintf(why, size, "expected error '%s', got none", code);
      r = R_FAIL;
    } else if (strncmp(err.message, code, strlen(code)) ||
               err.message[strlen(code)] != ':') {
      snprintf(why, size, "expected error '%.200s', got '%.600s'", code, err.message);
      r = R_FAIL;
    }
  } else if (st != LW_OK) {
    snprintf(why, size, "error: %.900s", err.message);
    r = R_FAIL;
  } else if (!syntax && expect) {
    snprintf(path, sizeof(path), "%s/%s", dir, expect);
    char *text = slurp(path);
    LwNqSet *expected = lw_nq_set_new();
    if (!text || !lw_nq_set_parse(expected, text, why, size)) {
      r = R_FAIL;
    } else if (!lw_nq_isomorphic(actual, expected)) {
      snprintf(why, size, "not isomorphic: %zu quads, expected %zu", lw_nq_set_size(actual),
               lw_nq_set_size(expected));
      r = R_FAIL;
      if (verbose) {
        char *dump = lw_nq_set_dump(expected);
        printf("expected:\n%s", dump);
        free(dump);
      }
    }
    free(text);
    lw_nq_set_free(expected);
  }
  lw_nq_set_free(actual);
  return r;
}

int main(void)
{
  const char *testdata = lw_test_require_testdata();
  char dir[2048], manifest_path[4096];
  snprintf(dir, sizeof(dir), "%s/jsonld-api-tests/tests", testdata);
  snprintf(manifest_path, sizeof(manifest_path), "%s/toRdf-manifest.jsonld", dir);
  json_error_t jerr;
  json_t *manifest = json_load_file(manifest_path, 0, &jerr);
  if (!manifest) {
    lw_test_skip("no JSON-LD toRdf manifest in the shared test data");
  }
  LwJsonldMap *map = lw_jsonld_map_new();
  LwError err;
  CHECK(lw_jsonld_map_add(map, SUITE_URL, dir, &err) == LW_OK);

  const char *only = getenv("JSONLD_TEST");
  int pass = 0, fail = 0, na = 0, known = 0;
  size_t i;
  json_t *t;
  json_array_foreach(json_object_get(manifest, "sequence"), i, t) {
    const char *id = json_string_value(json_object_get(t, "@id"));
    id = id && id[0] == '#' ? id + 1 : id;
    if (only && strcmp(only, id)) {
      continue;
    }
    char why[1024] = "";
    Result r = run_test(dir, map, t, id, only != NULL, why, sizeof(why));
    bool listed = is_known_failure(id);
    if (r == R_PASS) {
      pass++;
      if (listed) {
        printf("UNEXPECTED PASS %s (listed as a known failure)\n", id);
        CHECK(!listed);
      }
    } else if (r == R_NA) {
      na++;
      printf("n/a  %s: %s\n", id, why);
    } else {
      fail++;
      printf("%s %s (%s): %s\n", listed ? "known failure" : "FAIL", id,
             json_string_value(json_object_get(t, "name")), why);
      if (listed) {
        known++;
      } else {
        lw_test_report(false, __FILE__, __LINE__, id, why);
      }
    }
  }
  int applicable = pass + fail;
  printf("JSON-LD toRdf suite: %d of %d applicable tests pass (%.1f%%), "
         "%d fail (%d known), %d not applicable\n",
         pass, applicable, applicable ? 100.0 * pass / applicable : 0.0, fail, known, na);
  if (!only && !getenv("JSONLD_INCLUDE_10")) {
    CHECK(applicable > 0 && pass * 100 >= applicable * 95);
  }
  lw_jsonld_map_free(map);
  json_decref(manifest);
  return lw_test_finish();
}
