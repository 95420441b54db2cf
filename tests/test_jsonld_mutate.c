/*
 * Bad input never crashes: every input of the W3C toRdf suite, mutated in
 * many small ways (bytes changed, spans deleted or repeated, keywords
 * swapped), goes through the processor. Each run must end with LW_OK or an
 * error with a message; the ASan build catches memory errors. Deterministic
 * (fixed seed); JSONLD_MUTATIONS sets the number of mutants per input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonld/jsonld.h"
#include "tests/support/check.h"
#include "tests/support/dir_list.h"

static unsigned long long rng = 88172645463325252ULL;

static unsigned next_rand(unsigned n)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % n);
}

static const char *const tokens[] = {"\"@context\"",
                                     "\"@id\"",
                                     "\"@type\"",
                                     "\"@graph\"",
                                     "\"@list\"",
                                     "\"@set\"",
                                     "\"@value\"",
                                     "\"@reverse\"",
                                     "\"@nest\"",
                                     "\"@index\"",
                                     "\"@language\"",
                                     "\"@container\"",
                                     "\"@protected\"",
                                     "\"@import\"",
                                     "\"@vocab\"",
                                     "\"@base\"",
                                     "null",
                                     "[]",
                                     "{}",
                                     "\"_:b0\"",
                                     "1.5e300",
                                     "\"../x\"",
                                     "\"@json\"",
                                     "\"@included\"",
                                     "\"@direction\"",
                                     "true"};

static char *mutate(const char *src, size_t len, size_t *out_len)
{
  char *m = malloc(len * 2 + 64);
  memcpy(m, src, len);
  size_t n = len;
  unsigned edits = 1 + next_rand(3);
  for (unsigned e = 0; e < edits && n > 2; e++) {
    size_t at = next_rand((unsigned)n);
    switch (next_rand(4)) {
    case 0: /* change a byte */
      m[at] = "{}[]\":,@ 0a\\"[next_rand(12)];
      break;
    case 1: { /* delete a span */
      size_t k = 1 + next_rand(8);
      if (at + k > n) {
        k = n - at;
      }
      memmove(m + at, m + at + k, n - at - k);
      n -= k;
      break;
    }
    case 2: { /* repeat a span (bounded growth) */
      size_t k = 1 + next_rand(16);
      if (at + k > n) {
        k = n - at;
      }
      if (n + k < len * 2) {
        memmove(m + at + k, m + at, n - at);
        n += k;
      }
      break;
    }
    default: { /* put a keyword or odd value somewhere */
      const char *t = tokens[next_rand(sizeof(tokens) / sizeof(*tokens))];
      size_t k = strlen(t);
      if (n + k < len * 2 + 32) {
        memmove(m + at + k, m + at, n - at);
        memcpy(m + at, t, k);
        n += k;
      }
    }
    }
  }
  *out_len = n;
  return m;
}

/* Structural mutants stay valid JSON, so they reach the JSON-LD algorithms:
 * a random value is replaced by a token, or a random key renamed to one. */
static void collect(json_t *v, json_t **slots, size_t *n, size_t cap)
{
  if (*n < cap && (json_is_object(v) || json_is_array(v))) {
    slots[(*n)++] = v;
  }
  const char *k;
  json_t *x;
  size_t i;
  if (json_is_object(v)) {
    json_object_foreach(v, k, x) {
      collect(x, slots, n, cap);
    }
  } else if (json_is_array(v)) {
    json_array_foreach(v, i, x) {
      collect(x, slots, n, cap);
    }
  }
}

