/*
 * Format guessing: small cases first, then every data file of the shared
 * test data (W3C RDF 1.1 suites from their manifests, JSON-LD toRdf inputs,
 * RDFa test templates wrapped as HTML5, real datasets), each without hints,
 * with the right hints and with misleading ones.
 *
 * "Right" is the manifest's format, or for the Turtle family a narrower
 * format the file also is (N-Triples content in a Turtle test, Turtle
 * content in a TriG test): that is accepted when serd reads the whole file
 * in the guessed syntax without an error, so a parser fed the guess reads
 * the same statements.
 */
#include "rdf/rdf.h"
#include "tests/support/check.h"

#include <dirent.h>
#include <serd/serd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- small cases ---------------------------------------------------- */

typedef struct {
  const char *content;
  const char *media_type;
  const char *filename;
  LwFormat expected;
  const char *reason; /* a substring of info.reason, or NULL */
} Case;

static const Case cases[] = {
  /* N-Triples vs N-Quads */
  {"<http://a/s> <http://a/p> <http://a/o> .\n", NULL, NULL, LW_FORMAT_NTRIPLES,
   "N-Triples"},
  {"<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n", NULL, NULL, LW_FORMAT_NQUADS,
   "fourth term"},
  {"<http://a/s> <http://a/p> \"x\"@en .\n_:b <http://a/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
   NULL, NULL, LW_FORMAT_NTRIPLES, NULL},
  {"<http://a/s> <http://a/p> \"x\" .\n<http://a/s> <http://a/p> \"y\" _:g .\n", NULL, NULL,
   LW_FORMAT_NQUADS, NULL},
  {"# comment\n<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n", NULL, "x.nt",
   LW_FORMAT_NQUADS, NULL},
  {"<http://a/s> <http://a/p> <http://a/o> .\n", NULL, "x.nq", LW_FORMAT_NQUADS, "by hint"},
  {"<http://a/s> <http://a/p> <http://a/o> .\n", "text/turtle", NULL, LW_FORMAT_TURTLE,
   "by hint"},
  {"<http://a/s> <http://a/p> <http://a/o> .\n", "application/rdf+xml", "x.rdf",
   LW_FORMAT_NTRIPLES, NULL},
  /* a media type that does not fit leaves the tie to the extension */
  {"<http://a/s> <http://a/p> <http://a/o> .\n", "text/html", "x.ttl", LW_FORMAT_TURTLE,
   "by hint"},
  {"<http://a/s> <http://a/p> <http://a/o> .\n", "application/n-triples", "x.ttl",
   LW_FORMAT_NTRIPLES, "N-Triples:"},
  /* Turtle vs N-Triples */
  {"@prefix ex: <http://ex/> .\nex:a ex:b ex:c .\n", NULL, NULL, LW_FORMAT_TURTLE,
   "@prefix"},
  {"PREFIX ex: <http://ex/>\nex:a ex:b ex:c .\n", NULL, NULL, LW_FORMAT_TURTLE, "PREFIX"},
  {"<http://a/s> <http://a/p> <http://a/o> ;\n  <http://a/q> <http://a/r> .\n", NULL, NULL,
   LW_FORMAT_TURTLE, "';'"},
  {"<http://a/s> <http://a/p> <http://a/o>, <http://a/r> .\n", NULL, "x.nt",
   LW_FORMAT_TURTLE, "','"},
  {"<http://a/s> a <http://a/C> .\n", NULL, NULL, LW_FORMAT_TURTLE, "'a'"},
  {"<http://a/s>\n  <http://a/p>\n  <http://a/o> .\n", NULL, NULL, LW_FORMAT_TURTLE,
   "several lines"},
  {"<http://a/s> <http://a/p> 42 .\n", NULL, NULL, LW_FORMAT_TURTLE, "number"},
  {"<http://a/s> <http://a/p> \"\"\"long\nstring\"\"\" .\n", NULL, NULL, LW_FORMAT_TURTLE,
   "long"},
  {"[ <http://a/p> <http://a/o> ] .\n", NULL, NULL, LW_FORMAT_TURTLE, "property list"},
  {"[] <http://a/p> ( 1 2 ) .\n", NULL, NULL, LW_FORMAT_TURTLE, NULL},
  {"<s> <p> <o> .\n", NULL, NULL, LW_FORMAT_TURTLE, "relative"},
  {":a :b :c .\n", NULL, NULL, LW_FORMAT_TURTLE, "prefixed"},
  /* Turtle vs TriG */
  {"@prefix ex: <http://ex/> .\nex:g { ex:a ex:b ex:c . }\n", NULL, NULL, LW_FORMAT_TRIG,
   "graph block"},
  {"{ <http://a/s> <http://a/p> <http://a/o> . }\n", NULL, "x.ttl", LW_FORMAT_TRIG,
   "graph block"},
  {"GRAPH <http://a/g> { <http://a/s> <http://a/p> <http://a/o> }\n", NULL, NULL,
   LW_FORMAT_TRIG, "GRAPH"},
  {"<http://a/g> { <http://a/s> <http://a/p> <http://a/o> }\n", NULL, NULL, LW_FORMAT_TRIG,
   NULL},
  {"@prefix ex: <http://ex/> .\nex:a ex:b \"{ not a graph }\" .\n", NULL, NULL,
   LW_FORMAT_TURTLE, NULL},
  {"@prefix ex: <http://ex/> .\nex:a ex:b ex:c .\n", NULL, "x.trig", LW_FORMAT_TRIG,
   "by hint"},
  /* RDF/XML */
  {"<?xml version=\"1.0\"?>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>",
   NULL, "x.ttl", LW_FORMAT_RDFXML, "rdf:RDF"},
  {"<!-- a comment -->\n<!DOCTYPE rdf:RDF [ <!ENTITY rdf \"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"> ]>\n"
   "<rdf:RDF xmlns:rdf=\"&rdf;\"></rdf:RDF>",
   "text/plain", NULL, LW_FORMAT_RDFXML, NULL},
  {"<foaf:Person xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" "
   "xmlns:foaf=\"http://xmlns.com/foaf/0.1/\"/>",
   NULL, NULL, LW_FORMAT_RDFXML, "RDF namespace"},
  {"<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"></feed>", NULL,
   "x.xhtml", LW_FORMAT_UNKNOWN, "XML without the RDF namespace"},
  {"<Book xmlns=\"http://example.org/terms#\"><title>Dogs</title></Book>", NULL, "book.rdf",
   LW_FORMAT_RDFXML, "by hint"},
  /* HTML with and without RDFa */
  {"<!DOCTYPE html>\n<html><head><title>x</title></head><body><p property=\"dc:title\">T</p></body></html>",
   NULL, NULL, LW_FORMAT_RDFA, "property"},
  {"<html vocab=\"http://schema.org/\"><body><div typeof=\"Person\"></div></body></html>",
   NULL, NULL, LW_FORMAT_RDFA, "vocab"},
  {"<!DOCTYPE html><html><head><meta property=\"og:title\" content=\"x\"></head></html>",
   NULL, NULL, LW_FORMAT_RDFA, NULL},
  {"<html><body><a rel=\"license\" href=\"http://creativecommons.org/\">cc</a></body></html>",
   NULL, NULL, LW_FORMAT_RDFA, "rel"},
  {"<!DOCTYPE html>\n<html><head><link rel=\"stylesheet\" href=\"s.css\"><title>x</title></head>"
   "<body><p class=\"about\">about=nothing</p></body></html>",
   "text/html", "x.html", LW_FORMAT_UNKNOWN, "HTML without RDFa attributes"},
  {"<!DOCTYPE html><html><head><script>var s = '<p property=\"x\">';</script></head></html>",
   NULL, NULL, LW_FORMAT_UNKNOWN, "HTML without RDFa"},
  {"<!DOCTYPE html><html><body><div itemscope itemprop=\"x\"></div></body></html>", NULL,
   NULL, LW_FORMAT_UNKNOWN, "microdata"},
  {"<!DOCTYPE html><html><head><script type=\"application/ld+json\">{}</script></head></html>",
   NULL, NULL, LW_FORMAT_JSONLD_HTML, "JSON-LD script"},
  {"<html><head><script type='application/ld+json; charset=utf-8'>{\"@id\": \"x\"}</script>"
   "</head><body><p>text</p></body></html>",
   "text/html", "page.html", LW_FORMAT_JSONLD_HTML, "JSON-LD script"},
  {"<html><head><script type=\"application/ld+json\">{}</script></head>"
   "<body><p property=\"dc:title\">T</p></body></html>",
   NULL, NULL, LW_FORMAT_RDFA, "property"},
  {"<html><head></head></html>", NULL, NULL, LW_FORMAT_UNKNOWN, "HTML without RDFa"},
  {"<html> <head> <title> .", NULL, NULL, LW_FORMAT_TURTLE, "relative IRIs"},
  {"<html><head><script type=\"text/javascript\">var ld = 'application/ld+json';</script>"
   "</head></html>",
   NULL, NULL, LW_FORMAT_UNKNOWN, "HTML without RDFa"},
  {"<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
   "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><body about=\"#me\"/></html>",
   NULL, NULL, LW_FORMAT_RDFA, NULL},
  {"<?xml version=\"1.0\"?>\n<Ontology xmlns=\"http://www.w3.org/2002/07/owl#\" "
   "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>",
   NULL, "x.owl", LW_FORMAT_UNKNOWN, "OWL/XML"},
  {"<TriX xmlns=\"http://www.w3.org/2004/03/trix/trix-1/\"><graph/></TriX>", NULL, NULL,
   LW_FORMAT_UNKNOWN, "TriX"},
  {"<owl:Ontology xmlns:owl=\"http://www.w3.org/2002/07/owl#\" "
   "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>",
   NULL, NULL, LW_FORMAT_RDFXML, NULL},
  {"<!-- saved page -->\n<html><body>hello</body></html>", NULL, "x.owl", LW_FORMAT_UNKNOWN,
   "HTML without"},
  /* JSON and JSON-LD */
  {"{\"@context\": {\"name\": \"http://schema.org/name\"}, \"name\": \"x\"}", NULL, "x.ttl",
   LW_FORMAT_JSONLD, "@context"},
  {"[{\"@id\": \"http://a/s\"}]", "text/plain", NULL, LW_FORMAT_JSONLD, "@id"},
  {"  {\n  \"a\": 1 }", NULL, NULL, LW_FORMAT_JSONLD, "no JSON-LD keyword"},
  {"[]", NULL, NULL, LW_FORMAT_JSONLD, NULL},
  {"[] <http://a/p> <http://a/o> .", NULL, NULL, LW_FORMAT_TURTLE, NULL},
  {"[ true, 1 ]", NULL, NULL, LW_FORMAT_JSONLD, NULL},
  /* RDF/JSON: its shape decides, before the JSON-LD keywords */
  {"{\n  \"http://ex.org/s\" : {\n    \"http://ex.org/p\" : [ { \"type\" : \"uri\", "
   "\"value\" : \"http://ex.org/o\" } ]\n  }\n}\n",
   NULL, NULL, LW_FORMAT_RDFJSON, "RDF/JSON"},
  {"{\"_:b1\": {\"http://ex.org/p\": [{\"value\": \"@id\", \"type\": \"literal\"}]}}",
   "application/json", "x.jsonld", LW_FORMAT_RDFJSON, "RDF/JSON"},
  {"{\"http://ex.org/s\": {\"http://ex.org/p\": [{\"@value\": \"x\"}]}}", NULL, NULL,
   LW_FORMAT_JSONLD, NULL},
  {"{\"@id\": \"http://ex.org/s\", \"http://ex.org/p\": [{\"type\": \"uri\"}]}", NULL, NULL,
   LW_FORMAT_JSONLD, "@id"},
  {"{\"http://ex.org/s\": {", "application/rdf+json", NULL, LW_FORMAT_RDFJSON, "by hint"},
  /* not RDF */
  {"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj", "application/rdf+xml", "x.rdf",
   LW_FORMAT_UNKNOWN, "PDF"},
  {"id,name,age\n1,Alice,30\n2,Bob,40\n", "text/plain", "x.nt", LW_FORMAT_UNKNOWN, "CSV"},
  {"id\tname\n1\tAlice\n", NULL, NULL, LW_FORMAT_UNKNOWN, "tab-separated"},
  {"Hello, this is a README.\nNothing to see here.\n", NULL, "README.ttl",
   LW_FORMAT_UNKNOWN, "not RDF"},
  {"void: http://example.org/void.ttl\nmodified: 2015-01-01\n", NULL, "registry.yml",
   LW_FORMAT_UNKNOWN, "not RDF"},
  {"", "text/turtle", "x.ttl", LW_FORMAT_UNKNOWN, "empty"},
  {"\xEF\xBB\xBF", NULL, NULL, LW_FORMAT_UNKNOWN, "empty"},
  {"  \n\t\n", NULL, NULL, LW_FORMAT_UNKNOWN, "empty"},
  {"# only a comment\n", NULL, NULL, LW_FORMAT_UNKNOWN, "no statements"},
  {"# only a comment\n", NULL, "x.nt", LW_FORMAT_NTRIPLES, "hint"},
  {"\x1f\x8b\x08\x00\x00\x00", NULL, "x.ttl.gz", LW_FORMAT_UNKNOWN, "gzip"},
  {"PK\x03\x04", NULL, "x.zip", LW_FORMAT_UNKNOWN, "ZIP"},
  {"\x89PNG\r\n\x1a\n", NULL, NULL, LW_FORMAT_UNKNOWN, "PNG"},
  {"\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11 abc", NULL, NULL, LW_FORMAT_UNKNOWN,
   "binary"},
  {"\xff\xfe<\0?\0x\0", NULL, NULL, LW_FORMAT_UNKNOWN, "UTF-16"},
  {"<svg xmlns=\"http://www.w3.org/2000/svg\"><metadata><rdf:RDF "
   "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/></metadata></svg>",
   NULL, "x.rdf", LW_FORMAT_UNKNOWN, "SVG"},
  {"@prefix : <http://a/> .\n{ ?x a :C } => { ?x a :D } .\n", NULL, "rules.n3",
   LW_FORMAT_UNKNOWN, "N3 formulae are not RDF"},
  {"@prefix : <http://a/> .\n{ :a :b :c } => { :d :e :f } .\n", NULL, NULL,
   LW_FORMAT_UNKNOWN, "N3 formulae are not RDF: an N3 rule"},
  {"@prefix : <http://a/> .\n@forAll :x .\n:x :b :c .\n", NULL, NULL, LW_FORMAT_UNKNOWN,
   "@forAll"},
  {"@prefix : <http://a/> .\n:alice :believes { :moon :madeOf :cheese } .\n", NULL, NULL,
   LW_FORMAT_UNKNOWN, "as an object"},
  {"@prefix : <http://a/> .\n{ :moon :madeOf :cheese } :saidBy :alice .\n", NULL, NULL,
   LW_FORMAT_UNKNOWN, "as a subject"},
  {"@prefix : <http://a/> .\n:s :p [ :q { :a :b :c } ] .\n", NULL, NULL, LW_FORMAT_UNKNOWN,
   "N3 formulae"},
  {"@prefix : <http://a/> .\n{ :a :b :c }\n:g { :d :e :f }\n:s :p :o .\n{ :x :y :z } .\n",
   NULL, NULL, LW_FORMAT_UNKNOWN, "N3 formulae"},
  {"@prefix : <http://a/> .\n{ :a :b :c }\n@prefix e: <http://e/> .\n:g { :d :e :f }\n"
   "{ :a :b :c } :s :p :o .\n",
   NULL, NULL, LW_FORMAT_TRIG, "graph block"},
  {"@prefix : <http://a/> .\n:s :p :o .\n", NULL, "data.n3", LW_FORMAT_TURTLE, NULL},
  /* dirty files: a bad first line does not make good statements text */
  {"<http://a/s> <http://a/p> bad line .\n<http://a/s> <http://a/p> <http://a/o> .\n"
   "<http://a/s> <http://a/p> <http://a/o> .\n",
   NULL, NULL, LW_FORMAT_NTRIPLES, "syntax error near line 1"},
  {"<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n<http://a/s> <http://a/p> \"open .\n"
   "<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n",
   NULL, NULL, LW_FORMAT_NQUADS, "syntax error near line 2"},
  {"# Title\nSome prose here.\nMore prose.\n```\n@prefix ex: <http://ex/> .\nex:a ex:b ex:c .\n```\n",
   NULL, "README.md", LW_FORMAT_UNKNOWN, "not RDF"},
  /* BOM */
  {"\xEF\xBB\xBF@prefix ex: <http://ex/> .\nex:a ex:b ex:c .\n", NULL, NULL,
   LW_FORMAT_TURTLE, NULL},
  {"\xEF\xBB\xBF<?xml version=\"1.0\"?><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>",
   NULL, NULL, LW_FORMAT_RDFXML, NULL},
  {"\xEF\xBB\xBF{\"@id\": \"x\"}", NULL, NULL, LW_FORMAT_JSONLD, NULL},
  /* heads cut in the middle of a token or a UTF-8 sequence */
  {"<http://a/s> <http://a/p> \"caf\xC3", NULL, NULL, LW_FORMAT_NTRIPLES, NULL},
  {"@prefix ex: <http://ex/> .\nex:a ex:b \"\"\"unfinished", NULL, NULL, LW_FORMAT_TURTLE,
   NULL},
  {"<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n<http://a/s> <http://a/p> <http://a/o",
   NULL, NULL, LW_FORMAT_NQUADS, NULL},
  {"<?xml version=\"1.0\"?>\n<!DOCTYPE rdf:RDF [\n<!ENTITY rdf \"http://www.w3.org/1999/02/22-rdf",
   NULL, "x.owl", LW_FORMAT_RDFXML, NULL},
};

