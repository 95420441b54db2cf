/* RDFa in HTML that is not XML: pages libxml2's HTML parser reads as
 * browsers do before lodwash's RDFa processor (rdfa/) walks the tree. The
 * broken-HTML cases (an unclosed <p>, &nbsp;, a <br>, no XML declaration)
 * must yield the statements after the broken construct; the page size and
 * the nesting are capped; an XHTML page's XML errors come with their line;
 * a page with RDFa and JSON-LD scripts gives both. The RDFa test suite is
 * test_rdfa_suite.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "rdf/rdf.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"

#define BASE "http://page.example/dir/page.html"

static LwStatus append_quad(void *handle, const LwQuad *q)
{
  return lw_nquads_append(handle, q);
}

/* Reads page as RDFa with BASE; its N-Quads in out. */
static LwStatus read_page(const char *page, LwBuf *out, LwReadStats *stats, LwError *err)
{
  FILE *in = fmemopen((void *)page, strlen(page), "rb");
  LwReadOptions o = {
    .format = LW_FORMAT_RDFA, .base_iri = BASE, .on_quad = append_quad, .quad_handle = out};
  LwStatus st = lw_rdf_read(in, &o, stats, err);
  fclose(in);
  return st;
}

/* The page must read without error and give the statement want. */
static void check_page(const char *what, const char *page, const char *want)
{
  LwBuf out = {0};
  LwReadStats stats = {0};
  LwError err = {0};
  LwStatus st = read_page(page, &out, &stats, &err);
  CHECK_INT_EQ(st, LW_OK);
  bool found = out.data && strstr(out.data, want);
  if (!found) {
    printf("FAIL %s: want %s got:\n%s(%s)\n", what, want, out.data ? out.data : "",
           err.message);
  }
  CHECK(found);
  lw_buf_free(&out);
}

static const char *HEAD =
  "<!DOCTYPE html>\n<html prefix=\"dc: http://purl.org/dc/terms/\">\n"
  "<head><title>t</title></head>\n<body>\n";

static void check_broken_html(void)
{
  const char *after = "<http://page.example/dir/photo.jpg> "
                      "<http://purl.org/dc/terms/creator> \"Ann\" .\n";
  const char *statement = "<span about=\"photo.jpg\" property=\"dc:creator\">Ann</span>\n";
  const char *broken[][2] = {
    {"unclosed <p>", "<p>first paragraph\n<p>second\n"},
    {"&nbsp;", "<p>a&nbsp;b &copy; &eacute;</p>\n"},
    {"<br>", "<p>line<br>next<br>\n<img src=\"x.png\"><hr></p>\n"},
    {"unquoted attributes", "<div class=a id=b>x</div>\n"},
    {"a bare &", "<p>fish & chips</p>\n"},
    {"< in a script", "<script>if (a < b && c) {}</script>\n"},
  };
  for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
    char page[2048];
    snprintf(page, sizeof(page), "%s%s%s</body></html>\n", HEAD, broken[i][1], statement);
    check_page(broken[i][0], page, after);
  }
  /* no DOCTYPE, no <html>, no declaration: a fragment */
  check_page("fragment",
             "<p prefix=\"dc: http://purl.org/dc/terms/\">x<br>"
             "<span about=\"photo.jpg\" property=\"dc:creator\">Ann</span>",
             after);
  /* the entity's character is in the literal, decoded */
  check_page("&nbsp; in a literal",
             "<!DOCTYPE html><html><body><p about=\"#a\" "
             "property=\"http://purl.org/dc/terms/title\">A&nbsp;B&eacute;</p>",
             "<http://page.example/dir/page.html#a> "
             "<http://purl.org/dc/terms/title> \"A\xC2\xA0"
             "B\xC3\xA9\" .\n");
  /* HTML's lang gives the language; vocab works */
  check_page("lang and vocab",
             "<!DOCTYPE html><html lang=\"de\"><body vocab=\"http://schema.org/\">"
             "<div typeof=\"Person\" about=\"#p\"><p>x<span property=\"name\">Eva</span>",
             "<http://page.example/dir/page.html#p> <http://schema.org/name> "
             "\"Eva\"@de .\n");
  /* the pipeline hands the reader UTF-8 (the unpack stage recodes): a
   * <meta> charset left from before must not decode it again */
  check_page("UTF-8 under a Latin-1 <meta>",
             "<!DOCTYPE html><html><head><meta charset=\"iso-8859-1\">"
             "<meta http-equiv=\"Content-Type\" content=\"text/html; "
             "charset=windows-1252\"></head><body><p about=\"#a\" "
             "property=\"http://purl.org/dc/terms/title\">caf\xC3\xA9</p>",
             "<http://page.example/dir/page.html#a> "
             "<http://purl.org/dc/terms/title> \"caf\xC3\xA9\" .\n");
  /* an XHTML page with an XML declaration is read by the XML parser */
  check_page("XHTML",
             "<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">"
             "<body><p about=\"#x\" property=\"http://purl.org/dc/terms/title\">T</p>"
             "</body></html>",
             "<http://page.example/dir/page.html#x> "
             "<http://purl.org/dc/terms/title> \"T\" .\n");
}

