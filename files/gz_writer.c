#include "files/files.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DEFAULT_CHUNK ((size_t)512 << 10)
#define MIN_CHUNK ((size_t)4 << 10)
#define DEFAULT_THREADS 2u
#define MAX_THREADS 16u
#define DICT_BYTES ((size_t)32 << 10)

/* A slot moves FREE -> FILLING (the producer copies bytes in) -> FILLED
 * (queued) -> WORKING (a compression thread has it) -> DONE -> FREE (the
 * writer wrote it). Plain output skips FILLED and WORKING. Slot seq % n. */
typedef enum { SLOT_FREE, SLOT_FILLING, SLOT_FILLED, SLOT_WORKING, SLOT_DONE } SlotState;

typedef struct {
  SlotState state;
  unsigned long long seq;
  char *in;
  size_t in_len;
  unsigned char *dict; /* the end of the chunk before: deflate's history */
  size_t dict_len;
  unsigned char *out; /* raw deflate data ending in a sync flush */
  size_t out_len;
  uLong crc;
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

  pthread_mutex_t mutex;
  pthread_cond_t changed; /* any slot changed state, or closing */
  pthread_t *workers;
  unsigned n_workers;
  pthread_t writer;
  bool writer_running;
  bool closing;  /* no more chunks will come */
  bool aborting; /* drop what is queued, do not finish the stream */
  bool failed;   /* a thread failed; message in thread_err */
  LwError thread_err;
  LwError sink_err;

  /* The writer thread's own. */
  LwMd5 *md5;
  uLong crc;
  unsigned long long bytes_in;
  unsigned long long bytes_out;
  char md5_hex[LW_HASH_HEX_LEN + 1];
};

static Slot *slot_of(LwGzWriter *w, unsigned long long seq)
{
  return &w->slots[seq % w->n_slots];
}

static void fail(LwGzWriter *w, LwStatus status, const char *message)
{
  pthread_mutex_lock(&w->mutex);
  if (!w->failed) {
    w->failed = true;
    lw_error_set(&w->thread_err, status, "%s", message);
  }
  pthread_cond_broadcast(&w->changed);
  pthread_mutex_unlock(&w->mutex);
}

/* ---- compression threads ------------------------------------------------ */

static bool compress_slot(z_stream *zs, Slot *s, size_t out_cap)
{
  s->crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)s->in, (uInt)s->in_len);
  if (deflateReset(zs) != Z_OK) {
    return false;
  }
  if (s->dict_len && deflateSetDictionary(zs, s->dict, (uInt)s->dict_len) != Z_OK) {
    return false;
  }
  zs->next_in = (Bytef *)s->in;
  zs->avail_in = (uInt)s->in_len;
  zs->next_out = s->out;
  zs->avail_out = (uInt)out_cap;
  /* A sync flush ends the piece on a byte boundary without a final block,
   * so the next piece can follow it in the same stream. */
  int rc = deflate(zs, Z_SYNC_FLUSH);
  if (rc != Z_OK || zs->avail_in != 0 || zs->avail_out == 0) {
    return false;
  }
  s->out_len = out_cap - zs->avail_out;
  return true;
}