static void check_case(size_t i, const Case *c)
{
  LwGuessInfo info;
  LwFormat got = lw_guess_format(c->content,
                                 strlen(c->content) + (c->content[0] == '\xff' ? 5 : 0),
                                 c->media_type, c->filename, &info);
  char detail[512];
  snprintf(detail, sizeof(detail), "case %zu: got %s (%s), expected %s%s%s", i,
           lw_format_name(got), info.reason, lw_format_name(c->expected),
           c->reason ? " with reason containing " : "", c->reason ? c->reason : "");
  bool ok = got == c->expected && (!c->reason || strstr(info.reason, c->reason));
  lw_test_report(ok, __FILE__, __LINE__, "small case", ok ? NULL : detail);
}

static void check_small_cases(void)
{
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    check_case(i, &cases[i]);
  }
  /* NULL head, NULL info, embedded NUL, every prefix of a case. */
  CHECK_INT_EQ(lw_guess_format(NULL, 10, NULL, NULL, NULL), LW_FORMAT_UNKNOWN);
  const char *nt = "<http://a/s> <http://a/p> <http://a/o> .";
  CHECK_INT_EQ(lw_guess_format(nt, strlen(nt), NULL, NULL, NULL), LW_FORMAT_NTRIPLES);
  LwGuessInfo info;
  CHECK_INT_EQ(lw_guess_format("<a> <b>\0<c> .", 13, NULL, NULL, &info), LW_FORMAT_UNKNOWN);
  CHECK(strstr(info.reason, "NUL") != NULL);
  const char *bom = "\xEF\xBB\xBF<http://a/s> <http://a/p> <http://a/o> .";
  CHECK_INT_EQ(lw_guess_format(bom, strlen(bom), NULL, NULL, &info), LW_FORMAT_NTRIPLES);
  CHECK(info.bom);
  CHECK_INT_EQ(info.start, 3);
  const char *comment = "# c\n\n<http://a/s> <http://a/p> <http://a/o> .";
  CHECK_INT_EQ(lw_guess_format(comment, strlen(comment), NULL, NULL, &info),
               LW_FORMAT_NTRIPLES);
  CHECK_INT_EQ(info.start, 5);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    size_t n = strlen(cases[i].content);
    for (size_t k = 0; k <= n; ++k) {
      lw_guess_format(cases[i].content, k, NULL, NULL, &info);
      CHECK(strlen(info.reason) > 0);
    }
  }

  /* A long <head>: RDFa found with a 64 KB head, not with 16 KB. */
  size_t big = LW_GUESS_HEAD_MAX;
  char *html = malloc(big + 1);
  size_t n = (size_t)snprintf(html, big, "<!DOCTYPE html>\n<html><head><style>");
  for (; n < 40000; ++n) {
    html[n] = n % 80 ? 'x' : '\n';
  }
  n += (size_t)snprintf(html + n, big - n,
                        "</style></head><body><p property=\"dc:title\">T</p>");
  CHECK_INT_EQ(lw_guess_format(html, LW_GUESS_HEAD_SIZE, NULL, NULL, &info),
               LW_FORMAT_UNKNOWN);
  CHECK(info.partial);
  CHECK(strstr(info.reason, "in the first 16384 bytes") != NULL);
  CHECK_INT_EQ(lw_guess_format(html, n, NULL, NULL, &info), LW_FORMAT_RDFA);
  free(html);

  /* Nothing beyond LW_GUESS_HEAD_MAX is looked at. */
  size_t line_len = strlen(nt) + 1;
  size_t lines = LW_GUESS_HEAD_MAX / line_len + 100;
  char *many = malloc(lines * line_len + 64);
  n = 0;
  for (size_t i = 0; i < lines; ++i) {
    n += (size_t)sprintf(many + n, "%s\n", nt);
  }
  n += (size_t)sprintf(many + n, "<http://a/s> a <http://a/C> .\n");
  CHECK_INT_EQ(lw_guess_format(many, n, NULL, NULL, &info), LW_FORMAT_NTRIPLES);
  CHECK(info.partial);
  CHECK_INT_EQ(lw_guess_format(many, n, NULL, "x.ttl", &info), LW_FORMAT_TURTLE);
  CHECK(info.hint_used);
  free(many);

  /* Hints on their own. */
  CHECK_INT_EQ(lw_guess_from_media_type("text/turtle; charset=utf-8"), LW_FORMAT_TURTLE);
  CHECK_INT_EQ(lw_guess_from_media_type("Application/N-Triples"), LW_FORMAT_NTRIPLES);
  CHECK_INT_EQ(lw_guess_from_media_type("application/ld+json"), LW_FORMAT_JSONLD);
  CHECK_INT_EQ(lw_guess_from_media_type("application/rdf+json"), LW_FORMAT_RDFJSON);
  CHECK_INT_EQ(lw_guess_from_filename("data.rj"), LW_FORMAT_RDFJSON);
  CHECK_INT_EQ(lw_format_parse("rdfjson"), LW_FORMAT_RDFJSON);
  CHECK_INT_EQ(lw_format_parse("JSON-LD/HTML"), LW_FORMAT_JSONLD_HTML);
  CHECK_STR_EQ(lw_format_name(LW_FORMAT_RDFJSON), "RDF/JSON");
  CHECK_INT_EQ(lw_guess_from_media_type("text/plain"), LW_FORMAT_UNKNOWN);
  CHECK_INT_EQ(lw_guess_from_media_type("application/octet-stream"), LW_FORMAT_UNKNOWN);
  CHECK_INT_EQ(lw_guess_from_media_type(NULL), LW_FORMAT_UNKNOWN);
  CHECK_INT_EQ(lw_guess_from_filename("/data/x.ttl"), LW_FORMAT_TURTLE);
  CHECK_INT_EQ(lw_guess_from_filename("dump.nt.gz"), LW_FORMAT_NTRIPLES);
  CHECK_INT_EQ(lw_guess_from_filename("http://ex.org/a.nq.bz2?x=1#f"), LW_FORMAT_NQUADS);
  CHECK_INT_EQ(lw_guess_from_filename("onto.OWL"), LW_FORMAT_RDFXML);
  CHECK_INT_EQ(lw_guess_from_filename("page.html"), LW_FORMAT_RDFA);
  CHECK_INT_EQ(lw_guess_from_filename("x.trig"), LW_FORMAT_TRIG);
  CHECK_INT_EQ(lw_guess_from_filename("ctx.jsonld"), LW_FORMAT_JSONLD);
  CHECK_INT_EQ(lw_guess_from_filename("README"), LW_FORMAT_UNKNOWN);
  CHECK_INT_EQ(lw_guess_from_filename(".ttl"), LW_FORMAT_UNKNOWN);
  CHECK_INT_EQ(lw_guess_from_filename("x.gz"), LW_FORMAT_UNKNOWN);
  CHECK_INT_EQ(lw_guess_from_filename("dir.ttl/file"), LW_FORMAT_UNKNOWN);
  CHECK_INT_EQ(lw_guess_from_filename(NULL), LW_FORMAT_UNKNOWN);
}

