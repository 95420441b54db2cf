/* VoID extraction: the GeoLink proposal's two examples as written, the same in
 * RDF/XML, subsets and several datasets, both harvester namespaces, relative
 * and literal dumps, checksums, missing modified, broken documents, the
 * syntax choice, and the real VoID files of the shared test data. */
#include "scheduler/void.h"
#include "tests/support/check.h"

#include <stdlib.h>

static const char *EXAMPLE1 =
  "@prefix void: <http://rdfs.org/ns/void#> .\n"
  "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
  "@prefix dcterms: <http://purl.org/dc/terms/> .\n"
  "@prefix : <#> .\n"
  "\n"
  ":#d1lodfull a void:Dataset ;\n"
  "  dcterms:title \"DataOne\" ;\n"
  "  dcterms:description \"A Linked Open Data graph of the holdings in DataOne "
  "produced for the GeoLink project.\" ;\n"
  "  void:feature <http://www.w3.org/ns/formats/Turtle> ;\n"
  "  void:feature <http://schema.geolink.org/dev/voc/harvester#FullDump> ;\n"
  "  void:dataDump <http://lod.dataone.org/dataone.ttl> ;\n"
  "  dcterms:modified \"2015-11-05\"^^xsd:date ;\n"
  "  .\n";

static const char *EXAMPLE2 =
  "@prefix void: <http://rdfs.org/ns/void#> .\n"
  "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
  "@prefix dcterms: <http://purl.org/dc/terms/> .\n"
  "@prefix : <#> .\n"
  "\n"
  ":#d1lodfull a void:Dataset ;\n"
  "  dcterms:title \"DataOne\" ;\n"
  "  dcterms:description \"A Linked Open Data graph of the holdings in DataOne "
  "produced for the GeoLink project.\" ;\n"
  "  void:feature <http://www.w3.org/ns/formats/Turtle> ;\n"
  "  void:feature void:feature <http://schema.geolink.org/dev/voc/harvester#FullDump> ;\n"
  "  dcterms:modified \"2015-11-05\"^^xsd:date ;\n"
  "  void:dataDump <http://lod.dataone.org/datasets.ttl> ;\n"
  "  void:dataDump <http://lod.dataone.org/people> ;\n"
  "  void:dataDump <http://lod.dataone.org/organizations.ttl> ;\n"
  "  .\n";

static const char *EXAMPLE1_RDFXML =
  "<?xml version=\"1.0\"?>\n"
  "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"\n"
  "         xmlns:void=\"http://rdfs.org/ns/void#\"\n"
  "         xmlns:dcterms=\"http://purl.org/dc/terms/\">\n"
  "  <void:Dataset rdf:about=\"#d1lodfull\">\n"
  "    <dcterms:title>DataOne</dcterms:title>\n"
  "    <void:feature rdf:resource=\"http://www.w3.org/ns/formats/Turtle\"/>\n"
  "    <void:feature rdf:resource=\"http://lod.dataone.org/glharvest#FullDump\"/>\n"
  "    <void:dataDump rdf:resource=\"http://lod.dataone.org/dataone.ttl\"/>\n"
  "    <void:dataDump rdf:resource=\"dumps/local.rdf\"/>\n"
  "    <dcterms:modified rdf:datatype=\"http://www.w3.org/2001/XMLSchema#dateTime\""
  ">2015-11-05T10:00:00Z</dcterms:modified>\n"
  "  </void:Dataset>\n"
  "</rdf:RDF>\n";

static LwVoid *parse(const char *text, const char *url, const char *media_type,
                     LwStatus expect, LwError *err)
{
  LwVoid *v = NULL;
  lw_error_clear(err);
  LwStatus st = lw_void_parse(text, strlen(text), url, media_type, &v, err);
  CHECK_INT_EQ(st, expect);
  if (st != expect) {
    fprintf(stderr, "  (%s: %s)\n", url, err->message);
  }
  if (st != LW_OK) {
    CHECK(v == NULL);
  }
  return v;
}

