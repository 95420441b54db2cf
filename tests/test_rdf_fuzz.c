/*
 * A small deterministic fuzzer: mutated documents of every format (bit
 * flips, cut-offs, inserted syntax characters, doubled or dropped bytes) go
 * through lw_rdf_read. Nothing may crash, hang or hand on invalid UTF-8 or a
 * relative IRI. Seeds: small documents here, plus the W3C suites' files when
 * the shared test data is there. LW_FUZZ_ROUNDS sets the number of rounds,
 * LW_FUZZ_SEED the random seed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"
#include "tests/support/dir_list.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next_random(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static size_t below(size_t n)
{
  return n ? (size_t)(next_random() % n) : 0;
}

static unsigned long bad_terms;

static bool term_ok(const LwTerm *t)
{
  if (t->type == LW_TERM_NONE) {
    return true;
  }
  if (!t->value || !lw_utf8_valid(t->value, t->len)) {
    return false;
  }
  if (t->type == LW_TERM_IRI && !lw_uri_is_absolute(t->value)) {
    return false;
  }
  if (t->datatype && (!lw_utf8_valid(t->datatype, strlen(t->datatype)) ||
                      !lw_uri_is_absolute(t->datatype))) {
    return false;
  }
  return !t->lang || lw_utf8_valid(t->lang, strlen(t->lang));
}

static LwStatus check_quad(void *handle, const LwQuad *q)
{
  (void)handle;
  if (!term_ok(&q->subject) || !term_ok(&q->predicate) || !term_ok(&q->object) ||
      !term_ok(&q->graph) || q->predicate.type != LW_TERM_IRI) {
    ++bad_terms;
    if (getenv("LW_FUZZ_VERBOSE")) {
      fprintf(stderr, "bad quad: <%s> <%s> <%s> dt=%s lang=%s\n", q->subject.value,
              q->predicate.value, q->object.value,
              q->object.datatype ? q->object.datatype : "-",
              q->object.lang ? q->object.lang : "-");
    }
  }
  return LW_OK;
}

static void check_error(void *handle, unsigned line, unsigned column, const char *message)
{
  (void)handle, (void)line, (void)column;
  if (!lw_utf8_valid(message, strlen(message))) {
    ++bad_terms;
  }
}

static void mutate(LwBuf *doc)
{
  static const char syntax[] = "<>\"'\\[](){}.;,#@^_:\n\r\t \x00\xff\xc3\xed";
  int edits = 1 + (int)below(4);
  for (int e = 0; e < edits && doc->len; ++e) {
    size_t at = below(doc->len);
    switch (below(6)) {
    case 0: /* flip a bit */
      doc->data[at] ^= (char)(1u << below(8));
      break;
    case 1: /* cut off */
      doc->len = at;
      break;
    case 2: /* a syntax character */
      doc->data[at] = syntax[below(sizeof(syntax) - 1)];
      break;
    case 3: /* drop a byte */
      memmove(doc->data + at, doc->data + at + 1, doc->len - at - 1);
      --doc->len;
      break;
    default: { /* insert a byte or a \u escape */
      const char *ins = below(2) ? "\\uD800" : "\\U0010FFFF";
      size_t n = below(3) ? 1 : strlen(ins);
      char one = syntax[below(sizeof(syntax) - 1)];
      lw_buf_reserve(doc, n);
      memmove(doc->data + at + n, doc->data + at, doc->len - at);
      memcpy(doc->data + at, n == 1 ? &one : ins, n);
      doc->len += n;
      break;
    }
    }
  }
}

static void run_one(const char *data, size_t len, LwFormat format)
{
  FILE *in = fmemopen((void *)data, len ? len : 1, "rb");
  if (!in) {
    return;
  }
  LwReadOptions o = {.format = format,
                     .base_iri = "http://fuzz.example/a/b",
                     .on_quad = check_quad,
                     .on_error = check_error,
                     .max_term_bytes = 4096,
                     .max_depth = 64};
  LwReadStats stats;
  LwError err;
  lw_rdf_read(in, &o, &stats, &err);
  fclose(in);
}

typedef struct {
  char *data;
  size_t len;
  LwFormat format;
} Seed;

static Seed seeds[4096];
static size_t n_seeds;

static void add_seed(const char *data, size_t len, LwFormat format)
{
  if (n_seeds < sizeof(seeds) / sizeof(seeds[0]) && len < 20000) {
    seeds[n_seeds].data = malloc(len + 1);
    memcpy(seeds[n_seeds].data, data, len);
    seeds[n_seeds].len = len;
    seeds[n_seeds].format = format;
    ++n_seeds;
  }
}

static void add_dir(const char *dir, const char *ext, LwFormat format)
{
  /* in name order: the seeds' order decides which one each round mutates */
  LwTestDirList files;
  lw_test_dir_list(dir, ext, &files);
  for (size_t i = 0; i < files.count; ++i) {
    char path[4096];
    snprintf(path, sizeof(path), "%.2000s/%.1000s", dir, files.names[i]);
    FILE *f = fopen(path, "rb");
    if (!f) {
      continue;
    }
    char buf[20000];
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    add_seed(buf, len, format);
  }
  lw_test_dir_list_free(&files);
}

