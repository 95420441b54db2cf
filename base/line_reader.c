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
  Slot *cur;     /* the caller's slot (slots[head], still counted), or NULL */
  size_t pos;    /* the next unread byte of cur */
  char *buf;     /* a line that crosses slots is assembled here */
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
  r->slots = malloc(SLOTS * sizeof(Slot));
  r->max_line = max_line;
  if (!r->file || !r->slots) {
    lw_error_set(err, LW_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    lw_line_reader_close(r);
    return NULL;
  }
  /* zlib inflates straight into the caller's buffer only when asked for at
   * least twice its own buffer; with a larger one, every byte is inflated
   * into zlib's buffer and copied again into a slot. */
  gzbuffer(r->file, CHUNK / 4);
  if (pthread_create(&r->thread, NULL, read_ahead, r) != 0) {
    lw_error_set(err, LW_ERR_NOMEM, "cannot start a reading thread");
    lw_line_reader_close(r);
    return NULL;
  }
  r->thread_started = true;
  return r;
}

/* Gives the caller's slot back to the reading thread and takes the next
 * full one (waiting for it); sets eof at the end. */
static LwStatus next_slot(LwLineReader *r, LwError *err)
{
  pthread_mutex_lock(&r->lock);
  if (r->cur) {
    r->cur = NULL;
    r->head = (r->head + 1) % SLOTS;
    --r->count;
    pthread_cond_broadcast(&r->changed);
  }
  while (r->count == 0 && !r->read_done) {
    pthread_cond_wait(&r->changed, &r->lock);
  }
  LwStatus st = LW_OK;
  if (r->count > 0) {
    r->cur = &r->slots[r->head];
    r->pos = 0;
  } else if (r->error[0]) {
    st = lw_error_set(err, LW_ERR_IO, "%s", r->error);
  } else {
    r->eof = true;
  }
  pthread_mutex_unlock(&r->lock);
  return st;
}

/* Appends n bytes to the line assembled in buf (*have bytes so far). */
static LwStatus assemble(LwLineReader *r, size_t *have, const char *data, size_t n,
                         LwError *err)
{
  if (n == 0) {
    return LW_OK;
  }
  if (*have + n > r->max_line) {
    return lw_error_set(err, LW_ERR_LIMIT, "line longer than %zu bytes", r->max_line);
  }
  if (*have + n > r->cap) {
    size_t cap = r->cap ? r->cap : CHUNK;
    while (cap < *have + n) {
      cap *= 2;
    }
    char *grown = realloc(r->buf, cap);
    if (!grown) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    r->buf = grown;
    r->cap = cap;
  }
  memcpy(r->buf + *have, data, n);
  *have += n;
  return LW_OK;
}

/* Lines are returned where they lie in the slot the reading thread filled;
 * only a line that crosses into the next slot is copied (into buf). */
LwStatus lw_line_reader_next(LwLineReader *r, const char **line, size_t *len, LwError *err)
{
  size_t have = 0; /* bytes of this line assembled in buf */
  for (;;) {
    if (r->cur) {
      const char *p = r->cur->data + r->pos;
      size_t n = (size_t)r->cur->len - r->pos;
      const char *nl = memchr(p, '\n', n);
      if (nl) {
        size_t k = (size_t)(nl - p);
        r->pos += k + 1;
        if (have) {
          LW_TRY(assemble(r, &have, p, k, err));
          p = r->buf;
          k = have;
        } else if (k > r->max_line) {
          return lw_error_set(err, LW_ERR_LIMIT, "line longer than %zu bytes", r->max_line);
        }
        *line = p;
        *len = k;
        return LW_OK;
      }
      LW_TRY(assemble(r, &have, p, n, err));
      r->pos += n;
    }
    if (r->eof) {
      if (!have) {
        return LW_NOTHING;
      }
      *line = r->buf; /* a last line without "\n" */
      *len = have;
      return LW_OK;
    }
    LW_TRY(next_slot(r, err));
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
