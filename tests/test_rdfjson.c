/*
 * RDF/JSON (rdf_readers/rdf_reader_rdfjson.c): a fixture written here, read
 * by lw_rdf_read and by rapper (-i json), must give the same graph; the
 * guess knows it from its shape; the Note's rules broken in one place are
 * reported there and the rest is read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"
#include "tests/support/nquads_compare.h"
#include "tests/support/rapper.h"

#define BASE "http://data.example/doc.rj"

/* Subjects as IRIs and blank nodes; objects of every type, with language
 * tags, datatypes, escapes and non-ASCII text; several objects per
 * predicate; a blank node used as subject and object. */
static const char fixture[] =
  "{\n"
  "  \"http://data.example/book/1\" : {\n"
  "    \"http://purl.org/dc/terms/title\" : [\n"
  "      { \"type\" : \"literal\", \"value\" : \"Dogs\", \"lang\" : \"en\" },\n"
  "      { \"type\" : \"literal\", \"value\" : \"Hunde\", \"lang\" : \"de-AT\" }\n"
  "    ],\n"
  "    \"http://purl.org/dc/terms/issued\" : [\n"
  "      { \"type\" : \"literal\", \"value\" : \"2001-02-03\",\n"
  "        \"datatype\" : \"http://www.w3.org/2001/XMLSchema#date\" }\n"
  "    ],\n"
  "    \"http://purl.org/dc/terms/creator\" : [\n"
  "      { \"type\" : \"bnode\", \"value\" : \"_:author\" }\n"
  "    ],\n"
  "    \"http://www.w3.org/1999/02/22-rdf-syntax-ns#type\" : [\n"
  "      { \"type\" : \"uri\", \"value\" : \"http://schema.org/Book\" }\n"
  "    ]\n"
  "  },\n"
  "  \"_:author\" : {\n"
  "    \"http://xmlns.com/foaf/0.1/name\" : [\n"
  "      { \"type\" : \"literal\", \"value\" : \"Zo\\u00EB \\\"Q\\\"\\n\\u65E5\" }\n"
  "    ],\n"
  "    \"http://xmlns.com/foaf/0.1/knows\" : [\n"
  "      { \"type\" : \"bnode\", \"value\" : \"_:other\" },\n"
  "      { \"type\" : \"uri\", \"value\" : \"http://data.example/people/x\" }\n"
  "    ]\n"
  "  }\n"
  "}\n";

static LwStatus read_text(const char *text, const char *base, LwTestGraph *g,
                          LwReadStats *stats)
{
  FILE *in = fmemopen((void *)text, strlen(text), "rb");
  LwReadOptions o = {.format = LW_FORMAT_RDFJSON,
                     .base_iri = base,
                     .on_quad = lw_test_graph_sink,
                     .quad_handle = g};
  LwError err;
  LwStatus st = lw_rdf_read(in, &o, stats, &err);
  fclose(in);
  return st;
}

static void check_guess(void)
{
  LwGuessInfo info;
  CHECK_INT_EQ(
    lw_guess_format(fixture, strlen(fixture), "application/json", "x.json", &info),
    LW_FORMAT_RDFJSON);
}

/* The fixture read by lodwash and by rapper. */
static void check_against_rapper(void)
{
  LwTestGraph ours = LW_TEST_GRAPH_INIT, theirs = LW_TEST_GRAPH_INIT;
  LwReadStats stats;
  CHECK_INT_EQ(read_text(fixture, BASE, &ours, &stats), LW_OK);
  CHECK_INT_EQ(stats.statements, 8);
  CHECK_INT_EQ(stats.errors, 0);
  if (!lw_test_rapper_available()) {
    printf("SKIP the comparison with rapper: rapper is not installed\n");
    lw_test_graph_free(&ours);
    return;
  }
  char path[] = "/tmp/lw_rdfjson_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0 && write(fd, fixture, strlen(fixture)) == (ssize_t)strlen(fixture));
  close(fd);
  CHECK(lw_test_rapper_read(path, "json", BASE, &theirs));
  char why[512] = "";
  if (!lw_test_graph_isomorphic(&ours, &theirs, why, sizeof(why))) {
    printf("differs from rapper: %s\nours:\n", why);
    lw_test_graph_print(&ours, stdout);
    printf("rapper's:\n");
    lw_test_graph_print(&theirs, stdout);
    CHECK(false);
  }
  unlink(path);
  lw_test_graph_free(&ours);
  lw_test_graph_free(&theirs);
}

