/* CKAN's Action API read into datasets: package_show and package_search
 * answers written here (formats as labels, media types and IRIs, checksums,
 * resources without a URL, paging), CKAN's errors, the API URL of a site,
 * and the package dictionaries of ckanext-dcat (shared test data), wrapped
 * at run time into the answers a CKAN site would give. */
#include "sources/sources.h"
#include "tests/support/check.h"
#include "tests/support/source_lookup.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LwSourcePage *parse(const char *json, const char *url, LwStatus expect, LwError *err)
{
  LwSourcePage *page = NULL;
  LwStatus st = lw_ckan_parse(json, strlen(json), url, &page, err);
  CHECK_INT_EQ(st, expect);
  if (st != expect) {
    fprintf(stderr, "  %s\n", err->message);
  }
  CHECK((st == LW_OK) == (page != NULL));
  return page;
}

static const char *SHOW =
  "{\"help\": \"https://data.example.org/api/3/action/help_show?name=package_show\",\n"
  " \"success\": true,\n"
  " \"result\": {\n"
  "  \"id\": \"7b0c9b5e-0000-4000-8000-000000000001\",\n"
  "  \"name\": \"city-trees\", \"title\": \"Trees of the city\",\n"
  "  \"metadata_modified\": \"2024-03-01T10:00:00.123456\",\n"
  "  \"resources\": [\n"
  "   {\"name\": \"ttl\", \"url\": \"https://data.example.org/trees.ttl\",\n"
  "    \"format\": \"Turtle\", \"hash\": \"sha256:"
  "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08\"},\n"
  "   {\"name\": \"rdfxml\", \"url\": \"https://data.example.org/trees.rdf\",\n"
  "    \"format\": \"RDF/XML\", \"mimetype\": \"application/rdf+xml\",\n"
  "    \"hash\": \"d41d8cd98f00b204e9800998ecf8427e\"},\n"
  "   {\"name\": \"mime only\", \"url\": \"https://data.example.org/trees.nt\",\n"
  "    \"format\": \"\", \"mimetype\": \"application/n-triples\",\n"
  "    \"hash\": \"da39a3ee5e6b4b0d3255bfef95601890afd80709\"},\n"
  "   {\"name\": \"page\", \"url\": \"https://data.example.org/trees.html\",\n"
  "    \"format\": \"RDFa\", \"hash\": \"not a digest\"},\n"
  "   {\"name\": \"csv\", \"url\": \"https://data.example.org/trees.csv\",\n"
  "    \"format\": \"CSV\", \"hash\": \"md5:"
  "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"},\n"
  "   {\"name\": \"zip\", \"url\": \"https://data.example.org/trees.zip\",\n"
  "    \"format\": \"ZIP\", \"hash\": \"md5:"
  "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"},\n"
  "   {\"name\": \"unsaid\", \"url\": \"http://data.example.org/trees\"},\n"
  "   {\"name\": \"wms\", \"url\": \"https://maps.example.org/wms\", \"format\": \"WMS\"},\n"
  "   {\"name\": \"endpoint\", \"url\": \"https://data.example.org/sparql\",\n"
  "    \"format\": \"api/sparql\"},\n"
  "   {\"name\": \"nowhere\", \"url\": \"\", \"format\": \"Turtle\"},\n"
  "   {\"name\": \"ftp\", \"url\": \"ftp://data.example.org/trees.nt\", \"format\": \"NT\"},\n"
  "   \"not a resource\"\n"
  "  ]\n"
  " }\n"
  "}\n";

