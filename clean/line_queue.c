#include "clean/clean.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BLOCK ((size_t)1 << 20)
#define MIN_BLOCK ((size_t)4 << 10)
#define DEFAULT_BLOCKS 4
/* Each line in a block: its length, then its bytes. */
#define HEADER sizeof(uint32_t)

/* A block moves FREE -> (the producer fills it) -> QUEUED -> (the consumer
 * thread takes its lines) -> FREE. Block seq % n; the producer fills block
 * next_fill, the consumer works on block next_take. */
typedef struct {
  char *data;
  size_t len;
  bool queued;
} Block;

struct LwLineQueue {
  LwLineConsumer consumer;
  void *handle;
  size_t block_size;
  Block *blocks;
  size_t n_blocks;
  unsigned long long next_fill;
  unsigned long long next_take;

  pthread_mutex_t mutex;
  pthread_cond_t changed; /* a block was queued or freed, or closing */
  pthread_t thread;
  bool thread_running;
  bool closing;    /* no more blocks will come */
  bool aborting;   /* drop what is queued */
  bool failed;     /* the consumer failed: why in thread_err */
  bool consuming;  /* the thread is inside the consumer */
  LwError thread_err;
};

static Block *block_of(LwLineQueue *q, unsigned long long seq)
{
  return &q->blocks[seq % q->n_blocks];
}

/* Hands every line of b to the consumer; false on its first error. */
static bool consume_block(LwLineQueue *q, const Block *b, LwError *err)
{
  const char *p = b->data;
  const char *end = b->data + b->len;
  while (p < end) {
    uint32_t len;
    memcpy(&len, p, HEADER);
    p += HEADER;
    if (q->consumer(q->handle, p, len, err) > LW_NOTHING) {
      return false;
    }
    p += len;
  }
  return true;
}

static void *queue_main(void *arg)
{
  LwLineQueue *q = arg;
  pthread_mutex_lock(&q->mutex);
  for (;;) {
    Block *b = block_of(q, q->next_take);
    while (!b->queued && !q->closing && !q->aborting) {
      pthread_cond_wait(&q->changed, &q->mutex);
    }
    if (!b->queued || q->aborting) {
      break; /* closing with nothing left, or aborted */
    }
    bool skip = q->failed;
    q->consuming = !skip;
    pthread_mutex_unlock(&q->mutex);
    LwError err = {0};
    bool ok = skip || consume_block(q, b, &err);
    pthread_mutex_lock(&q->mutex);
    q->consuming = false;
    if (!ok && !q->failed) {
      q->failed = true;
      q->thread_err = err;
      if (q->thread_err.status <= LW_NOTHING) {
        lw_error_set(&q->thread_err, LW_ERR_INTERNAL, "the line consumer failed");
      }
    }
    b->queued = false;
    b->len = 0;
    q->next_take++;
    pthread_cond_broadcast(&q->changed);
  }
  pthread_mutex_unlock(&q->mutex);
  return NULL;
}

static void destroy(LwLineQueue *q)
{
  if (q->blocks) {
    for (size_t i = 0; i < q->n_blocks; ++i) {
      free(q->blocks[i].data);
    }
  }
  free(q->blocks);
  pthread_mutex_destroy(&q->mutex);
  pthread_cond_destroy(&q->changed);
  free(q);
}

LwStatus lw_line_queue_new(const LwLineQueueOptions *options, LwLineConsumer consumer,
                           void *handle, LwLineQueue **queue, LwError *err)
{
  *queue = NULL;
  LwLineQueue *q = calloc(1, sizeof(*q));
  if (!q) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for the line queue");
  }
  pthread_mutex_init(&q->mutex, NULL);
  pthread_cond_init(&q->changed, NULL);
  q->consumer = consumer;
  q->handle = handle;
  size_t block = options && options->block_bytes ? options->block_bytes : DEFAULT_BLOCK;
  q->block_size = block < MIN_BLOCK ? MIN_BLOCK : block;
  size_t n = options && options->blocks ? options->blocks : DEFAULT_BLOCKS;
  q->n_blocks = n < 2 ? 2 : n;
  q->blocks = calloc(q->n_blocks, sizeof(*q->blocks));
  bool ok = q->blocks != NULL;
  for (size_t i = 0; ok && i < q->n_blocks; ++i) {
    ok = (q->blocks[i].data = malloc(q->block_size)) != NULL;
  }
  if (!ok) {
    destroy(q);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for the line queue");
  }
  if (pthread_create(&q->thread, NULL, queue_main, q) != 0) {
    destroy(q);
    return lw_error_set(err, LW_ERR_INTERNAL, "cannot start the line queue's thread");
  }
  q->thread_running = true;
  *queue = q;
  return LW_OK;
}