static char *mutate_tree(const char *src, size_t len, size_t *out_len)
{
  json_t *doc = json_loadb(src, len, JSON_DECODE_ANY, NULL);
  if (!doc) {
    return mutate(src, len, out_len);
  }
  unsigned edits = 1 + next_rand(3);
  for (unsigned e = 0; e < edits; e++) {
    json_t *slots[512];
    size_t n = 0;
    collect(doc, slots, &n, 512);
    if (!n) {
      break;
    }
    json_t *c = slots[next_rand((unsigned)n)];
    const char *t = tokens[next_rand(sizeof(tokens) / sizeof(*tokens))];
    json_t *nv = json_loads(t, JSON_DECODE_ANY, NULL);
    if (json_is_object(c) && json_object_size(c)) {
      size_t pick = next_rand((unsigned)json_object_size(c)), i = 0;
      const char *k;
      json_t *x;
      json_object_foreach(c, k, x) {
        if (i++ == pick) {
          if (next_rand(2) && json_is_string(nv)) {
            json_object_set(c, json_string_value(nv), x); /* rename-ish */
          } else {
            json_object_set(c, k, nv);
          }
          break;
        }
      }
    } else if (json_is_array(c) && json_array_size(c)) {
      json_array_set(c, next_rand((unsigned)json_array_size(c)), nv);
    } else if (json_is_array(c)) {
      json_array_append(c, nv);
    }
    json_decref(nv);
  }
  char *text = json_dumps(doc, JSON_ENCODE_ANY);
  json_decref(doc);
  *out_len = text ? strlen(text) : 0;
  return text ? text : strdup("");
}

static LwStatus count_quad(void *handle, const LwQuad *q)
{
  (void)q;
  (*(unsigned long *)handle)++;
  return LW_OK;
}

int main(void)
{
  const char *testdata = lw_test_require_testdata();
  char dir[2048];
  snprintf(dir, sizeof(dir), "%s/jsonld-api-tests/tests/toRdf", testdata);
  /* in name order: one random stream runs through every input, so the
   * mutants each input gets depend on the order they are read in */
  LwTestDirList inputs;
  if (!lw_test_dir_list(dir, "-in.jsonld", &inputs)) {
    lw_test_skip("no JSON-LD toRdf inputs in the shared test data");
  }
  const char *env = getenv("JSONLD_MUTATIONS");
  unsigned per_input = env ? (unsigned)atoi(env) : 12;
  char parent[2100];
  snprintf(parent, sizeof(parent), "%s/..", dir);
  LwJsonldMap *map = lw_jsonld_map_new();
  LwError err;
  lw_jsonld_map_add(map, "https://w3c.github.io/json-ld-api/tests/", parent, &err);
  unsigned long runs = 0, ok = 0, quads = 0;
  bool all_reported = true;
  for (size_t n = 0; n < inputs.count; ++n) {
    const char *name = inputs.names[n];
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
      continue;
    }
    char buf[65536];
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    char base[4300];
    snprintf(base, sizeof(base), "https://w3c.github.io/json-ld-api/tests/toRdf/%s",
             name);
    for (unsigned i = 0; i < per_input; i++) {
      size_t mlen;
      char *m = i % 3 ? mutate_tree(buf, len, &mlen) : mutate(buf, len, &mlen);
      LwJsonldOptions opt = {0};
      opt.base_iri = base;
      opt.load = lw_jsonld_map_load;
      opt.load_handle = map;
      opt.on_quad = count_quad;
      opt.quad_handle = &quads;
      opt.rdf_direction = i % 2 ? "compound-literal" : NULL;
      LwStatus st = lw_jsonld_to_rdf_buffer(m, mlen, &opt, NULL, &err);
      runs++;
      if (st == LW_OK) {
        ok++;
      } else if (!err.message[0]) {
        all_reported = false;
        printf("no message for a %s error on a mutant of %s\n", lw_status_name(st),
               name);
      }
      free(m);
    }
  }
  lw_test_dir_list_free(&inputs);
  lw_jsonld_map_free(map);
  printf("%lu mutants: %lu converted (%lu quads), %lu refused with a message\n", runs, ok,
         quads, runs - ok);
  CHECK(runs > 1000);
  CHECK(all_reported);
  return lw_test_finish();
}
