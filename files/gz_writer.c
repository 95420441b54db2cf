#include "files/files.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libdeflate.h>

#define DEFAULT_CHUNK ((size_t)512 << 10)
#define MIN_CHUNK ((size_t)4 << 10)
#define MAX_THREADS 16u

/* A slot moves FREE -> FILLING (the producer copies bytes in) -> FILLED
 * (queued) -> WORKING (a compression thread has it) -> DONE -> FREE (the
 * writer wrote it). Plain output skips FILLED and WORKING. Slot seq % n. */
typedef enum { SLOT_FREE, SLOT_FILLING, SLOT_FILLED, SLOT_WORKING, SLOT_DONE } SlotState;

typedef struct {
  SlotState state;
  unsigned long long seq;
  char *in;
  size_t in_len;
  unsigned char *out; /* the chunk as one gzip member */
  size_t out_len;
  bool failed;
} Slot;

struct LwGzWriter {
  FILE *out;
  LwGzOptions options;
  size_t out_cap;

  Slot *slots;
  size_t n_slots;
  Slot *current;                 /* the producer's slot (FILLING) */
  unsigned long long next_fill;  /* seq of the producer's slot */
  unsigned long long next_work;  /* next seq for a compression thread */
  unsigned long long next_write; /* next seq for the writer */

  /* A condition each for who waits, so that a change wakes only the thread
   * it concerns (a broadcast to all four, for every chunk, cost more than
   * the writing on two cores); closing and failing wake them all. */
  pthread_mutex_t mutex;
  pthread_cond_t filled; /* a slot FILLED: the compression threads */
  pthread_cond_t done;   /* a slot DONE: the writer */
  pthread_cond_t freed;  /* a slot FREE: the producer */
  pthread_t *workers;
  unsigned n_workers;
  pthread_t writer;
  bool writer_running;
  bool closing;  /* no more chunks will come */
  bool aborting; /* drop what is queued, do not finish the stream */
  bool failed;   /* a thread failed; message in thread_err */
  LwError thread_err;
  LwError sink_err;

  /* The MD5 and the bytes in: the producer's with one compression thread,
   * else the writer thread's (hash_chunk). */
  bool producer_hashes;
  LwMd5 *md5;
  unsigned long long bytes_in;
  unsigned long long bytes_out;
  char md5_hex[LW_HASH_HEX_LEN + 1];
};

static Slot *slot_of(LwGzWriter *w, unsigned long long seq)
{
  return &w->slots[seq % w->n_slots];
}

/* Wakes every thread, whatever it waits for. Called with the mutex held. */
static void wake_all(LwGzWriter *w)
{
  pthread_cond_broadcast(&w->filled);
  pthread_cond_broadcast(&w->done);
  pthread_cond_broadcast(&w->freed);
}

static void fail(LwGzWriter *w, LwStatus status, const char *message)
{
  pthread_mutex_lock(&w->mutex);
  if (!w->failed) {
    w->failed = true;
    lw_error_set(&w->thread_err, status, "%s", message);
  }
  wake_all(w);
  pthread_mutex_unlock(&w->mutex);
}

/* ---- compression threads ------------------------------------------------ */

static bool compress_slot(struct libdeflate_compressor *c, Slot *s, size_t out_cap)
{
  s->out_len = libdeflate_gzip_compress(c, s->in, s->in_len, s->out, out_cap);
  return s->out_len > 0;
}