static void test_package_show(void)
{
  LwError err;
  LwSourcePage *page = parse(
    SHOW, "https://data.example.org/api/3/action/package_show?id=city-trees", LW_OK, &err);
  CHECK(page && page->dataset_count == 1 && page->next_count == 0 && page->total == 0);
  const LwSourceDataset *ds = lw_test_dataset(page, "city-trees");
  CHECK(ds != NULL);
  if (!ds) {
    lw_source_page_free(page);
    return;
  }
  CHECK_STR_EQ(ds->title, "Trees of the city");
  CHECK_STR_EQ(ds->version, "2024-03-01T10:00:00.123456");
  CHECK_INT_EQ(ds->dump_count, 6);
  CHECK_INT_EQ(ds->skip_count, 5);
  /* A CKAN label that names RDF: fetched as it is, its checksum lower-cased. */
  const LwSourceDump *d = lw_test_dump(ds, "https://data.example.org/trees.ttl");
  CHECK(d && !d->guess && !d->media_type);
  CHECK_STR_EQ(d ? d->checksum_algorithm : NULL, "sha256");
  CHECK_STR_EQ(d ? d->checksum_value : NULL,
               "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
  d = lw_test_dump(ds, "https://data.example.org/trees.rdf");
  CHECK(d && !d->guess);
  CHECK_STR_EQ(d ? d->media_type : NULL, "application/rdf+xml");
  CHECK_STR_EQ(d ? d->checksum_algorithm : NULL, "md5");
  /* An empty format: the mimetype decides. A bare 40-digit hash: SHA-1. */
  d = lw_test_dump(ds, "https://data.example.org/trees.nt");
  CHECK(d && !d->guess);
  CHECK_STR_EQ(d ? d->media_type : NULL, "application/n-triples");
  CHECK_STR_EQ(d ? d->checksum_algorithm : NULL, "sha1");
  /* RDFa: a page, fetched and guessed; a hash that is no digest is not one. */
  d = lw_test_dump(ds, "https://data.example.org/trees.html");
  CHECK(d && d->guess && !d->checksum_algorithm);
  /* ZIP says nothing of its content; "md5:" with 64 digits is not an MD5. */
  d = lw_test_dump(ds, "https://data.example.org/trees.zip");
  CHECK(d && d->guess && !d->checksum_algorithm);
  /* No format at all: fetched and guessed. */
  d = lw_test_dump(ds, "http://data.example.org/trees");
  CHECK(d && d->guess);
  /* What is not fetched, and why. */
  CHECK_STR_EQ(lw_test_skip_reason(ds, "https://data.example.org/trees.csv"),
               "format CSV is not RDF");
  CHECK_STR_EQ(lw_test_skip_reason(ds, "https://maps.example.org/wms"),
               "format WMS is not RDF");
  const char *why = lw_test_skip_reason(ds, "https://data.example.org/sparql");
  CHECK(why && strstr(why, "SPARQL endpoint") && strstr(why, "sparql: provider"));
  why = lw_test_skip_reason(ds, NULL);
  CHECK(why && strstr(why, "nowhere") && strstr(why, "no URL"));
  why = lw_test_skip_reason(ds, "ftp://data.example.org/trees.nt");
  CHECK(why && strstr(why, "not http(s)"));
  lw_source_page_free(page);
}

/* A package_search page of n packages ("pkg-<first>", ...) of count. */
static char *search_answer(unsigned first, unsigned n, unsigned long long count)
{
  json_t *results = json_array();
  for (unsigned i = 0; i < n; ++i) {
    char name[32], url[96];
    snprintf(name, sizeof(name), "pkg-%u", first + i);
    snprintf(url, sizeof(url), "https://data.example.org/%s.nt", name);
    json_t *res = json_pack("[{s:s, s:s}]", "url", url, "format", "N-Triples");
    json_array_append_new(results, json_pack("{s:s, s:s, s:s, s:o}", "id", "uuid", "name",
                                             name, "metadata_modified",
                                             "2023-01-01T00:00:00", "resources", res));
  }
  json_t *answer = json_pack("{s:b, s:{s:I, s:o}}", "success", 1, "result", "count",
                             (json_int_t)count, "results", results);
  char *text = json_dumps(answer, 0);
  json_decref(answer);
  return text;
}

static const char *next_of(const char *url, unsigned first, unsigned n,
                           unsigned long long count)
{
  static char next[512];
  char *json = search_answer(first, n, count);
  LwError err;
  LwSourcePage *page = parse(json, url, LW_OK, &err);
  free(json);
  CHECK(page && page->total == count && page->dataset_count == n);
  snprintf(next, sizeof(next), "%s",
           page && page->next_count == 1 ? page->next[0] : "(none)");
  CHECK(!page || page->next_count <= 1);
  lw_source_page_free(page);
  return next;
}

static void test_package_search_paging(void)
{
  const char *api = "https://data.example.org/api/3/action/package_search";
  char url[256];
  /* The first page: start advances by the packages read, rows are kept. */
  snprintf(url, sizeof(url), "%s?rows=2&start=0", api);
  CHECK_STR_EQ(next_of(url, 0, 2, 5), "https://data.example.org/api/3/action/"
                                      "package_search?rows=2&start=2");
  /* A page that gave fewer packages than rows: start moves by what came. */
  snprintf(url, sizeof(url), "%s?q=res_format:RDF&start=2&rows=3#top", api);
  CHECK_STR_EQ(next_of(url, 2, 2, 9), "https://data.example.org/api/3/action/"
                                      "package_search?q=res_format:RDF&rows=3&start=4");
  /* No rows in the URL: CKAN's 1000; no start: 0. */
  snprintf(url, sizeof(url), "%s?q=tags:lod", api);
  CHECK_STR_EQ(next_of(url, 0, 3, 10), "https://data.example.org/api/3/action/"
                                       "package_search?q=tags:lod&rows=1000&start=3");
  snprintf(url, sizeof(url), "%s", api);
  CHECK_STR_EQ(next_of(url, 0, 3, 10), "https://data.example.org/api/3/action/"
                                       "package_search?rows=1000&start=3");
  /* The last page, and an empty page past the end: nothing next. */
  snprintf(url, sizeof(url), "%s?rows=2&start=4", api);
  CHECK_STR_EQ(next_of(url, 4, 1, 5), "(none)");
  snprintf(url, sizeof(url), "%s?rows=2&start=6", api);
  CHECK_STR_EQ(next_of(url, 0, 0, 5), "(none)");
  /* The datasets of a page. */
  char *json = search_answer(7, 2, 9);
  LwError err;
  LwSourcePage *page = parse(json, url, LW_OK, &err);
  free(json);
  const LwSourceDataset *ds = lw_test_dataset(page, "pkg-8");
  CHECK(ds && ds->dump_count == 1 && !ds->dumps[0].guess);
  CHECK_STR_EQ(ds ? ds->version : NULL, "2023-01-01T00:00:00");
  CHECK(lw_source_page_dump_count(page) == 2);
  lw_source_page_free(page);
}

static void test_errors(void)
{
  LwError err;
  LwSourcePage *page = parse("<html>Not Found</html>", NULL, LW_ERR_SYNTAX, &err);
  page = parse("{\"success\": true, \"result\": ", NULL, LW_ERR_SYNTAX, &err);
  page = parse("{\"title\": \"a DCAT-JSON catalog\"}", NULL, LW_ERR_FORMAT, &err);
  page = parse("[1, 2]", NULL, LW_ERR_FORMAT, &err);
  /* A UTF-8 BOM before the answer is no error. */
  page = parse("\xEF\xBB\xBF{\"success\": true, \"result\": {\"name\": \"bom\"}}", NULL,
               LW_OK, &err);
  CHECK(page && lw_test_dataset(page, "bom"));
  lw_source_page_free(page);
  /* CKAN's own error: its message is what the operator sees. */
  page = parse(
    "{\"help\": \"...\", \"success\": false, \"error\": {\"message\": \"Not found\", "
    "\"__type\": \"Not Found Error\"}}",
    NULL, LW_ERR_FORMAT, &err);
  CHECK_STR_EQ(err.message, "CKAN said: Not found (Not Found Error)");
  page = parse("{\"success\": false, \"error\": {\"__type\": \"Validation Error\", "
               "\"rows\": [\"Must be less than or equal to 1000\"]}}",
               NULL, LW_ERR_FORMAT, &err);
  CHECK(strstr(err.message, "Must be less than or equal to 1000") != NULL);
  /* package_list and the like: not package answers. */
  page = parse("{\"success\": true, \"result\": [\"a\", \"b\"]}", NULL, LW_ERR_FORMAT,
               &err);
  page = parse("{\"success\": true, \"result\": {\"title\": \"no name\"}}", NULL,
               LW_ERR_FORMAT, &err);
  CHECK(page == NULL);
  /* A search page with packages CKAN should not give: ignored, warned. */
  page = parse("{\"success\": true, \"result\": {\"count\": 2, \"results\": "
               "[{\"title\": \"nameless\"}, 7]}}",
               NULL, LW_OK, &err);
  CHECK(page && page->dataset_count == 0 && page->warning_count == 2);
  lw_source_page_free(page);
}

static void check_api_url(const char *root, unsigned long long start, unsigned rows,
                          const char *expect)
{
  char *url = lw_ckan_api_url(root, start, rows);
  CHECK_STR_EQ(url, expect);
  free(url);
}

static void test_api_url(void)
{
  check_api_url("https://data.example.org/", 0, 100,
                "https://data.example.org/api/3/action/package_search?rows=100&start=0");
  check_api_url("https://data.example.org", 200, 100,
                "https://data.example.org/api/3/action/package_search?rows=100&start=200");
  check_api_url("https://example.org/data/", 0, 0,
                "https://example.org/data/api/3/action/package_search?rows=1000&start=0");
  check_api_url("https://data.example.org/dataset/city-trees", 0, 100,
                "https://data.example.org/api/3/action/package_show?id=city-trees");
  check_api_url("https://example.org/ckan/dataset/city-trees/resource/42?x=1", 0, 100,
                "https://example.org/ckan/api/3/action/package_show?id=city-trees");
  check_api_url("https://data.example.org/api/3/action/package_search?q=tags:lod&rows=5",
                10, 50,
                "https://data.example.org/api/3/action/package_search?q=tags:lod&rows=50"
                "&start=10");
  check_api_url("https://dataset.example.org/", 0, 10,
                "https://dataset.example.org/api/3/action/package_search?rows=10&start=0");
  /* The dataset list, the API's root: the site's search. */
  check_api_url("https://data.example.org/dataset", 0, 10,
                "https://data.example.org/api/3/action/package_search?rows=10&start=0");
  check_api_url("https://data.example.org/dataset/?q=rdf", 0, 10,
                "https://data.example.org/api/3/action/package_search?rows=10&start=0");
  check_api_url("https://data.example.org/api/3/", 0, 10,
                "https://data.example.org/api/3/action/package_search?rows=10&start=0");
  check_api_url("https://data.example.org/datasets/", 0, 10,
                "https://data.example.org/datasets/api/3/action/package_search?rows=10"
                "&start=0");
  check_api_url("https://data.example.org/api/3/action/package_search", 0, 10,
                "https://data.example.org/api/3/action/package_search?rows=10&start=0");
  check_api_url("https://data.example.org/api/3/action/package_show?id=x", 10, 50,
                "https://data.example.org/api/3/action/package_show?id=x");
  CHECK(lw_ckan_api_url(NULL, 0, 1) == NULL);
}

/* ---- ckanext-dcat's package dictionaries -------------------------------- */

static json_t *load_package(const char *dir, const char *name)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/dcat-examples/ckanext-dcat/ckan/%s", dir, name);
  json_error_t je;
  json_t *pkg = json_load_file(path, 0, &je);
  if (!pkg) {
    fprintf(stderr, "  %s: %s\n", path, je.text);
  }
  CHECK(pkg != NULL);
  return pkg;
}