static const char *modified_of(const LwVoid *v)
{
  static char buf[LW_DATETIME_BUF];
  if (!v || v->modified_source == LW_MODIFIED_NONE) {
    return "(none)";
  }
  return lw_datetime_format(&v->modified, buf);
}

static bool has_dump(const LwVoid *v, const char *url)
{
  for (size_t i = 0; v && i < v->dump_count; ++i) {
    if (!strcmp(v->dumps[i].url, url)) {
      return true;
    }
  }
  fprintf(stderr, "dump %s not found among:\n", url);
  for (size_t i = 0; v && i < v->dump_count; ++i) {
    fprintf(stderr, "  %s\n", v->dumps[i].url);
  }
  return false;
}

static bool has_feature(const LwVoid *v, const char *iri)
{
  for (size_t i = 0; v && i < v->feature_count; ++i) {
    if (!strcmp(v->features[i], iri)) {
      return true;
    }
  }
  return false;
}

static bool has_warning(const LwVoid *v, const char *text)
{
  for (size_t i = 0; v && i < v->warning_count; ++i) {
    if (strstr(v->warnings[i], text)) {
      return true;
    }
  }
  fprintf(stderr, "no warning containing '%s' among:\n", text);
  for (size_t i = 0; v && i < v->warning_count; ++i) {
    fprintf(stderr, "  %s\n", v->warnings[i]);
  }
  return false;
}

static void test_example1(void)
{
  LwError err;
  LwVoid *v = parse(EXAMPLE1, "http://lod.dataone.org/void.ttl", NULL, LW_OK, &err);
  CHECK(v != NULL);
  if (!v) {
    return;
  }
  /* `:#d1lodfull`: `#` starts a comment, the subject is <#>. */
  CHECK_INT_EQ(v->format, LW_FORMAT_TURTLE);
  CHECK_INT_EQ(v->syntax_errors, 0);
  CHECK_INT_EQ(v->dataset_count, 1);
  CHECK_STR_EQ(modified_of(v), "2015-11-05");
  CHECK_INT_EQ(v->modified_source, LW_MODIFIED_DATASET);
  CHECK_INT_EQ(v->dump_count, 1);
  CHECK(has_dump(v, "http://lod.dataone.org/dataone.ttl"));
  CHECK_STR_EQ(v->dumps[0].dataset, "http://lod.dataone.org/void.ttl#");
  CHECK_INT_EQ(v->kind, LW_DUMP_FULL);
  CHECK_INT_EQ(v->dumps[0].kind, LW_DUMP_FULL);
  CHECK(has_feature(v, "http://www.w3.org/ns/formats/Turtle"));
  CHECK(has_feature(v, "http://schema.geolink.org/dev/voc/harvester#FullDump"));
  CHECK(v->dumps[0].checksum_value == NULL);
  lw_void_free(v);
}

static void test_example2(void)
{
  LwError err;
  LwVoid *v = parse(EXAMPLE2, "http://lod.dataone.org/void.ttl", NULL, LW_OK, &err);
  CHECK(v != NULL);
  if (!v) {
    return;
  }
  /* The doubled `void:feature void:feature` is a syntax error on line 10;
   * the statement's modified and three dumps are still read. */
  CHECK(v->syntax_errors >= 1);
  CHECK(has_warning(v, "line 10"));
  CHECK_STR_EQ(modified_of(v), "2015-11-05");
  CHECK_INT_EQ(v->dump_count, 3);
  CHECK(has_dump(v, "http://lod.dataone.org/datasets.ttl"));
  CHECK(has_dump(v, "http://lod.dataone.org/people"));
  CHECK(has_dump(v, "http://lod.dataone.org/organizations.ttl"));
  CHECK(has_feature(v, "http://www.w3.org/ns/formats/Turtle"));
  /* The word written twice is dropped, so FullDump is kept. */
  CHECK_INT_EQ(v->kind, LW_DUMP_FULL);
  lw_void_free(v);
}

