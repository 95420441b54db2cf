#include "common/sparql_import.h"

#include <stdlib.h>
#include <string.h>

#include "common/graph_merge.h"

typedef struct {
  char *data;
  size_t len;
  size_t cap;
} Text;

struct LwSparqlImport {
  LwSparqlStore *store;
  char *graph_iri;
  size_t delete_batch;
  size_t insert_batch;
  Text subjects; /* "<s1> <s2> ..." for VALUES */
  Text triples;  /* N-Triples */
  size_t subject_count;
  size_t triple_count;
  unsigned long long requests;
};

static bool text_put(Text *t, const char *s, size_t n)
{
  if (t->len + n + 1 > t->cap) {
    size_t cap = (t->len + n + 1) * 2;
    char *grown = realloc(t->data, cap);
    if (!grown) {
      return false;
    }
    t->data = grown;
    t->cap = cap;
  }
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = '\0';
  return true;
}

LwSparqlImport *lw_sparql_import_new(LwSparqlStore *store, const char *graph_iri,
                                     size_t delete_batch, size_t insert_batch)
{
  LwSparqlImport *im = calloc(1, sizeof(*im));
  if (!im) {
    return NULL;
  }
  im->store = store;
  im->graph_iri = strdup(graph_iri);
  im->delete_batch = delete_batch ? delete_batch : 1000;
  im->insert_batch = insert_batch ? insert_batch : 100000;
  if (!im->graph_iri) {
    lw_sparql_import_free(im);
    return NULL;
  }
  return im;
}

static LwStatus flush(LwSparqlImport *im, LwError *err)
{
  if (im->subject_count) {
    Text q = {0};
    const char *g = im->graph_iri;
    bool ok = text_put(&q, "DELETE { GRAPH <", 16) && text_put(&q, g, strlen(g)) &&
              text_put(&q, "> { ?s ?p ?o } } WHERE { GRAPH <", 32) &&
              text_put(&q, g, strlen(g)) &&
              text_put(&q, "> { ?s ?p ?o . VALUES ?s { ", 27) &&
              text_put(&q, im->subjects.data, im->subjects.len) &&
              text_put(&q, "} } }", 5);
    LwStatus st = ok ? lw_sparql_update(im->store, q.data, err)
                     : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    free(q.data);
    LW_TRY(st);
    ++im->requests;
  }
  if (im->triple_count) {
    LW_TRY(lw_sparql_post(im->store, im->graph_iri, im->triples.data, im->triples.len, err));
    ++im->requests;
  }
  im->subjects.len = im->triples.len = 0;
  im->subject_count = im->triple_count = 0;
  return LW_OK;
}

LwStatus lw_sparql_import_line(void *handle, const char *line, size_t len,
                               bool first_of_subject, LwError *err)
{
  LwSparqlImport *im = handle;
  size_t triple_len, gstart, glen;
  if (!lw_nquads_split_line(line, len, &triple_len, &gstart, &glen)) {
    return lw_error_set(err, LW_ERR_FORMAT, "not a canonical N-Quads line: %.80s", line);
  }
  if (first_of_subject) {
    if (im->subject_count >= im->delete_batch || im->triple_count >= im->insert_batch) {
      LW_TRY(flush(im, err));
    }
    size_t subject_len = (size_t)(memchr(line, ' ', len) ? (const char *)memchr(line, ' ', len) - line : 0);
    if (!text_put(&im->subjects, line, subject_len + 1)) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    ++im->subject_count;
  }
  if (!text_put(&im->triples, line, triple_len) || !text_put(&im->triples, " .\n", 3)) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  ++im->triple_count;
  return LW_OK;
}

LwStatus lw_sparql_import_finish(LwSparqlImport *im, LwError *err) { return flush(im, err); }

unsigned long long lw_sparql_import_requests(const LwSparqlImport *im) { return im->requests; }

void lw_sparql_import_free(LwSparqlImport *im)
{
  if (im) {
    free(im->graph_iri);
    free(im->subjects.data);
    free(im->triples.data);
    free(im);
  }
}