static void *worker_main(void *arg)
{
  LwGzWriter *w = arg;
  struct libdeflate_compressor *c = libdeflate_alloc_compressor(w->options.level);
  if (!c) {
    fail(w, LW_ERR_NOMEM, "libdeflate: cannot start a compressor");
  }
  pthread_mutex_lock(&w->mutex);
  for (;;) {
    Slot *s = slot_of(w, w->next_work);
    while (!(s->state == SLOT_FILLED && s->seq == w->next_work) &&
           !(w->closing && w->next_work == w->next_fill)) {
      pthread_cond_wait(&w->filled, &w->mutex);
      s = slot_of(w, w->next_work);
    }
    if (!(s->state == SLOT_FILLED && s->seq == w->next_work)) {
      break; /* closing and nothing left */
    }
    s->state = SLOT_WORKING;
    w->next_work++;
    bool skip = !c || w->aborting || w->failed;
    pthread_mutex_unlock(&w->mutex);
    if (!skip) {
      s->failed = !compress_slot(c, s, w->out_cap);
    }
    pthread_mutex_lock(&w->mutex);
    s->state = SLOT_DONE;
    pthread_cond_broadcast(&w->done);
  }
  pthread_mutex_unlock(&w->mutex);
  libdeflate_free_compressor(c);
  return NULL;
}

/* ---- the writer thread -------------------------------------------------- */

static bool put(LwGzWriter *w, const void *data, size_t len)
{
  if (len && fwrite(data, 1, len, w->out) != len) {
    char msg[256];
    snprintf(msg, sizeof(msg), "cannot write output: %s", strerror(errno));
    fail(w, LW_ERR_IO, msg);
    return false;
  }
  w->bytes_out += len;
  return true;
}

static void hash_chunk(LwGzWriter *w, const Slot *s)
{
  if (w->md5) {
    lw_md5_update(w->md5, s->in, s->in_len);
  }
  w->bytes_in += s->in_len;
}

static bool write_slot(LwGzWriter *w, Slot *s)
{
  if (!w->producer_hashes) {
    hash_chunk(w, s);
  }
  if (!w->options.gzip) {
    return put(w, s->in, s->in_len);
  }
  if (s->failed) {
    fail(w, LW_ERR_INTERNAL, "libdeflate: compression failed");
    return false;
  }
  return put(w, s->out, s->out_len);
}

static void *writer_main(void *arg)
{
  LwGzWriter *w = arg;
  bool ok = true;
  pthread_mutex_lock(&w->mutex);
  for (;;) {
    Slot *s = slot_of(w, w->next_write);
    while (!(s->state == SLOT_DONE && s->seq == w->next_write) &&
           !(w->closing && w->next_write == w->next_fill)) {
      pthread_cond_wait(&w->done, &w->mutex);
    }
    if (!(s->state == SLOT_DONE && s->seq == w->next_write)) {
      break;
    }
    bool skip = !ok || w->aborting || w->failed;
    pthread_mutex_unlock(&w->mutex);
    if (!skip) {
      ok = write_slot(w, s);
    }
    pthread_mutex_lock(&w->mutex);
    s->state = SLOT_FREE;
    w->next_write++;
    pthread_cond_broadcast(&w->freed);
  }
  bool finish = ok && !w->aborting && !w->failed;
  pthread_mutex_unlock(&w->mutex);
  if (finish && w->options.gzip && w->bytes_out == 0) {
    /* Nothing was written: the empty gzip member (header, an empty final
     * block, CRC-32 and size 0), so that the file still reads as gzip. */
    static const unsigned char empty[20] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x03};
    finish = put(w, empty, sizeof(empty));
  }
  if (finish && fflush(w->out) != 0) {
    char msg[256];
    snprintf(msg, sizeof(msg), "cannot write output: %s", strerror(errno));
    fail(w, LW_ERR_IO, msg);
  }
  return NULL;
}

/* ---- the producer side -------------------------------------------------- */

/* Compression threads by default: two, but one on two cores, where the
 * producer and one compression thread already fill them: another busy
 * thread only takes turns with them (the tail of cleaning a big Turtle dump
 * took 0.72 to 0.80 s with one, 0.86 to 0.94 with two). With one, the
 * producer takes the MD5 too (between chunks), the writer only writes:
 * two busy threads, not three (the whole clean 2.25 to 2.33 s against 2.50
 * to 2.79 with the MD5 on the writer). */
