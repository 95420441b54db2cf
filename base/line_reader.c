#include "base/base.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CHUNK (256 * 1024)
#define SLOTS 4

/* Decompressed bytes handed from the reading thread to the caller. */
typedef struct {
  char data[CHUNK];
  int len;
} Slot;

struct LwLineReader {
  gzFile file;
  char *buf; /* buf[start, end) holds bytes read but not yet returned */
  size_t start;
  size_t end;
  size_t cap;
  size_t max_line;
  bool eof;

  /* The reading thread: gzread (inflate) into a ring of slots, so that
   * decompression runs beside the caller's work, not on its thread. */
  pthread_t thread;
  bool thread_started;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  Slot *slots;
  size_t head, count; /* slots[head] is the oldest full one */
  bool read_done;     /* the thread reached the end (or an error) */
  bool stop;          /* the caller closes early */
  char error[256];    /* the thread's read error, "" if none */
};

static void *read_ahead(void *arg)
{
  LwLineReader *r = arg;
  pthread_mutex_lock(&r->lock);
  for (;;) {
    while (r->count == SLOTS && !r->stop) {
      pthread_cond_wait(&r->changed, &r->lock);
    }
    if (r->stop) {
      break;
    }
    Slot *slot = &r->slots[(r->head + r->count) % SLOTS];
    pthread_mutex_unlock(&r->lock);
    int n = gzread(r->file, slot->data, CHUNK); /* the slot is ours until counted */
    pthread_mutex_lock(&r->lock);
    if (n < 0) {
      int code = 0;
      snprintf(r->error, sizeof(r->error), "read error: %s", gzerror(r->file, &code));
    }
    if (n <= 0) {
      break;
    }
    slot->len = n;
    ++r->count;
    pthread_cond_broadcast(&r->changed);
  }
  r->read_done = true;
  pthread_cond_broadcast(&r->changed);
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

LwLineReader *lw_line_reader_open(const char *path, size_t max_line, LwError *err)
{
  LwLineReader *r = calloc(1, sizeof(*r));
  if (!r) {
    lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&r->lock, NULL);
  pthread_cond_init(&r->changed, NULL);
  r->file = gzopen(path, "rb");
  r->cap = 2 * CHUNK;
  r->buf = malloc(r->cap);
  r->slots = malloc(SLOTS * sizeof(Slot));
  r->max_line = max_line;
  if (!r->file || !r->buf || !r->slots) {
    lw_error_set(err, LW_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    lw_line_reader_close(r);
    return NULL;
  }
  gzbuffer(r->file, CHUNK);
  if (pthread_create(&r->thread, NULL, read_ahead, r) != 0) {
    lw_error_set(err, LW_ERR_NOMEM, "cannot start a reading thread");
    lw_line_reader_close(r);
    return NULL;
  }
  r->thread_started = true;
  return r;
}

/* Appends the oldest full slot to buf[end...]; sets eof at the end. */
static LwStatus take_slot(LwLineReader *r, LwError *err)
{
  pthread_mutex_lock(&r->lock);
  while (r->count == 0 && !r->read_done) {
    pthread_cond_wait(&r->changed, &r->lock);
  }
  LwStatus st = LW_OK;
  if (r->count > 0) {
    Slot *slot = &r->slots[r->head];
    memcpy(r->buf + r->end, slot->data, (size_t)slot->len);
    r->end += (size_t)slot->len;
    r->head = (r->head + 1) % SLOTS;
    --r->count;
    pthread_cond_broadcast(&r->changed);
  } else if (r->error[0]) {
    st = lw_error_set(err, LW_ERR_IO, "%s", r->error);
  } else {
    r->eof = true;
  }
  pthread_mutex_unlock(&r->lock);
  return st;
}

/* Moves unread bytes to the front and reads more; grows the buffer when a
 * line does not fit. */
static LwStatus fill(LwLineReader *r, LwError *err)
{
  if (r->start > 0) {
    memmove(r->buf, r->buf + r->start, r->end - r->start);
    r->end -= r->start;
    r->start = 0;
  }
  if (r->cap - r->end < CHUNK) {
    if (r->cap > r->max_line + 2 * CHUNK) {
      return lw_error_set(err, LW_ERR_LIMIT, "line longer than %zu bytes", r->max_line);
    }
    char *grown = realloc(r->buf, r->cap * 2);
    if (!grown) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    r->buf = grown;
    r->cap *= 2;
  }
  return take_slot(r, err);
}

LwStatus lw_line_reader_next(LwLineReader *r, const char **line, size_t *len, LwError *err)
{
  for (;;) {
    char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
    if (nl) {
      *line = r->buf + r->start;
      *len = (size_t)(nl - *line);
      r->start += *len + 1;
      if (*len > r->max_line) {
        return lw_error_set(err, LW_ERR_LIMIT, "line longer than %zu bytes", r->max_line);
      }
      return LW_OK;
    }
    if (r->eof) {
      if (r->start == r->end) {
        return LW_NOTHING;
      }
      /* A last line without "\n". */
      *line = r->buf + r->start;
      *len = r->end - r->start;
      r->start = r->end;
      return LW_OK;
    }
    LW_TRY(fill(r, err));
  }
}

void lw_line_reader_close(LwLineReader *r)
{
  if (!r) {
    return;
  }
  if (r->thread_started) {
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
  }
  if (r->file) {
    gzclose(r->file);
  }
  pthread_mutex_destroy(&r->lock);
  pthread_cond_destroy(&r->changed);
  free(r->slots);
  free(r->buf);
  free(r);
}
