/* DCAT / DCAT-AP documents into source pages (sources/dcat.c): project-written
 * fixtures for each rule (Hydra paging, linked sub-catalogues, blank-node
 * datasets, the accessURL fallback, declared formats in all their forms,
 * checksums, versions, RDF/XML and JSON-LD, errors), then the real DCAT
 * files of the shared test data (ckanext-dcat's and the DCAT-AP 2.2.0 HVD
 * examples): every one reads, and what a user would check is checked on
 * several. */
#include "sources/sources.h"
#include "tests/support/check.h"
#include "tests/support/source_lookup.h"
#include "tests/support/dir_list.h"

#include <stdlib.h>

#define PREFIXES                                                                           \
  "@prefix dcat: <http://www.w3.org/ns/dcat#> .\n"                                         \
  "@prefix dct: <http://purl.org/dc/terms/> .\n"                                           \
  "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"                         \
  "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"                              \
  "@prefix spdx: <http://spdx.org/rdf/terms#> .\n"                                         \
  "@prefix hydra: <http://www.w3.org/ns/hydra/core#> .\n"                                  \
  "@prefix ft: <http://publications.europa.eu/resource/authority/file-type/> .\n"

/* IANA media-type IRIs, whose local part holds a '/'. */
#define IANA "<http://www.iana.org/assignments/media-types/"

static const char *BASE = "https://data.example.org/catalog.ttl";

/* ---- helpers ---- */

static LwSourcePage *parse_n(const char *text, size_t len, const char *url,
                             const char *media_type, LwStatus expect, LwError *err)
{
  LwSourcePage *page = NULL;
  lw_error_clear(err);
  LwStatus st = lw_dcat_parse(text, len, url, media_type, &page, err);
  CHECK_INT_EQ(st, expect);
  if (st != expect) {
    fprintf(stderr, "  (%s: %s)\n", url, err->message);
    lw_test_print_page(page);
  }
  if (st != LW_OK) {
    CHECK(page == NULL);
  }
  return page;
}

static LwSourcePage *parse(const char *text, const char *media_type, LwStatus expect,
                           LwError *err)
{
  return parse_n(text, strlen(text), BASE, media_type, expect, err);
}

/* The skip of url (NULL: a skip without URL) whose reason contains text. */
static bool has_skip(const LwSourceDataset *ds, const char *url, const char *text)
{
  for (size_t i = 0; ds && i < ds->skip_count; ++i) {
    const LwSourceSkip *s = &ds->skips[i];
    bool same_url = url ? s->url && !strcmp(s->url, url) : !s->url;
    if (same_url && strstr(s->reason, text)) {
      return true;
    }
  }
  fprintf(stderr, "no skip of %s saying '%s' among:\n", url ? url : "(no URL)", text);
  for (size_t i = 0; ds && i < ds->skip_count; ++i) {
    fprintf(stderr, "  %s: %s\n", ds->skips[i].url ? ds->skips[i].url : "-",
            ds->skips[i].reason);
  }
  return false;
}

static bool has_warning(const LwSourcePage *p, const char *text)
{
  for (size_t i = 0; p && i < p->warning_count; ++i) {
    if (strstr(p->warnings[i], text)) {
      return true;
    }
  }
  fprintf(stderr, "no warning containing '%s'\n", text);
  lw_test_print_page(p);
  return false;
}

static void check_dump(const LwSourceDump *d, const char *media_type, bool guess)
{
  CHECK(d != NULL);
  if (d) {
    CHECK_STR_EQ(d->media_type, media_type);
    CHECK_INT_EQ(d->guess, guess);
  }
}

/* ---- fixtures ---- */

static void test_hydra_paging(void)
{
  LwError err;
  /* A view node (Hydra's PartialCollectionView), relative next. */
  LwSourcePage *p = parse(PREFIXES "<https://data.example.org/catalog> a dcat:Catalog ;\n"
                                   "  dcat:dataset <#d1> ;\n"
                                   "  hydra:view [ a hydra:PartialCollectionView ;\n"
                                   "    hydra:first <catalog.ttl?page=1> ;\n"
                                   "    hydra:next <catalog.ttl?page=2> ] .\n"
                                   "<#d1> a dcat:Dataset ; dct:title \"One\" .\n",
                          NULL, LW_OK, &err);
  CHECK(p && p->dataset_count == 1 && p->next_count == 1);
  CHECK(lw_test_has_next(p, "https://data.example.org/catalog.ttl?page=2"));
  CHECK(lw_test_dataset(p, "https://data.example.org/catalog.ttl#d1") != NULL);
  lw_source_page_free(p);
  /* ckanext-dcat's paging: hydra:nextPage as a literal, on a
   * PagedCollection; a last page of no datasets is still a page. An ftp
   * next page is not followed, nor a next page that is this one. */
  p = parse(PREFIXES
            "<https://data.example.org/catalog.ttl?page=2> a hydra:PagedCollection ;\n"
            "  hydra:nextPage \"https://data.example.org/catalog.ttl?page=3\" ;\n"
            "  hydra:next <ftp://data.example.org/catalog.ttl?page=3> ;\n"
            "  hydra:next <> ;\n"
            "  hydra:totalItems 20 .\n",
            NULL, LW_OK, &err);
  CHECK(p && p->dataset_count == 0 && p->next_count == 1);
  CHECK(lw_test_has_next(p, "https://data.example.org/catalog.ttl?page=3"));
  CHECK(has_warning(p, "ftp://data.example.org/catalog.ttl?page=3"));
  lw_source_page_free(p);
}

