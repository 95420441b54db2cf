/* lw_rdf_read on each format: statements, base IRI, lax errors with their
 * locations, limits and hostile input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "rdf/rdf.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"

typedef struct {
  LwBuf out;    /* canonical N-Quads of every statement */
  LwBuf errors; /* "line:column message\n" per error */
  unsigned first_line;
  unsigned first_column;
  unsigned long stop_after; /* 0: never stop */
  unsigned long seen;
} Collected;

static LwStatus collect_quad(void *handle, const LwQuad *q)
{
  Collected *c = handle;
  if (c->stop_after && ++c->seen > c->stop_after) {
    return LW_ERR_IO;
  }
  return lw_nquads_append(&c->out, q);
}

static void collect_error(void *handle, unsigned line, unsigned column, const char *message)
{
  Collected *c = handle;
  if (c->errors.len == 0) {
    c->first_line = line;
    c->first_column = column;
  }
  lw_buf_appendf(&c->errors, "%u:%u %s\n", line, column, message);
}

/* Reads text (len bytes) in format; fills c. */
static LwStatus read_mem(const char *text, size_t len, LwFormat format, const char *base,
                         Collected *c, LwReadStats *stats, LwError *err)
{
  FILE *in = fmemopen((void *)text, len, "rb");
  LwReadOptions o = {.format = format,
                     .base_iri = base,
                     .on_quad = collect_quad,
                     .quad_handle = c,
                     .on_error = collect_error,
                     .error_handle = c};
  LwStatus st = lw_rdf_read(in, &o, stats, err);
  fclose(in);
  return st;
}

static LwStatus read_str(const char *text, LwFormat format, const char *base, Collected *c,
                         LwReadStats *stats, LwError *err)
{
  return read_mem(text, strlen(text), format, base, c, stats, err);
}

static void collected_free(Collected *c)
{
  lw_buf_free(&c->out);
  lw_buf_free(&c->errors);
}

static const char *out_of(const Collected *c)
{
  return c->out.data ? c->out.data : "";
}

static void test_turtle(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  LwStatus st = read_str("@prefix ex: <http://example.org/ns#> .\n"
                         "@base <http://example.org/dir/doc> .\n"
                         "<s> ex:p \"v\"@EN-gb, 42, true ; a ex:Thing .\n"
                         "<../t> <#q> [ ex:r ( 1 ) ] .\n",
                         LW_FORMAT_TURTLE, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, 8);
  CHECK_INT_EQ(stats.errors, 0);
  CHECK(strstr(out_of(&c),
               "<http://example.org/dir/s> <http://example.org/ns#p> \"v\"@en-gb .\n"));
  CHECK(strstr(
    out_of(&c),
    "<http://example.org/dir/s> <http://example.org/ns#p> \"42\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"));
  CHECK(strstr(
    out_of(&c),
    "<http://example.org/dir/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/ns#Thing> .\n"));
  CHECK(strstr(out_of(&c), "<http://example.org/t> <http://example.org/dir/doc#q> _:"));
  collected_free(&c);
}

/* The terms' canonical marks (LwTerm.canonical: the writer copies them as
 * they are), one letter per term of each statement: c marked, - not. */
static LwStatus collect_marks(void *handle, const LwQuad *q)
{
  Collected *c = handle;
  const LwTerm *terms[] = {&q->subject, &q->predicate, &q->object};
  for (size_t i = 0; i < 3; ++i) {
    LW_TRY(lw_buf_append_char(&c->errors, terms[i]->canonical ? 'c' : '-'));
  }
  LW_TRY(lw_buf_append_char(&c->errors, '\n'));
  return lw_nquads_append(&c->out, q);
}

