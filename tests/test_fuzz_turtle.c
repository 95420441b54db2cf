/*
 * A differential fuzz target: random valid Turtle documents (long and short
 * strings with quotes and every kind of escape, nested blank nodes,
 * collections, prefixed names (also with prefixes that start like a
 * boolean), numbers, booleans, language tags, datatypes) read by
 * lodwash (lw_rdf_read) and by rapper, the statements compared up to blank
 * node renaming. Any difference fails, and the document is kept
 * ($TMPDIR/lodwash-fuzz-SEED.ttl) with the seed to replay it.
 *
 * Runs for LW_FUZZ_SECONDS (default 20) from seed LW_FUZZ_SEED (default 1:
 * the suite generates the same documents on every machine, so that a
 * document the readers differ on shows up here first, not at random in CI);
 * scripts/fuzz runs it longer from a new seed. Skipped without rapper.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"
#include "tests/support/nquads_compare.h"
#include "tests/support/rapper.h"

#define BASE "http://example.org/base/"

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
  rng_state ^= rng_state << 13; /* xorshift64 */
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned)(rng_state % n);
}

static void put_utf8(LwBuf *b, uint32_t cp)
{
  char s[4];
  size_t n;
  if (cp < 0x80) {
    s[0] = (char)cp, n = 1;
  } else if (cp < 0x800) {
    s[0] = (char)(0xC0 | cp >> 6), s[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
  } else if (cp < 0x10000) {
    s[0] = (char)(0xE0 | cp >> 12), s[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    s[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
  } else {
    s[0] = (char)(0xF0 | cp >> 18), s[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    s[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), s[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  lw_buf_append(b, s, n);
}

/* A code point that is a character (no surrogate, not NUL). */
static uint32_t some_code_point(void)
{
  static const uint32_t picks[] = {'a',     'Z',    '0',  ' ',  '#',  '<',         '>',
                                   '.',     ';',    ',',  '@',  '^',  0xE9,        0x4E2D,
                                   0x1F600, 0xFFFD, 0x7F, 0x01, 0xA0, 0x10FFFF - 2};
  return picks[rnd(sizeof(picks) / sizeof(picks[0]))];
}

/* One escape sequence. */
static void put_escape(LwBuf *b)
{
  static const char *echar[] = {"\\t", "\\b", "\\n", "\\r", "\\f", "\\\"", "\\'", "\\\\"};
  if (rnd(3)) {
    lw_buf_append_str(b, echar[rnd(8)]);
    return;
  }
  uint32_t cp = some_code_point();
  if (rnd(2)) {
    lw_buf_appendf(b, cp > 0xFFFF ? "\\U%08X" : "\\u%04X", (unsigned)cp);
  } else {
    lw_buf_appendf(b, "\\U%08x", (unsigned)cp);
  }
}

/* A string literal: short or long, " or ', with raw quotes where the
 * grammar allows them (long strings: at most two in a row, not last). */
static void put_string(LwBuf *b)
{
  bool lng = rnd(2);
  char q = rnd(2) ? '"' : '\'';
  char other = q == '"' ? '\'' : '"';
  for (int i = 0; i < (lng ? 3 : 1); ++i) {
    lw_buf_append_char(b, q);
  }
  unsigned len = rnd(12), run = 0;
  for (unsigned i = 0; i < len; ++i) {
    unsigned k = rnd(10);
    if (k < 3) {
      put_escape(b);
      run = 0;
    } else if (k < 5 && lng && run < 2) {
      lw_buf_append_char(b, q); /* a raw quote inside a long string */
      ++run;
    } else if (k == 5) {
      lw_buf_append_char(b, other);
      run = 0;
    } else if (k == 6 && lng) {
      lw_buf_append_char(b, rnd(2) ? '\n' : '\t');
      run = 0;
    } else {
      uint32_t cp = some_code_point();
      put_utf8(b, cp == 0x7F || cp == 0x01 ? 'x' : cp);
      run = 0;
    }
  }
  if (run) {
    lw_buf_append_char(b, 'e'); /* a long string cannot end on a quote */
  }
  for (int i = 0; i < (lng ? 3 : 1); ++i) {
    lw_buf_append_char(b, q);
  }
  switch (rnd(4)) {
  case 0:
    lw_buf_append_str(b, rnd(2) ? "@en" : "@de-CH-1996");
    break;
  case 1:
    lw_buf_append_str(b, rnd(2) ? "^^ex:dt" : "^^<http://example.org/dt>");
    break;
  default:
    break;
  }
}

static void put_iri(LwBuf *b)
{
  switch (rnd(5)) {
  case 0:
    lw_buf_appendf(b, "<http://example.org/r%u>", rnd(5));
    break;
  case 1:
    lw_buf_appendf(b, "ex:n%u", rnd(5));
    break;
  case 2:
    lw_buf_appendf(b, "<rel%u>", rnd(3)); /* against the base */
    break;
  case 3:
    lw_buf_appendf(b, ":e%u", rnd(3));
    break;
  default: { /* prefixes serd 0.30 took for booleans, and their neighbours */
    static const char *prefixes[] = {"false.ish", "true-x",  "false",
                                     "true_1",    "Ztrue-x", "truex"};
    lw_buf_appendf(b, "%s:b%u", prefixes[rnd(6)], rnd(3));
    break;
  }
  }
}

static void put_object(LwBuf *b, unsigned depth);

static void put_predicate_objects(LwBuf *b, unsigned depth)
{
  unsigned preds = 1 + rnd(3);
  for (unsigned p = 0; p < preds; ++p) {
    if (p) {
      lw_buf_append_str(b, rnd(2) ? " ;\n  " : ";");
    }
    if (rnd(6) == 0) {
      lw_buf_append_str(b, "a");
    } else {
      put_iri(b);
    }
    lw_buf_append_char(b, ' ');
    unsigned objs = 1 + rnd(3);
    for (unsigned o = 0; o < objs; ++o) {
      if (o) {
        lw_buf_append_str(b, rnd(2) ? " , " : ",");
      }
      put_object(b, depth);
    }
  }
}

static void put_object(LwBuf *b, unsigned depth)
{
  static const char *numbers[] = {"0",   "-12",    "+7",   "3.25", "-.5",
                                  "1e3", "2.5E-2", "true", "false"};
  unsigned k = rnd(depth < 4 ? 10 : 7);
  if (k < 3) {
    put_string(b);
  } else if (k < 5) {
    put_iri(b);
  } else if (k == 5) {
    unsigned which = rnd(9);
    lw_buf_append_str(b, numbers[which]);
    if (which < 7) {
      lw_buf_append_char(b, ' '); /* "12." would end the statement */
    }
  } else if (k == 6) {
    lw_buf_appendf(b, "_:n%u", rnd(4));
  } else if (k < 9) {
    lw_buf_append_str(b, "[ ");
    if (rnd(4)) {
      put_predicate_objects(b, depth + 1);
    }
    lw_buf_append_str(b, " ]");
  } else {
    lw_buf_append_str(b, "(");
    unsigned n = rnd(4);
    for (unsigned i = 0; i < n; ++i) {
      lw_buf_append_char(b, ' ');
      put_object(b, depth + 1);
    }
    lw_buf_append_str(b, " )");
  }
}

static void generate(LwBuf *b)
{
  lw_buf_append_str(b, "@prefix ex: <http://example.org/ns#> .\n"
                       "PREFIX : <http://example.org/empty#>\n"
                       "@prefix false.ish: <http://example.org/f#> .\n"
                       "@prefix true-x: <http://example.org/t#> .\n"
                       "PREFIX false: <http://example.org/F#>\n"
                       "@prefix true_1: <http://example.org/t1#> .\n"
                       "@prefix Ztrue-x: <http://example.org/Zt#> .\n"
                       "@prefix truex: <http://example.org/tx#> .\n");
  unsigned n = 1 + rnd(6);
  for (unsigned i = 0; i < n; ++i) {
    unsigned k = rnd(5);
    if (k == 0) {
      lw_buf_append_str(b, "[ ");
      put_predicate_objects(b, 1);
      lw_buf_append_str(b, " ]");
      if (rnd(2)) {
        lw_buf_append_char(b, ' ');
        put_predicate_objects(b, 1);
      }
    } else {
      if (k == 1) {
        lw_buf_appendf(b, "_:s%u", rnd(3));
      } else {
        put_iri(b);
      }
      lw_buf_append_char(b, ' ');
      put_predicate_objects(b, 0);
    }
    lw_buf_append_str(b, rnd(2) ? " .\n" : ".\n");
  }
}

static bool compare(const char *path, char *why, size_t why_len)
{
  LwTestGraph ours = LW_TEST_GRAPH_INIT, theirs = LW_TEST_GRAPH_INIT;
  bool ok = lw_test_rapper_read(path, "turtle", BASE, &theirs);
  if (!ok) {
    snprintf(why, why_len, "rapper refused the document");
  }
  FILE *in = fopen(path, "rb");
  unsigned long long errors = 0;
  LwReadOptions o = {.format = LW_FORMAT_TURTLE,
                     .base_iri = BASE,
                     .on_quad = lw_test_graph_sink,
                     .quad_handle = &ours};
  LwReadStats stats = {0};
  LwError err = {0};
  LwStatus st = in ? lw_rdf_read(in, &o, &stats, &err) : LW_ERR_IO;
  errors = stats.errors;
  if (in) {
    fclose(in);
  }
  if (ok && (st != LW_OK || errors)) {
    ok = false;
    snprintf(why, why_len, "lodwash: %s, %llu errors %s", lw_status_name(st), errors,
             err.message);
  }
  if (ok) {
    ok = lw_test_graph_isomorphic(&ours, &theirs, why, why_len);
  }
  lw_test_graph_free(&ours);
  lw_test_graph_free(&theirs);
  return ok;
}

int main(void)
{
  if (!lw_test_rapper_available()) {
    lw_test_skip("rapper (raptor2-utils) is not installed");
  }
  const char *secs = getenv("LW_FUZZ_SECONDS");
  const char *seed_env = getenv("LW_FUZZ_SEED");
  uint64_t seed = seed_env ? strtoull(seed_env, NULL, 10) : 1;
  time_t end = time(NULL) + (secs ? atoi(secs) : 20);
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  unsigned docs = 0, failed = 0;
  printf("seed %llu\n", (unsigned long long)seed);
  for (uint64_t s = seed; time(NULL) < end && failed < 3; ++s) {
    rng_state = s * 0x9E3779B97F4A7C15ull | 1;
    LwBuf doc = LW_BUF_INIT;
    generate(&doc);
    char path[4096];
    snprintf(path, sizeof(path), "%s/lodwash-fuzz-%llu.ttl", tmp, (unsigned long long)s);
    FILE *f = fopen(path, "wb");
    if (!f) {
      lw_buf_free(&doc);
      lw_test_skip("cannot write to TMPDIR");
    }
    fwrite(doc.data, 1, doc.len, f);
    fclose(f);
    char why[1024];
    bool ok = compare(path, why, sizeof(why));
    ++docs;
    if (ok) {
      remove(path);
    } else {
      ++failed;
      printf("FAIL seed %llu (kept in %s): %s\n", (unsigned long long)s, path, why);
    }
    lw_buf_free(&doc);
  }
  printf("%u documents compared with rapper, %u differ\n", docs, failed);
  CHECK(docs > 0);
  CHECK_INT_EQ(failed, 0);
  return lw_test_finish();
}