static void test_linked_catalogs(void)
{
  LwError err;
  /* Sub-catalogues and datasets only linked go to next (without their
   * fragment); those described here are read; dct:hasPart counts on a
   * catalogue only. */
  LwSourcePage *p = parse(
    PREFIXES
    "<#root> a dcat:Catalog ;\n"
    "  dcat:catalog <https://regions.example.org/north.ttl#catalog> ;\n"
    "  dcat:catalog <#south> ;\n"
    "  dct:hasPart <https://parts.example.org/east.rdf> ;\n"
    "  dcat:dataset <https://data.example.org/dataset/elsewhere> ;\n"
    "  dcat:dataset <urn:x:not-fetched> .\n"
    "<#south> dct:title \"South\" ; dcat:dataset <#s1> .\n"
    "<#s1> dct:title \"South one\" ;\n"
    "  dcat:distribution [ dcat:downloadURL <s1.nt> ; dcat:mediaType \"application/n-triples\" ] .\n"
    "<#d2> a dcat:Dataset ; dct:hasPart <https://parts.example.org/not-a-catalog.ttl> .\n",
    NULL, LW_OK, &err);
  CHECK(p && p->next_count == 3);
  CHECK(lw_test_has_next(p, "https://regions.example.org/north.ttl"));
  CHECK(lw_test_has_next(p, "https://parts.example.org/east.rdf"));
  CHECK(lw_test_has_next(p, "https://data.example.org/dataset/elsewhere"));
  CHECK(has_warning(p, "urn:x:not-fetched"));
  CHECK(p && p->dataset_count == 2);
  LwSourceDataset *s1 = lw_test_dataset(p, "https://data.example.org/catalog.ttl#s1");
  CHECK_STR_EQ(s1 ? s1->title : NULL, "South one");
  check_dump(lw_test_dump(s1, "https://data.example.org/s1.nt"), "application/n-triples",
             false);
  CHECK(lw_test_dataset(p, "https://data.example.org/catalog.ttl#d2") != NULL);
  lw_source_page_free(p);
}

static const char *BLANK_A = PREFIXES
  "<#cat> dcat:dataset _:ds7 .\n"
  "_:ds7 a dcat:Dataset ; dct:title \"Anonymous\" ;\n"
  "  dcat:distribution _:x1, _:x2 .\n"
  "_:x1 dcat:downloadURL <https://files.example.org/b.ttl> .\n"
  "_:x2 dcat:downloadURL <https://files.example.org/a.nt> .\n";

static const char *BLANK_B = /* the same, other labels, other order */
  PREFIXES "_:q dcat:distribution [ dcat:downloadURL <https://files.example.org/a.nt> ] ,\n"
           "  [ dcat:downloadURL <https://files.example.org/b.ttl> ] ;\n"
           "  dct:title \"Anonymous\" ; a dcat:Dataset .\n"
           "<#cat> dcat:dataset _:q .\n";

static void test_blank_datasets(void)
{
  LwError err;
  LwSourcePage *a = parse(BLANK_A, NULL, LW_OK, &err);
  LwSourcePage *b = parse(BLANK_B, NULL, LW_OK, &err);
  CHECK(a && b && a->dataset_count == 1 && b->dataset_count == 1);
  if (a && b && a->dataset_count == 1 && b->dataset_count == 1) {
    const char *id = a->datasets[0].id;
    CHECK(!strncmp(id, "_:", 2) && strlen(id) == 2 + 32);
    CHECK_STR_EQ(b->datasets[0].id, id);
    CHECK_INT_EQ(a->datasets[0].dump_count, 2);
  }
  lw_source_page_free(a);
  lw_source_page_free(b);
  /* With a dct:identifier, that is the id. */
  LwSourcePage *p = parse(PREFIXES "[] a dcat:Dataset ; dct:identifier \" stats-2024 \" ;\n"
                                   "  dcat:distribution [ dcat:downloadURL <x.ttl> ] .\n",
                          NULL, LW_OK, &err);
  CHECK(lw_test_dataset(p, "stats-2024") != NULL);
  lw_source_page_free(p);
}

static void test_access_url(void)
{
  LwError err;
  LwSourcePage *p = parse(
    PREFIXES
    "<#d> a dcat:Dataset ;\n"
    "  dcat:distribution [ dcat:accessURL <https://x.example.org/a.ttl> ;\n"
    "                      dcat:mediaType " IANA "text/turtle> ] ,\n"
    "    [ dcat:accessURL <https://x.example.org/landing> ] ,\n"
    "    [ dcat:accessURL <https://x.example.org/page.html> ; dct:format \"HTML\" ] ,\n"
    "    [ dcat:accessURL <https://x.example.org/sparql> ; dcat:accessService [ a "
    "dcat:DataService ] ] ,\n"
    "    [ dct:title \"nothing to fetch\" ] ,\n"
    /* downloadURL wins over accessURL */
    "    [ dcat:accessURL <https://x.example.org/about> ;\n"
    "      dcat:downloadURL <https://x.example.org/all.nt> ] .\n",
    NULL, LW_OK, &err);
  LwSourceDataset *d = lw_test_dataset(p, "https://data.example.org/catalog.ttl#d");
  check_dump(lw_test_dump(d, "https://x.example.org/a.ttl"), "text/turtle", false);
  check_dump(lw_test_dump(d, "https://x.example.org/all.nt"), NULL, true);
  CHECK(d && d->dump_count == 2 && d->skip_count == 4);
  const char *landing =
    "accessURL only, no RDF format declared (a landing page or service)";
  CHECK(has_skip(d, "https://x.example.org/landing", landing));
  CHECK(has_skip(d, "https://x.example.org/page.html", landing));
  CHECK(has_skip(d, "https://x.example.org/sparql", "data service"));
  CHECK(has_skip(d, NULL, "without dcat:downloadURL or dcat:accessURL"));
  lw_source_page_free(p);
}

