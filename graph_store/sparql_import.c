#include "graph_store/graph_store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* The deletes and inserts of a run of whole subject groups. */
typedef struct Batch {
  LwBuf subjects; /* "<s1> <s2> ..." for VALUES */
  LwBuf triples;  /* N-Triples */
  size_t subject_count;
  size_t triple_count;
  struct Batch *next; /* in the free list or the queue */
} Batch;

/*
 * The merge's thread fills a batch; when it is full it goes to a queue,
 * and one sender thread per connection of the store takes batches from
 * it, each sending its batch's DELETE, then its insert. Batches are about
 * disjoint subjects, so they may go in any order and at once. There are
 * connections + 1 batches in all (one filling, one per sender): handing one
 * on waits while every sender is busy, so memory stays bounded.
 */
struct LwSparqlImport {
  LwSparqlStore *store;
  char *graph_iri;
  size_t delete_batch;
  size_t insert_batch;
  Batch *filling; /* the merge's */
  /* The batch before the current subject: restored when it did not change. */
  size_t mark_subjects, mark_triples, mark_subject_count, mark_triple_count;
  _Atomic unsigned long long requests;

  pthread_mutex_t lock;
  pthread_cond_t changed; /* a batch queued or freed, a sender idle, stop */
  Batch *free_batches;
  Batch *queue_head, *queue_tail;
  size_t busy;   /* senders sending */
  bool stopping; /* no more batches: senders end when the queue is empty */
  LwStatus status; /* the first failure (LW_OK: none) */
  LwError error;
  pthread_t *senders;
  size_t sender_count;
  Batch *batches;
  size_t batch_count;
};

static bool text_put(LwBuf *t, const char *s, size_t n)
{
  return lw_buf_append(t, s, n) == LW_OK;
}

/* "DELETE { GRAPH <g> { ?s ?p ?o } } WHERE { ... VALUES ?s { subjects } }" */
static bool put_delete(const LwSparqlImport *im, const char *subjects, size_t len, LwBuf *q)
{
  const char *g = im->graph_iri;
  return text_put(q, "DELETE { GRAPH <", 16) && text_put(q, g, strlen(g)) &&
         text_put(q, "> { ?s ?p ?o } } WHERE { GRAPH <", 32) && text_put(q, g, strlen(g)) &&
         text_put(q, "> { ?s ?p ?o . VALUES ?s { ", 27) &&
         text_put(q, subjects, len) && text_put(q, "} } }", 5);
}

/* "INSERT DATA { GRAPH <g> { triples } }": N-Triples lines are SPARQL terms. */
static bool put_insert(const LwSparqlImport *im, const Batch *b, LwBuf *q)
{
  const char *g = im->graph_iri;
  return text_put(q, "INSERT DATA { GRAPH <", 21) && text_put(q, g, strlen(g)) &&
         text_put(q, "> {\n", 4) && text_put(q, b->triples.data, b->triples.len) &&
         text_put(q, "} }", 3);
}

/* One SPARQL Update request: the DELETE of subjects (none when len is 0),
 * and with_insert the batch's INSERT DATA after it (operations of one
 * request run in order). */
static LwStatus send_update(LwSparqlImport *im, const Batch *b, const char *subjects,
                            size_t len, bool with_insert, LwError *err)
{
  LwBuf q = LW_BUF_INIT;
  bool ok = true;
  if (len) {
    ok = put_delete(im, subjects, len, &q) && (!with_insert || text_put(&q, " ;\n", 3));
  }
  if (ok && with_insert) {
    ok = put_insert(im, b, &q);
  }
  LwStatus st = ok ? lw_sparql_update(im->store, q.data, err)
                   : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  lw_buf_free(&q);
  im->requests += st == LW_OK;
  return st;
}

/* The batch's DELETEs, delete_batch subjects each, then (once they are
 * done) its insert: in update mode in the last DELETE's request. */