static void test_rdfxml(void)
{
  LwError err;
  LwVoid *v = parse(EXAMPLE1_RDFXML, "http://lod.dataone.org/void.rdf", NULL, LW_OK, &err);
  CHECK(v != NULL);
  if (!v) {
    return;
  }
  CHECK_INT_EQ(v->format, LW_FORMAT_RDFXML);
  CHECK_STR_EQ(modified_of(v), "2015-11-05T10:00:00Z");
  CHECK_INT_EQ(v->dump_count, 2);
  CHECK(has_dump(v, "http://lod.dataone.org/dataone.ttl"));
  CHECK(has_dump(v, "http://lod.dataone.org/dumps/local.rdf"));
  CHECK_STR_EQ(v->dumps[0].dataset, "http://lod.dataone.org/void.rdf#d1lodfull");
  /* The other namespace of the proposal. */
  CHECK_INT_EQ(v->kind, LW_DUMP_FULL);
  lw_void_free(v);
  /* Chosen by media type when the URL says nothing. */
  v = parse(EXAMPLE1_RDFXML, "http://lod.dataone.org/void", "application/rdf+xml", LW_OK,
            &err);
  CHECK(v && v->format == LW_FORMAT_RDFXML && v->dump_count == 2);
  lw_void_free(v);
  /* And by content when neither does. */
  v = parse(EXAMPLE1_RDFXML, "http://lod.dataone.org/void", NULL, LW_OK, &err);
  CHECK(v && v->format == LW_FORMAT_RDFXML);
  lw_void_free(v);
  /* A wrong extension: Turtle behind .rdf is still read. */
  v = parse(EXAMPLE1, "http://lod.dataone.org/void.rdf", NULL, LW_OK, &err);
  CHECK(v && v->format == LW_FORMAT_TURTLE && v->dump_count == 1);
  CHECK(has_warning(v, "read as Turtle"));
  lw_void_free(v);
}

static void test_several_datasets(void)
{
  const char *ttl = "@prefix void: <http://rdfs.org/ns/void#> .\n"
                    "@prefix dct: <http://purl.org/dc/terms/> .\n"
                    "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
                    "<#all> a void:Dataset ; void:subset <#a>, <#b> ;\n"
                    "  dct:modified \"2016-01-01\" .\n"
                    "<#a> void:dataDump <a.nt.gz>, <http://other.example.org/a2.nt> ;\n"
                    "  dct:modified \"2016-03-01T12:00:00\"^^xsd:dateTime ;\n"
                    "  void:feature <http://lod.dataone.org/glharvest#PartialDump> .\n"
                    "<#b> void:dataDump <../b.ttl> , <a.nt.gz> ;\n"
                    "  dct:modified \"2016-02-01\"^^xsd:date .\n"
                    "[] a void:Linkset ; void:dataDump <links.nt> .\n";
  LwError err;
  LwVoid *v = parse(ttl, "http://example.org/data/void.ttl", NULL, LW_OK, &err);
  CHECK(v != NULL);
  if (!v) {
    return;
  }
  CHECK_INT_EQ(v->dataset_count, 4);
  /* The latest modified of all datasets. */
  CHECK_STR_EQ(modified_of(v), "2016-03-01T12:00:00Z");
  /* All dumps, duplicates once, relative ones resolved. */
  CHECK_INT_EQ(v->dump_count, 4);
  CHECK(has_dump(v, "http://example.org/data/a.nt.gz"));
  CHECK(has_dump(v, "http://other.example.org/a2.nt"));
  CHECK(has_dump(v, "http://example.org/b.ttl"));
  CHECK(has_dump(v, "http://example.org/data/links.nt"));
  CHECK_INT_EQ(v->dumps[0].kind, LW_DUMP_PARTIAL);
  CHECK_INT_EQ(v->kind, LW_DUMP_PARTIAL);
  lw_void_free(v);
}

