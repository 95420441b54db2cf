/* XML sitemaps read into datasets: an index (plain and gzip), a urlset with
 * lastmods, a semantic sitemap (datasets, dumps, an endpoint), relative and
 * non-http locations, a BOM, documents that are not sitemaps, and hostile
 * XML (an entity bomb, an external entity, a gzip bomb). All the documents
 * are written here. */
#include "sources/sources.h"
#include "tests/support/check.h"
#include "tests/support/source_lookup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static const char *BASE = "https://data.example.org/sitemaps/sitemap.xml";

static LwSourcePage *parse_bytes(const char *data, size_t len, LwStatus expect,
                                 LwError *err)
{
  LwSourcePage *page = NULL;
  LwStatus st = lw_sitemap_parse(data, len, BASE, &page, err);
  CHECK_INT_EQ(st, expect);
  if (st != expect) {
    fprintf(stderr, "  %s\n", err->message);
  }
  CHECK((st == LW_OK) == (page != NULL));
  return page;
}

static LwSourcePage *parse(const char *xml, LwStatus expect, LwError *err)
{
  return parse_bytes(xml, strlen(xml), expect, err);
}

static bool has_warning(const LwSourcePage *page, const char *part)
{
  for (size_t i = 0; page && i < page->warning_count; ++i) {
    if (strstr(page->warnings[i], part)) {
      return true;
    }
  }
  return false;
}

/* text gzipped (level 9) into a new buffer; its length in *len. */
static char *gzip_text(const char *text, size_t text_len, size_t *len)
{
  z_stream zs;
  memset(&zs, 0, sizeof(zs));
  CHECK(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY) == Z_OK);
  size_t cap = deflateBound(&zs, (uLong)text_len);
  char *out = malloc(cap);
  zs.next_in = (Bytef *)text;
  zs.avail_in = (uInt)text_len;
  zs.next_out = (Bytef *)out;
  zs.avail_out = (uInt)cap;
  CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  *len = cap - zs.avail_out;
  deflateEnd(&zs);
  return out;
}

static const char *INDEX =
  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
  "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
  "  <sitemap>\n"
  "    <loc>https://data.example.org/sitemaps/part1.xml.gz</loc>\n"
  "    <lastmod>2024-03-01T10:00:00+00:00</lastmod>\n"
  "  </sitemap>\n"
  "  <sitemap><loc>\n    part2.xml\n  </loc></sitemap>\n"
  "  <sitemap><loc>/other/part3.xml?page=3&amp;size=10</loc></sitemap>\n"
  "  <sitemap><loc>ftp://data.example.org/part4.xml</loc></sitemap>\n"
  "  <sitemap><lastmod>2024-03-01</lastmod></sitemap>\n"
  "</sitemapindex>\n";

static void check_index(const LwSourcePage *page)
{
  CHECK(page && page->dataset_count == 0 && page->next_count == 3);
  CHECK(lw_test_has_next(page, "https://data.example.org/sitemaps/part1.xml.gz"));
  CHECK(lw_test_has_next(page, "https://data.example.org/sitemaps/part2.xml"));
  CHECK(lw_test_has_next(page, "https://data.example.org/other/part3.xml?page=3&size=10"));
  CHECK(has_warning(page, "ftp://data.example.org/part4.xml"));
}

static void test_index(void)
{
  LwError err;
  LwSourcePage *page = parse(INDEX, LW_OK, &err);
  check_index(page);
  lw_source_page_free(page);
  /* The same, gzipped (as sitemap.xml.gz is served). */
  size_t len;
  char *gz = gzip_text(INDEX, strlen(INDEX), &len);
  page = parse_bytes(gz, len, LW_OK, &err);
  check_index(page);
  lw_source_page_free(page);
  /* Cut short: a broken gzip. */
  page = parse_bytes(gz, len / 2, LW_ERR_SYNTAX, &err);
  CHECK(strstr(err.message, "gzip") != NULL);
  free(gz);
}

static const char *URLSET =
  "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
  "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
  "  <url>\n"
  "    <loc>https://data.example.org/dataset/trees</loc>\n"
  "    <lastmod>2024-03-01</lastmod>\n"
  "    <changefreq>monthly</changefreq>\n"
  "  </url>\n"
  "  <url><loc>https://data.example.org/dataset/rivers</loc>"
  "<lastmod>2023-11-05T08:00:00Z</lastmod></url>\n"
  "  <url><loc>../dataset/bridges</loc></url>\n"
  "  <url><loc>mailto:data@example.org</loc></url>\n"
  "  <url><loc>   </loc></url>\n"
  "</urlset>\n";

