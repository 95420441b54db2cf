/* Hostile input for the scheduler's readers: thousands of deterministic
 * mutations (byte flips, insertions, deletions, truncations, splices) of a
 * good registry, good dates and good VoID files. Each must end in a clear
 * status - never a crash, a leak or undefined behaviour (run under ASan and
 * UBSan) - and a registry that loads must only hold valid entries. */
#include "base/base.h"
#include "config/config.h"
#include "scheduler/void.h"
#include "tests/support/check.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t next_random(void)
{
  /* xorshift64*: reproducible on every machine. */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

static const char SPICE[] = "\0\n\r\t :-\"'#[]{}&*!|>%@`,?<.\\^\xff\xc3\xa9";

/* A mutation of src (len bytes) into out (cap bytes); returns its length. */
static size_t mutate(const char *src, size_t len, char *out, size_t cap)
{
  size_t n = len < cap ? len : cap;
  memcpy(out, src, n);
  int edits = 1 + (int)(next_random() % 8);
  for (int e = 0; e < edits; ++e) {
    size_t at = n ? next_random() % n : 0;
    switch (next_random() % 5) {
    case 0: /* replace a byte */
      if (n) {
        out[at] = SPICE[next_random() % (sizeof(SPICE) - 1)];
      }
      break;
    case 1: /* insert a byte */
      if (n < cap) {
        memmove(out + at + 1, out + at, n - at);
        out[at] = SPICE[next_random() % (sizeof(SPICE) - 1)];
        ++n;
      }
      break;
    case 2: /* delete a run */
      if (n) {
        size_t k = 1 + next_random() % 16;
        k = at + k > n ? n - at : k;
        memmove(out + at, out + at + k, n - at - k);
        n -= k;
      }
      break;
    case 3: /* truncate */
      n = at;
      break;
    default: /* duplicate a run (splice) */
      if (n) {
        size_t k = 1 + next_random() % 32;
        k = at + k > n ? n - at : k;
        if (n + k <= cap) {
          memmove(out + at + k, out + at, n - at);
          ++e;
          n += k;
        }
      }
      break;
    }
  }
  return n;
}

static const char *REGISTRY = "# providers\n"
                              "d1lod:\n"
                              "  modified: 2015-10-01\n"
                              "  void: http://lod.dataone.org/void.ttl\n"
                              "other:\n"
                              "  modified: \"2015-12-04 14:25:44.758604\"\n"
                              "  void: https://example.org/void.rdf\n"
                              "  enabled: false\n"
                              "  interval: 3600\n"
                              "a: &x {void: 'http://example.org/a.ttl'}\n"
                              "b: *x\n";

static void test_registry(void)
{
  char buf[4096];
  int loaded = 0;
  for (int i = 0; i < 4000; ++i) {
    size_t n = mutate(REGISTRY, strlen(REGISTRY), buf, sizeof(buf));
    LwRegistry *reg = NULL;
    LwError err;
    lw_error_clear(&err);
    LwStatus st = lw_registry_parse(buf, n, "fuzz.yaml", &reg, &err);
    if (st == LW_OK) {
      ++loaded;
      for (size_t k = 0; k < reg->count; ++k) {
        const LwProvider *p = &reg->providers[k];
        if (!lw_provider_name_valid(p->name) || !lw_registry_url_valid(p->source_url)) {
          CHECK(!"a loaded provider is invalid");
        }
      }
      lw_registry_free(reg);
    } else if (st != LW_ERR_SYNTAX && st != LW_ERR_FORMAT) {
      CHECK_INT_EQ(st, LW_ERR_SYNTAX);
    } else if (!strstr(err.message, "fuzz.yaml")) {
      CHECK(!"a registry error does not name the file");
    }
  }
  /* Some of them must still be valid YAML, or the test tests little. */
  CHECK(loaded > 100);
}

static void test_dates(void)
{
  const char *good[] = {"2015-10-10", "2015-12-04 14:25:44.758604",
                        "2015-12-04T14:25:44+02:00", "2015-10-10Z"};
  char buf[128];
  for (int i = 0; i < 20000; ++i) {
    const char *src = good[i % 4];
    size_t n = mutate(src, strlen(src), buf, sizeof(buf));
    LwDateTime v;
    LwError err;
    if (lw_datetime_parse(buf, n, &v, &err) == LW_OK) {
      /* Whatever parses formats and parses back to the same instant. */
      char text[LW_DATETIME_BUF];
      LwDateTime back;
      CHECK(lw_datetime_parse_str(lw_datetime_format(&v, text), &back));
      if (back.usec != v.usec) {
        CHECK_INT_EQ(back.usec, v.usec);
      }
    }
  }
}

static const char *VOID_TTL =
  "@prefix void: <http://rdfs.org/ns/void#> .\n"
  "@prefix dcterms: <http://purl.org/dc/terms/> .\n"
  "@prefix spdx: <http://spdx.org/rdf/terms#> .\n"
  "@prefix : <#> .\n"
  ":#d1lodfull a void:Dataset ;\n"
  "  void:feature void:feature <http://schema.geolink.org/dev/voc/harvester#FullDump> ;\n"
  "  void:subset [ void:dataDump <b.ttl> ; dcterms:modified \"2016-01-01\" ] ;\n"
  "  void:dataDump <a.ttl> , 'c.ttl' ;\n"
  "  dcterms:modified \"2015-11-05\"^^<http://www.w3.org/2001/XMLSchema#date> .\n"
  "<a.ttl> spdx:checksum [ spdx:algorithm spdx:checksumAlgorithm_md5 ;\n"
  "  spdx:checksumValue \"abc\" ] .\n";

static const char *VOID_XML =
  "<?xml version=\"1.0\"?>\n"
  "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"\n"
  "         xmlns:void=\"http://rdfs.org/ns/void#\"\n"
  "         xmlns:dcterms=\"http://purl.org/dc/terms/\">\n"
  "  <void:Dataset rdf:about=\"#d\">\n"
  "    <void:dataDump rdf:resource=\"d.nt\"/>\n"
  "    <dcterms:modified rdf:datatype=\"xsd:date\">2014-03-18</dcterms:modified>\n"
  "  </void:Dataset>\n"
  "</rdf:RDF>\n";

static void test_void(void)
{
  char buf[4096];
  int ok = 0;
  for (int i = 0; i < 1500; ++i) {
    const char *src = i % 2 ? VOID_XML : VOID_TTL;
    const char *url = i % 3 ? "http://example.org/x/void" : "http://example.org/x/void.ttl";
    size_t n = mutate(src, strlen(src), buf, sizeof(buf));
    LwVoid *v = NULL;
    LwError err;
    lw_error_clear(&err);
    /* LW_MUTATION_DUMP=FILE keeps the input being read, to find a hang. */
    if (getenv("LW_MUTATION_DUMP")) {
      FILE *d = fopen(getenv("LW_MUTATION_DUMP"), "wb");
      fwrite(buf, 1, n, d);
      fclose(d);
    }
    LwStatus st = lw_void_parse(buf, n, url, NULL, &v, &err);
    if (st == LW_OK) {
      ++ok;
      if (v->dump_count == 0) {
        CHECK(!"a VoID without dumps was accepted");
      }
      for (size_t k = 0; k < v->dump_count; ++k) {
        if (!lw_registry_url_valid(v->dumps[k].url)) {
          CHECK(!"a dump URL is not http(s)");
        }
      }
      lw_void_free(v);
    } else if (st != LW_ERR_SYNTAX && st != LW_ERR_FORMAT) {
      CHECK_INT_EQ(st, LW_ERR_SYNTAX);
      fprintf(stderr, "  %s\n", err.message);
    }
  }
  CHECK(ok > 100);
}

int main(void)
{
  test_registry();
  test_dates();
  test_void();
  return lw_test_finish();
}
