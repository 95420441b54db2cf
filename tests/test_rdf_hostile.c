/* Hostile input: every reader must fail fast with a clear error, never
 * crash, hang or allocate without bound. Memory stays flat in the input's
 * size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/base.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"

typedef struct {
  unsigned long long quads;
  unsigned long long errors;
} Counts;

static LwStatus count_quad(void *handle, const LwQuad *q)
{
  (void)q;
  ++((Counts *)handle)->quads;
  return LW_OK;
}

static void count_error(void *handle, unsigned line, unsigned column, const char *message)
{
  (void)line, (void)column, (void)message;
  ++((Counts *)handle)->errors;
}

static LwStatus read_opts(const char *text, size_t len, LwFormat format, size_t max_term,
                          Counts *c, LwError *err)
{
  FILE *in = fmemopen((void *)text, len, "rb");
  LwReadOptions o = {.format = format,
                     .on_quad = count_quad,
                     .quad_handle = c,
                     .on_error = count_error,
                     .error_handle = c,
                     .max_term_bytes = max_term,
                     .base_iri = "http://example.org/doc"};
  LwReadStats stats;
  LwStatus st = lw_rdf_read(in, &o, &stats, err);
  fclose(in);
  return st;
}

static long peak_rss_kb(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* n copies of open, then close n copies of close */
static char *repeat(const char *head, const char *open, size_t n, const char *close,
                    const char *tail)
{
  LwBuf b = LW_BUF_INIT;
  lw_buf_append_str(&b, head);
  for (size_t i = 0; i < n; ++i) {
    lw_buf_append_str(&b, open);
  }
  for (size_t i = 0; close && i < n; ++i) {
    lw_buf_append_str(&b, close);
  }
  lw_buf_append_str(&b, tail);
  return lw_buf_steal(&b);
}

static void test_deep_nesting(void)
{
  static const struct {
    LwFormat format;
    const char *open, *close, *head;
  } cases[] = {
    {LW_FORMAT_TURTLE, "[ <p> ", "] ", "<s> <p> "},
    {LW_FORMAT_TURTLE, "( ", ") ", "<s> <p> "},
    {LW_FORMAT_TRIG, "( ", ") ", "<g> { <s> <p> "},
    /* nested braces are N3 formulae, refused at the second '{' */
    {LW_FORMAT_TRIG, "{ ", "} ", ""},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    char *doc = repeat(cases[i].head, cases[i].open, 100000, cases[i].close, ".\n");
    Counts c = {0};
    LwError err;
    double t0 = lw_monotonic_seconds();
    LwStatus st = read_opts(doc, strlen(doc), cases[i].format, 0, &c, &err);
    bool braces = cases[i].open[0] == '{';
    CHECK_INT_EQ(st, braces ? LW_ERR_FORMAT : LW_ERR_LIMIT);
    CHECK(strstr(err.message,
                 braces ? "N3 formulae are not RDF" : "nesting deeper than 256") != NULL);
    CHECK(lw_monotonic_seconds() - t0 < 5.0);
    free(doc);
  }
  /* 200 levels are fine */
  char *doc = repeat("<s> ", "<p> [ ", 200, "] ", ".\n");
  Counts c = {0};
  LwError err;
  CHECK_INT_EQ(read_opts(doc, strlen(doc), LW_FORMAT_TURTLE, 0, &c, &err), LW_OK);
  CHECK_INT_EQ(c.quads, 200);
  CHECK_INT_EQ(c.errors, 0);
  free(doc);
  /* brackets inside strings, IRIs and comments do not count */
  doc = repeat("<s> <p> \"", "[(", 1000, NULL, "\" . # [[[[[[\n<s> <p> <x[[[> .\n");
  c = (Counts){0};
  CHECK_INT_EQ(read_opts(doc, strlen(doc), LW_FORMAT_TURTLE, 0, &c, &err), LW_OK);
  CHECK_INT_EQ(c.quads, 2);
  free(doc);
}