static void test_formats(void)
{
  LwError err;
  LwSourcePage *p = parse(
    PREFIXES
    "<#d> a dcat:Dataset ;\n"
    "  dcat:distribution\n"
    /* not RDF: labels, EU authority IRIs, IANA IRIs, media types */
    "    [ dcat:downloadURL <https://x.example.org/t.csv> ; dct:format \"CSV\" ] ,\n"
    "    [ dcat:downloadURL <https://x.example.org/wms> ; dct:format ft:WMS_SRVC ] ,\n"
    "    [ dcat:downloadURL <https://x.example.org/m.pdf> ; dcat:mediaType " IANA
    "application/pdf> ] ,\n"
    "    [ dcat:downloadURL <https://x.example.org/s.zip> ; dct:format ft:SHP ;\n"
    "      dcat:packageFormat ft:ZIP ] ,\n"
    /* RDF: the EU authority and IANA IRIs, a literal with parameters */
    "    [ dcat:downloadURL <https://x.example.org/a.ttl> ; dct:format ft:RDF_TURTLE ] ,\n"
    "    [ dcat:downloadURL <https://x.example.org/b.jsonld> ; dcat:mediaType " IANA
    "application/ld+json> ] ,\n"
    "    [ dcat:downloadURL <https://x.example.org/c.rdf> ;\n"
    "      dcat:mediaType \"application/rdf+xml; charset=UTF-8\" ] ,\n"
    /* one RDF format is enough */
    "    [ dcat:downloadURL <https://x.example.org/d.nt> ; dct:format \"CSV\", ft:RDF_N_TRIPLES ] ,\n"
    /* DCAT-AP 1.1: the format a dct:IMT node */
    "    [ dcat:downloadURL <https://x.example.org/e.ttl> ;\n"
    "      dct:format [ a dct:IMT ; rdf:value \"text/turtle\" ; rdfs:label \"Turtle\" ] ] ,\n"
    "    [ dcat:downloadURL <https://x.example.org/f.csv> ;\n"
    "      dct:format [ a dct:IMT ; rdfs:label \"CSV\" ] ] ,\n"
    "    [ dcat:downloadURL <https://x.example.org/g> ; dct:format <#own-format> ] ,\n"
    /* containers: an archive of RDF, an archive of unknown content */
    "    [ dcat:downloadURL <https://x.example.org/h.ttl.gz> ; dcat:mediaType " IANA
    "text/turtle> ;\n"
    "      dcat:compressFormat " IANA "application/gzip> ] ,\n"
    "    [ dcat:downloadURL <https://x.example.org/i.zip> ; dcat:packageFormat ft:ZIP ] ,\n"
    "    [ dcat:downloadURL <https://x.example.org/j.tar> ; dcat:packageFormat ft:TAR ;\n"
    "      dcat:mediaType \"application/n-quads\" ] ,\n"
    /* pages and the undeclared: guessed */
    "    [ dcat:downloadURL <https://x.example.org/k> ; dcat:mediaType \"text/html\" ] ,\n"
    "    [ dcat:downloadURL <https://x.example.org/l> ] .\n"
    "<#own-format> rdfs:label \"N-Triples\" .\n",
    NULL, LW_OK, &err);
  LwSourceDataset *d = lw_test_dataset(p, "https://data.example.org/catalog.ttl#d");
  CHECK(has_skip(d, "https://x.example.org/t.csv", "format CSV is not RDF"));
  CHECK(has_skip(d, "https://x.example.org/wms", "format WMS_SRVC is not RDF"));
  CHECK(has_skip(d, "https://x.example.org/m.pdf", "format application/pdf is not RDF"));
  CHECK(has_skip(d, "https://x.example.org/s.zip", "format SHP is not RDF"));
  CHECK(has_skip(d, "https://x.example.org/f.csv", "format CSV is not RDF"));
  check_dump(lw_test_dump(d, "https://x.example.org/a.ttl"), NULL, false);
  check_dump(lw_test_dump(d, "https://x.example.org/b.jsonld"), "application/ld+json",
             false);
  check_dump(lw_test_dump(d, "https://x.example.org/c.rdf"),
             "application/rdf+xml; charset=utf-8", false);
  check_dump(lw_test_dump(d, "https://x.example.org/d.nt"), NULL, false);
  check_dump(lw_test_dump(d, "https://x.example.org/e.ttl"), "text/turtle", false);
  check_dump(lw_test_dump(d, "https://x.example.org/g"), NULL, false);
  check_dump(lw_test_dump(d, "https://x.example.org/h.ttl.gz"), "text/turtle", false);
  check_dump(lw_test_dump(d, "https://x.example.org/i.zip"), NULL, true);
  check_dump(lw_test_dump(d, "https://x.example.org/j.tar"), "application/n-quads", false);
  check_dump(lw_test_dump(d, "https://x.example.org/k"), "text/html", true);
  check_dump(lw_test_dump(d, "https://x.example.org/l"), NULL, true);
  CHECK(d && d->skip_count == 5 && d->dump_count == 11);
  lw_source_page_free(p);
}

static void test_urls(void)
{
  LwError err;
  /* URLs as literals (resolved), not http(s), blank. */
  LwSourcePage *p = parse(
    PREFIXES
    "<#d> a dcat:Dataset ; dcat:distribution\n"
    "  [ dcat:downloadURL \" files/x.ttl \" ] ,\n"
    "  [ dcat:downloadURL <ftp://ftp.example.org/y.ttl> ] ,\n"
    "  [ dcat:downloadURL [ rdfs:label \"somewhere\" ] ] ,\n"
    "  [ dcat:downloadURL \"see the publisher's site\" ] ,\n"
    "  [ dcat:downloadURL <https://x.example.org/z.ttl>, <https://x.example.org/z.ttl> ] .\n",
    NULL, LW_OK, &err);
  LwSourceDataset *d = lw_test_dataset(p, "https://data.example.org/catalog.ttl#d");
  CHECK(lw_test_dump(d, "https://data.example.org/files/x.ttl") != NULL);
  CHECK(lw_test_dump(d, "https://x.example.org/z.ttl") != NULL);
  CHECK(has_skip(d, "ftp://ftp.example.org/y.ttl", "not an http(s) URL"));
  CHECK(has_skip(d, NULL, "a blank node is not a URL"));
  CHECK(has_skip(d, NULL, "see the publisher's site is not a URL"));
  CHECK(d && d->dump_count == 2 && d->skip_count == 3);
  lw_source_page_free(p);
}

