/*
 * Notation3 with formulae is not RDF: the guess says so ("N3 formulae are
 * not RDF: ..."), and the Turtle / TriG reader, given such a file anyway,
 * refuses it whole (LW_ERR_FORMAT, the same words) rather than read a
 * formula as a TriG graph block and assert its quoted statements. TriG's
 * own graph blocks, and serd's "==" extension, still read.
 */
#include <stdio.h>
#include <string.h>

#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"

#define PREFIX "@prefix : <http://example.org/> .\n"

/* N3 files, each with the construct that shows it. */
static const struct {
  const char *doc;
  const char *what;
} n3_docs[] = {
  {PREFIX ":alice :knows :bob .\n{ :x :knows :y } => { :y :knows :x } .\n", "'=>'"},
  {PREFIX "@forAll :x .\n:alice :knows :bob .\n", "@forAll"},
  {PREFIX "@forSome :x .\n", "@forSome"},
  {PREFIX ":alice :believes { :moon :madeOf :cheese } .\n", "as an object"},
  {PREFIX "{ :moon :madeOf :cheese } :saidBy :alice .\n", "as a subject"},
  {PREFIX "{ :bob :says :lie } :implies { :carol :is :fooled } .\n", "as an object"},
  {PREFIX ":s :p [ :q { :a :b :c } ] .\n", "inside a statement"},
  {PREFIX "{ :a :b { :c :d :e } } .\n", "inside a statement"},
  {PREFIX ":a :b {:c :d :e}, {:f :g :h} .\n", "as an object"},
  {PREFIX "# { :a :b :c } => { }\n{ :a :b :c }\n:g { :d :e :f }\n:s :p \"=>\" .\n"
          "<http://x/=> :p :o .\n{ :x :y :z } => { } .\n",
   "line 7"},
};

/* TriG that looks like N3 in places, and is not. */
static const char *const trig_docs[] = {
  PREFIX "{ :a :b :c }\n:g { :d :e :f }\n:s :p \"{ } => .\" .\n",
  PREFIX "{ :a :b :c }\n@prefix e: <http://e.example/> .\n{ :a :b :c } :s :p :o .\n",
  PREFIX "{ :a :b :c } [ :p :o ] .\n:g { :s :p \"x\"@en , \"1\"^^:t }\n",
  PREFIX "GRAPH :g { :a :b [ :c ( 1 2 ) ] }\n:s :p :o .\n",
  PREFIX ":s :p [ == :o ; :name \"x\" ] .\n", /* serd's extension, read as before */
};

static LwStatus discard(void *handle, const LwQuad *quad)
{
  (void)handle;
  (void)quad;
  return LW_OK;
}

static LwStatus read_doc(const char *doc, LwFormat format, unsigned long long *statements,
                         LwError *err)
{
  FILE *in = fmemopen((void *)doc, strlen(doc), "rb");
  LwReadStats stats = {0};
  LwReadOptions o = {
    .format = format, .base_iri = "http://example.org/doc", .on_quad = discard};
  LwStatus st = lw_rdf_read(in, &o, &stats, err);
  fclose(in);
  *statements = stats.statements;
  return st;
}

static void check_refused(void)
{
  LwFormat formats[] = {LW_FORMAT_TRIG, LW_FORMAT_TURTLE};
  for (size_t i = 0; i < sizeof(n3_docs) / sizeof(n3_docs[0]); ++i) {
    LwGuessInfo info;
    LwFormat g = lw_guess_format(n3_docs[i].doc, strlen(n3_docs[i].doc), NULL, NULL, &info);
    CHECK_INT_EQ(g, LW_FORMAT_UNKNOWN);
    CHECK(strstr(info.reason, "N3 formulae are not RDF") != NULL);
    for (size_t f = 0; f < 2; ++f) {
      LwError err;
      unsigned long long n;
      CHECK_INT_EQ(read_doc(n3_docs[i].doc, formats[f], &n, &err), LW_ERR_FORMAT);
      if (!strstr(err.message, "N3 formulae are not RDF: ") ||
          !strstr(err.message, n3_docs[i].what)) {
        printf("document %zu as %s: '%s', expected '%s'\n", i, lw_format_name(formats[f]),
               err.message, n3_docs[i].what);
        CHECK(false);
      }
    }
  }
}

static void check_trig_read(void)
{
  for (size_t i = 0; i < sizeof(trig_docs) / sizeof(trig_docs[0]); ++i) {
    LwError err;
    unsigned long long n;
    LwStatus st = read_doc(trig_docs[i], LW_FORMAT_TRIG, &n, &err);
    if (st != LW_OK || n == 0) {
      printf("TriG document %zu: %s, %llu statements, '%s'\n", i, lw_status_name(st), n,
             err.message);
      CHECK(false);
    }
    LwGuessInfo info;
    LwFormat g = lw_guess_format(trig_docs[i], strlen(trig_docs[i]), NULL, NULL, &info);
    if (g == LW_FORMAT_UNKNOWN) {
      printf("TriG document %zu guessed as not RDF: %s\n", i, info.reason);
      CHECK(false);
    }
  }
}

int main(void)
{
  check_refused();
  check_trig_read();
  return lw_test_finish();
}