static void test_huge_terms(void)
{
  /* a 17 MiB IRI, over the default 16 MiB cap */
  char *doc = repeat("<s> <p> <http://example.org/", "aaaaaaaaaaaaaaaa", 17u << 16, NULL,
                     "> .\n");
  Counts c = {0};
  LwError err;
  double t0 = lw_monotonic_seconds();
  CHECK_INT_EQ(read_opts(doc, strlen(doc), LW_FORMAT_TURTLE, 0, &c, &err), LW_ERR_LIMIT);
  CHECK(strstr(err.message, "a term longer than") != NULL);
  CHECK(lw_monotonic_seconds() - t0 < 10.0);
  c = (Counts){0};
  CHECK_INT_EQ(read_opts(doc, strlen(doc), LW_FORMAT_NTRIPLES, 0, &c, &err), LW_ERR_LIMIT);
  free(doc);
  /* with a small cap: a long literal, a long prefixed name, a long line */
  const char *docs[] = {
    "<http://s> <http://p> \"0123456789012345678901234567890123456789\" .\n",
    "@prefix e: <http://e/> . e:s e:p e:o0123456789012345678901234567890123456789 .\n",
    "<http://s> <http://p> \"\"\"0123456789\n0123456789\n0123456789\n0123456789\"\"\" .\n",
  };
  for (size_t i = 0; i < 3; ++i) {
    c = (Counts){0};
    CHECK_INT_EQ(read_opts(docs[i], strlen(docs[i]), LW_FORMAT_TURTLE, 32, &c, &err),
                 LW_ERR_LIMIT);
  }
  c = (Counts){0};
  CHECK_INT_EQ(read_opts(docs[0], strlen(docs[0]), LW_FORMAT_TURTLE, 64, &c, &err), LW_OK);
  /* a line of 10 MB without a newline, in N-Triples with a 1 KiB term cap */
  doc = repeat("", "<http://s> ", 1000000, NULL, "");
  c = (Counts){0};
  CHECK_INT_EQ(read_opts(doc, strlen(doc), LW_FORMAT_NTRIPLES, 1024, &c, &err),
               LW_ERR_LIMIT);
  CHECK(strstr(err.message, "longer than") != NULL);
  free(doc);
}