/* ---- files ---------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      cap *= 2;
      char *nb = realloc(buf, cap + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
      }
      buf = nb;
    }
  }
  fclose(f);
  if (buf) {
    buf[n] = '\0';
  }
  *len = n;
  return buf;
}

static bool is_turtle_family(LwFormat f)
{
  return f == LW_FORMAT_NTRIPLES || f == LW_FORMAT_NQUADS || f == LW_FORMAT_TURTLE ||
         f == LW_FORMAT_TRIG;
}

static SerdSyntax serd_syntax(LwFormat f)
{
  switch (f) {
  case LW_FORMAT_NTRIPLES:
    return SERD_NTRIPLES;
  case LW_FORMAT_NQUADS:
    return SERD_NQUADS;
  case LW_FORMAT_TRIG:
    return SERD_TRIG;
  default:
    return SERD_TURTLE;
  }
}

static SerdStatus count_error(void *handle, const SerdError *error)
{
  (void)error;
  ++*(size_t *)handle;
  return SERD_SUCCESS;
}

/* Does serd read the whole file in this syntax without an error? */
static bool serd_reads(const char *path, LwFormat f)
{
  size_t errors = 0;
  SerdReader *r = serd_reader_new(serd_syntax(f), NULL, NULL, NULL, NULL, NULL, NULL);
  serd_reader_set_strict(r, true);
  serd_reader_set_error_sink(r, count_error, &errors);
  SerdStatus st = serd_reader_read_file(r, (const uint8_t *)path);
  serd_reader_free(r);
  return st == SERD_SUCCESS && errors == 0;
}