static void test_modified_forms(void)
{
  const char *fmt = "@prefix void: <http://rdfs.org/ns/void#> .\n"
                    "@prefix dct: <http://purl.org/dc/terms/> .\n"
                    "<#d> void:dataDump <d.nt> ; dct:modified %s .\n";
  struct {
    const char *literal;
    const char *expect;
  } cases[] = {
    {"\"2015-11-05\"", "2015-11-05"},
    {"\"2015-11-05\"^^<http://www.w3.org/2001/XMLSchema#date>", "2015-11-05"},
    {"\"2015-11-05T14:25:44.5+01:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime>",
     "2015-11-05T13:25:44.500000Z"},
    {"\"2015-11-05\"@en", "2015-11-05"},
    {"\"2015-12-04 14:25:44.758604\"", "2015-12-04T14:25:44.758604Z"},
    {"\"last tuesday\"", "(none)"},
    {"<http://example.org/date>", "(none)"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); ++i) {
    char text[1024];
    snprintf(text, sizeof(text), fmt, cases[i].literal);
    LwError err;
    LwVoid *v = parse(text, "http://example.org/void.ttl", NULL, LW_OK, &err);
    CHECK_STR_EQ(modified_of(v), cases[i].expect);
    if (!strcmp(cases[i].expect, "(none)")) {
      CHECK(has_warning(v, "dcterms:modified"));
    }
    lw_void_free(v);
  }
}

static void test_missing_modified(void)
{
  LwError err;
  LwVoid *v = parse("<http://example.org/d> <http://rdfs.org/ns/void#dataDump> "
                    "<http://example.org/d.nt> .\n",
                    "http://example.org/void.nt", NULL, LW_OK, &err);
  CHECK(v && v->modified_source == LW_MODIFIED_NONE && v->dump_count == 1);
  lw_void_free(v);
  /* The description's own modified is the next best thing. */
  v = parse("@prefix void: <http://rdfs.org/ns/void#> .\n"
            "@prefix dct: <http://purl.org/dc/terms/> .\n"
            "<> a void:DatasetDescription ; dct:modified \"2020-02-02\" ;\n"
            "  <http://xmlns.com/foaf/0.1/primaryTopic> <#d> .\n"
            "<#d> a void:Dataset ; void:dataDump <d.nt> .\n",
            "http://example.org/void.ttl", NULL, LW_OK, &err);
  CHECK(v && v->modified_source == LW_MODIFIED_DOCUMENT);
  CHECK_STR_EQ(modified_of(v), "2020-02-02");
  CHECK_INT_EQ(v ? v->dataset_count : 0, 1);
  lw_void_free(v);
}

static void test_dump_forms(void)
{
  LwError err;
  /* A literal dump (glharvest's tests) is resolved, with a warning; an ftp
   * dump is left out; a blank node is left out. */
  LwVoid *v = parse("@prefix void: <http://rdfs.org/ns/void#> .\n"
                    "[] a void:Dataset ; void:dataDump 'test.ttl' ;\n"
                    "  void:dataDump <ftp://example.org/x.nt> ; void:dataDump [] .\n",
                    "http://127.0.0.1:8080/p/void.ttl", NULL, LW_OK, &err);
  CHECK(v && v->dump_count == 1);
  CHECK(has_dump(v, "http://127.0.0.1:8080/p/test.ttl"));
  CHECK(has_warning(v, "literal"));
  CHECK(has_warning(v, "ftp://example.org/x.nt"));
  CHECK(has_warning(v, "blank node"));
  lw_void_free(v);
  /* Only non-http dumps: an error. */
  parse("<#d> <http://rdfs.org/ns/void#dataDump> <ftp://example.org/x.nt> .\n",
        "http://example.org/void.ttl", NULL, LW_ERR_FORMAT, &err);
  CHECK(strstr(err.message, "void:dataDump") != NULL);
}

