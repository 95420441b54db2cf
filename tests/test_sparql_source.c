/* A SPARQL endpoint as a source (sources/sources.h): the count query's
 * answer read into a version, the pages' URLs (a stable order, LIMIT and
 * OFFSET, the provider's own query), and the Service Description: the
 * graph's size and dct:modified when it gives them, nothing when it gives
 * less (Virtuoso's, which lists features only). */
#include <stdlib.h>
#include <string.h>

#include "sources/sources.h"
#include "tests/support/check.h"

static void test_count_answer(void)
{
  LwError err;
  char *version = NULL;
  unsigned long long n = 0;
  const char *answer =
    "{\"head\":{\"vars\":[\"n\",\"m\"]},\"results\":{\"bindings\":[{\"n\":"
    "{\"type\":\"literal\",\"value\":\"1234\"},\"m\":{\"type\":\"literal\","
    "\"value\":\"2024-05-01\"}}]}}";
  CHECK_INT_EQ(lw_sparql_version_parse(answer, strlen(answer), &version, &n, &err), LW_OK);
  CHECK_STR_EQ(version, "1234 triples, modified 2024-05-01");
  CHECK(n == 1234);
  free(version);
  const char *html = "<html>an endpoint's page</html>";
  CHECK_INT_EQ(lw_sparql_version_parse(html, strlen(html), &version, &n, &err),
               LW_ERR_FORMAT);
  CHECK(version == NULL);
}

static void test_page_urls(void)
{
  LwSparqlSource s = {"http://e.org/sparql", "http://e.org/g", NULL, 100};
  char *url = lw_sparql_page_url(&s, 2);
  CHECK(url && strstr(url, "http://e.org/sparql?query=CONSTRUCT") == url);
  CHECK(url && strstr(url, "ORDER%20BY%20%3Fs%20%3Fp%20%3Fo%20LIMIT%20100%20OFFSET%20200"));
  CHECK(url && strstr(url, "GRAPH%20%3Chttp%3A%2F%2Fe.org%2Fg%3E"));
  free(url);
  LwSparqlSource own = {"http://e.org/sparql?key=1", NULL,
                        "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } ORDER BY ?s", 10};
  url = lw_sparql_page_url(&own, 0);
  CHECK(url && strstr(url, "http://e.org/sparql?key=1&query=CONSTRUCT") == url);
  CHECK(url && strstr(url, "ORDER%20BY%20%3Fs%20LIMIT%2010%20OFFSET%200"));
  free(url);
  url = lw_sparql_version_url(&s);
  CHECK(url && strstr(url, "COUNT") && strstr(url, "GRAPH%20%3Chttp%3A%2F%2Fe.org%2Fg%3E"));
  free(url);
}

static void test_description(void)
{
  LwError err;
  char *version = NULL;
  unsigned long long n = 0;
  const char *sd =
    "@prefix sd: <http://www.w3.org/ns/sparql-service-description#> .\n"
    "@prefix void: <http://rdfs.org/ns/void#> . @prefix dct: <http://purl.org/dc/terms/> .\n"
    "<> a sd:Service ; sd:endpoint <> ;\n"
    "  sd:defaultDataset [ sd:defaultGraph [ void:triples 40 ; dct:modified \"2024-01-01\" ] ;\n"
    "    sd:namedGraph [ sd:name <http://e.org/g> ;\n"
    "                    sd:graph [ void:triples 7 ; dct:modified \"2024-06-01T10:00:00Z\" ] ] ] .\n";
  CHECK_INT_EQ(lw_sparql_description_parse(sd, strlen(sd), "http://e.org/sparql",
                                           "text/turtle", "http://e.org/g", &version, &n,
                                           &err),
               LW_OK);
  CHECK_STR_EQ(version, "7 triples, modified 2024-06-01T10:00:00Z (service description)");
  CHECK(n == 7);
  free(version);
  CHECK_INT_EQ(lw_sparql_description_parse(sd, strlen(sd), "http://e.org/sparql",
                                           "text/turtle", NULL, &version, &n, &err),
               LW_OK);
  CHECK(n == 40 && version && strstr(version, "2024-01-01"));
  free(version);
  /* another graph, and a description of features only: nothing said */
  CHECK_INT_EQ(lw_sparql_description_parse(sd, strlen(sd), "http://e.org/sparql",
                                           "text/turtle", "http://e.org/other", &version,
                                           &n, &err),
               LW_NOTHING);
  const char *features =
    "@prefix sd: <http://www.w3.org/ns/sparql-service-description#> .\n"
    "<http://e.org/sparql> a sd:Service ; sd:feature sd:UnionDefaultGraph .\n";
  CHECK_INT_EQ(lw_sparql_description_parse(features, strlen(features),
                                           "http://e.org/sparql", "text/turtle", NULL,
                                           &version, &n, &err),
               LW_NOTHING);
  const char *html = "<html><body><form>query</form></body></html>";
  CHECK_INT_EQ(lw_sparql_description_parse(html, strlen(html), "http://e.org/sparql",
                                           "text/html", NULL, &version, &n, &err),
               LW_NOTHING);
  CHECK(version == NULL);
}

int main(void)
{
  test_count_answer();
  test_page_urls();
  test_description();
  return lw_test_finish();
}