typedef struct {
  const char *name;
  size_t files, exact, compatible, wrong;
  size_t by_hint; /* content alone not enough (empty, only comments, XML
                      without the RDF namespace): right only with the hint */
} Tally;

static void tally_print(const Tally *t)
{
  printf("%-28s %4zu files: %4zu exact, %4zu narrower compatible format, %zu by hint only, "
         "%zu wrong\n",
         t->name, t->files, t->exact, t->compatible, t->by_hint, t->wrong);
}

/* A misleading hint for each format: another format's extension and type. */
static void misleading(LwFormat f, const char **ext, const char **type)
{
  switch (f) {
  case LW_FORMAT_NTRIPLES:
    *ext = "data.rdf";
    *type = "application/rdf+xml";
    break;
  case LW_FORMAT_NQUADS:
    *ext = "data.ttl";
    *type = "text/plain";
    break;
  case LW_FORMAT_TURTLE:
    *ext = "data.nt";
    *type = "application/n-triples";
    break;
  case LW_FORMAT_TRIG:
    *ext = "data.nq";
    *type = "application/n-quads";
    break;
  case LW_FORMAT_RDFXML:
    *ext = "data.ttl";
    *type = "text/turtle";
    break;
  case LW_FORMAT_JSONLD:
    *ext = "data.rdf";
    *type = "text/turtle";
    break;
  case LW_FORMAT_RDFA:
    *ext = "data.rdf";
    *type = "application/rdf+xml";
    break;
  default:
    *ext = "data.ttl";
    *type = "text/turtle";
    break;
  }
}