/* An HTML page is parsed whole: past LW_HTML_MAX_BYTES (64 MiB) it fails
 * with a clear error rather than building a larger tree. */
static void check_size_cap(void)
{
  FILE *big = tmpfile();
  CHECK(big != NULL);
  if (!big) {
    return;
  }
  fputs("<!DOCTYPE html><html><body>", big);
  char line[1024];
  memset(line, 'x', sizeof(line) - 1);
  line[sizeof(line) - 1] = '\n';
  for (size_t i = 0; i < ((size_t)65 << 20) / sizeof(line); i++) {
    fwrite(line, 1, sizeof(line), big);
  }
  rewind(big);
  LwBuf out = {0};
  LwReadOptions o = {.format = LW_FORMAT_RDFA,
                     .base_iri = BASE,
                     .on_quad = append_quad,
                     .quad_handle = &out};
  LwReadStats stats;
  LwError err = {0};
  CHECK_INT_EQ(lw_rdf_read(big, &o, &stats, &err), LW_ERR_LIMIT);
  CHECK(strstr(err.message, "HTML page larger than 64 MiB") != NULL);
  fclose(big);
  lw_buf_free(&out);
}

/* 200000 unclosed <div>s: the tree walk stops at the depth cap with a
 * clear error, as an XHTML page's would. */
static void check_deep(void)
{
  LwBuf page = {0};
  lw_buf_append_str(&page, "<!DOCTYPE html><html><body>");
  for (int i = 0; i < 200000; i++) {
    lw_buf_append_str(&page, "<div>");
  }
  LwBuf out = {0};
  LwReadStats stats;
  LwError err = {0};
  LwStatus st = read_page(page.data, &out, &stats, &err);
  CHECK_INT_EQ(st, LW_ERR_LIMIT);
  CHECK(strstr(err.message, "nested deeper") != NULL);
  lw_buf_free(&page);
  lw_buf_free(&out);
}

/* An XHTML page broken in the middle: the XML error is reported with its
 * line, and what libxml2 recovers before it still gives its statement. */
static void check_xml_error(void)
{
  const char *page = "<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\n"
                     "<body><p about=\"#x\" property=\"http://purl.org/dc/terms/title\">T</p>\n"
                     "<p>unclosed <b>bold</p>\n</body></html>\n";
  LwBuf out = {0};
  LwReadStats stats = {0};
  LwError err = {0};
  CHECK_INT_EQ(read_page(page, &out, &stats, &err), LW_OK);
  CHECK(out.data && strstr(out.data, "<http://page.example/dir/page.html#x> "
                                     "<http://purl.org/dc/terms/title> \"T\" .\n"));
  CHECK(stats.errors > 0);
  lw_buf_free(&out);
}