static void test_urlset(void)
{
  LwError err;
  LwSourcePage *page = parse(URLSET, LW_OK, &err);
  CHECK(page && page->dataset_count == 3 && page->next_count == 0);
  const LwSourceDataset *ds = lw_test_dataset(page,
                                              "https://data.example.org/dataset/trees");
  CHECK_STR_EQ(ds ? ds->version : NULL, "2024-03-01");
  const LwSourceDump *d = lw_test_dump(ds, "https://data.example.org/dataset/trees");
  CHECK(ds && ds->dump_count == 1 && d && d->guess && !d->media_type);
  ds = lw_test_dataset(page, "https://data.example.org/dataset/rivers");
  CHECK_STR_EQ(ds ? ds->version : NULL, "2023-11-05T08:00:00Z");
  /* Relative: against the sitemap's URL; no lastmod: no version. */
  ds = lw_test_dataset(page, "https://data.example.org/dataset/bridges");
  CHECK(ds && !strcmp(ds->version, "") &&
        lw_test_dump(ds, "https://data.example.org/dataset/bridges"));
  CHECK(has_warning(page, "mailto:data@example.org"));
  lw_source_page_free(page);
  /* Blanks before the XML declaration, and no namespace at all. */
  page = parse(
    "\n  <?xml version=\"1.0\"?>\n<urlset><url><loc>http://a.example/x</loc></url>"
    "</urlset>",
    LW_OK, &err);
  CHECK(page && lw_test_dataset(page, "http://a.example/x"));
  lw_source_page_free(page);
  /* An empty urlset is a sitemap with nothing in it. */
  page = parse("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"/>", LW_OK,
               &err);
  CHECK(page && page->dataset_count == 0);
  lw_source_page_free(page);
}

/* The DERI extension's own example, nearly: a dataset with a label, its
 * URI, two dumps, an endpoint; a second one with only dumps and a lastmod;
 * a third with only an endpoint. */
static const char *SEMANTIC =
  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
  "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"\n"
  "        xmlns:sc=\"http://sw.deri.org/2007/07/sitemapextension/scschema.xsd\">\n"
  "  <sc:dataset>\n"
  "    <sc:datasetLabel>Example Corp. Product Catalog</sc:datasetLabel>\n"
  "    <sc:datasetURI>http://example.com/catalog.rdf#catalog</sc:datasetURI>\n"
  "    <sc:linkedDataPrefix sc:slicing=\"subject-object\">http://example.com/products/"
  "</sc:linkedDataPrefix>\n"
  "    <sc:sampleURI>http://example.com/products/widgets/X42</sc:sampleURI>\n"
  "    <sc:sparqlEndpointLocation sc:slicing=\"subject-object\">http://example.com/sparql"
  "</sc:sparqlEndpointLocation>\n"
  "    <sc:dataDumpLocation>http://example.com/data/catalogdump.rdf.gz"
  "</sc:dataDumpLocation>\n"
  "    <sc:dataDumpLocation>dumps/archive.nt.bz2</sc:dataDumpLocation>\n"
  "    <sc:dataDumpLocation>ftp://example.com/data/old.rdf</sc:dataDumpLocation>\n"
  "    <changefreq>weekly</changefreq>\n"
  "  </sc:dataset>\n"
  "  <sc:dataset>\n"
  "    <sc:dataDumpLocation>https://dumps.example.org/people.ttl</sc:dataDumpLocation>\n"
  "    <sc:dataDumpLocation>https://dumps.example.org/places.ttl</sc:dataDumpLocation>\n"
  "    <lastmod>2015-06-01</lastmod>\n"
  "  </sc:dataset>\n"
  "  <sc:dataset>\n"
  "    <sc:datasetLabel>Only queries</sc:datasetLabel>\n"
  "    <sc:sparqlEndpointLocation>https://query.example.org/sparql"
  "</sc:sparqlEndpointLocation>\n"
  "  </sc:dataset>\n"
  "  <sc:dataset><sc:datasetLabel>Nothing to fetch</sc:datasetLabel></sc:dataset>\n"
  "  <url><loc>https://data.example.org/about</loc></url>\n"
  "</urlset>\n";