/* Each broken part is reported and skipped; the good statements stay. */
static void check_lax(void)
{
  const char *doc =
    "{\"http://s.example/a\": {\n"
    "  \"http://p.example/ok\": [{\"type\": \"literal\", \"value\": \"kept\"}],\n"
    "  \"http://p.example/both\": [{\"type\": \"literal\", \"value\": \"l\",\n"
    "     \"lang\": \"en\", \"datatype\": \"http://dt.example/\"}],\n"
    "  \"http://p.example/kind\": [{\"type\": \"iri\", \"value\": \"http://o.example/\"}],\n"
    "  \"http://p.example/novalue\": [{\"type\": \"uri\"}],\n"
    "  \"http://p.example/notarray\": {\"type\": \"uri\", \"value\": \"http://o/\"},\n"
    "  \"rel\": [{\"type\": \"uri\", \"value\": \"rel/o\"}],\n"
    "  \"http://p.example/bad iri\": [{\"type\": \"uri\", \"value\": \"http://o/\"}]},\n"
    " \"_:\": {\"http://p.example/p\": [{\"type\": \"uri\", \"value\": \"http://o/\"}]}\n"
    "}\n";
  LwTestGraph g = LW_TEST_GRAPH_INIT, want = LW_TEST_GRAPH_INIT;
  LwReadStats stats;
  CHECK_INT_EQ(read_text(doc, NULL, &g, &stats), LW_OK);
  CHECK_INT_EQ(stats.errors, 7);
  char why[256] = "";
  const char *kept = "<http://s.example/a> <http://p.example/ok> \"kept\" .\n";
  CHECK(lw_test_graph_parse(&want, kept, strlen(kept), why, sizeof(why)));
  CHECK(lw_test_graph_isomorphic(&g, &want, why, sizeof(why)));
  lw_test_graph_free(&g);
  /* with a base, relative IRIs are resolved */
  CHECK_INT_EQ(read_text(doc, "http://b.example/x/", &g, &stats), LW_OK);
  CHECK_INT_EQ(stats.errors, 6);
  CHECK_INT_EQ(stats.statements, 2);
  lw_test_graph_free(&g);
  lw_test_graph_free(&want);
  /* as rapper: an empty lang or datatype is absent, "_:" may be left out */
  const char *lenient = "{\"_:a\": {\"http://p.example/p\": ["
                        "{\"type\": \"literal\", \"value\": \"x\", \"lang\": \"\"},"
                        "{\"type\": \"literal\", \"value\": \"y\", \"datatype\": \"\"},"
                        "{\"type\": \"bnode\", \"value\": \"a\"}]}}";
  const char *lenient_nt = "_:a <http://p.example/p> \"x\" .\n"
                           "_:a <http://p.example/p> \"y\" .\n"
                           "_:a <http://p.example/p> _:a .\n";
  CHECK_INT_EQ(read_text(lenient, NULL, &g, &stats), LW_OK);
  CHECK_INT_EQ(stats.errors, 0);
  CHECK(lw_test_graph_parse(&want, lenient_nt, strlen(lenient_nt), why, sizeof(why)));
  CHECK(lw_test_graph_isomorphic(&g, &want, why, sizeof(why)));
  lw_test_graph_free(&g);
  lw_test_graph_free(&want);
  /* not an object at all */
  CHECK_INT_EQ(read_text("[{\"@id\": \"x\"}]", NULL, &g, &stats), LW_ERR_SYNTAX);
  CHECK_INT_EQ(read_text("{\"http://s/\": ", NULL, &g, &stats), LW_ERR_SYNTAX);
  lw_test_graph_free(&g);
}

int main(void)
{
  check_guess();
  check_lax();
  check_against_rapper();
  return lw_test_finish();
}