static void test_checksums(void)
{
  LwError err;
  LwVoid *v = parse(
    "@prefix void: <http://rdfs.org/ns/void#> .\n"
    "@prefix spdx: <http://spdx.org/rdf/terms#> .\n"
    "<#d> a void:Dataset ; void:dataDump <a.nt>, <b.nt> .\n"
    "<a.nt> spdx:checksum [ spdx:algorithm spdx:checksumAlgorithm_sha1 ;\n"
    "  spdx:checksumValue \"DA39A3EE5E6B4B0D3255BFEF95601890AFD80709\" ] .\n"
    "<#e> a void:Dataset ; void:dataDump <c.nt> ;\n"
    "  spdx:checksum [ spdx:algorithm \"MD5\" ; spdx:checksumValue \"abc\" ] .\n",
    "http://example.org/void.ttl", NULL, LW_OK, &err);
  CHECK(v && v->dump_count == 3);
  if (v && v->dump_count == 3) {
    CHECK_STR_EQ(v->dumps[0].checksum_algorithm, "sha1");
    CHECK_STR_EQ(v->dumps[0].checksum_value, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    CHECK(v->dumps[1].checksum_value == NULL);
    /* On the dataset of a single dump. */
    CHECK_STR_EQ(v->dumps[2].checksum_algorithm, "md5");
    CHECK_STR_EQ(v->dumps[2].checksum_value, "abc");
  }
  lw_void_free(v);
}

static void test_errors(void)
{
  LwError err;
  /* No dataset at all. */
  parse("<http://example.org/a> <http://example.org/b> \"c\" .\n",
        "http://example.org/void.ttl", NULL, LW_ERR_FORMAT, &err);
  CHECK(strstr(err.message, "void:Dataset") != NULL);
  /* A dataset without dumps. */
  parse("<#d> a <http://rdfs.org/ns/void#Dataset> ;"
        " <http://purl.org/dc/terms/modified> \"2015-01-01\" .\n",
        "http://example.org/void.ttl", NULL, LW_ERR_FORMAT, &err);
  CHECK(strstr(err.message, "void:dataDump") != NULL);
  /* Not RDF. */
  parse("<html><body>Not found</body></html>\n", "http://example.org/void.ttl", "text/html",
        LW_ERR_SYNTAX, &err);
  parse("", "http://example.org/void.ttl", NULL, LW_ERR_SYNTAX, &err);
  parse("just some words\n", "http://example.org/void", NULL, LW_ERR_SYNTAX, &err);
  CHECK(strstr(err.message, "not RDF") != NULL);
  /* A Turtle document ending inside an IRI: serd 0.30 in lax mode would
   * never return; it is read up to that IRI. */
  LwVoid *v = parse("<http://example.org/d> <http://rdfs.org/ns/void#dataDump> "
                    "<http://example.org/d.nt> .\n<http://example.org/e> <http://rd",
                    "http://example.org/void.ttl", NULL, LW_OK, &err);
  CHECK(v && v->dump_count == 1 && has_warning(v, "ends inside an IRI"));
  lw_void_free(v);
  parse("@prefix x: <", "http://example.org/void.ttl", NULL, LW_ERR_SYNTAX, &err);
  /* A '<' inside a string or a comment is not an IRI. */
  v = parse("# a < b\n<http://example.org/d> <http://rdfs.org/ns/void#dataDump> "
            "<http://example.org/d.nt> ; <http://purl.org/dc/terms/title> \"x < y\" .\n",
            "http://example.org/void.ttl", NULL, LW_OK, &err);
  CHECK(v && v->dump_count == 1 && v->syntax_errors == 0);
  lw_void_free(v);
  /* A base is required. */
  parse(EXAMPLE1, "void.ttl", NULL, LW_ERR_USAGE, &err);
  lw_void_free(NULL);
}

static void test_guess(void)
{
  const char *ttl = "@prefix : <#> .";
  const char *xml = "<?xml version='1.0'?><rdf:RDF/>";
  CHECK_INT_EQ(lw_void_guess_format("http://x/void.ttl", "application/rdf+xml", xml, 30),
               LW_FORMAT_TURTLE);
  CHECK_INT_EQ(lw_void_guess_format("http://x/void.RDF?x=1", NULL, ttl, 15),
               LW_FORMAT_RDFXML);
  CHECK_INT_EQ(lw_void_guess_format("http://x/void.xml#a", NULL, ttl, 15),
               LW_FORMAT_RDFXML);
  CHECK_INT_EQ(lw_void_guess_format("http://x/void.nt", NULL, ttl, 15), LW_FORMAT_TURTLE);
  CHECK_INT_EQ(lw_void_guess_format("http://x/void", "text/turtle; charset=utf-8", xml, 30),
               LW_FORMAT_TURTLE);
  CHECK_INT_EQ(lw_void_guess_format("http://x/void", "application/xml", ttl, 15),
               LW_FORMAT_RDFXML);
  CHECK_INT_EQ(lw_void_guess_format("http://x/void", NULL, xml, 30), LW_FORMAT_RDFXML);
  CHECK_INT_EQ(lw_void_guess_format("http://x/void", NULL, "\xEF\xBB\xBF <rdf:RDF x>", 16),
               LW_FORMAT_RDFXML);
  CHECK_INT_EQ(lw_void_guess_format("http://x/void", NULL, "<http://a> <b> <c> .", 20),
               LW_FORMAT_TURTLE);
  CHECK_INT_EQ(lw_void_guess_format("http://x/void", NULL, "<a> <b> <c> .", 13),
               LW_FORMAT_TURTLE);
  CHECK_INT_EQ(lw_void_guess_format("http://x/void", NULL, ttl, 15), LW_FORMAT_TURTLE);
  CHECK_STR_EQ(lw_dump_kind_name(LW_DUMP_PARTIAL), "partial");
}

/* ---- the real VoID files ---- */

static LwVoid *parse_file(const char *dir, const char *name, const char *url,
                          LwStatus expect)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/void/%s", dir, name);
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f) {
    return NULL;
  }
  char *buf = malloc(1 << 20);
  size_t n = fread(buf, 1, 1 << 20, f);
  fclose(f);
  LwVoid *v = NULL;
  LwError err;
  lw_error_clear(&err);
  LwStatus st = lw_void_parse(buf, n, url, NULL, &v, &err);
  free(buf);
  CHECK_INT_EQ(st, expect);
  if (st != expect) {
    fprintf(stderr, "  %s: %s\n", name, err.message);
  }
  return v;
}