static unsigned default_threads(void)
{
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 && cores <= 2 ? 1u : 2u;
}

static void destroy(LwGzWriter *w)
{
  if (w->slots) {
    for (size_t i = 0; i < w->n_slots; ++i) {
      free(w->slots[i].in);
      free(w->slots[i].out);
    }
  }
  free(w->slots);
  free(w->workers);
  lw_md5_free(w->md5);
  pthread_mutex_destroy(&w->mutex);
  pthread_cond_destroy(&w->filled);
  pthread_cond_destroy(&w->done);
  pthread_cond_destroy(&w->freed);
  free(w);
}

static void stop_threads(LwGzWriter *w, bool abort)
{
  pthread_mutex_lock(&w->mutex);
  w->closing = true;
  w->aborting = w->aborting || abort;
  wake_all(w);
  pthread_mutex_unlock(&w->mutex);
  for (unsigned i = 0; i < w->n_workers; ++i) {
    pthread_join(w->workers[i], NULL);
  }
  w->n_workers = 0;
  if (w->writer_running) {
    pthread_join(w->writer, NULL);
    w->writer_running = false;
  }
}

static bool alloc_slots(LwGzWriter *w)
{
  w->slots = calloc(w->n_slots, sizeof(*w->slots));
  if (!w->slots) {
    return false;
  }
  for (size_t i = 0; i < w->n_slots; ++i) {
    Slot *s = &w->slots[i];
    s->in = malloc(w->options.chunk_bytes);
    if (!s->in) {
      return false;
    }
    if (w->options.gzip) {
      s->out = malloc(w->out_cap);
      if (!s->out) {
        return false;
      }
    }
  }
  return true;
}

LwStatus lw_gz_writer_open(FILE *out, const LwGzOptions *options, LwGzWriter **writer,
                           LwError *err)
{
  *writer = NULL;
  LwGzWriter *w = calloc(1, sizeof(*w));
  if (!w) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  pthread_mutex_init(&w->mutex, NULL);
  pthread_cond_init(&w->filled, NULL);
  pthread_cond_init(&w->done, NULL);
  pthread_cond_init(&w->freed, NULL);
  w->out = out;
  if (options) {
    w->options = *options;
  }
  LwGzOptions *o = &w->options;
  if (o->level <= 0 || o->level > 9) {
    o->level = 1;
  }
  if (o->chunk_bytes < MIN_CHUNK) {
    o->chunk_bytes = o->chunk_bytes ? MIN_CHUNK : DEFAULT_CHUNK;
  }
  if (!o->threads) {
    o->threads = default_threads();
  }
  if (o->threads > MAX_THREADS) {
    o->threads = MAX_THREADS;
  }
  if (!o->queue_chunks) {
    o->queue_chunks = o->gzip ? 2 * o->threads + 2 : 4;
  }
  if (o->queue_chunks < 2) {
    o->queue_chunks = 2;
  }
  w->n_slots = o->queue_chunks;
  /* Worst case of a member of incompressible data. */
  w->out_cap = libdeflate_gzip_compress_bound(NULL, o->chunk_bytes);
  w->md5 = o->no_md5 ? NULL : lw_md5_new();
  unsigned n_workers = o->gzip ? o->threads : 0;
  w->producer_hashes = n_workers == 1;
  w->workers = calloc(n_workers ? n_workers : 1, sizeof(*w->workers));
  if ((!w->md5 && !o->no_md5) || !w->workers || !alloc_slots(w)) {
    destroy(w);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for the output writer");
  }
  w->current = slot_of(w, 0);
  w->current->state = SLOT_FILLING;
  w->current->seq = 0;
  if (pthread_create(&w->writer, NULL, writer_main, w) != 0) {
    destroy(w);
    return lw_error_set(err, LW_ERR_INTERNAL, "cannot start the writer thread");
  }
  w->writer_running = true;
  for (unsigned i = 0; i < n_workers; ++i) {
    if (pthread_create(&w->workers[i], NULL, worker_main, w) != 0) {
      stop_threads(w, true);
      destroy(w);
      return lw_error_set(err, LW_ERR_INTERNAL, "cannot start a compression thread");
    }
    w->n_workers++;
  }
  *writer = w;
  return LW_OK;
}