static void test_checksums(void)
{
  LwError err;
  LwSourcePage *p = parse(
    PREFIXES
    "<#d> a dcat:Dataset ; dcat:distribution <#a>, <#b>, <#c> .\n"
    "<#a> dcat:downloadURL <https://x.example.org/a.nt>, <https://x.example.org/a2.nt> ;\n"
    "  spdx:checksum [ a spdx:Checksum ; spdx:algorithm spdx:checksumAlgorithm_sha256 ;\n"
    "    spdx:checksumValue \"E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855\" ] .\n"
    "<#b> dcat:downloadURL <https://x.example.org/b.nt> ;\n"
    "  spdx:checksum [ spdx:algorithm \"MD5\" ; spdx:checksumValue \"d41d8cd98f00b204e9800998ecf8427e\" ] .\n"
    "<#c> dcat:downloadURL <https://x.example.org/c.nt> ;\n"
    "  spdx:checksum [ spdx:algorithm spdx:checksumAlgorithm_sha1 ;\n"
    "    spdx:checksumValue \"not hex\" ] .\n",
    NULL, LW_OK, &err);
  LwSourceDataset *d = lw_test_dataset(p, "https://data.example.org/catalog.ttl#d");
  const char *sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  const char *urls[] = {"https://x.example.org/a.nt", "https://x.example.org/a2.nt"};
  for (size_t i = 0; i < 2; ++i) {
    const LwSourceDump *a = lw_test_dump(d, urls[i]);
    CHECK_STR_EQ(a ? a->checksum_algorithm : NULL, "sha256");
    CHECK_STR_EQ(a ? a->checksum_value : NULL, sha256);
  }
  const LwSourceDump *b = lw_test_dump(d, "https://x.example.org/b.nt");
  CHECK_STR_EQ(b ? b->checksum_algorithm : NULL, "md5");
  CHECK_STR_EQ(b ? b->checksum_value : NULL, "d41d8cd98f00b204e9800998ecf8427e");
  const LwSourceDump *c = lw_test_dump(d, "https://x.example.org/c.nt");
  CHECK(c && !c->checksum_algorithm && !c->checksum_value);
  lw_source_page_free(p);
}

static void test_versions_and_titles(void)
{
  LwError err;
  LwSourcePage *p = parse(
    PREFIXES
    /* a distribution's dct:modified is newer than the dataset's */
    "<#a> a dcat:Dataset ; dct:modified \" 2024-01-01 \" ; dct:issued \"2025-01-01\" ;\n"
    "  dct:title \"Titel\"@de, \"Title\"@en-GB, \"Titre\"@fr ;\n"
    "  dcat:distribution [ dct:modified \"2024-03-01T10:00:00Z\" ; dcat:downloadURL <a.nt> ] .\n"
    /* only dct:issued */
    "<#b> a dcat:Dataset ; dct:issued \"2020-05-05\" ; dct:title \"Untagged\", \"Tagged\"@en .\n"
    /* nothing said */
    "<#c> a dcat:DatasetSeries ; dct:title \"Nur Deutsch\"@de .\n",
    NULL, LW_OK, &err);
  LwSourceDataset *a = lw_test_dataset(p, "https://data.example.org/catalog.ttl#a");
  LwSourceDataset *b = lw_test_dataset(p, "https://data.example.org/catalog.ttl#b");
  LwSourceDataset *c = lw_test_dataset(p, "https://data.example.org/catalog.ttl#c");
  CHECK_STR_EQ(a ? a->version : NULL, "2024-03-01T10:00:00Z");
  CHECK_STR_EQ(a ? a->title : NULL, "Title");
  CHECK_STR_EQ(b ? b->version : NULL, "2020-05-05");
  CHECK_STR_EQ(b ? b->title : NULL, "Untagged");
  CHECK_STR_EQ(c ? c->version : NULL, "");
  CHECK_STR_EQ(c ? c->title : NULL, "Nur Deutsch");
  lw_source_page_free(p);
}

static const char *RDFXML =
  "<?xml version=\"1.0\"?>\n"
  "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"\n"
  "         xmlns:dcat=\"http://www.w3.org/ns/dcat#\"\n"
  "         xmlns:dct=\"http://purl.org/dc/terms/\"\n"
  "         xmlns:hydra=\"http://www.w3.org/ns/hydra/core#\">\n"
  "  <dcat:Catalog rdf:about=\"\">\n"
  "    <dcat:dataset>\n"
  "      <dcat:Dataset rdf:about=\"#eels\">\n"
  "        <dct:title xml:lang=\"en\">Eels</dct:title>\n"
  "        <dct:modified>2023-11-02</dct:modified>\n"
  "        <dcat:distribution>\n"
  "          <dcat:Distribution>\n"
  "            <dcat:downloadURL rdf:resource=\"eels.rdf\"/>\n"
  "            <dcat:mediaType>application/rdf+xml</dcat:mediaType>\n"
  "          </dcat:Distribution>\n"
  "        </dcat:distribution>\n"
  "      </dcat:Dataset>\n"
  "    </dcat:dataset>\n"
  "  </dcat:Catalog>\n"
  "  <hydra:PagedCollection rdf:about=\"\">\n"
  "    <hydra:nextPage>https://data.example.org/catalog.rdf?page=2</hydra:nextPage>\n"
  "  </hydra:PagedCollection>\n"
  "</rdf:RDF>\n";