int main(void)
{
  static const struct {
    const char *text;
    LwFormat format;
  } builtin[] = {
    {"@prefix e: <http://e/> . @base <x/> . e:a e:b [ e:c ( 1 2.5 \"x\"@en ) ], <r> ; e:d \"\"\"l\nl\"\"\" .\n",
     LW_FORMAT_TURTLE},
    {"@prefix e: <http://e/> . e:g { e:a e:b e:c . _:x e:d 'y' } { e:a e:b true }\n",
     LW_FORMAT_TRIG},
    {"<http://a> <http://b> \"c\\u00e9\"^^<http://d> .\n_:x <http://b> _:y .\n",
     LW_FORMAT_NTRIPLES},
    {"<http://a> <http://b> \"c\"@en <http://g> .\n_:x <http://b> _:y _:g .\n",
     LW_FORMAT_NQUADS},
    {"<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#' xmlns:e='http://e/'>"
     "<e:T rdf:about='a' e:p='v' xml:lang='en'><e:q rdf:parseType='Resource'><e:r>x</e:r></e:q>"
     "<e:s rdf:parseType='Literal'><b>y</b></e:s><e:l rdf:parseType='Collection'><e:T/></e:l></e:T></rdf:RDF>",
     LW_FORMAT_RDFXML},
    {"<html xmlns='http://www.w3.org/1999/xhtml' prefix='e: http://e/'><body about='#m'>"
     "<p property='e:n'>N</p><a rel='e:k' href='f'>f</a></body></html>",
     LW_FORMAT_RDFA},
    {"<html><head><base href='http://b/x/'><script type='application/ld+json'>{\"@context\":"
     " {\"@vocab\": \"http://e/\"}, \"@id\": \"a\", \"p\": [{\"@value\": \"v\", "
     "\"@language\": \"en\"}, {\"@id\": \"_:b\"}]}</script></head><body><p about='#m' "
     "property='http://e/n'>N</p></body></html>",
     LW_FORMAT_JSONLD_HTML},
    {"{\"http://e/s\": {\"http://e/p\": [{\"type\": \"literal\", \"value\": \"v\", "
     "\"lang\": \"en\"}, {\"type\": \"bnode\", \"value\": \"_:b\"}, {\"type\": "
     "\"uri\", \"value\": \"o\"}]}, \"_:b\": {\"http://e/q\": [{\"type\": \"literal\", "
     "\"value\": \"1\", \"datatype\": \"http://e/int\"}]}}",
     LW_FORMAT_RDFJSON},
  };
  for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); ++i) {
    add_seed(builtin[i].text, strlen(builtin[i].text), builtin[i].format);
  }
  const char *data = lw_test_testdata();
  if (data) {
    static const struct {
      const char *dir, *ext;
      LwFormat format;
    } dirs[] = {
      {"rdf-turtle", ".ttl", LW_FORMAT_TURTLE},
      {"rdf-trig", ".trig", LW_FORMAT_TRIG},
      {"rdf-n-triples", ".nt", LW_FORMAT_NTRIPLES},
      {"rdf-n-quads", ".nq", LW_FORMAT_NQUADS},
    };
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); ++i) {
      char dir[4096];
      snprintf(dir, sizeof(dir), "%.2000s/w3c-rdf-tests/rdf/rdf11/%s", data, dirs[i].dir);
      add_dir(dir, dirs[i].ext, dirs[i].format);
    }
    /* RDF/XML: one folder per topic */
    char xml[4096];
    snprintf(xml, sizeof(xml), "%.2000s/w3c-rdf-tests/rdf/rdf11/rdf-xml", data);
    LwTestDirList topics;
    lw_test_dir_list(xml, "", &topics);
    for (size_t i = 0; i < topics.count; ++i) {
      char sub[4096];
      snprintf(sub, sizeof(sub), "%.2000s/%.1000s", xml, topics.names[i]);
      add_dir(sub, ".rdf", LW_FORMAT_RDFXML);
    }
    lw_test_dir_list_free(&topics);
    char html[4096];
    snprintf(html, sizeof(html), "%.2000s/jsonld-api-tests/tests/html", data);
    add_dir(html, ".html", LW_FORMAT_JSONLD_HTML);
  }
  const char *seed_env = getenv("LW_FUZZ_SEED");
  if (seed_env && atoll(seed_env)) {
    rng = (uint64_t)atoll(seed_env);
  }
  const char *env = getenv("LW_FUZZ_ROUNDS");
  long rounds = env ? atol(env) : 3000;
  LwBuf doc = LW_BUF_INIT;
  for (long r = 0; r < rounds; ++r) {
    const Seed *s = &seeds[below(n_seeds)];
    lw_buf_reset(&doc);
    lw_buf_append(&doc, s->data, s->len);
    mutate(&doc);
    LwFormat format = below(8) ? s->format : (LwFormat)(1 + below(LW_FORMAT_RDFJSON));
    unsigned long before = bad_terms;
    run_one(doc.data, doc.len, format);
    if (bad_terms != before && getenv("LW_FUZZ_VERBOSE")) {
      fprintf(stderr, "in %s document:\n%.*s\n---\n", lw_format_name(format), (int)doc.len,
              doc.data);
    }
  }
  printf("%ld mutated documents from %zu seeds\n", rounds, n_seeds);
  CHECK_INT_EQ(bad_terms, 0);
  lw_buf_free(&doc);
  for (size_t i = 0; i < n_seeds; ++i) {
    free(seeds[i].data);
  }
  return lw_test_finish();
}