/* The package as package_show gives it, parsed. */
static LwSourcePage *show(json_t *pkg, LwStatus expect)
{
  if (!pkg) {
    return NULL;
  }
  json_t *answer = json_pack("{s:b, s:o}", "success", 1, "result", pkg);
  char *text = json_dumps(answer, 0);
  json_decref(answer);
  LwError err;
  LwSourcePage *page = parse(
    text, "https://data.example.org/api/3/action/package_show?id=x", expect, &err);
  free(text);
  return page;
}

static const char *const PACKAGES[] = {
  "full_ckan_dataset_legacy.json",
  "ckan_dataset.json",
  "ckan_dataset_multilingual.json",
  "ckan_dcat_ap_dataset_series.json",
  "ckan_full_dataset_croissant.json",
  "ckan_full_dataset_dcat_ap_legacy.json",
  "ckan_full_dataset_dcat_ap_vocabularies.json",
  "ckan_full_dataset_dcat_us_vocabularies.json",
};
#define PACKAGE_COUNT (sizeof(PACKAGES) / sizeof(*PACKAGES))

static void check_real_shows(const char *dir)
{
  /* The legacy dictionary of a real portal: a page, guessed. */
  LwSourcePage *p = show(load_package(dir, PACKAGES[0]), LW_OK);
  const LwSourceDataset *ds = lw_test_dataset(p, "zimbabwe-regional-geochemical-survey");
  CHECK_STR_EQ(ds ? ds->version : NULL, "2012-03-15T18:16:21.035169");
  CHECK_STR_EQ(ds ? ds->title : NULL, "Zimbabwe Regional Geochemical Survey.");
  const LwSourceDump *d = lw_test_dump(ds,
                                       "http://www.bgs.ac.uk/gbase/geochemcd/home.html");
  CHECK(d && d->guess && !d->checksum_value);
  CHECK_STR_EQ(d ? d->media_type : NULL, "text/html");
  lw_source_page_free(p);
  /* No name: the id is the dataset's; no metadata_modified: no version. */
  p = show(load_package(dir, PACKAGES[1]), LW_OK);
  ds = lw_test_dataset(p, "2988a6aa-2802-4f32-b846-d4520c79c4b7");
  CHECK(ds && ds->dump_count == 1 && !strcmp(ds->version, ""));
  lw_source_page_free(p);
  /* CSV, as a label and as the EU authority's IRI: skipped, never fetched. */
  p = show(load_package(dir, PACKAGES[2]), LW_OK);
  ds = lw_test_dataset(p, "test-dataset-multilingual");
  CHECK(ds && ds->dump_count == 0);
  CHECK_STR_EQ(lw_test_skip_reason(ds, "https://example.com/data.csv"),
               "format CSV is not RDF");
  lw_source_page_free(p);
  p = show(load_package(dir, PACKAGES[6]), LW_OK);
  ds = lw_test_dataset(p, "test-dataset-shacl");
  CHECK(ds && ds->dump_count == 0 && ds->skip_count == 1);
  const char *why = lw_test_skip_reason(ds, "https://example.com/data.csv");
  CHECK(why && strstr(why, "file-type/CSV") && strstr(why, "is not RDF"));
  lw_source_page_free(p);
  /* A ZIP: fetched and guessed, its bare SHA-256 kept. */
  p = show(load_package(dir, PACKAGES[4]), LW_OK);
  d = lw_test_dump(lw_test_dataset(p, "test-dataset-croissant"),
                   "https://example.com/data.zip");
  CHECK(d && d->guess);
  CHECK_STR_EQ(d ? d->checksum_algorithm : NULL, "sha256");
  CHECK_STR_EQ(d ? d->checksum_value : NULL,
               "b221d9dbb083a7f33428d7c2a3c3198ae925614d70210e28716ccaa7cd4ddb79");
  lw_source_page_free(p);
  /* A dataset series without resources: a dataset with nothing to fetch. */
  p = show(load_package(dir, PACKAGES[3]), LW_OK);
  ds = lw_test_dataset(p, "test-dataset-series");
  CHECK(ds && ds->dump_count == 0 && ds->skip_count == 0);
  lw_source_page_free(p);
  /* catalog.json and dataset.json are DCAT-JSON, not packages. */
  p = show(load_package(dir, "catalog.json"), LW_ERR_FORMAT);
  p = show(load_package(dir, "dataset.json"), LW_ERR_FORMAT);
}

