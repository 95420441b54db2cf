#include "common/gz_writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DEFAULT_CHUNK ((size_t)256 << 10)
#define DEFAULT_QUEUE 4u
#define ZOUT_BYTES ((size_t)256 << 10)

struct LwGzWriter {
  FILE *out;
  LwGzOptions options;

  /* Chunks: the producer fills `current`; full chunks wait in the ring
   * `queue`; the thread hands processed chunks back through `free_list`. */
  char **chunks;
  size_t *chunk_len;
  size_t n_chunks;
  size_t *queue;
  size_t q_head, q_count;
  size_t *free_list;
  size_t n_free;
  size_t current;
  size_t current_len;

  pthread_mutex_t mutex;
  pthread_cond_t changed; /* queue or free list changed, or closing */
  pthread_t thread;
  bool thread_running;
  bool closing;  /* no more chunks will come */
  bool aborting; /* drop what is queued, do not finish the stream */
  bool failed;   /* set by the thread; message in thread_err */
  LwError thread_err;
  LwError sink_err;

  /* Owned by the thread while it runs. */
  z_stream zs;
  bool z_ready;
  unsigned char *zout;
  LwMd5 *md5;
  unsigned long long bytes_in;
  unsigned long long bytes_out;
  char md5_hex[LW_HASH_HEX_LEN + 1];
};

/* ---- the writer thread -------------------------------------------------- */

static bool put(LwGzWriter *w, const void *data, size_t len)
{
  if (len && fwrite(data, 1, len, w->out) != len) {
    lw_error_set(&w->thread_err, LW_ERR_IO, "cannot write output: %s",
                 strerror(errno));
    return false;
  }
  w->bytes_out += len;
  return true;
}

static bool deflate_some(LwGzWriter *w, const void *data, size_t len, int flush)
{
  w->zs.next_in = (unsigned char *)(uintptr_t)data;
  w->zs.avail_in = (unsigned)len;
  do {
    w->zs.next_out = w->zout;
    w->zs.avail_out = (unsigned)ZOUT_BYTES;
    int rc = deflate(&w->zs, flush);
    if (rc == Z_STREAM_ERROR) {
      lw_error_set(&w->thread_err, LW_ERR_INTERNAL, "zlib deflate failed");
      return false;
    }
    if (!put(w, w->zout, ZOUT_BYTES - w->zs.avail_out)) {
      return false;
    }
  } while (w->zs.avail_out == 0 || w->zs.avail_in > 0);
  return true;
}

static bool process(LwGzWriter *w, const char *data, size_t len)
{
  lw_md5_update(w->md5, data, len);
  w->bytes_in += len;
  return w->options.gzip ? deflate_some(w, data, len, Z_NO_FLUSH)
                         : put(w, data, len);
}

static void *writer_main(void *arg)
{
  LwGzWriter *w = arg;
  bool ok = true;
  for (;;) {
    pthread_mutex_lock(&w->mutex);
    while (w->q_count == 0 && !w->closing) {
      pthread_cond_wait(&w->changed, &w->mutex);
    }
    if (w->q_count == 0) {
      pthread_mutex_unlock(&w->mutex);
      break;
    }
    size_t idx = w->queue[w->q_head];
    w->q_head = (w->q_head + 1) % w->n_chunks;
    w->q_count--;
    bool skip = w->aborting || !ok;
    pthread_mutex_unlock(&w->mutex);

    if (!skip) {
      ok = process(w, w->chunks[idx], w->chunk_len[idx]);
    }

    pthread_mutex_lock(&w->mutex);
    w->free_list[w->n_free++] = idx;
    if (!ok) {
      w->failed = true;
    }
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->mutex);
  }
  if (ok && !w->aborting) {
    if (w->options.gzip) {
      ok = deflate_some(w, NULL, 0, Z_FINISH);
    }
    if (ok && fflush(w->out) != 0) {
      lw_error_set(&w->thread_err, LW_ERR_IO, "cannot write output: %s",
                   strerror(errno));
      ok = false;
    }
  }
  if (!ok) {
    pthread_mutex_lock(&w->mutex);
    w->failed = true;
    pthread_mutex_unlock(&w->mutex);
  }
  return NULL;
}

/* ---- the producer side -------------------------------------------------- */

static void destroy(LwGzWriter *w)
{
  if (w->chunks) {
    for (size_t i = 0; i < w->n_chunks; ++i) {
      free(w->chunks[i]);
    }
  }
  free(w->chunks);
  free(w->chunk_len);
  free(w->queue);
  free(w->free_list);
  if (w->z_ready) {
    deflateEnd(&w->zs);
  }
  free(w->zout);
  lw_md5_free(w->md5);
  pthread_mutex_destroy(&w->mutex);
  pthread_cond_destroy(&w->changed);
  free(w);
}