static LwStatus send_batch(LwSparqlImport *im, const Batch *b, LwError *err)
{
  bool insert_by_update = b->triple_count && lw_sparql_mode(im->store) == LW_SPARQL_UPDATE;
  const char *next = b->subjects.data, *end = next + b->subjects.len;
  while (next < end) {
    const char *chunk_end = next;
    for (size_t n = 0; n < im->delete_batch && chunk_end < end; ++n) {
      chunk_end = (const char *)memchr(chunk_end, ' ', (size_t)(end - chunk_end)) + 1;
    }
    bool last = chunk_end == end;
    LW_TRY(send_update(im, b, next, (size_t)(chunk_end - next), last && insert_by_update,
                       err));
    next = chunk_end;
  }
  if (!b->subject_count && insert_by_update) {
    LW_TRY(send_update(im, b, NULL, 0, true, err));
  }
  if (b->triple_count && !insert_by_update) {
    LW_TRY(lw_sparql_post(im->store, im->graph_iri, b->triples.data, b->triples.len, err));
    ++im->requests;
  }
  return LW_OK;
}

static void batch_clear(Batch *b)
{
  lw_buf_reset(&b->subjects);
  lw_buf_reset(&b->triples);
  b->subject_count = b->triple_count = 0;
}

/* A sender: sends queued batches until there are no more, or one failed. */
static void *sender_main(void *arg)
{
  LwSparqlImport *im = arg;
  pthread_mutex_lock(&im->lock);
  for (;;) {
    while (!im->queue_head && !im->stopping) {
      pthread_cond_wait(&im->changed, &im->lock);
    }
    Batch *b = im->queue_head;
    if (!b) {
      break;
    }
    im->queue_head = b->next;
    if (!im->queue_head) {
      im->queue_tail = NULL;
    }
    LwStatus st = im->status;
    if (st == LW_OK) { /* after a failure, batches are dropped unsent */
      ++im->busy;
      pthread_mutex_unlock(&im->lock);
      LwError err;
      st = send_batch(im, b, &err);
      pthread_mutex_lock(&im->lock);
      --im->busy;
      if (st != LW_OK && im->status == LW_OK) {
        im->status = st;
        im->error = err;
      }
    }
    batch_clear(b);
    b->next = im->free_batches;
    im->free_batches = b;
    pthread_cond_broadcast(&im->changed);
  }
  pthread_mutex_unlock(&im->lock);
  return NULL;
}

/* Ends the senders once the queue is empty. */
static void stop_senders(LwSparqlImport *im)
{
  pthread_mutex_lock(&im->lock);
  im->stopping = true;
  pthread_cond_broadcast(&im->changed);
  pthread_mutex_unlock(&im->lock);
  for (size_t i = 0; i < im->sender_count; ++i) {
    pthread_join(im->senders[i], NULL);
  }
  im->sender_count = 0;
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
  im->delete_batch = delete_batch ? delete_batch : 500;
  im->insert_batch = insert_batch                                ? insert_batch
                     : lw_sparql_mode(store) == LW_SPARQL_UPDATE ? 10000
                                                                 : 100000;
  pthread_mutex_init(&im->lock, NULL);
  pthread_cond_init(&im->changed, NULL);
  size_t connections = lw_sparql_connections(store);
  im->batch_count = connections + 1;
  im->batches = calloc(im->batch_count, sizeof(*im->batches));
  im->senders = calloc(connections, sizeof(*im->senders));
  if (!im->graph_iri || !im->batches || !im->senders) {
    lw_sparql_import_free(im);
    return NULL;
  }
  im->filling = &im->batches[0];
  for (size_t i = 1; i < im->batch_count; ++i) {
    im->batches[i].next = im->free_batches;
    im->free_batches = &im->batches[i];
  }
  while (im->sender_count < connections &&
         pthread_create(&im->senders[im->sender_count], NULL, sender_main, im) == 0) {
    ++im->sender_count;
  }
  if (!im->sender_count) {
    lw_sparql_import_free(im);
    return NULL;
  }
  return im;
}

