/*
 * A provider that only offers a SPARQL endpoint: its data is read as pages
 * of a CONSTRUCT, each page one dump of the harvest (downloaded, guessed,
 * cleaned and imported like any file), and its version is what a cheap
 * SELECT says: how many triples, and the newest dct:modified among them.
 *
 * Pages are stable only under an order: the default query orders by
 * subject, predicate and object (SPARQL 1.1 §15.1: ORDER BY gives a total
 * order for IRIs and literals; blank nodes have no stable order across
 * queries, and their labels are per answer anyway, so a blank node whose
 * triples fall on two pages is two nodes: a known limit, said in the
 * README). Every request is a GET (SPARQL 1.1 Protocol §2.1.1), so the
 * download's rules (address guard, politeness, caps) apply unchanged.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/sources.h"

#define DCT_MODIFIED "<http://purl.org/dc/terms/modified>"

/* Percent-encodes a query for a URL's query string (RFC 3986 unreserved
 * characters kept). */
static void append_encoded(LwBuf *b, const char *s)
{
  static const char hex[] = "0123456789ABCDEF";
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
        *p == '-' || *p == '_' || *p == '.' || *p == '~') {
      lw_buf_append_char(b, (char)*p);
    } else {
      char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
      lw_buf_append(b, e, 3);
    }
  }
}

/* endpoint?query=... (or &query= when the endpoint has a query string). */
static char *query_url(const char *endpoint, const char *query)
{
  LwBuf b = LW_BUF_INIT;
  lw_buf_append_str(&b, endpoint);
  lw_buf_append_str(&b, strchr(endpoint, '?') ? "&query=" : "?query=");
  append_encoded(&b, query);
  if (lw_buf_append_char(&b, '\0') != LW_OK) {
    lw_buf_free(&b);
    return NULL;
  }
  return (char *)b.data;
}

/* A triple pattern, inside GRAPH <g> { } when the provider names a graph. */
static void pattern(LwBuf *b, const LwSparqlSource *s, const char *triple)
{
  if (s->graph) {
    lw_buf_appendf(b, "GRAPH <%s> { %s }", s->graph, triple);
  } else {
    lw_buf_append_str(b, triple);
  }
}

char *lw_sparql_version_url(const LwSparqlSource *s)
{
  LwBuf q = LW_BUF_INIT;
  lw_buf_append_str(&q, "SELECT ?n ?m WHERE { { SELECT (COUNT(*) AS ?n) WHERE { ");
  pattern(&q, s, "?s ?p ?o");
  lw_buf_append_str(&q, " } } { SELECT (MAX(STR(?x)) AS ?m) WHERE { ");
  pattern(&q, s, "?s2 " DCT_MODIFIED " ?x");
  lw_buf_append_str(&q, " } } }");
  char *url = lw_buf_append_char(&q, '\0') == LW_OK ? query_url(s->endpoint, q.data) : NULL;
  lw_buf_free(&q);
  return url;
}

/* The binding var of the first result as text, or NULL. */
static const char *binding(json_t *first, const char *var)
{
  return json_string_value(json_object_get(json_object_get(first, var), "value"));
}

LwStatus lw_sparql_version_parse(const char *data, size_t len, char **version,
                                 unsigned long long *triples, LwError *err)
{
  *version = NULL;
  json_error_t jerr;
  json_t *root = json_loadb(data, len, 0, &jerr);
  json_t *first = json_array_get(
    json_object_get(json_object_get(root, "results"), "bindings"), 0);
  const char *n = binding(first, "n");
  char *end = NULL;
  unsigned long long count = n ? strtoull(n, &end, 10) : 0;
  if (!n || end == n || *end) {
    json_decref(root);
    return lw_error_set(
      err, LW_ERR_FORMAT,
      "the endpoint's answer to the count query is not SPARQL JSON results "
      "with a count (%.200s)",
      root ? "no ?n binding" : jerr.text);
  }
  const char *m = binding(first, "m");
  char text[600];
  if (m && *m) {
    snprintf(text, sizeof(text), "%llu triples, modified %.500s", count, m);
  } else {
    snprintf(text, sizeof(text), "%llu triples", count);
  }
  json_decref(root);
  *triples = count;
  *version = strdup(text);
  return *version ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
}

char *lw_sparql_page_url(const LwSparqlSource *s, unsigned long long page)
{
  LwBuf q = LW_BUF_INIT;
  if (s->query) {
    lw_buf_append_str(&q, s->query);
  } else {
    lw_buf_append_str(&q, "CONSTRUCT { ?s ?p ?o } WHERE { ");
    pattern(&q, s, "?s ?p ?o");
    lw_buf_append_str(&q, " } ORDER BY ?s ?p ?o");
  }
  lw_buf_appendf(&q, " LIMIT %llu OFFSET %llu", s->page_size, page * s->page_size);
  char *url = lw_buf_append_char(&q, '\0') == LW_OK ? query_url(s->endpoint, q.data) : NULL;
  lw_buf_free(&q);
  return url;
}