static void test_real_files(void)
{
  const char *dir = lw_test_testdata();
  if (!dir) {
    printf("skipping the real VoID files: shared test data not found "
           "(set LODWASH_TESTDATA)\n");
    return;
  }
  /* JITA Turtle: a stray '.' on line 11 breaks the next line; what parsed
   * is used, with a warning. */
  LwVoid *v = parse_file(dir, "gbv__JITA__void.ttl",
                         "http://aims.fao.org/aos/jita/void.ttl", LW_OK);
  CHECK(v && v->syntax_errors >= 1);
  CHECK(has_warning(v, "syntax error"));
  CHECK_STR_EQ(modified_of(v), "2011-12-07");
  CHECK(has_dump(v, "http://www.destin-informatique.com/scheme/skos.jsp?about=jita"));
  CHECK(has_feature(v, "http://www.w3.org/ns/formats/RDF_XML"));
  lw_void_free(v);
  /* JITA RDF/XML: BOM and CRLF; the same dataset. */
  v = parse_file(dir, "gbv__JITA__void.rdf", "http://aims.fao.org/aos/jita/void.rdf",
                 LW_OK);
  CHECK(v && v->format == LW_FORMAT_RDFXML && v->syntax_errors == 0);
  CHECK_STR_EQ(modified_of(v), "2011-12-07");
  CHECK(v && v->dump_count == 1);
  lw_void_free(v);
  /* legal-form: rdf:datatype="xsd:date", a CURIE; the date is still read. */
  v = parse_file(dir, "n-fuse__legal-form-vocab__void.rdf",
                 "https://github.com/n-fuse/legalforms/void.rdf", LW_OK);
  CHECK_STR_EQ(modified_of(v), "2014-03-18");
  CHECK(has_dump(v, "http://www.lexvo.org/resources/lexvo_latest.rdf.gz"));
  lw_void_free(v);
  /* glamazon: Turtle in a .nt file. */
  v = parse_file(dir, "filievski__glamazon-rdf__void.nt",
                 "http://www.museums.io/museums/void.nt", LW_OK);
  CHECK_STR_EQ(modified_of(v), "2015-09-18");
  CHECK(has_dump(v, "http://www.museums.io/museums/glamazon.nt.gz"));
  lw_void_free(v);
  /* WordNet: subsets, relative dumps, no modified. */
  v = parse_file(dir, "jrvosse__wordnet-3.0-rdf__void.ttl",
                 "http://example.org/wordnet/void.ttl", LW_OK);
  CHECK(v && v->modified_source == LW_MODIFIED_NONE);
  CHECK(has_dump(v, "http://example.org/wordnet/wn31.nt.gz"));
  CHECK(has_dump(v, "http://example.org/wordnet/wordnet-synset.ttl.gz"));
  CHECK(has_dump(v, "http://example.org/wordnet/wnskosmap.ttl.gz"));
  CHECK(v && v->dump_count == 17);
  lw_void_free(v);
  /* glharvest's own test VoIDs. */
  v = parse_file(dir, "ec-geolink__glharvest__glharvest__tests__data__simple-void.ttl",
                 "http://lod.dataone.org/void.ttl", LW_OK);
  CHECK(has_dump(v, "http://lod.dataone.org/test.ttl"));
  CHECK(v && v->modified_source == LW_MODIFIED_NONE && v->kind == LW_DUMP_UNSTATED);
  lw_void_free(v);
  v = parse_file(
    dir,
    "ec-geolink__glharvest__glharvest__tests__data__scenarios__simple_scenario__void.ttl",
    "http://127.0.0.1:8080/void.ttl", LW_OK);
  CHECK(has_dump(v, "http://127.0.0.1:8080/test.ttl"));
  lw_void_free(v);
  /* More real files: modified and dumps where they are stated. */
  v = parse_file(dir, "berlinonline__lod-berlin-lor__void.ttl",
                 "https://berlinonline.github.io/lod-berlin-lor/void.ttl", LW_OK);
  CHECK_STR_EQ(modified_of(v), "2024-03-19");
  CHECK(has_dump(v, "https://raw.githubusercontent.com/berlinonline/lod-berlin-lor/main/"
                    "data/target/lors.ttl"));
  lw_void_free(v);
  v = parse_file(dir, "egonw__chembl.rdf__void.ttl",
                 "http://linkedchemistry.info/chembl/void.ttl", LW_OK);
  CHECK(v && v->modified_source == LW_MODIFIED_NONE);
  CHECK(has_dump(v, "http://semantics.bigcat.unimaas.nl/chembl/"));
  lw_void_free(v);
  v = parse_file(dir, "jrvosse__wordnet-3.0-rdf__wn20mappings__void.ttl",
                 "http://example.org/wn20mappings/void.ttl", LW_OK);
  CHECK(v && v->dump_count == 14);
  lw_void_free(v);
}

int main(void)
{
  test_example1();
  test_example2();
  test_rdfxml();
  test_several_datasets();
  test_modified_forms();
  test_missing_modified();
  test_dump_forms();
  test_checksums();
  test_errors();
  test_guess();
  test_real_files();
  return lw_test_finish();
}
