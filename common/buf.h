/*
 * LwBuf: a small growable byte buffer. The bytes are always followed by a
 * NUL (not counted in len) once anything was appended, so data can be used
 * as a C string when it holds no NUL itself.
 *
 * Usage: LwBuf b = LW_BUF_INIT; lw_buf_append(&b, ...); ... lw_buf_free(&b);
 * The buffer owns data; lw_buf_free releases it (safe on a zeroed or already
 * freed buffer, and on NULL). lw_buf_reset empties it and keeps the memory.
 */
#ifndef LW_BUF_H
#define LW_BUF_H

#include <stddef.h>

#include "common/status.h"

typedef struct {
  char *data;  /* owned; NULL until the first append */
  size_t len;  /* bytes used, not counting the trailing NUL */
  size_t cap;  /* bytes allocated */
} LwBuf;

#define LW_BUF_INIT {NULL, 0, 0}

/* Makes room for at least extra more bytes (plus the NUL).
 * LW_ERR_NOMEM when the allocation fails (the buffer is unchanged). */
LwStatus lw_buf_reserve(LwBuf *buf, size_t extra);

/* Appends len bytes of data. */
LwStatus lw_buf_append(LwBuf *buf, const void *data, size_t len);

/* Appends the NUL-terminated string str (without its NUL). */
LwStatus lw_buf_append_str(LwBuf *buf, const char *str);

/* Appends one byte. */
LwStatus lw_buf_append_char(LwBuf *buf, char c);

/* Appends printf-formatted text. */
LwStatus lw_buf_appendf(LwBuf *buf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Empties the buffer (len 0) and keeps its memory. */
void lw_buf_reset(LwBuf *buf);

/* Frees the memory and zeroes the buffer. NULL is safe. */
void lw_buf_free(LwBuf *buf);

/* Hands the data over to the caller (who frees it with free()) and zeroes the
 * buffer. Returns an empty allocated string when nothing was appended, NULL
 * only when out of memory. */
char *lw_buf_steal(LwBuf *buf);

#endif