static const char *right_ext(LwFormat f)
{
  switch (f) {
  case LW_FORMAT_NTRIPLES:
    return "data.nt";
  case LW_FORMAT_NQUADS:
    return "data.nq";
  case LW_FORMAT_TURTLE:
    return "data.ttl";
  case LW_FORMAT_TRIG:
    return "data.trig";
  case LW_FORMAT_RDFXML:
    return "data.rdf";
  case LW_FORMAT_JSONLD:
    return "data.jsonld";
  case LW_FORMAT_RDFA:
  case LW_FORMAT_JSONLD_HTML:
    return "data.html";
  case LW_FORMAT_RDFJSON:
    return "data.rj";
  default:
    return NULL;
  }
}

/* Guesses content (read from path, or given) three ways and tallies. */
static void check_content(Tally *t, const char *label, const char *path,
                          const char *content, size_t len, LwFormat expected)
{
  size_t head = len < LW_GUESS_HEAD_SIZE ? len : LW_GUESS_HEAD_SIZE;
  const char *mext, *mtype;
  misleading(expected, &mext, &mtype);
  struct {
    const char *type, *name;
  } hints[3] = {{NULL, NULL}, {NULL, right_ext(expected)}, {mtype, mext}};
  bool all_exact = true, all_ok = true;
  char detail[512] = "";
  LwGuessInfo first;
  LwFormat alone = lw_guess_format(content, head, NULL, NULL, &first);
  if (alone == LW_FORMAT_UNKNOWN && expected != LW_FORMAT_UNKNOWN &&
      (strstr(first.reason, "empty content") || strstr(first.reason, "no statements") ||
       strstr(first.reason, "XML without the RDF namespace"))) {
    /* Nothing in the content decides: the right hint must, except for
     * empty content (no bytes, a BOM, whitespace), which is never RDF. */
    LwGuessInfo info;
    LwFormat got = lw_guess_format(content, head, NULL, right_ext(expected), &info);
    bool ok = strstr(first.reason, "empty content") ? got == LW_FORMAT_UNKNOWN
                                                    : got == expected;
    snprintf(detail, sizeof(detail), "%s: expected %s by hint, got %s (%s)", label,
             lw_format_name(expected), lw_format_name(got), info.reason);
    ++t->files;
    if (ok) {
      ++t->by_hint;
    } else {
      ++t->wrong;
    }
    lw_test_report(ok, __FILE__, __LINE__, "file guessed right by hint",
                   ok ? NULL : detail);
    return;
  }
  for (int h = 0; h < 3; ++h) {
    LwGuessInfo info;
    LwFormat got = lw_guess_format(content, head, hints[h].type, hints[h].name, &info);
    bool ok = got == expected;
    if (!ok) {
      all_exact = false;
      /* Narrower but compatible (N-Triples content in a Turtle file ...):
       * accepted when serd reads the whole file in the guessed syntax. */
      ok = path && is_turtle_family(expected) && is_turtle_family(got) &&
           serd_reads(path, got);
    }
    if (!ok && all_ok) {
      all_ok = false;
      snprintf(detail, sizeof(detail), "%s: expected %s, got %s (%s) with hints %s %s",
               label, lw_format_name(expected), lw_format_name(got), info.reason,
               hints[h].type ? hints[h].type : "-", hints[h].name ? hints[h].name : "-");
    }
  }
  ++t->files;
  if (all_exact) {
    ++t->exact;
  } else if (all_ok) {
    ++t->compatible;
  } else {
    ++t->wrong;
  }
  lw_test_report(all_ok, __FILE__, __LINE__, "file guessed right", all_ok ? NULL : detail);
}