static const char *JSONLD =
  "{\n"
  "  \"@context\": {\"dcat\": \"http://www.w3.org/ns/dcat#\",\n"
  "                \"dct\": \"http://purl.org/dc/terms/\"},\n"
  "  \"@graph\": [\n"
  "    {\"@id\": \"#eels\", \"@type\": \"dcat:Dataset\", \"dct:title\": \"Eels\",\n"
  "     \"dct:modified\": \"2023-11-02\",\n"
  "     \"dcat:distribution\": {\"dcat:downloadURL\": {\"@id\": \"eels.rdf\"},\n"
  "                            \"dcat:mediaType\": \"application/rdf+xml\"}}\n"
  "  ]\n"
  "}\n";

static void check_eels(LwSourcePage *p, const char *base)
{
  char id[256], url[256];
  snprintf(id, sizeof(id), "%s#eels", base);
  snprintf(url, sizeof(url), "https://data.example.org/eels.rdf");
  LwSourceDataset *d = lw_test_dataset(p, id);
  CHECK_STR_EQ(d ? d->title : NULL, "Eels");
  CHECK_STR_EQ(d ? d->version : NULL, "2023-11-02");
  check_dump(lw_test_dump(d, url), "application/rdf+xml", false);
}

static void test_syntaxes(void)
{
  LwError err;
  const char *rdf_url = "https://data.example.org/catalog.rdf";
  LwSourcePage *p = parse_n(RDFXML, strlen(RDFXML), rdf_url, NULL, LW_OK, &err);
  check_eels(p, rdf_url);
  CHECK(lw_test_has_next(p, "https://data.example.org/catalog.rdf?page=2"));
  lw_source_page_free(p);
  /* The media type does not mislead when the content is clear. */
  p = parse_n(RDFXML, strlen(RDFXML), rdf_url, "text/turtle", LW_OK, &err);
  check_eels(p, rdf_url);
  lw_source_page_free(p);
  const char *json_url = "https://data.example.org/catalog.jsonld";
  p = parse_n(JSONLD, strlen(JSONLD), json_url, "application/ld+json", LW_OK, &err);
  check_eels(p, json_url);
  lw_source_page_free(p);
  /* N-Triples served without a media type, at a URL without extension. */
  const char *nt =
    "<https://data.example.org/d> <http://www.w3.org/ns/dcat#distribution> _:x .\n"
    "_:x <http://www.w3.org/ns/dcat#downloadURL> <https://data.example.org/d.nt> .\n";
  p = parse_n(nt, strlen(nt), "https://data.example.org/catalog", NULL, LW_OK, &err);
  CHECK(lw_test_dump(lw_test_dataset(p, "https://data.example.org/d"),
                     "https://data.example.org/d.nt"));
  lw_source_page_free(p);
  /* A UTF-8 BOM. */
  const char *bom = "\xEF\xBB\xBF" PREFIXES "<#d> a dcat:Dataset .\n";
  p = parse(bom, NULL, LW_OK, &err);
  CHECK(p && p->dataset_count == 1);
  lw_source_page_free(p);
}

static void test_errors(void)
{
  LwError err;
  /* Not RDF at all. */
  parse("this is not RDF, just words {{{ ]]] <<<\n", NULL, LW_ERR_SYNTAX, &err);
  CHECK(strstr(err.message, "not RDF") != NULL);
  parse("", NULL, LW_ERR_SYNTAX, &err);
  parse("\x01\x02\x03\xff\xfe binary", "application/octet-stream", LW_ERR_SYNTAX, &err);
  parse("<html><head><title>Catalogue</title></head><body>Datasets</body></html>\n",
        "text/html", LW_ERR_SYNTAX, &err);
  /* JSON-LD with a remote context: not fetched, and the error says so. */
  parse("{\"@context\": \"https://schema.example.org/dcat-context.jsonld\",\n"
        " \"@id\": \"#d\", \"@type\": \"Dataset\"}\n",
        "application/ld+json", LW_ERR_SYNTAX, &err);
  CHECK(strstr(err.message, "remote @context") != NULL);
  CHECK(strstr(err.message, "https://schema.example.org/dcat-context.jsonld") != NULL);
  /* RDF, but no dataset and no next page. */
  parse(PREFIXES
        "<#cat> a dcat:Catalog ; dct:title \"Empty\" .\n"
        "<#svc> a dcat:DataService ; dcat:servesDataset <https://x.example.org/d> .\n",
        NULL, LW_ERR_FORMAT, &err);
  CHECK(strstr(err.message, "no dcat:Dataset") != NULL);
  /* A syntax error survived: what parsed is used, with a warning. */
  LwSourcePage *p = parse(PREFIXES "<#a> a dcat:Dataset ; dct:title \"A\" .\n"
                                   "<#b> a dcat:Dataset ; dct:title undefined:title .\n"
                                   "<#c> a dcat:Dataset ; dct:title \"C\" .\n",
                          NULL, LW_OK, &err);
  CHECK(lw_test_dataset(p, "https://data.example.org/catalog.ttl#a") != NULL);
  CHECK(lw_test_dataset(p, "https://data.example.org/catalog.ttl#c") != NULL);
  CHECK(has_warning(p, "syntax error"));
  lw_source_page_free(p);
  /* A broken line in the middle of a distribution: serd skips the rest of
   * the statement; read again without that line, the mediaType is kept. */
  p = parse(PREFIXES "<#d> a dcat:Dataset ; dcat:distribution <#x> .\n"
                     "<#x> dcat:downloadURL <x.ttl> ;\n"
                     "  dct:issued \"2020\"^^<<http://www.w3.org/2001/XMLSchema#gYear> ;\n"
                     "  dcat:mediaType \"text/turtle\" .\n",
            NULL, LW_OK, &err);
  check_dump(lw_test_dump(lw_test_dataset(p, "https://data.example.org/catalog.ttl#d"),
                          "https://data.example.org/x.ttl"),
             "text/turtle", false);
  CHECK(has_warning(p, "line 10 left out"));
  lw_source_page_free(p);
  /* A Turtle document ending inside an IRI returns. */
  p = parse(PREFIXES "<#a> a dcat:Dataset .\n<#b> a <http://www.w3.org/ns/dc", NULL, LW_OK,
            &err);
  CHECK(p && p->dataset_count == 1);
  lw_source_page_free(p);
  /* A reader's cap (nesting) fails the document: a catalogue read in part
   * would show its other datasets gone. */
  char deep[2048];
  int n = snprintf(deep, sizeof(deep), "%s<#d> a dcat:Dataset .\n<#x> dct:hasPart ",
                   PREFIXES);
  for (; n < 1500; ++n) {
    deep[n] = '[';
  }
  deep[n] = '\0';
  parse(deep, NULL, LW_ERR_LIMIT, &err);
  CHECK(strstr(err.message, "nesting") != NULL);
  /* The base must be absolute. */
  LwSourcePage *none = NULL;
  CHECK_INT_EQ(lw_dcat_parse("x", 1, "catalog.ttl", NULL, &none, &err), LW_ERR_USAGE);
  CHECK(none == NULL);
}