static void test_canonical_marks(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  static const char doc[] = "@prefix ex: <http://example.org/ns#> .\n"
                            "ex:a ex:b \"plain\" .\n"
                            "ex:a ex:b \"say \\\"hi\\\"\\nbye\" .\n"
                            "<http://example.org/\xC3\xA9> ex:\xC3\xA9 ex:c .\n"
                            "@prefix ex: <rel#> .\n"
                            "ex:a ex:b ex:c .\n"
                            "@prefix ex: <http://example.org/other#> .\n"
                            "ex:a ex:b ex:c .\n";
  FILE *in = fmemopen((void *)doc, sizeof(doc) - 1, "rb");
  LwReadOptions o = {.format = LW_FORMAT_TURTLE,
                     .on_quad = collect_marks,
                     .quad_handle = &c,
                     .on_error = collect_error,
                     .error_handle = &c};
  LwStatus st = lw_rdf_read(in, &o, &stats, &err);
  fclose(in);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, 4);
  /* a namespace rebound is checked anew: relative, with no base */
  CHECK_STR_EQ(c.errors.data, "ccc\ncc-\n--c\n"
                              "5:19 prefix ex: bound to relative IRI <rel#>\n"
                              "6:15 prefix bound to a relative IRI and no base IRI: ex:a, "
                              "statement skipped\n"
                              "ccc\n");
  CHECK_STR_EQ(
    out_of(&c),
    "<http://example.org/ns#a> <http://example.org/ns#b> \"plain\" .\n"
    "<http://example.org/ns#a> <http://example.org/ns#b> \"say \\\"hi\\\"\\nbye\" .\n"
    "<http://example.org/\xC3\xA9> <http://example.org/ns#\xC3\xA9> "
    "<http://example.org/ns#c> .\n"
    "<http://example.org/other#a> <http://example.org/other#b> "
    "<http://example.org/other#c> .\n");
  collected_free(&c);
}

/* The same marks from the RDF/XML reader (raptor). */
static void test_canonical_marks_rdfxml(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  static const char doc[] =
    "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"\n"
    "         xmlns:ex=\"http://example.org/ns#\">\n"
    "  <rdf:Description rdf:about=\"http://example.org/a\">\n"
    "    <ex:b>plain</ex:b>\n"
    "    <ex:b>say \"hi\"\nbye</ex:b>\n"
    "    <ex:b rdf:resource=\"http://example.org/\xC3\xA9\"/>\n"
    "  </rdf:Description>\n"
    "</rdf:RDF>\n";
  FILE *in = fmemopen((void *)doc, sizeof(doc) - 1, "rb");
  LwReadOptions o = {.format = LW_FORMAT_RDFXML,
                     .base_iri = "http://example.org/doc",
                     .on_quad = collect_marks,
                     .quad_handle = &c,
                     .on_error = collect_error,
                     .error_handle = &c};
  LwStatus st = lw_rdf_read(in, &o, &stats, &err);
  fclose(in);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, 3);
  CHECK_STR_EQ(c.errors.data, "ccc\ncc-\ncc-\n");
  CHECK_STR_EQ(
    out_of(&c),
    "<http://example.org/a> <http://example.org/ns#b> \"plain\" .\n"
    "<http://example.org/a> <http://example.org/ns#b> \"say \\\"hi\\\"\\nbye\" .\n"
    "<http://example.org/a> <http://example.org/ns#b> <http://example.org/\xC3\xA9> .\n");
  collected_free(&c);
}