static void test_semantic(void)
{
  LwError err;
  LwSourcePage *page = parse(SEMANTIC, LW_OK, &err);
  CHECK(page && page->dataset_count == 4);
  const LwSourceDataset *ds = lw_test_dataset(page,
                                              "http://example.com/catalog.rdf#catalog");
  CHECK_STR_EQ(ds ? ds->title : NULL, "Example Corp. Product Catalog");
  CHECK(ds && ds->dump_count == 2 && ds->skip_count == 2);
  /* The extension says nothing of a dump's format: guessed. */
  const LwSourceDump *d = lw_test_dump(ds, "http://example.com/data/catalogdump.rdf.gz");
  CHECK(d && d->guess);
  CHECK(lw_test_dump(ds, "https://data.example.org/sitemaps/dumps/archive.nt.bz2") != NULL);
  const char *why = NULL;
  for (size_t i = 0; ds && i < ds->skip_count; ++i) {
    if (!strcmp(ds->skips[i].url, "http://example.com/sparql")) {
      why = ds->skips[i].reason;
    }
  }
  CHECK_STR_EQ(why, "SPARQL endpoint: name it as a sparql: provider to harvest it");
  CHECK(ds && ds->skip_count == 2 &&
        !strcmp(ds->skips[1].url, "ftp://example.com/data/old.rdf"));
  /* No datasetURI: the first dump names it; its lastmod is its version. */
  ds = lw_test_dataset(page, "https://dumps.example.org/people.ttl");
  CHECK(ds && ds->dump_count == 2 &&
        lw_test_dump(ds, "https://dumps.example.org/places.ttl"));
  CHECK_STR_EQ(ds ? ds->version : NULL, "2015-06-01");
  /* An endpoint only: a dataset with nothing fetched, and why. */
  ds = lw_test_dataset(page, "https://query.example.org/sparql");
  CHECK(ds && ds->dump_count == 0 && ds->skip_count == 1);
  CHECK_STR_EQ(ds ? ds->title : NULL, "Only queries");
  CHECK(has_warning(page, "sc:dataset without"));
  CHECK(lw_test_dataset(page, "https://data.example.org/about") != NULL);
  lw_source_page_free(page);
}

static void test_not_sitemaps(void)
{
  LwError err;
  LwSourcePage *page = parse("", LW_ERR_SYNTAX, &err);
  page = parse("this is not XML at all", LW_ERR_SYNTAX, &err);
  page = parse("<html><body><p>Sitemap moved</body></html>", LW_ERR_SYNTAX, &err);
  page = parse("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url>"
               "<loc>http://a.example/</loc></url>",
               LW_ERR_SYNTAX, &err);
  CHECK(strchr(err.message, '\n') == NULL);
  page = parse("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel/></rss>",
               LW_ERR_FORMAT, &err);
  CHECK(strstr(err.message, "rss") != NULL);
  /* A urlset of another vocabulary is not a sitemap either. */
  page = parse("<urlset xmlns=\"http://example.org/not-sitemaps\"/>", LW_ERR_FORMAT, &err);
  page = parse_bytes("\x1f\x8b not really gzip", 17, LW_ERR_SYNTAX, &err);
  CHECK(page == NULL);
}

/* Billion laughs: ten levels of ten references. libxml2 stops it (its
 * amplification limits; XML_PARSE_HUGE is off), quickly. */
static void test_entity_bomb(void)
{
  LwBuf b = LW_BUF_INIT;
  lw_buf_append_str(&b, "<?xml version=\"1.0\"?>\n<!DOCTYPE urlset [\n"
                        "  <!ENTITY lol0 \"lollollollollollollollollollollollollol\">\n");
  for (int level = 1; level < 10; ++level) {
    lw_buf_appendf(&b, "  <!ENTITY lol%d \"", level);
    for (int i = 0; i < 10; ++i) {
      lw_buf_appendf(&b, "&lol%d;", level - 1);
    }
    lw_buf_append_str(&b, "\">\n");
  }
  lw_buf_append_str(&b, "]>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
                        "<url><loc>http://a.example/&lol9;</loc></url></urlset>\n");
  clock_t t0 = clock();
  LwError err;
  LwSourcePage *page = NULL;
  LwStatus st = lw_sitemap_parse(b.data, b.len, BASE, &page, &err);
  double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
  CHECK(st == LW_ERR_SYNTAX || st == LW_ERR_LIMIT);
  CHECK(page == NULL);
  CHECK(seconds < 5.0);
  printf("entity bomb: %s (%.3f s)\n", err.message, seconds);
  lw_source_page_free(page);
  lw_buf_free(&b);
}