/* All the packages as one package_search page of a larger search. */
static void check_real_search(const char *dir)
{
  json_t *results = json_array();
  for (size_t i = 0; i < PACKAGE_COUNT; ++i) {
    json_array_append_new(results, load_package(dir, PACKAGES[i]));
  }
  json_t *answer = json_pack("{s:b, s:{s:i, s:o}}", "success", 1, "result", "count", 20,
                             "results", results);
  char *text = json_dumps(answer, 0);
  json_decref(answer);
  LwError err;
  LwSourcePage *p = parse(
    text, "https://data.example.org/api/3/action/package_search?rows=8&start=0", LW_OK,
    &err);
  free(text);
  /* Three of them share the name test-dataset-shacl: one dataset. */
  CHECK(p && p->dataset_count == 6 && p->total == 20);
  CHECK(p && p->next_count == 1);
  CHECK_STR_EQ(p && p->next_count ? p->next[0] : NULL,
               "https://data.example.org/api/3/action/package_search?rows=8&start=8");
  CHECK(p && lw_source_page_dump_count(p) == 3);
  const LwSourceDataset *ds = lw_test_dataset(p, "test-dataset-shacl");
  CHECK(ds && ds->dump_count == 0 && ds->skip_count == 3);
  CHECK(lw_test_dataset(p, "test-dataset-croissant") &&
        lw_test_dataset(p, "test-dataset-multilingual"));
  lw_source_page_free(p);
}

static void test_real_packages(void)
{
  const char *dir = lw_test_testdata();
  char probe[4096];
  snprintf(probe, sizeof(probe), "%s/dcat-examples/ckanext-dcat/ckan/%s", dir ? dir : ".",
           PACKAGES[0]);
  FILE *f = dir ? fopen(probe, "r") : NULL;
  if (!f) {
    printf("skipping ckanext-dcat's packages: shared test data not found "
           "(set LODWASH_TESTDATA)\n");
    return;
  }
  fclose(f);
  check_real_shows(dir);
  check_real_search(dir);
}

int main(void)
{
  test_package_show();
  test_package_search_paging();
  test_errors();
  test_api_url();
  test_real_packages();
  return lw_test_finish();
}