/* RDFa and a JSON-LD script in one page: both are read. */
static void check_rdfa_and_jsonld(void)
{
  check_page("RDFa beside JSON-LD",
             "<!DOCTYPE html><html><head><script type=\"application/ld+json\">"
             "{\"@id\": \"http://e/j\", \"http://e/p\": \"from JSON-LD\"}</script></head>"
             "<body><p about=\"http://e/r\" property=\"http://e/p\">from RDFa</p></body></html>",
             "<http://e/r> <http://e/p> \"from RDFa\" .\n");
  check_page("JSON-LD beside RDFa",
             "<!DOCTYPE html><html><head><script type=\"application/ld+json\">"
             "{\"@id\": \"http://e/j\", \"http://e/p\": \"from JSON-LD\"}</script></head>"
             "<body><p about=\"http://e/r\" property=\"http://e/p\">from RDFa</p></body></html>",
             "<http://e/j> <http://e/p> \"from JSON-LD\" .\n");
}

/* The HTML+RDFa rules the issue named: <base href>, a typeof on <body>
 * typing the document, <time datetime> typed, rdfa:copy. */
static void check_html_rules(void)
{
  check_page("<base href>",
             "<!DOCTYPE html><html><head><base href=\"http://www.example.org/\"></head>"
             "<body><p about=\"faq\" property=\"http://e/p\">x</p></body></html>",
             "<http://www.example.org/faq> <http://e/p> \"x\" .\n");
  check_page("typeof on body",
             "<!DOCTYPE html><html><body typeof=\"http://e/Page\"></body></html>",
             "<" BASE "> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/Page> .\n");
  check_page("<time datetime>",
             "<!DOCTYPE html><html><body><time property=\"http://e/d\" "
             "datetime=\"2012-03-18\">18 March</time></body></html>",
             "<" BASE "> <http://e/d> \"2012-03-18\"^^<http://www.w3.org/2001/XMLSchema#date> .\n");
  check_page("rdfa:copy",
             "<!DOCTYPE html><html><body vocab=\"http://schema.org/\">"
             "<div typeof=\"Product\" about=\"#p\"><link property=\"rdfa:copy\" href=\"#pat\"></div>"
             "<div resource=\"#pat\" typeof=\"rdfa:Pattern\"><span property=\"name\">N</span>"
             "</div></body></html>",
             "<" BASE "#p> <http://schema.org/name> \"N\" .\n");
}

/* Hostile property copying and prefixes: two patterns copying each other
 * end (the rounds are capped), and 5000 prefixes on one element are cut at
 * LW_RDFA_MAX_PREFIXES in scope, reported, the page still read. */
static void check_hostile(void)
{
  check_page("patterns copying each other",
             "<!DOCTYPE html><html><body>"
             "<div resource=\"#a\" typeof=\"rdfa:Pattern\"><link property=\"rdfa:copy\" "
             "href=\"#b\"><span property=\"http://e/p\">A</span></div>"
             "<div resource=\"#b\" typeof=\"rdfa:Pattern\"><link property=\"rdfa:copy\" "
             "href=\"#a\"></div>"
             "<p about=\"#x\" property=\"http://e/q\">x</p></body></html>",
             "<" BASE "#x> <http://e/q> \"x\" .\n");
  LwBuf page = {0};
  lw_buf_append_str(&page, "<!DOCTYPE html><html><body prefix=\"");
  for (int i = 0; i < 5000; i++) {
    lw_buf_appendf(&page, "p%d: http://e/%d/ ", i, i);
  }
  lw_buf_append_str(&page, "\"><p about=\"#x\" property=\"p1:v\">x</p></body></html>");
  LwBuf out = {0};
  LwReadStats stats = {0};
  LwError err = {0};
  CHECK_INT_EQ(read_page(page.data, &out, &stats, &err), LW_OK);
  CHECK(out.data && strstr(out.data, "<" BASE "#x> <http://e/1/v> \"x\" .\n"));
  CHECK(stats.errors == 5000 - 4096);
  lw_buf_free(&page);
  lw_buf_free(&out);
}

int main(void)
{
  check_broken_html();
  check_size_cap();
  check_deep();
  check_xml_error();
  check_rdfa_and_jsonld();
  check_html_rules();
  check_hostile();
  return lw_test_finish();
}