static void check_file(Tally *t, const char *path, LwFormat expected)
{
  size_t len;
  char *content = read_file(path, &len);
  if (!content) {
    lw_test_report(false, __FILE__, __LINE__, "read test file", path);
    return;
  }
  check_content(t, path, path, content, len, expected);
  /* Robustness: every short prefix of the file (cut anywhere). */
  size_t max = len < 300 ? len : 300;
  for (size_t k = 0; k < max; k += 1 + k / 64) {
    LwGuessInfo info;
    lw_guess_format(content, k, NULL, NULL, &info);
  }
  free(content);
}

/* ---- manifests (read with serd) ------------------------------------- */

typedef struct {
  char *s, *p, *o;
} Triple;

typedef struct {
  SerdEnv *env;
  Triple *triples;
  size_t n, cap;
} Graph;

static SerdStatus on_base(void *handle, const SerdNode *uri)
{
  return serd_env_set_base_uri(((Graph *)handle)->env, uri);
}

static SerdStatus on_prefix(void *handle, const SerdNode *name, const SerdNode *uri)
{
  return serd_env_set_prefix(((Graph *)handle)->env, name, uri);
}

static char *node_string(Graph *g, const SerdNode *node)
{
  if (node->type == SERD_CURIE) {
    SerdNode full = serd_env_expand_node(g->env, node);
    if (full.buf) {
      char *s = strdup((const char *)full.buf);
      serd_node_free(&full);
      return s;
    }
  }
  return strdup((const char *)node->buf);
}

static SerdStatus on_statement(void *handle, SerdStatementFlags flags,
                               const SerdNode *graph, const SerdNode *s, const SerdNode *p,
                               const SerdNode *o, const SerdNode *dt, const SerdNode *lang)
{
  (void)flags, (void)graph, (void)dt, (void)lang;
  Graph *g = handle;
  if (g->n == g->cap) {
    g->cap = g->cap ? g->cap * 2 : 1024;
    g->triples = realloc(g->triples, g->cap * sizeof(Triple));
  }
  g->triples[g->n++] = (Triple){node_string(g, s), node_string(g, p), node_string(g, o)};
  return SERD_SUCCESS;
}

static bool load_graph(const char *path, Graph *g)
{
  memset(g, 0, sizeof(*g));
  g->env = serd_env_new(NULL);
  SerdReader *r = serd_reader_new(SERD_TURTLE, g, NULL, on_base, on_prefix, on_statement,
                                  NULL);
  SerdStatus st = serd_reader_read_file(r, (const uint8_t *)path);
  serd_reader_free(r);
  return st == SERD_SUCCESS && g->n > 0;
}

static void free_graph(Graph *g)
{
  for (size_t i = 0; i < g->n; ++i) {
    free(g->triples[i].s);
    free(g->triples[i].p);
    free(g->triples[i].o);
  }
  free(g->triples);
  serd_env_free(g->env);
}

/* The object of (s, p), or NULL. */
static const char *object_of(const Graph *g, const char *s, const char *p)
{
  for (size_t i = 0; i < g->n; ++i) {
    if (!strcmp(g->triples[i].s, s) && !strcmp(g->triples[i].p, p)) {
      return g->triples[i].o;
    }
  }
  return NULL;
}

static bool has_triple(const Graph *g, const char *s, const char *p, const char *o)
{
  for (size_t i = 0; i < g->n; ++i) {
    if (!strcmp(g->triples[i].s, s) && !strcmp(g->triples[i].p, p) &&
        !strcmp(g->triples[i].o, o)) {
      return true;
    }
  }
  return false;
}

#define RDF_TYPE "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
#define MF "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
#define RDFT "http://www.w3.org/ns/rdftest#"

static LwFormat format_of_extension(const char *path)
{
  return lw_guess_from_filename(path);
}

/* The format a test type names (rdft:TestTurtleEval -> Turtle ...). */
static LwFormat format_of_test_type(const char *type)
{
  static const struct {
    const char *word;
    LwFormat format;
  } words[] = {
    {"NTriples", LW_FORMAT_NTRIPLES}, {"NQuads", LW_FORMAT_NQUADS},
    {"Turtle", LW_FORMAT_TURTLE},     {"Trig", LW_FORMAT_TRIG},
    {"XML", LW_FORMAT_RDFXML},
  };
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); ++i) {
    if (strstr(type, words[i].word)) {
      return words[i].format;
    }
  }
  return LW_FORMAT_UNKNOWN;
}

/* A manifest's file: relative to the manifest's folder (the manifests
 * have no base, so serd leaves the IRIs relative). */
static void manifest_file(char *path, size_t size, const char *folder, const char *iri)
{
  const char *rel = iri;
  if (strstr(iri, "://")) {
    const char *slash = strrchr(iri, '/');
    rel = slash ? slash + 1 : iri;
  }
  snprintf(path, size, "%s/%s", folder, rel);
}

/* The positive tests of a manifest (action files, and result files by
 * their extension) must be guessed right; negative tests are counted. */