/* A catalogue of many datasets (the store's table grows many times), in
 * an order where each dataset's statements are far apart. */
static void test_many_datasets(void)
{
  enum { N = 3000 };
  LwBuf doc = LW_BUF_INIT;
  lw_buf_append_str(&doc, PREFIXES "<#cat> a dcat:Catalog .\n");
  for (int i = 0; i < N; ++i) {
    lw_buf_appendf(&doc, "<#cat> dcat:dataset <#d%d> .\n", i);
  }
  for (int i = 0; i < N; ++i) {
    lw_buf_appendf(&doc, "<#d%d> dcat:distribution <#x%d> .\n", i, i);
  }
  for (int i = 0; i < N; ++i) {
    lw_buf_appendf(&doc,
                   "<#x%d> dcat:downloadURL <https://files.example.org/%d.nt> ;"
                   " dct:modified \"2024-01-01T00:00:%02d\" .\n",
                   i, i, i % 60);
  }
  LwError err;
  LwSourcePage *p = parse_n(doc.data, doc.len, BASE, "text/turtle", LW_OK, &err);
  CHECK(p && p->dataset_count == N && lw_source_page_dump_count(p) == N);
  LwSourceDataset *d = lw_test_dataset(p, "https://data.example.org/catalog.ttl#d2999");
  CHECK(lw_test_dump(d, "https://files.example.org/2999.nt") != NULL);
  CHECK_STR_EQ(d ? d->version : NULL, "2024-01-01T00:00:59");
  lw_source_page_free(p);
  lw_buf_free(&doc);
}

/* ---- the real DCAT files ---- */

static char *read_whole(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  char *buf = malloc(1 << 20);
  *len = buf ? fread(buf, 1, 1 << 20, f) : 0;
  fclose(f);
  return buf;
}

/* Reads dir/sub/name as if fetched from https://dcat.example.org/sub/name. */
static LwSourcePage *parse_file(const char *dir, const char *sub, const char *name,
                                LwStatus expect, LwError *err)
{
  char path[4096], url[1024];
  snprintf(path, sizeof(path), "%s/dcat-examples/%s/%s", dir, sub, name);
  snprintf(url, sizeof(url), "https://dcat.example.org/%s/%s", sub, name);
  size_t len = 0;
  char *data = read_whole(path, &len);
  CHECK(data != NULL);
  if (!data) {
    fprintf(stderr, "  cannot read %s\n", path);
    return NULL;
  }
  int failed = lw_test_failed;
  LwSourcePage *p = parse_n(data, len, url, NULL, expect, err);
  if (lw_test_failed > failed) {
    fprintf(stderr, "  (in %s)\n", name);
  }
  free(data);
  return p;
}

/* The documents that describe no dataset: a licence map and data services
 * alone (their dcat:servesDataset is not followed). */
static bool describes_no_dataset(const char *name)
{
  return strstr(name, "map_licenses") || strstr(name, "data_service_openapi_sla") ||
         strstr(name, "data_service_service_desk");
}

/* Every file reads: datasets, or (those above) no dataset, never a syntax
 * error; the HVD examples' .ttl and .jsonld twins give the same page. */
static void test_every_file(const char *dir, const char *sub)
{
  char folder[4096];
  snprintf(folder, sizeof(folder), "%s/dcat-examples/%s", dir, sub);
  LwTestDirList list;
  CHECK(lw_test_dir_list(folder, "", &list));
  CHECK(list.count >= 10);
  for (size_t i = 0; i < list.count; ++i) {
    const char *name = list.names[i];
    LwError err;
    LwStatus expect = describes_no_dataset(name) ? LW_ERR_FORMAT : LW_OK;
    int failed = lw_test_failed;
    LwSourcePage *p = parse_file(dir, sub, name, expect, &err);
    CHECK(expect != LW_OK || (p && (p->dataset_count > 0 || p->next_count > 0)));
    if (lw_test_failed > failed) {
      fprintf(stderr, "  %s/%s: %s\n", sub, name, err.message);
    }
    lw_source_page_free(p);
  }
  lw_test_dir_list_free(&list);
}