/* Queues the filled batch and takes a free one (waiting while every sender
 * is busy); returns the first failure of a sender, if any. */
static LwStatus hand_on(LwSparqlImport *im, LwError *err)
{
  Batch *b = im->filling;
  pthread_mutex_lock(&im->lock);
  if (im->status == LW_OK && (b->subject_count || b->triple_count)) {
    if (im->queue_tail) {
      im->queue_tail->next = b;
    } else {
      im->queue_head = b;
    }
    im->queue_tail = b;
    b->next = NULL;
    pthread_cond_broadcast(&im->changed);
    while (!im->free_batches) {
      pthread_cond_wait(&im->changed, &im->lock);
    }
    im->filling = im->free_batches;
    im->free_batches = im->filling->next;
  }
  batch_clear(im->filling);
  LwStatus st = im->status;
  if (st != LW_OK && err) {
    *err = im->error;
  }
  pthread_mutex_unlock(&im->lock);
  return st;
}

LwStatus lw_sparql_import_line(void *handle, const char *triple, size_t len,
                               bool first_of_subject, bool subject_in_old, LwError *err)
{
  /* the merge has split the line: triple is "S P O", a SPARQL triple as is */
  LwSparqlImport *im = handle;
  Batch *b = im->filling;
  if (first_of_subject) {
    if (b->triple_count >= im->insert_batch) {
      LW_TRY(hand_on(im, err));
      b = im->filling;
    }
    im->mark_subjects = b->subjects.len;
    im->mark_triples = b->triples.len;
    im->mark_subject_count = b->subject_count;
    im->mark_triple_count = b->triple_count;
    const char *space = memchr(triple, ' ', len);
    if (subject_in_old && space) {
      if (!text_put(&b->subjects, triple, (size_t)(space - triple) + 1)) {
        return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
      }
      ++b->subject_count;
    }
  }
  if (!text_put(&b->triples, triple, len) || !text_put(&b->triples, " .\n", 3)) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  ++b->triple_count;
  return LW_OK;
}

LwStatus lw_sparql_import_subject_end(void *handle, bool changed, LwError *err)
{
  (void)err;
  LwSparqlImport *im = handle;
  Batch *b = im->filling;
  if (!changed) {
    b->subjects.len = im->mark_subjects;
    b->triples.len = im->mark_triples;
    b->subject_count = im->mark_subject_count;
    b->triple_count = im->mark_triple_count;
  }
  return LW_OK;
}

LwStatus lw_sparql_import_finish(LwSparqlImport *im, LwError *err)
{
  LwStatus st = hand_on(im, err);
  stop_senders(im); /* after the queue is sent */
  if (st == LW_OK && im->status != LW_OK) {
    st = im->status;
    if (err) {
      *err = im->error;
    }
  }
  return st;
}

unsigned long long lw_sparql_import_requests(const LwSparqlImport *im)
{
  return im->requests;
}

void lw_sparql_import_free(LwSparqlImport *im)
{
  if (im) {
    if (im->sender_count) { /* not finished (the merge failed): drop what is queued */
      pthread_mutex_lock(&im->lock);
      if (im->status == LW_OK) {
        im->status = LW_ERR_USAGE;
        lw_error_set(&im->error, LW_ERR_USAGE, "import abandoned");
      }
      pthread_mutex_unlock(&im->lock);
      stop_senders(im);
    }
    for (size_t i = 0; im->batches && i < im->batch_count; ++i) {
      lw_buf_free(&im->batches[i].subjects);
      lw_buf_free(&im->batches[i].triples);
    }
    free(im->batches);
    free(im->senders);
    free(im->graph_iri);
    pthread_mutex_destroy(&im->lock);
    pthread_cond_destroy(&im->changed);
    free(im);
  }
}
