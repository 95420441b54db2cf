/*
 * A SPARQL endpoint's Service Description (SPARQL 1.1 Service Description,
 * served at the endpoint's own URL when asked without a query): when it
 * describes the graph a provider reads (sd:namedGraph with that sd:name, or
 * the sd:defaultDataset's sd:defaultGraph) with its size (void:triples) and
 * its dct:modified, those are the provider's version and page count, and the
 * count query is not sent. Endpoints that describe less (Virtuoso lists its
 * features and result formats only) are asked the count query as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdf_readers/rdf_readers.h"
#include "sources/sources.h"

#define SD "http://www.w3.org/ns/sparql-service-description#"
#define DCT_MODIFIED "http://purl.org/dc/terms/modified"
#define VOID_TRIPLES "http://rdfs.org/ns/void#triples"

/* The statements that matter, as "s p o" strings: a description is small
 * (capped by the fetch at 16 MiB; only these predicates are kept). */
typedef struct {
  char **s, **p, **o;
  size_t n;
  bool oom;
} Kept;

static bool wanted(const char *p)
{
  static const char *const preds[] = {
    SD "defaultDataset", SD "defaultGraph", SD "namedGraph", SD "name",
    SD "graph",          DCT_MODIFIED,      VOID_TRIPLES};
  for (size_t i = 0; i < sizeof(preds) / sizeof(*preds); ++i) {
    if (!strcmp(p, preds[i])) {
      return true;
    }
  }
  return false;
}

static LwStatus keep(void *handle, const LwQuad *q)
{
  Kept *k = handle;
  if (!wanted(q->predicate.value) || k->oom) {
    return LW_OK;
  }
  char **s = realloc(k->s, (k->n + 1) * sizeof(char *));
  char **p = s ? realloc(k->p, (k->n + 1) * sizeof(char *)) : NULL;
  char **o = p ? realloc(k->o, (k->n + 1) * sizeof(char *)) : NULL;
  k->s = s ? s : k->s;
  k->p = p ? p : k->p;
  k->o = o ? o : k->o;
  if (!o || !(k->s[k->n] = strdup(q->subject.value))) {
    k->oom = true;
    return LW_OK;
  }
  k->p[k->n] = strdup(q->predicate.value);
  k->o[k->n] = strdup(q->object.value);
  if (!k->p[k->n] || !k->o[k->n]) {
    free(k->s[k->n]);
    free(k->p[k->n]);
    free(k->o[k->n]);
    k->oom = true;
    return LW_OK;
  }
  ++k->n;
  return LW_OK;
}

static void kept_free(Kept *k)
{
  for (size_t i = 0; i < k->n; ++i) {
    free(k->s[i]);
    free(k->p[i]);
    free(k->o[i]);
  }
  free(k->s);
  free(k->p);
  free(k->o);
}

/* The object of (s, p), or NULL. */
static const char *object(const Kept *k, const char *s, const char *p)
{
  for (size_t i = 0; s && i < k->n; ++i) {
    if (!strcmp(k->s[i], s) && !strcmp(k->p[i], p)) {
      return k->o[i];
    }
  }
  return NULL;
}

/* The node describing graph (an sd:NamedGraph's sd:graph), or for NULL the
 * default dataset's default graph. */
static const char *graph_node(const Kept *k, const char *graph)
{
  for (size_t i = 0; i < k->n; ++i) {
    if (graph && !strcmp(k->p[i], SD "name") && !strcmp(k->o[i], graph)) {
      return object(k, k->s[i], SD "graph");
    }
    if (!graph && !strcmp(k->p[i], SD "defaultDataset")) {
      return object(k, k->o[i], SD "defaultGraph");
    }
  }
  return NULL;
}

static LwFormat format_of(const char *media_type, const char *data, size_t len)
{
  LwGuessInfo info;
  LwFormat f = lw_guess_format(data, len < 4096 ? len : 4096, media_type, NULL, &info);
  return f == LW_FORMAT_UNKNOWN ? LW_FORMAT_TURTLE : f;
}

LwStatus lw_sparql_description_parse(const char *data, size_t len, const char *url,
                                     const char *media_type, const char *graph,
                                     char **version, unsigned long long *triples,
                                     LwError *err)
{
  *version = NULL;
  *triples = 0;
  FILE *f = len ? fmemopen((void *)data, len, "r") : NULL;
  if (!f) {
    return LW_NOTHING;
  }
  Kept k = {0};
  LwReadOptions options = {.format = format_of(media_type, data, len),
                           .base_iri = url,
                           .on_quad = keep,
                           .quad_handle = &k};
  LwReadStats stats;
  LwError rerr;
  lw_rdf_read(f, &options, &stats, &rerr); /* what parsed is enough */
  fclose(f);
  const char *node = graph_node(&k, graph);
  const char *n = object(&k, node, VOID_TRIPLES);
  const char *modified = object(&k, node, DCT_MODIFIED);
  char *end = NULL;
  unsigned long long count = n ? strtoull(n, &end, 10) : 0;
  LwStatus st = LW_NOTHING;
  if (!k.oom && n && end != n && !*end && modified) {
    char text[600];
    snprintf(text, sizeof(text), "%llu triples, modified %.500s (service description)",
             count, modified);
    *version = strdup(text);
    *triples = count;
    st = *version ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  kept_free(&k);
  return k.oom ? lw_error_set(err, LW_ERR_NOMEM, "out of memory") : st;
}