static void check_twin(const char *dir, const char *stem)
{
  char ttl[256], json[256];
  snprintf(ttl, sizeof(ttl), "%s.ttl", stem);
  snprintf(json, sizeof(json), "%s.jsonld", stem);
  LwError err;
  LwSourcePage *a = parse_file(dir, "dcat-ap-2.2.0-hvd", ttl, LW_OK, &err);
  LwSourcePage *b = parse_file(dir, "dcat-ap-2.2.0-hvd", json, LW_OK, &err);
  CHECK(a && b && a->dataset_count == b->dataset_count);
  for (size_t i = 0; a && b && i < a->dataset_count && i < b->dataset_count; ++i) {
    LwSourceDataset *x = &a->datasets[i], *y = lw_test_dataset(b, x->id);
    CHECK(y && x->dump_count == y->dump_count && x->skip_count == y->skip_count);
    CHECK_STR_EQ(y ? y->title : NULL, x->title);
  }
  lw_source_page_free(a);
  lw_source_page_free(b);
}

static void test_ckanext_files(const char *dir)
{
  const char *sub = "ckanext-dcat/dcat";
  LwError err;
  /* A catalogue in RDF/XML: a CSV, a PDF and an API (accessURL only) are
   * skipped; an external website (dct:format html) is fetched and guessed. */
  LwSourcePage *p = parse_file(dir, sub, "catalog.rdf", LW_OK, &err);
  CHECK(p && p->dataset_count == 2 && p->next_count == 0);
  LwSourceDataset *d1 = lw_test_dataset(p, "https://data.some.org/catalog/datasets/1");
  CHECK_STR_EQ(d1 ? d1->title : NULL, "Example dataset 1");
  CHECK_STR_EQ(d1 ? d1->version : NULL, "2013-04-26T00:00:00Z");
  CHECK(d1 && d1->dump_count == 0 && d1->skip_count == 3);
  CHECK(has_skip(d1, "https://data.some.org/the/actual/catalog/datasets/1/resources/1.csv",
                 "format text/csv is not RDF"));
  CHECK(has_skip(d1, "https://data.some.org/the/actual/catalog/datasets/1/resources/2.pdf",
                 "format application/pdf is not RDF"));
  CHECK(has_skip(d1, "https://data.some.org/the/actual/catalog/link/to/an/api",
                 "accessURL only, no RDF format declared"));
  LwSourceDataset *d2 = lw_test_dataset(p, "https://data.some.org/catalog/datasets/2");
  CHECK_STR_EQ(d2 ? d2->version : NULL, "2013-04-01");
  check_dump(lw_test_dump(d2, "https://external.site.org/"), NULL, true);
  lw_source_page_free(p);
  /* One dataset: its distribution is a landing page with a data service
   * (a SPARQL endpoint); the dataset's modified is newer than the
   * distribution's. */
  p = parse_file(dir, sub, "dataset.rdf", LW_OK, &err);
  LwSourceDataset *z = lw_test_dataset(
    p, "https://data.some.org/catalog/datasets/9df8df51-63db-37a8-e044-0003ba9b0d98");
  CHECK_STR_EQ(z ? z->title : NULL, "Zimbabwe Regional Geochemical Survey.");
  CHECK_STR_EQ(z ? z->version : NULL, "2012-05-10T21:04");
  CHECK(z && z->dump_count == 0 && z->skip_count == 1);
  CHECK(has_skip(z, "http://www.bgs.ac.uk/gbase/geochemcd/home.html", "data service"));
  lw_source_page_free(p);
  /* HealthDCAT-AP, with syntax errors (an undeclared prefix, "^^<<"):
   * read with warnings; the CSV download is skipped, the dataset series
   * is a dataset too. */
  p = parse_file(dir, sub, "dataset.ttl", LW_OK, &err);
  CHECK(has_warning(p, "undefined prefix: healthdcatap:"));
  LwSourceDataset *h = lw_test_dataset(p, "http://example.healthdata.nl/set/dataset");
  CHECK_STR_EQ(h ? h->title : NULL, "HealthDCAT-AP test dataset");
  CHECK_STR_EQ(h ? h->version : NULL, "2024-12-31T23:59:59Z");
  CHECK(
    has_skip(h,
             "https://fair.healthdata.be/sites/default/files/distribution/"
             "d43a158e-7d13-4660-bbc3-9d3f8d5501e5/"
             "Technical_report_number_of_unique_study_subjects_available_by_environment_"
             "for_project_HDBP0250.csv",
             "format text/csv is not RDF"));
  LwSourceDataset *series = lw_test_dataset(p, "http://example.com/series");
  CHECK_STR_EQ(series ? series->version : NULL, "2025-09-10T15:00:00Z");
  /* its title comes after the "^^<<" line: read once that line is left out */
  CHECK(has_warning(p, "line 154 left out"));
  CHECK_STR_EQ(series ? series->title : NULL, "Example dataset series");
  lw_source_page_free(p);
  /* DCAT-AP 1.1 (dct:IMT blank nodes) with URLs as literals. */
  p = parse_file(dir, sub, "dataset_afs.ttl", LW_OK, &err);
  LwSourceDataset *afs = lw_test_dataset(p, "http://example.com/data/test-dataset-1");
  CHECK_STR_EQ(afs ? afs->version : NULL, "2012-05-10T21:04");
  CHECK(has_skip(afs, "http://url.to.csv.file", "format text/csv is not RDF"));
  CHECK(has_skip(afs, "http://url.to.html.page", "accessURL only"));
  lw_source_page_free(p);
  /* datos.gob.es: the format an IRI of the publisher's own with rdf:value. */
  p = parse_file(dir, sub, "dataset_gob_es.ttl", LW_OK, &err);
  CHECK(p && p->dataset_count == 1);
  if (p && p->dataset_count == 1) {
    LwSourceDataset *es = &p->datasets[0];
    CHECK_STR_EQ(es->version, "2024-04-15T09:08:10+02:00");
    CHECK(has_skip(
      es, "https://datos.madrid.es/egob/catalogo/300676-0-deporte-encuesta-escuelas.xlsx",
      "format application/vnd.ms-excel is not RDF"));
  }
  lw_source_page_free(p);
  /* JSON-LD with @graph: a zip download, guessed. */
  p = parse_file(dir, sub, "catalog_with_at_graph.jsonld", LW_OK, &err);
  LwSourceDataset *ck = lw_test_dataset(
    p, "https://ckan.example.org/dataset/d4ce4e6e-ab89-44cb-bf5c-33a162c234de#dataset");
  CHECK_STR_EQ(ck ? ck->title : NULL, "Title dataset");
  check_dump(lw_test_dump(ck, "http://example2.org/files/download.zip"), NULL, true);
  CHECK(ck && ck->dump_count == 1 && ck->skip_count == 0);
  lw_source_page_free(p);
  /* The newest modified of dataset and distribution. */
  p = parse_file(dir, sub, "dataset_multilingual.ttl", LW_OK, &err);
  LwSourceDataset *ml = lw_test_dataset(
    p, "https://example.org/dataset/0112cf32-bce0-4071-9504-923375f9f2ad");
  CHECK_STR_EQ(ml ? ml->version : NULL, "2024-05-05T09:33:20");
  CHECK(has_skip(ml, "https://example.com/data.csv", "format CSV is not RDF"));
  lw_source_page_free(p);
}