static LwStatus thread_failure(LwLineQueue *q, LwError *err)
{
  if (err) {
    *err = q->thread_err;
  }
  return q->thread_err.status;
}

/* Queues the block being filled (when it holds lines) and waits until the
 * next one is free. Called with the mutex held; false when the consumer
 * failed. */
static bool hand_off_locked(LwLineQueue *q)
{
  Block *b = block_of(q, q->next_fill);
  if (b->len) {
    b->queued = true;
    q->next_fill++;
    pthread_cond_broadcast(&q->changed);
  }
  Block *next = block_of(q, q->next_fill);
  while (next->queued && !q->failed) {
    pthread_cond_wait(&q->changed, &q->mutex);
  }
  return !q->failed;
}

/* Waits until the thread has taken every queued line. Mutex held. */
static bool drain_locked(LwLineQueue *q)
{
  if (!hand_off_locked(q)) {
    return false;
  }
  while ((q->next_take < q->next_fill || q->consuming) && !q->failed) {
    pthread_cond_wait(&q->changed, &q->mutex);
  }
  return !q->failed;
}

/* A line longer than a block: once the thread has taken everything before
 * it (and so waits, outside the consumer), the consumer is called here. */
static LwStatus put_long(LwLineQueue *q, const char *line, size_t len, LwError *err)
{
  if (len > UINT32_MAX) {
    return lw_error_set(err, LW_ERR_LIMIT, "a line of %zu bytes", len);
  }
  pthread_mutex_lock(&q->mutex);
  bool ok = drain_locked(q);
  pthread_mutex_unlock(&q->mutex);
  if (!ok) {
    return thread_failure(q, err);
  }
  return q->consumer(q->handle, line, len, err);
}

LwStatus lw_line_queue_put(LwLineQueue *q, const char *line, size_t len, LwError *err)
{
  if (HEADER + len > q->block_size) {
    return put_long(q, line, len, err);
  }
  Block *b = block_of(q, q->next_fill);
  if (b->len + HEADER + len > q->block_size) {
    pthread_mutex_lock(&q->mutex);
    bool ok = hand_off_locked(q);
    pthread_mutex_unlock(&q->mutex);
    if (!ok) {
      return thread_failure(q, err);
    }
    b = block_of(q, q->next_fill);
  }
  uint32_t n = (uint32_t)len;
  memcpy(b->data + b->len, &n, HEADER);
  memcpy(b->data + b->len + HEADER, line, len);
  b->len += HEADER + len;
  return LW_OK;
}

static void stop_thread(LwLineQueue *q, bool abort)
{
  pthread_mutex_lock(&q->mutex);
  q->closing = true;
  q->aborting = q->aborting || abort;
  pthread_cond_broadcast(&q->changed);
  pthread_mutex_unlock(&q->mutex);
  if (q->thread_running) {
    pthread_join(q->thread, NULL);
    q->thread_running = false;
  }
}

LwStatus lw_line_queue_finish(LwLineQueue *q, LwError *err)
{
  pthread_mutex_lock(&q->mutex);
  bool ok = drain_locked(q);
  pthread_mutex_unlock(&q->mutex);
  stop_thread(q, !ok);
  return ok ? LW_OK : thread_failure(q, err);
}

void lw_line_queue_free(LwLineQueue *q)
{
  if (!q) {
    return;
  }
  stop_thread(q, true);
  destroy(q);
}