LwStatus lw_gz_writer_open(FILE *out, const LwGzOptions *options,
                           LwGzWriter **writer, LwError *err)
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
  if (w->options.level <= 0 || w->options.level > 9) {
    w->options.level = 1;
  }
  if (!w->options.chunk_bytes) {
    w->options.chunk_bytes = DEFAULT_CHUNK;
  }
  if (!w->options.queue_chunks) {
    w->options.queue_chunks = DEFAULT_QUEUE;
  }
  w->n_chunks = (size_t)w->options.queue_chunks + 1;
  w->chunks = calloc(w->n_chunks, sizeof(*w->chunks));
  w->chunk_len = calloc(w->n_chunks, sizeof(*w->chunk_len));
  w->queue = calloc(w->n_chunks, sizeof(*w->queue));
  w->free_list = calloc(w->n_chunks, sizeof(*w->free_list));
  w->md5 = lw_md5_new();
  bool ok = w->chunks && w->chunk_len && w->queue && w->free_list && w->md5;
  for (size_t i = 0; ok && i < w->n_chunks; ++i) {
    w->chunks[i] = malloc(w->options.chunk_bytes);
    ok = w->chunks[i] != NULL;
  }
  if (ok && w->options.gzip) {
    w->zout = malloc(ZOUT_BYTES);
    /* windowBits 15 + 16: a gzip header and trailer, not raw zlib. */
    ok = w->zout && deflateInit2(&w->zs, w->options.level, Z_DEFLATED, 15 + 16,
                                 8, Z_DEFAULT_STRATEGY) == Z_OK;
    w->z_ready = ok;
  }
  if (!ok) {
    destroy(w);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for the output writer");
  }
  /* Chunk 0 is the producer's; the others are free. */
  w->current = 0;
  for (size_t i = 1; i < w->n_chunks; ++i) {
    w->free_list[w->n_free++] = i;
  }
  if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
    destroy(w);
    return lw_error_set(err, LW_ERR_INTERNAL, "cannot start the writer thread");
  }
  w->thread_running = true;
  *writer = w;
  return LW_OK;
}

/* Queues the current chunk and takes a free one (waiting for it). */
static LwStatus hand_off(LwGzWriter *w, LwError *err)
{
  pthread_mutex_lock(&w->mutex);
  w->chunk_len[w->current] = w->current_len;
  w->queue[(w->q_head + w->q_count) % w->n_chunks] = w->current;
  w->q_count++;
  pthread_cond_broadcast(&w->changed);
  while (w->n_free == 0 && !w->failed) {
    pthread_cond_wait(&w->changed, &w->mutex);
  }
  bool failed = w->failed;
  if (w->n_free > 0) {
    w->current = w->free_list[--w->n_free];
    w->current_len = 0;
  }
  pthread_mutex_unlock(&w->mutex);
  if (failed) {
    /* The thread has stopped writing; its message is complete. */
    if (err) {
      *err = w->thread_err;
    }
    return w->thread_err.status ? w->thread_err.status : LW_ERR_IO;
  }
  return LW_OK;
}

LwStatus lw_gz_writer_write(LwGzWriter *w, const void *data, size_t len,
                            LwError *err)
{
  const char *p = data;
  size_t size = w->options.chunk_bytes;
  while (len > 0) {
    size_t room = size - w->current_len;
    size_t n = len < room ? len : room;
    memcpy(w->chunks[w->current] + w->current_len, p, n);
    w->current_len += n;
    p += n;
    len -= n;
    if (w->current_len == size) {
      LW_TRY(hand_off(w, err));
    }
  }
  return LW_OK;
}

LwStatus lw_gz_writer_sink(void *handle, const char *line, size_t len)
{
  LwGzWriter *w = handle;
  if (w->current_len + len < w->options.chunk_bytes) {
    /* The common case: a line fits in the current chunk. */
    memcpy(w->chunks[w->current] + w->current_len, line, len);
    w->current_len += len;
    return LW_OK;
  }
  return lw_gz_writer_write(w, line, len, &w->sink_err);
}

static void stop_thread(LwGzWriter *w, bool abort)
{
  if (!w->thread_running) {
    return;
  }
  pthread_mutex_lock(&w->mutex);
  w->closing = true;
  w->aborting = abort;
  pthread_cond_broadcast(&w->changed);
  pthread_mutex_unlock(&w->mutex);
  pthread_join(w->thread, NULL);
  w->thread_running = false;
}

LwStatus lw_gz_writer_close(LwGzWriter *w, LwGzStats *stats, LwError *err)
{
  LwStatus st = LW_OK;
  if (w->sink_err.status > LW_NOTHING) {
    st = w->sink_err.status;
    if (err) {
      *err = w->sink_err;
    }
    stop_thread(w, true);
  } else {
    if (w->current_len > 0) {
      st = hand_off(w, err);
    }
    stop_thread(w, st != LW_OK);
    if (st == LW_OK && w->failed) {
      st = w->thread_err.status ? w->thread_err.status : LW_ERR_IO;
      if (err) {
        *err = w->thread_err;
      }
    }
  }
  lw_md5_finish(w->md5, w->md5_hex);
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
  stop_thread(w, true);
  destroy(w);
}