/* XXE: an external entity naming a local file is never read; the location
 * keeps only its own text. */
static void test_external_entity(void)
{
  const char *xml =
    "<?xml version=\"1.0\"?>\n"
    "<!DOCTYPE urlset [\n"
    "  <!ENTITY x SYSTEM \"file:///etc/passwd\">\n"
    "  <!ENTITY remote SYSTEM \"http://127.0.0.1:9/evil.xml\">\n"
    "]>\n"
    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
    "  <url><loc>http://a.example/&x;</loc></url>\n"
    "  <url><loc>http://b.example/page</loc><lastmod>&remote;</lastmod></url>\n"
    "</urlset>\n";
  LwError err;
  LwSourcePage *page = NULL;
  LwStatus st = lw_sitemap_parse(xml, strlen(xml), BASE, &page, &err);
  /* Refused or read without the entity: either way nothing of the file. */
  CHECK(st == LW_OK || st == LW_ERR_SYNTAX);
  printf("external entity: %s\n", st == LW_OK ? "read without it" : err.message);
  for (size_t i = 0; page && i < page->dataset_count; ++i) {
    const LwSourceDataset *ds = &page->datasets[i];
    CHECK(!strstr(ds->id, "root:") && !strstr(ds->version, "root:"));
    CHECK(ds->dump_count == 1 && !strstr(ds->dumps[0].url, "root:"));
  }
  if (st == LW_OK) {
    CHECK(lw_test_dataset(page, "http://a.example/") != NULL);
    const LwSourceDataset *ds = lw_test_dataset(page, "http://b.example/page");
    CHECK(ds && !strcmp(ds->version, ""));
    CHECK(has_warning(page, "entity references"));
  }
  lw_source_page_free(page);
  /* A DTD to load from outside: not loaded, nothing fetched. */
  const char *dtd = "<?xml version=\"1.0\"?>\n"
                    "<!DOCTYPE urlset SYSTEM \"file:///etc/passwd\">\n"
                    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
                    "<url><loc>http://c.example/</loc></url></urlset>";
  page = NULL;
  st = lw_sitemap_parse(dtd, strlen(dtd), BASE, &page, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(page && page->dataset_count == 1 && lw_test_dataset(page, "http://c.example/"));
  lw_source_page_free(page);
}

/* A gzip that inflates past the sitemaps.org limit (50 MiB): refused. */
static void test_gzip_bomb(void)
{
  size_t big = 60u * 1024u * 1024u;
  char *blanks = malloc(big);
  static const char head[] =
    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">";
  memset(blanks, ' ', big);
  memcpy(blanks, head, sizeof(head) - 1);
  size_t len;
  char *gz = gzip_text(blanks, big, &len);
  free(blanks);
  CHECK(len < 1024u * 1024u);
  LwError err;
  LwSourcePage *page = parse_bytes(gz, len, LW_ERR_LIMIT, &err);
  CHECK(page == NULL);
  free(gz);
}

/* Two gzip members one after the other (gzip -c a b > c) are one file. */
static void test_gzip_members(void)
{
  const char *a = "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
                  "<url><loc>http://a.example/1</loc></url>";
  const char *b = "<url><loc>http://a.example/2</loc></url></urlset>";
  size_t la, lb;
  char *ga = gzip_text(a, strlen(a), &la), *gb = gzip_text(b, strlen(b), &lb);
  char *both = malloc(la + lb);
  memcpy(both, ga, la);
  memcpy(both + la, gb, lb);
  LwError err;
  LwSourcePage *page = parse_bytes(both, la + lb, LW_OK, &err);
  CHECK(page && page->dataset_count == 2);
  lw_source_page_free(page);
  free(ga);
  free(gb);
  free(both);
}

int main(void)
{
  test_index();
  test_urlset();
  test_semantic();
  test_not_sitemaps();
  test_entity_bomb();
  test_external_entity();
  test_gzip_bomb();
  test_gzip_members();
  return lw_test_finish();
}