static void test_xml_entities(void)
{
  static const char *laughs =
    "<?xml version=\"1.0\"?>\n"
    "<!DOCTYPE rdf:RDF [\n"
    " <!ENTITY lol \"lol\">\n"
    " <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
    " <!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">\n"
    " <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
    " <!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n"
    " <!ENTITY lol5 \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;\">\n"
    " <!ENTITY lol6 \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;\">\n"
    " <!ENTITY lol7 \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;\">\n"
    " <!ENTITY lol8 \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;\">\n"
    " <!ENTITY lol9 \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;\">\n"
    "]>\n"
    "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\""
    " xmlns:e=\"http://e/\"><rdf:Description rdf:about=\"http://s\">"
    "<e:p>&lol9;</e:p></rdf:Description></rdf:RDF>\n";
  Counts c = {0};
  LwError err;
  long rss0 = peak_rss_kb();
  double t0 = lw_monotonic_seconds();
  CHECK_INT_EQ(read_opts(laughs, strlen(laughs), LW_FORMAT_RDFXML, 0, &c, &err),
               LW_ERR_LIMIT);
  CHECK(strstr(err.message, "DTD refused") != NULL);
  CHECK_INT_EQ(c.quads, 0);
  CHECK(lw_monotonic_seconds() - t0 < 1.0);
  CHECK(peak_rss_kb() - rss0 < 50000);

  /* quadratic blowup: one big plain entity, referenced very often */
  LwBuf b = LW_BUF_INIT;
  lw_buf_append_str(&b, "<!DOCTYPE rdf:RDF [<!ENTITY a \"");
  for (int i = 0; i < 8000; ++i) {
    lw_buf_append_char(&b, 'a');
  }
  lw_buf_append_str(&b, "\">]><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/"
                        "02/22-rdf-syntax-ns#\" xmlns:e=\"http://e/\">"
                        "<rdf:Description rdf:about=\"http://s\"><e:p>");
  for (int i = 0; i < 200000; ++i) {
    lw_buf_append_str(&b, "&a;");
  }
  lw_buf_append_str(&b, "</e:p></rdf:Description></rdf:RDF>\n");
  c = (Counts){0};
  t0 = lw_monotonic_seconds();
  CHECK_INT_EQ(read_opts(b.data, b.len, LW_FORMAT_RDFXML, 0, &c, &err), LW_ERR_LIMIT);
  CHECK(strstr(err.message, "entity expansion") != NULL);
  CHECK(lw_monotonic_seconds() - t0 < 5.0);
  CHECK(peak_rss_kb() - rss0 < 100000);
  lw_buf_free(&b);

  /* external and parameter entities are refused outright */
  const char *refused[] = {
    "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>",
    "<!DOCTYPE r [<!ENTITY % p SYSTEM \"http://127.0.0.1:1/x.dtd\"> %p;]><r/>",
    "<!DOCTYPE r [<!ENTITY x PUBLIC \"-//x\" \"http://127.0.0.1:1/\">]><r/>",
  };
  for (size_t i = 0; i < 3; ++i) {
    c = (Counts){0};
    CHECK_INT_EQ(read_opts(refused[i], strlen(refused[i]), LW_FORMAT_RDFXML, 0, &c, &err),
                 LW_ERR_LIMIT);
  }

  /* plain entities, as OWL files use them for namespaces, still work */
  const char *owl =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE rdf:RDF [\n"
    "  <!ENTITY xsd \"http://www.w3.org/2001/XMLSchema#\" >\n"
    "  <!ENTITY rdf 'http://www.w3.org/1999/02/22-rdf-syntax-ns#' >\n]>\n"
    "<rdf:RDF xmlns:rdf=\"&rdf;\" xmlns:e=\"http://e/\">"
    "<rdf:Description rdf:about=\"http://s\">"
    "<e:p rdf:datatype=\"&xsd;integer\">1</e:p></rdf:Description></rdf:RDF>\n";
  c = (Counts){0};
  CHECK_INT_EQ(read_opts(owl, strlen(owl), LW_FORMAT_RDFXML, 0, &c, &err), LW_OK);
  CHECK_INT_EQ(c.quads, 1);
  CHECK_INT_EQ(c.errors, 0);

  /* an external DTD subset is not fetched, and not fatal */
  const char *xhtml = "<!DOCTYPE rdf:RDF PUBLIC \"-//x//EN\" \"http://127.0.0.1:1/x.dtd\">"
                      "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" "
                      "xmlns:e=\"http://e/\"><rdf:Description rdf:about=\"http://s\">"
                      "<e:p>x</e:p></rdf:Description></rdf:RDF>";
  c = (Counts){0};
  CHECK_INT_EQ(read_opts(xhtml, strlen(xhtml), LW_FORMAT_RDFXML, 0, &c, &err), LW_OK);
  CHECK_INT_EQ(c.quads, 1);
}

static void test_deep_xml(void)
{
  char *doc = repeat("<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\""
                     " xmlns:e=\"http://e/\">",
                     "<rdf:Description><e:p>", 100000, "</e:p></rdf:Description>",
                     "</rdf:RDF>");
  Counts c = {0};
  LwError err;
  double t0 = lw_monotonic_seconds();
  LwStatus st = read_opts(doc, strlen(doc), LW_FORMAT_RDFXML, 0, &c, &err);
  CHECK(st == LW_ERR_SYNTAX || st == LW_ERR_LIMIT);
  CHECK(lw_monotonic_seconds() - t0 < 10.0);
  free(doc);
}

/* Reading a file many times the size of any buffer keeps memory flat. */
static void test_flat_memory(void)
{
  FILE *f = tmpfile();
  char line[256];
  for (int i = 0; i < 400000; ++i) { /* about 40 MB */
    int n = snprintf(line, sizeof(line),
                     "<http://example.org/resource/%d> <http://example.org/p> "
                     "\"a literal value number %d\"@en .\n",
                     i, i);
    fwrite(line, 1, (size_t)n, f);
  }
  long rss0 = peak_rss_kb();
  LwFormat formats[] = {LW_FORMAT_NTRIPLES, LW_FORMAT_TURTLE};
  for (int k = 0; k < 2; ++k) {
    rewind(f);
    Counts c = {0};
    LwReadOptions o = {.format = formats[k],
                       .on_quad = count_quad,
                       .quad_handle = &c,
                       .on_error = count_error,
                       .error_handle = &c};
    LwReadStats stats;
    LwError err;
    CHECK_INT_EQ(lw_rdf_read(f, &o, &stats, &err), LW_OK);
    CHECK_INT_EQ(c.quads, 400000);
    CHECK_INT_EQ(c.errors, 0);
  }
  long grown = peak_rss_kb() - rss0;
  printf("peak RSS grew by %ld KiB reading 2 x 40 MB\n", grown);
  CHECK(grown < 20000);
  fclose(f);
}

int main(void)
{
  setvbuf(stdout, NULL, _IONBF, 0);
  test_flat_memory(); /* first, before the other tests raise the peak */
  printf("%s\n", "test_deep_nesting");
  test_deep_nesting();
  printf("%s\n", "test_huge_terms");
  test_huge_terms();
  printf("%s\n", "test_xml_entities");
  test_xml_entities();
  printf("%s\n", "test_deep_xml");
  test_deep_xml();
  lw_xml_guard_free(NULL); /* safe */
  return lw_test_finish();
}