static void *worker_main(void *arg)
{
  LwGzWriter *w = arg;
  z_stream zs;
  memset(&zs, 0, sizeof(zs));
  /* windowBits -15: raw deflate; the writer adds gzip's header and trailer. */
  bool ok = deflateInit2(&zs, w->options.level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) ==
            Z_OK;
  if (!ok) {
    fail(w, LW_ERR_NOMEM, "zlib: cannot start a compressor");
  }
  pthread_mutex_lock(&w->mutex);
  for (;;) {
    Slot *s = slot_of(w, w->next_work);
    while (!(s->state == SLOT_FILLED && s->seq == w->next_work) &&
           !(w->closing && w->next_work == w->next_fill)) {
      pthread_cond_wait(&w->changed, &w->mutex);
      s = slot_of(w, w->next_work);
    }
    if (!(s->state == SLOT_FILLED && s->seq == w->next_work)) {
      break; /* closing and nothing left */
    }
    s->state = SLOT_WORKING;
    w->next_work++;
    bool skip = !ok || w->aborting || w->failed;
    pthread_mutex_unlock(&w->mutex);
    if (!skip) {
      s->failed = !compress_slot(&zs, s, w->out_cap);
    }
    pthread_mutex_lock(&w->mutex);
    s->state = SLOT_DONE;
    pthread_cond_broadcast(&w->changed);
  }
  pthread_mutex_unlock(&w->mutex);
  if (ok) {
    deflateEnd(&zs);
  }
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

static bool put_le32(LwGzWriter *w, uint32_t v)
{
  unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  return put(w, b, 4);
}

static bool write_slot(LwGzWriter *w, Slot *s)
{
  if (w->md5) {
    lw_md5_update(w->md5, s->in, s->in_len);
  }
  w->bytes_in += s->in_len;
  if (!w->options.gzip) {
    return put(w, s->in, s->in_len);
  }
  if (s->failed) {
    fail(w, LW_ERR_INTERNAL, "zlib: compression failed");
    return false;
  }
  w->crc = crc32_combine(w->crc, s->crc, (z_off_t)s->in_len);
  return put(w, s->out, s->out_len);
}

static void *writer_main(void *arg)
{
  LwGzWriter *w = arg;
  /* gzip header: magic, deflate, no flags, no time, no extra, Unix. */
  static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  bool ok = !w->options.gzip || put(w, header, sizeof(header));
  pthread_mutex_lock(&w->mutex);
  for (;;) {
    Slot *s = slot_of(w, w->next_write);
    while (!(s->state == SLOT_DONE && s->seq == w->next_write) &&
           !(w->closing && w->next_write == w->next_fill)) {
      pthread_cond_wait(&w->changed, &w->mutex);
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
    pthread_cond_broadcast(&w->changed);
  }
  bool finish = ok && !w->aborting && !w->failed;
  pthread_mutex_unlock(&w->mutex);
  if (finish && w->options.gzip) {
    /* An empty final block with fixed codes, then CRC-32 and size. */
    static const unsigned char last[2] = {0x03, 0x00};
    finish = put(w, last, 2) && put_le32(w, (uint32_t)w->crc) &&
             put_le32(w, (uint32_t)(w->bytes_in & 0xFFFFFFFFu));
  }
  if (finish && fflush(w->out) != 0) {
    char msg[256];
    snprintf(msg, sizeof(msg), "cannot write output: %s", strerror(errno));
    fail(w, LW_ERR_IO, msg);
  }
  return NULL;
}

/* ---- the producer side -------------------------------------------------- */

static void destroy(LwGzWriter *w)
{
  if (w->slots) {
    for (size_t i = 0; i < w->n_slots; ++i) {
      free(w->slots[i].in);
      free(w->slots[i].dict);
      free(w->slots[i].out);
    }
  }
  free(w->slots);
  free(w->workers);
  lw_md5_free(w->md5);
  pthread_mutex_destroy(&w->mutex);
  pthread_cond_destroy(&w->changed);
  free(w);
}

static void stop_threads(LwGzWriter *w, bool abort)
{
  pthread_mutex_lock(&w->mutex);
  w->closing = true;
  w->aborting = w->aborting || abort;
  pthread_cond_broadcast(&w->changed);
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
      s->dict = malloc(DICT_BYTES);
      s->out = malloc(w->out_cap);
      if (!s->dict || !s->out) {
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
  pthread_cond_init(&w->changed, NULL);
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
    o->threads = DEFAULT_THREADS;
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
  /* Worst case of deflate on incompressible data, plus the sync flush. */
  w->out_cap = compressBound((uLong)o->chunk_bytes) + 64;
  w->md5 = o->no_md5 ? NULL : lw_md5_new();
  unsigned n_workers = o->gzip ? o->threads : 0;
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
  pthread_mutex_lock(&w->mutex);
  prev->state = w->options.gzip ? SLOT_FILLED : SLOT_DONE;
  w->next_fill++;
  pthread_cond_broadcast(&w->changed);
  Slot *next = slot_of(w, w->next_fill);
  while (next->state != SLOT_FREE && !w->failed) {
    pthread_cond_wait(&w->changed, &w->mutex);
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
  /* prev->in stays intact until the producer fills that slot again. */
  next->in_len = 0;
  next->failed = false;
  next->dict_len = 0;
  if (w->options.gzip) {
    size_t d = prev->in_len < DICT_BYTES ? prev->in_len : DICT_BYTES;
    memcpy(next->dict, prev->in + prev->in_len - d, d);
    next->dict_len = d;
  }
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
