#include "graph_store/graph_store.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

struct LwSparqlImport {
  LwSparqlStore *store;
  char *graph_iri;
  size_t delete_batch;
  size_t insert_batch;
  LwBuf subjects; /* "<s1> <s2> ..." for VALUES */
  LwBuf triples;  /* N-Triples */
  size_t subject_count;
  size_t triple_count;
  unsigned long long requests;
  /* The batch before the current subject: restored when it did not change. */
  size_t mark_subjects, mark_triples, mark_subject_count, mark_triple_count;
};

static bool text_put(LwBuf *t, const char *s, size_t n)
{
  return lw_buf_append(t, s, n) == LW_OK;
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
  im->insert_batch = insert_batch                                ? insert_batch
                     : lw_sparql_mode(store) == LW_SPARQL_UPDATE ? 10000
                                                                 : 100000;
  if (!im->graph_iri) {
    lw_sparql_import_free(im);
    return NULL;
  }
  return im;
}

/* "DELETE { GRAPH <g> { ?s ?p ?o } } WHERE { ... VALUES ?s { subjects } }" */
static bool put_delete(LwSparqlImport *im, LwBuf *q)
{
  const char *g = im->graph_iri;
  return text_put(q, "DELETE { GRAPH <", 16) && text_put(q, g, strlen(g)) &&
         text_put(q, "> { ?s ?p ?o } } WHERE { GRAPH <", 32) && text_put(q, g, strlen(g)) &&
         text_put(q, "> { ?s ?p ?o . VALUES ?s { ", 27) &&
         text_put(q, im->subjects.data, im->subjects.len) && text_put(q, "} } }", 5);
}

/* "INSERT DATA { GRAPH <g> { triples } }": N-Triples lines are SPARQL terms. */
static bool put_insert(LwSparqlImport *im, LwBuf *q)
{
  const char *g = im->graph_iri;
  return text_put(q, "INSERT DATA { GRAPH <", 21) && text_put(q, g, strlen(g)) &&
         text_put(q, "> {\n", 4) && text_put(q, im->triples.data, im->triples.len) &&
         text_put(q, "} }", 3);
}

/* One SPARQL Update request: the batch's DELETE, and in update mode its
 * INSERT DATA after it (operations of one request run in order). */
static LwStatus send_update(LwSparqlImport *im, bool with_insert, LwError *err)
{
  LwBuf q = LW_BUF_INIT;
  bool ok = true;
  if (im->subject_count) {
    ok = put_delete(im, &q) && (!with_insert || text_put(&q, " ;\n", 3));
  }
  if (ok && with_insert) {
    ok = put_insert(im, &q);
  }
  LwStatus st = ok ? lw_sparql_update(im->store, q.data, err)
                   : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  lw_buf_free(&q);
  im->requests += st == LW_OK;
  return st;
}

static LwStatus flush(LwSparqlImport *im, LwError *err)
{
  bool insert_by_update = im->triple_count && lw_sparql_mode(im->store) == LW_SPARQL_UPDATE;
  if (im->subject_count || insert_by_update) {
    LW_TRY(send_update(im, insert_by_update, err));
  }
  if (im->triple_count && !insert_by_update) {
    LW_TRY(
      lw_sparql_post(im->store, im->graph_iri, im->triples.data, im->triples.len, err));
    ++im->requests;
  }
  im->subjects.len = im->triples.len = 0;
  im->subject_count = im->triple_count = 0;
  return LW_OK;
}

LwStatus lw_sparql_import_line(void *handle, const char *line, size_t len,
                               bool first_of_subject, bool subject_in_old, LwError *err)
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
    im->mark_subjects = im->subjects.len;
    im->mark_triples = im->triples.len;
    im->mark_subject_count = im->subject_count;
    im->mark_triple_count = im->triple_count;
    const char *space = memchr(line, ' ', len);
    if (subject_in_old && space) {
      if (!text_put(&im->subjects, line, (size_t)(space - line) + 1)) {
        return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
      }
      ++im->subject_count;
    }
  }
  if (!text_put(&im->triples, line, triple_len) || !text_put(&im->triples, " .\n", 3)) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  ++im->triple_count;
  return LW_OK;
}

LwStatus lw_sparql_import_subject_end(void *handle, bool changed, LwError *err)
{
  (void)err;
  LwSparqlImport *im = handle;
  if (!changed) {
    im->subjects.len = im->mark_subjects;
    im->triples.len = im->mark_triples;
    im->subject_count = im->mark_subject_count;
    im->triple_count = im->mark_triple_count;
  }
  return LW_OK;
}

LwStatus lw_sparql_import_finish(LwSparqlImport *im, LwError *err)
{
  return flush(im, err);
}

unsigned long long lw_sparql_import_requests(const LwSparqlImport *im)
{
  return im->requests;
}

void lw_sparql_import_free(LwSparqlImport *im)
{
  if (im) {
    free(im->graph_iri);
    lw_buf_free(&im->subjects);
    lw_buf_free(&im->triples);
    free(im);
  }
}