static void check_suite(const char *folder, const char *label)
{
  char path[8192];
  snprintf(path, sizeof(path), "%s/manifest.ttl", folder);
  Graph g;
  if (!load_graph(path, &g)) {
    lw_test_report(false, __FILE__, __LINE__, "read manifest", path);
    free_graph(&g);
    return;
  }
  char pos_name[64], res_name[64], neg_name[64];
  snprintf(pos_name, sizeof(pos_name), "%s positive", label);
  snprintf(res_name, sizeof(res_name), "%s results", label);
  snprintf(neg_name, sizeof(neg_name), "%s negative", label);
  Tally pos = {pos_name, 0, 0, 0, 0, 0}, res = {res_name, 0, 0, 0, 0, 0};
  size_t neg_total = 0, neg_same = 0;
  for (size_t i = 0; i < g.n; ++i) {
    const Triple *tr = &g.triples[i];
    if (strcmp(tr->p, RDF_TYPE) || strncmp(tr->o, RDFT, strlen(RDFT))) {
      continue;
    }
    const char *type = tr->o + strlen(RDFT);
    LwFormat format = format_of_test_type(type);
    bool negative = strstr(type, "Negative") != NULL;
    const char *action = object_of(&g, tr->s, MF "action");
    const char *result = object_of(&g, tr->s, MF "result");
    if (!action || format == LW_FORMAT_UNKNOWN) {
      continue;
    }
    manifest_file(path, sizeof(path), folder, action);
    /* The extension wins where it names a format: serd's manifest types
     * one N-Quads file as an N-Triples test. */
    if (lw_guess_from_filename(path) != LW_FORMAT_UNKNOWN) {
      format = lw_guess_from_filename(path);
    }
    if (negative) {
      size_t len;
      char *content = read_file(path, &len);
      if (content) {
        ++neg_total;
        neg_same += lw_guess_format(content, len, NULL, NULL, NULL) == format;
        free(content);
      }
      continue;
    }
    check_file(&pos, path, format);
    if (result) {
      manifest_file(path, sizeof(path), folder, result);
      check_file(&res, path, format_of_extension(path));
    }
  }
  if (pos.files) {
    tally_print(&pos);
  }
  if (res.files) {
    tally_print(&res);
  }
  if (neg_total) {
    printf("%-28s %4zu files: %4zu guessed as their suite's format (not asserted: many are "
           "too broken)\n",
           neg_name, neg_total, neg_same);
  }
  free_graph(&g);
  CHECK(pos.files > 0 || neg_total > 0);
}

static void check_w3c_suite(const char *testdata, const char *dir)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/w3c-rdf-tests/rdf/rdf11/%s", testdata, dir);
  check_suite(path, dir);

  /* The EARL reports: large real HTML pages with RDFa. */
  snprintf(path, sizeof(path), "%s/w3c-rdf-tests/rdf/rdf11/%s/reports", testdata, dir);
  DIR *d = opendir(path);
  struct dirent *e;
  Tally html = {"EARL report pages (RDFa)", 0, 0, 0, 0, 0};
  while (d && (e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n > 5 && !strcmp(e->d_name + n - 5, ".html")) {
      char file[8192];
      snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
      check_file(&html, file, LW_FORMAT_RDFA);
    }
  }
  if (d) {
    closedir(d);
  }
  if (html.files) {
    tally_print(&html);
  }
}

/* ---- JSON-LD, RDFa, real datasets ----------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* Heads cut anywhere (inside a token, a UTF-8 sequence, an attribute)
 * after the first kilobyte still give the same family of format. */
static void check_cuts(const char *path, LwFormat expected)
{
  size_t len;
  char *content = read_file(path, &len);
  if (!content || len < 2048) {
    free(content);
    return;
  }
  for (size_t cut = 1024; cut < len && cut <= LW_GUESS_HEAD_SIZE; cut += 509) {
    LwGuessInfo info;
    LwFormat got = lw_guess_format(content, cut, NULL, NULL, &info);
    bool ok = got == expected || (is_turtle_family(expected) && is_turtle_family(got));
    if (!ok) {
      char detail[512];
      snprintf(detail, sizeof(detail), "%.300s cut at %zu: got %s (%s)", path, cut,
               lw_format_name(got), info.reason);
      lw_test_report(false, __FILE__, __LINE__, "cut head", detail);
      break;
    }
    ++lw_test_passed;
  }
  free(content);
}

static void check_folder(Tally *t, const char *dir, const char *suffix, LwFormat expected)
{
  DIR *d = opendir(dir);
  if (!d) {
    printf("SKIP %s: not found\n", dir);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    if (ends_with(e->d_name, suffix)) {
      char path[8192];
      snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
      check_file(t, path, expected);
      if (expected != LW_FORMAT_UNKNOWN) {
        check_cuts(path, expected);
      }
    }
  }
  closedir(d);
}

/* Whether an HTML page has a <script> of type application/ld+json. */
static bool has_jsonld_script(const char *page)
{
  for (const char *p = strstr(page, "<script"); p; p = strstr(p + 1, "<script")) {
    const char *end = strchr(p, '>');
    const char *type = strstr(p, "application/ld+json");
    if (end && type && type < end) {
      return true;
    }
  }
  return false;
}

/* The JSON-LD suite's HTML pages: JSON-LD in HTML when they have such a
 * script (a <pre> of that type, or a script of type application/json, is
 * none: not RDF). */
static void check_jsonld_html(const char *testdata)
{
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s/jsonld-api-tests/tests/html", testdata);
  Tally t = {"JSON-LD HTML pages", 0, 0, 0, 0, 0};
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (ends_with(e->d_name, "-in.html")) {
      char path[8192];
      snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
      size_t len;
      char *page = read_file(path, &len);
      if (page) {
        check_file(&t, path,
                   has_jsonld_script(page) ? LW_FORMAT_JSONLD_HTML : LW_FORMAT_UNKNOWN);
      }
      free(page);
    }
  }
  if (d) {
    closedir(d);
  }
  tally_print(&t);
}