static void test_hvd_files(const char *dir)
{
  const char *sub = "dcat-ap-2.2.0-hvd";
  LwError err;
  /* Two distributions by EU file-type IRIs: the Turtle one (accessURL
   * only, but declared RDF) is a dump, the Shapefile a skip. */
  const char *both[] = {"example-ms_dataset_2_distributions.ttl",
                        "example-ms_dataset_2_distributions.jsonld",
                        "example-ms_dataset_hvd_profile.ttl"};
  for (size_t i = 0; i < 3; ++i) {
    LwSourcePage *p = parse_file(dir, sub, both[i], LW_OK, &err);
    LwSourceDataset *d = lw_test_dataset(p,
                                         "https://data.exampleMS.gov/id/dataset/1T2p3o4B");
    CHECK_STR_EQ(d ? d->title : NULL, "The population of bees");
    check_dump(lw_test_dump(d, "https://orgea.exampleMS.gov/files/1T2p3o4B.ttl"), NULL,
               false);
    CHECK(has_skip(d, "https://orgea.exampleMS.gov/files/1T2p3o4B.shp",
                   "format SHP is not RDF"));
    CHECK(d && d->dump_count == 1 && d->skip_count == 1);
    lw_source_page_free(p);
  }
  /* A catalogue that only links its dataset: the dataset is read next. */
  LwSourcePage *p = parse_file(dir, sub, "example-ms_catalogue_simple.ttl", LW_OK, &err);
  CHECK(p && p->dataset_count == 0 && p->next_count == 1);
  CHECK(lw_test_has_next(p, "https://data.exampleMS.gov/id/dataset/1T2p3o4B"));
  lw_source_page_free(p);
  /* Distributions described by their licence only: skips without URL. */
  p = parse_file(dir, sub, "example-restrict_licenses.ttl", LW_OK, &err);
  LwSourceDataset *w = lw_test_dataset(p, "https://data.exampleMS.gov/id/dataset/1W2o3p4T");
  CHECK(has_skip(w, NULL, "1W2o3p4T-dist-SHP> without dcat:downloadURL or dcat:accessURL"));
  lw_source_page_free(p);
  /* DCAT-AP 2.1.1 in N-Triples: a CSV by accessURL, no format declared. */
  p = parse_file(dir, sub, "dcat-ap-2.1.1-example1.nt", LW_OK, &err);
  LwSourceDataset *pool = lw_test_dataset(p, "https://myorg.eu/opendata/datasets/1");
  CHECK_STR_EQ(pool ? pool->title : NULL, "visitors to the Open Swimming Pool");
  CHECK(has_skip(pool, "https://myorg.eu/opendata/datasets/1/distributions/csv",
                 "accessURL only"));
  lw_source_page_free(p);
  /* A data service alone. */
  parse_file(dir, sub, "example-data_service_openapi_sla.ttl", LW_ERR_FORMAT, &err);
  CHECK(strstr(err.message, "no dcat:Dataset") != NULL);
  const char *twins[] = {"example-bees_wasps_dataset",
                         "example-data_service_terms_sla",
                         "example-ms_catalogue",
                         "example-ms_catalogue_hvd",
                         "example-ms_dataset",
                         "example-ms_dataset_2_identifiers",
                         "example-ms_dataset_2_licenses",
                         "example-ms_dataset_data_service",
                         "example-restrict_licenses"};
  for (size_t i = 0; i < sizeof(twins) / sizeof(*twins); ++i) {
    check_twin(dir, twins[i]);
  }
}

int main(void)
{
  test_hydra_paging();
  test_linked_catalogs();
  test_blank_datasets();
  test_access_url();
  test_formats();
  test_urls();
  test_checksums();
  test_versions_and_titles();
  test_syntaxes();
  test_errors();
  test_many_datasets();
  const char *dir = lw_test_testdata();
  if (!dir) {
    lw_test_finish();
    if (lw_test_failed == 0) {
      lw_test_skip(
        "the real DCAT files: shared test data not found (set LODWASH_TESTDATA)");
    }
    return 1;
  }
  test_every_file(dir, "ckanext-dcat/dcat");
  test_every_file(dir, "dcat-ap-2.2.0-hvd");
  test_ckanext_files(dir);
  test_hvd_files(dir);
  return lw_test_finish();
}