static void test_base_option(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  /* the option is the document's base; @base in the document overrides it */
  LwStatus st = read_str("<a> <b> <c/../d> .\n@base <sub/> .\n<e> <f> <g> .\n",
                         LW_FORMAT_TURTLE, "http://h.example/x/y?q", &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(
    out_of(&c),
    "<http://h.example/x/a> <http://h.example/x/b> <http://h.example/x/d> .\n"
    "<http://h.example/x/sub/e> <http://h.example/x/sub/f> <http://h.example/x/sub/g> .\n");
  collected_free(&c);

  /* without a base, relative IRIs are errors and their statements skipped */
  c = (Collected){0};
  st = read_str("<a> <http://b> <http://c> .\n<http://a> <http://b> <http://c> .\n",
                LW_FORMAT_TURTLE, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, 1);
  CHECK_INT_EQ(stats.errors, 1);
  collected_free(&c);

  /* a base that is not absolute is a usage error */
  c = (Collected){0};
  st = read_str("<a> <b> <c> .\n", LW_FORMAT_TURTLE, "rel/", &c, &stats, &err);
  CHECK_INT_EQ(st, LW_ERR_USAGE);
  collected_free(&c);

  /* RDF/XML: the base resolves rdf:about and rdf:resource */
  c = (Collected){0};
  st = read_str("<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'"
                " xmlns:ex='http://example.org/'>"
                "<rdf:Description rdf:about='s'><ex:p rdf:resource='../o'/>"
                "</rdf:Description></rdf:RDF>",
                LW_FORMAT_RDFXML, "http://h.example/a/b", &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(out_of(&c),
               "<http://h.example/a/s> <http://example.org/p> <http://h.example/o> .\n");
  collected_free(&c);
}

static void test_ntriples_lax(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  LwStatus st = read_str("<http://a> <http://b> \"good 1\" .\n"
                         "<http://a> <http://b> \"bad .\n"
                         "<http://a> <http://b> \"good 2\" .\n"
                         "<http://a> <http://b> <relative> .\n"
                         "<http://a> <http://b> \"good 3\"@en .\n",
                         LW_FORMAT_NTRIPLES, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, 3);
  CHECK(stats.errors >= 2);
  CHECK_INT_EQ(c.first_line, 2);
  CHECK(c.first_column > 20);
  CHECK_STR_EQ(out_of(&c), "<http://a> <http://b> \"good 1\" .\n"
                           "<http://a> <http://b> \"good 2\" .\n"
                           "<http://a> <http://b> \"good 3\"@en .\n");
  collected_free(&c);
}

static void test_nquads_graphs(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  LwStatus st = read_str("<http://a> <http://b> <http://c> <http://g> .\n"
                         "_:x <http://b> \"l\" _:g .\n"
                         "<http://a> <http://b> <http://c> .\n",
                         LW_FORMAT_NQUADS, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(out_of(&c), "<http://a> <http://b> <http://c> <http://g> .\n"
                           "_:x <http://b> \"l\" _:g .\n"
                           "<http://a> <http://b> <http://c> .\n");
  collected_free(&c);

  c = (Collected){0};
  st = read_str("@prefix e: <http://e/> .\n e:g { e:a e:b e:c } { e:d e:e e:f }\n",
                LW_FORMAT_TRIG, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(out_of(&c), "<http://e/a> <http://e/b> <http://e/c> <http://e/g> .\n"
                           "<http://e/d> <http://e/e> <http://e/f> .\n");
  collected_free(&c);
}

static void test_bad_escapes(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  /* surrogates and code points past U+10FFFF are syntax errors, located */
  LwStatus st = read_str("<http://a> <http://b> \"ok\" .\n"
                         "<http://a> <http://b> \"x\\uD800\" .\n"
                         "<http://a> <http://b> \"x\\U00110000\" .\n"
                         "<http://a> <http://b> <http://x/\\u0020> .\n"
                         "<http://a> <http://b> \"\\U0001F600\" .\n",
                         LW_FORMAT_NTRIPLES, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, 2);
  CHECK(stats.errors >= 3);
  CHECK_INT_EQ(c.first_line, 2);
  CHECK_INT_EQ(c.first_column, 30);
  CHECK_STR_EQ(out_of(&c), "<http://a> <http://b> \"ok\" .\n"
                           "<http://a> <http://b> \"\xF0\x9F\x98\x80\" .\n");
  collected_free(&c);
}

static void test_errors_located(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  LwStatus st = read_str("@prefix e: <http://e/> .\n"
                         "e:a e:b e:c .\n"
                         "e:a e:b e:c e:d .\n"
                         "e:a e:b e:c .\n",
                         LW_FORMAT_TURTLE, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(stats.errors >= 1);
  CHECK_INT_EQ(c.first_line, 3);
  CHECK(c.first_column >= 12 && c.first_column <= 14);
  collected_free(&c);

  /* undefined prefix */
  c = (Collected){0};
  st = read_str("u:a <http://b> <http://c> .\n<http://a> <http://b> <http://c> .\n",
                LW_FORMAT_TURTLE, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, 1);
  CHECK(stats.errors >= 1);
  collected_free(&c);

  /* RDF/XML: an XML error is located and ends the document */
  c = (Collected){0};
  st = read_str("<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>\n"
                "<rdf:Description rdf:about='http://s'>\n"
                "  <oops>\n"
                "</rdf:Description></rdf:RDF>\n",
                LW_FORMAT_RDFXML, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_ERR_SYNTAX); /* libxml2 reads no further */
  CHECK(stats.errors >= 1);
  CHECK(c.first_line >= 3 && c.first_line <= 4);
  CHECK(strstr(err.message, "line ") == err.message);
  collected_free(&c);
}

static void test_rdfa(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  static const char *page =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<html xmlns=\"http://www.w3.org/1999/xhtml\" prefix=\"ex: http://example.org/\">\n"
    "<head><title>t</title></head>\n"
    "<body about=\"#me\">\n"
    "  <span property=\"ex:name\" xml:lang=\"de\">Ich</span>\n"
    "  <a rel=\"ex:knows\" href=\"friend\">f</a>\n"
    "  <div typeof=\"ex:Thing\"><span property=\"ex:label\">x</span></div>\n"
    "</body></html>\n";
  LwStatus st = read_str(page, LW_FORMAT_RDFA, "http://doc.example/dir/page", &c, &stats,
                         &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.errors, 0);
  const char *out = out_of(&c);
  CHECK(strstr(
    out, "<http://doc.example/dir/page#me> <http://example.org/name> \"Ich\"@de .\n"));
  CHECK(strstr(
    out,
    "<http://doc.example/dir/page#me> <http://example.org/knows> <http://doc.example/dir/friend> .\n"));
  CHECK(strstr(
    out,
    "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Thing> .\n"));
  CHECK(strstr(out, "<http://example.org/label> \"x\" .\n"));
  collected_free(&c);

  /* without a base, the page's relative links cannot become IRIs */
  c = (Collected){0};
  st = read_str(page, LW_FORMAT_RDFA, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(stats.errors >= 2);
  CHECK(strstr(out_of(&c), "lodwash.invalid") == NULL);
  collected_free(&c);
}

static void test_blank_labels(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  /* RDF/XML: a document's nodeID never meets a generated label */
  LwStatus st = read_str(
    "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'"
    " xmlns:e='http://e/'>"
    "<rdf:Description rdf:nodeID='g1'><e:p rdf:nodeID='x'/></rdf:Description>"
    "<rdf:Description><e:p><rdf:Description/></e:p></rdf:Description>"
    "</rdf:RDF>",
    LW_FORMAT_RDFXML, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_STR_EQ(out_of(&c), "_:gg1 <http://e/p> _:x .\n_:g1 <http://e/p> _:g2 .\n");
  collected_free(&c);

  /* Turtle: _:b1 (serd makes it B1), _:B1 and _:BB1 stay three nodes */
  c = (Collected){0};
  st = read_str("_:B1 <http://e/p> _:b1 .\n_:b1 <http://e/p> _:BB1 .\n"
                "_:BB1 <http://e/p> _:B1 .\n",
                LW_FORMAT_TURTLE, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.errors, 0);
  CHECK_STR_EQ(out_of(&c), "_:BB1 <http://e/p> _:B1 .\n_:B1 <http://e/p> _:BBB1 .\n"
                           "_:BBB1 <http://e/p> _:BB1 .\n");
  collected_free(&c);

  /* Turtle: labels like serd's own generated ones stay apart from them */
  c = (Collected){0};
  st = read_str("_:b1 <http://e/p> [] .\n", LW_FORMAT_TURTLE, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, 1);
  const char *out = out_of(&c);
  const char *second = strstr(out + 2, "_:");
  CHECK(second && strncmp(out, second, strcspn(second, " ")) != 0);
  collected_free(&c);
}

static void test_sink_stops(void)
{
  Collected c = {0};
  c.stop_after = 2;
  LwReadStats stats;
  LwError err;
  LwStatus st = read_str("<http://a> <http://b> \"1\" .\n<http://a> <http://b> \"2\" .\n"
                         "<http://a> <http://b> \"3\" .\n<http://a> <http://b> \"4\" .\n",
                         LW_FORMAT_NTRIPLES, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_ERR_IO);
  CHECK_INT_EQ(stats.statements, 2);
  collected_free(&c);

  /* stopped while serd's page ends inside a long IRI: serd must still end */
  LwBuf doc = LW_BUF_INIT;
  lw_buf_append_str(&doc, "<http://a> <http://b> <http://c> .\n"
                          "<http://a> <http://b> <http://c> .\n"
                          "<http://a> <http://b> <http://");
  for (int i = 0; i < 100000; ++i) {
    lw_buf_append_char(&doc, 'x');
  }
  lw_buf_append_str(&doc, "> .\n");
  c = (Collected){0};
  c.stop_after = 1;
  st = read_mem(doc.data, doc.len, LW_FORMAT_TURTLE, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_ERR_IO);
  CHECK_INT_EQ(stats.statements, 1);
  collected_free(&c);
  lw_buf_free(&doc);
}

/* RDF/XML over many read-ahead blocks (rdf_readers/xml_feed_thread.h):
 * property attributes under xml:lang and xml:base values with a query, in
 * tags that straddle the blocks, read as in a small document; and a sink
 * that stops early ends the reading while the read-ahead waits. */
static void test_rdfxml_blocks(void)
{
  LwBuf doc = LW_BUF_INIT;
  lw_buf_append_str(&doc, "<?xml version=\"1.0\"?>\n<rdf:RDF "
                          "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" "
                          "xmlns:ex=\"http://ex.example/\" xml:lang=\"en\">\n");
  enum { N = 6000 };
  for (int i = 0; i < N; ++i) {
    lw_buf_appendf(&doc,
                   "<rdf:Description xml:base=\"http://b.example/x?q=%d\" rdf:about=\"#s\" "
                   "ex:p=\"v%d\"/>\n",
                   i % 50, i);
  }
  lw_buf_append_str(&doc, "</rdf:RDF>\n");
  CHECK(doc.len > 4 * 65536);
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  LwStatus st = read_mem(doc.data, doc.len, LW_FORMAT_RDFXML, "http://doc.example/", &c, &stats,
                         &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, N);
  const char *out = out_of(&c);
  CHECK(strstr(out, "<http://b.example/x?q=0#s> <http://ex.example/p> \"v0\"@en .\n") != NULL);
  CHECK(strstr(out, "<http://b.example/x?q=10#s> <http://ex.example/p> \"v3210\"@en .\n") !=
        NULL);
  CHECK(strstr(out, "<http://b.example/x?q=49#s> <http://ex.example/p> \"v5999\"@en .\n") !=
        NULL);
  collected_free(&c);

  c = (Collected){0};
  c.stop_after = 1;
  st = read_mem(doc.data, doc.len, LW_FORMAT_RDFXML, "http://doc.example/", &c, &stats, &err);
  CHECK_INT_EQ(st, LW_ERR_IO);
  CHECK_INT_EQ(stats.statements, 1);
  collected_free(&c);
  lw_buf_free(&doc);
}

static void test_formats(void)
{
  Collected c = {0};
  LwReadStats stats;
  LwError err;
  /* JSON-LD goes to the JSON-LD processor: an empty object has no triples */
  LwStatus st = read_str("{}", LW_FORMAT_JSONLD, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, 0);
  st = read_str("", LW_FORMAT_UNKNOWN, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_ERR_USAGE);
  /* empty inputs are fine */
  st = read_str("", LW_FORMAT_TURTLE, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(stats.statements, 0);
  st = read_str("", LW_FORMAT_NQUADS, NULL, &c, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  collected_free(&c);
}

int main(void)
{
  test_turtle();
  test_canonical_marks();
  test_canonical_marks_rdfxml();
  test_base_option();
  test_ntriples_lax();
  test_nquads_graphs();
  test_bad_escapes();
  test_errors_located();
  test_rdfa();
  test_blank_labels();
  test_sink_stops();
  test_rdfxml_blocks();
  test_formats();
  return lw_test_finish();
}
