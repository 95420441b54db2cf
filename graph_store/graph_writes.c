#include "graph_store/graph_store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* A batch holds records: one byte ('+' put, '-' del), the triple's length
 * (a size_t, unaligned), the triple. Batches cycle through a ring: the
 * producer fills batch[tail % N], the consumer applies batch[head % N]. */
struct LwGraphWrites {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  LwBuf batch[LW_GRAPH_WRITES_BATCHES];
  unsigned long long head; /* next batch to apply */
  unsigned long long tail; /* the batch being filled (not yet handed on) */
  bool finished;           /* the producer is done */
  bool failed;             /* the consumer gave up */
};

LwGraphWrites *lw_graph_writes_new(void)
{
  LwGraphWrites *w = calloc(1, sizeof(*w));
  if (!w) {
    return NULL;
  }
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->changed, NULL);
  return w;
}

void lw_graph_writes_free(LwGraphWrites *w)
{
  if (!w) {
    return;
  }
  for (size_t i = 0; i < LW_GRAPH_WRITES_BATCHES; ++i) {
    lw_buf_free(&w->batch[i]);
  }
  pthread_mutex_destroy(&w->lock);
  pthread_cond_destroy(&w->changed);
  free(w);
}

/* Hands the batch being filled on; waits for a free one. */
static LwStatus hand_on(LwGraphWrites *w, LwError *err)
{
  pthread_mutex_lock(&w->lock);
  ++w->tail;
  pthread_cond_broadcast(&w->changed);
  while (!w->failed && w->tail - w->head >= LW_GRAPH_WRITES_BATCHES) {
    pthread_cond_wait(&w->changed, &w->lock);
  }
  bool failed = w->failed;
  pthread_mutex_unlock(&w->lock);
  return failed ? lw_error_set(err, LW_ERR_IO, "graph database: writes stopped") : LW_OK;
}

static LwStatus queue(LwGraphWrites *w, char op, const char *triple, size_t len,
                      LwError *err)
{
  /* The batch at tail belongs to the producer alone until handed on. */
  LwBuf *b = &w->batch[w->tail % LW_GRAPH_WRITES_BATCHES];
  if (lw_buf_append_char(b, op) || lw_buf_append(b, &len, sizeof(len)) ||
      lw_buf_append(b, triple, len)) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  return b->len >= LW_GRAPH_WRITES_BYTES ? hand_on(w, err) : LW_OK;
}

LwStatus lw_graph_writes_put(LwGraphWrites *w, const char *triple, size_t len, LwError *err)
{
  return queue(w, '+', triple, len, err);
}

LwStatus lw_graph_writes_del(LwGraphWrites *w, const char *triple, size_t len, LwError *err)
{
  return queue(w, '-', triple, len, err);
}

void lw_graph_writes_finish(LwGraphWrites *w)
{
  pthread_mutex_lock(&w->lock);
  /* Once the consumer failed, the batch at tail may be one it still
   * holds: leave it alone. */
  if (!w->failed && w->batch[w->tail % LW_GRAPH_WRITES_BATCHES].len) {
    ++w->tail;
  }
  w->finished = true;
  pthread_cond_broadcast(&w->changed);
  pthread_mutex_unlock(&w->lock);
}

static LwStatus apply_batch(const LwBuf *b, LwGraphDb *db, LwError *err)
{
  for (size_t i = 0; i < b->len;) {
    char op = b->data[i];
    size_t len;
    memcpy(&len, b->data + i + 1, sizeof(len));
    const char *triple = b->data + i + 1 + sizeof(len);
    LW_TRY(op == '+' ? lw_graph_db_put(db, triple, len, err)
                     : lw_graph_db_del(db, triple, len, err));
    i += 1 + sizeof(len) + len;
  }
  return LW_OK;
}

LwStatus lw_graph_writes_apply(LwGraphWrites *w, LwGraphDb *db, LwError *err)
{
  LwStatus st = LW_OK;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (w->head == w->tail && !w->finished) {
      pthread_cond_wait(&w->changed, &w->lock);
    }
    if (w->head == w->tail) {
      break; /* finished, all applied */
    }
    LwBuf *b = &w->batch[w->head % LW_GRAPH_WRITES_BATCHES];
    pthread_mutex_unlock(&w->lock);
    if (st == LW_OK) {
      st = apply_batch(b, db, err);
    }
    lw_buf_reset(b);
    pthread_mutex_lock(&w->lock);
    ++w->head;
    w->failed = st != LW_OK;
    pthread_cond_broadcast(&w->changed);
  }
  pthread_mutex_unlock(&w->lock);
  return st;
}