static void check_jsonld(const char *testdata)
{
  char dir[4096];
  Tally t = {"JSON-LD toRdf inputs", 0, 0, 0, 0, 0};
  snprintf(dir, sizeof(dir), "%s/jsonld-api-tests/tests/toRdf", testdata);
  check_folder(&t, dir, "-in.jsonld", LW_FORMAT_JSONLD);
  tally_print(&t);
  Tally nq = {"JSON-LD toRdf outputs (.nq)", 0, 0, 0, 0, 0};
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (ends_with(e->d_name, "-out.nq")) {
      char path[8192];
      snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
      /* Some outputs are generalized RDF (blank node predicates): only
       * those serd reads as N-Quads are N-Quads. */
      struct stat st;
      if (stat(path, &st) == 0 && st.st_size > 0 && serd_reads(path, LW_FORMAT_NQUADS)) {
        check_file(&nq, path, LW_FORMAT_NQUADS);
      }
    }
  }
  if (d) {
    closedir(d);
  }
  tally_print(&nq);
  check_jsonld_html(testdata);
}

/* An RDFa test template: an optional first line with a JSON prefix map,
 * then head and body. Wrapped as HTML5 without the prefixes, so that only
 * the template's own attributes can show RDFa. */
static void check_rdfa(const char *testdata)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/rdfa-tests/manifest.ttl", testdata);
  Graph g;
  if (!load_graph(path, &g)) {
    printf("SKIP RDFa templates: manifest not readable\n");
    free_graph(&g);
    return;
  }
  Tally t = {"RDFa templates as HTML5", 0, 0, 0, 0, 0};
  const char *host = "http://rdfa.info/vocabs/rdfa-test#hostLanguage";
  const char *version = "http://rdfa.info/vocabs/rdfa-test#rdfaVersion";
  const char *expected = "http://www.w3.org/2006/03/test-description#expectedResults";
  for (size_t i = 0; i < g.n; ++i) {
    const Triple *tr = &g.triples[i];
    /* HTML5 tests of RDFa 1.1 core that produce triples. */
    if (strcmp(tr->p, host) || strcmp(tr->o, "html5") ||
        !has_triple(&g, tr->s, version, "rdfa1.1")) {
      continue;
    }
    const char *exp = object_of(&g, tr->s, expected);
    if (exp && !strcmp(exp, "false")) {
      continue;
    }
    const char *num = strrchr(tr->s, '/');
    if (!num) {
      continue;
    }
    snprintf(path, sizeof(path), "%s/rdfa-tests/tests/%s.txt", testdata, num + 1);
    size_t len;
    char *tmpl = read_file(path, &len);
    if (!tmpl) {
      continue;
    }
    /* A first line that is not markup holds a JSON prefix map (dropped)
     * or attributes for the html element (kept). */
    const char *body = tmpl;
    const char *attrs = "";
    int attrs_len = 0;
    const char *p = tmpl;
    while (*p == ' ' || *p == '\t') {
      ++p;
    }
    if (*p != '<') {
      const char *nl = strchr(p, '\n');
      body = nl ? nl + 1 : p + strlen(p);
      if (*p != '{') {
        attrs = p;
        attrs_len = (int)(body - p);
      }
    }
    size_t doc_len = strlen(tmpl) + 64;
    char *doc = malloc(doc_len);
    snprintf(doc, doc_len, "<!DOCTYPE html>\n<html %.*s>\n%s</html>\n", attrs_len, attrs,
             body);
    check_content(&t, path, NULL, doc, strlen(doc), LW_FORMAT_RDFA);
    free(doc);
    free(tmpl);
  }
  tally_print(&t);
  CHECK(t.files > 100);
  free_graph(&g);
}

static void check_real(const char *testdata)
{
  static const struct {
    const char *folder, *suffix;
    LwFormat format;
  } sets[] = {
    {"geolink", ".ttl", LW_FORMAT_TURTLE},
    {"geolink", ".rdf", LW_FORMAT_RDFXML},
    {"geolink", ".owl", LW_FORMAT_RDFXML},
    {"geolink", ".md", LW_FORMAT_UNKNOWN},
    {"geolink", ".yml", LW_FORMAT_UNKNOWN},
    {"geolink", ".gz", LW_FORMAT_UNKNOWN},
    {"other-vocab", ".ttl", LW_FORMAT_TURTLE},
    {"other-vocab", ".rdf", LW_FORMAT_RDFXML},
    {"other-vocab", ".jsonld", LW_FORMAT_JSONLD},
    {"void", ".ttl", LW_FORMAT_TURTLE},
    {"void", ".rdf", LW_FORMAT_RDFXML},
    /* filievski__glamazon-rdf__void.nt is Turtle named .nt (DIRTY.md) */
    {"void", ".nt", LW_FORMAT_TURTLE},
    {"zazuko-rdf-vocabularies-2023.1.19/ontologies", ".nq", LW_FORMAT_NQUADS},
  };
  for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); ++i) {
    char dir[4096], name[128];
    snprintf(dir, sizeof(dir), "%s/%s", testdata, sets[i].folder);
    snprintf(name, sizeof(name), "%.20s *%s", sets[i].folder, sets[i].suffix);
    Tally t = {name, 0, 0, 0, 0, 0};
    check_folder(&t, dir, sets[i].suffix, sets[i].format);
    if (t.files) {
      tally_print(&t);
    }
  }
}

int main(void)
{
  check_small_cases();
  printf("%zu small cases\n", sizeof(cases) / sizeof(cases[0]));
  const char *testdata = lw_test_testdata();
  if (!testdata) {
    printf(
      "SKIP shared test data not found (set LODWASH_TESTDATA): only the small cases ran\n");
    return lw_test_finish();
  }
  check_w3c_suite(testdata, "rdf-n-triples");
  check_w3c_suite(testdata, "rdf-n-quads");
  check_w3c_suite(testdata, "rdf-turtle");
  check_w3c_suite(testdata, "rdf-trig");
  check_w3c_suite(testdata, "rdf-xml");
  char serd[4096];
  snprintf(serd, sizeof(serd), "%s/serd-test-extra/test/extra/good", testdata);
  check_suite(serd, "serd extra good");
  snprintf(serd, sizeof(serd), "%s/serd-test-extra/test/extra/bad", testdata);
  check_suite(serd, "serd extra bad");
  check_jsonld(testdata);
  check_rdfa(testdata);
  check_real(testdata);
  return lw_test_finish();
}
