#include "common/line_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CHUNK (256 * 1024)

struct LwLineReader {
  gzFile file;
  char *buf;      /* buf[start, end) holds bytes read but not yet returned */
  size_t start;
  size_t end;
  size_t cap;
  size_t max_line;
  bool eof;
};

LwLineReader *lw_line_reader_open(const char *path, size_t max_line, LwError *err)
{
  LwLineReader *r = calloc(1, sizeof(*r));
  if (!r) {
    lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    return NULL;
  }
  r->file = gzopen(path, "rb");
  r->cap = 2 * CHUNK;
  r->buf = malloc(r->cap);
  r->max_line = max_line;
  if (!r->file || !r->buf) {
    lw_error_set(err, LW_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    lw_line_reader_close(r);
    return NULL;
  }
  gzbuffer(r->file, CHUNK);
  return r;
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
  int n = gzread(r->file, r->buf + r->end, (unsigned)(r->cap - r->end));
  if (n < 0) {
    int code = 0;
    return lw_error_set(err, LW_ERR_IO, "read error: %s", gzerror(r->file, &code));
  }
  if (n == 0) {
    r->eof = true;
  }
  r->end += (size_t)n;
  return LW_OK;
}

LwStatus lw_line_reader_next(LwLineReader *r, const char **line, size_t *len,
                             LwError *err)
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
  if (r) {
    if (r->file) {
      gzclose(r->file);
    }
    free(r->buf);
    free(r);
  }
}