static LwStatus thread_failure(LwGzWriter *w, LwError *err)
{
  if (err) {
    *err = w->thread_err;
  }
  return w->thread_err.status > LW_NOTHING ? w->thread_err.status : LW_ERR_IO;
}

/* Queues the current chunk and takes the next slot (waiting for it). */
static LwStatus hand_off(LwGzWriter *w, LwError *err)
{
  Slot *prev = w->current;
  if (w->producer_hashes) {
    hash_chunk(w, prev);
  }
  pthread_mutex_lock(&w->mutex);
  prev->state = w->options.gzip ? SLOT_FILLED : SLOT_DONE;
  w->next_fill++;
  pthread_cond_broadcast(w->options.gzip ? &w->filled : &w->done);
  Slot *next = slot_of(w, w->next_fill);
  while (next->state != SLOT_FREE && !w->failed) {
    pthread_cond_wait(&w->freed, &w->mutex);
  }
  bool failed = w->failed;
  if (!failed) {
    next->state = SLOT_FILLING;
    next->seq = w->next_fill;
  }
  pthread_mutex_unlock(&w->mutex);
  if (failed) {
    w->current = NULL;
    return thread_failure(w, err);
  }
  next->in_len = 0;
  next->failed = false;
  w->current = next;
  return LW_OK;
}

LwStatus lw_gz_writer_write(LwGzWriter *w, const void *data, size_t len, LwError *err)
{
  if (!w->current) {
    return thread_failure(w, err);
  }
  const char *p = data;
  size_t size = w->options.chunk_bytes;
  while (len > 0) {
    Slot *s = w->current;
    size_t room = size - s->in_len;
    size_t n = len < room ? len : room;
    memcpy(s->in + s->in_len, p, n);
    s->in_len += n;
    p += n;
    len -= n;
    if (s->in_len == size) {
      LW_TRY(hand_off(w, err));
    }
  }
  return LW_OK;
}

LwStatus lw_gz_writer_sink(void *handle, const char *line, size_t len)
{
  LwGzWriter *w = handle;
  Slot *s = w->current;
  if (s && s->in_len + len < w->options.chunk_bytes) {
    /* The common case: a line fits in the current chunk. */
    memcpy(s->in + s->in_len, line, len);
    s->in_len += len;
    return LW_OK;
  }
  return lw_gz_writer_write(w, line, len, &w->sink_err);
}

LwStatus lw_gz_writer_close(LwGzWriter *w, LwGzStats *stats, LwError *err)
{
  LwStatus st = LW_OK;
  if (w->sink_err.status > LW_NOTHING) {
    st = w->sink_err.status;
    if (err) {
      *err = w->sink_err;
    }
  } else if (!w->current) {
    st = thread_failure(w, err);
  } else if (w->current->in_len > 0) {
    st = hand_off(w, err);
  }
  stop_threads(w, st != LW_OK);
  if (st == LW_OK && w->failed) {
    st = thread_failure(w, err);
  }
  if (w->md5) {
    lw_md5_finish(w->md5, w->md5_hex);
  }
  if (stats) {
    stats->bytes_in = w->bytes_in;
    stats->bytes_out = w->bytes_out;
    memcpy(stats->md5, w->md5_hex, sizeof(stats->md5));
  }
  destroy(w);
  return st;
}

void lw_gz_writer_free(LwGzWriter *w)
{
  if (!w) {
    return;
  }
  stop_threads(w, true);
  destroy(w);
}
