#include "base/base.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LwStatus lw_buf_reserve(LwBuf *buf, size_t extra)
{
  if (extra > SIZE_MAX - buf->len - 1) {
    return LW_ERR_NOMEM;
  }
  size_t need = buf->len + extra + 1;
  if (need <= buf->cap) {
    return LW_OK;
  }
  size_t cap = buf->cap ? buf->cap : 64;
  while (cap < need) {
    cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  }
  char *data = realloc(buf->data, cap);
  if (!data) {
    return LW_ERR_NOMEM;
  }
  buf->data = data;
  buf->cap = cap;
  return LW_OK;
}

LwStatus lw_buf_append(LwBuf *buf, const void *data, size_t len)
{
  LW_TRY(lw_buf_reserve(buf, len));
  if (len) {
    memcpy(buf->data + buf->len, data, len);
  }
  buf->len += len;
  buf->data[buf->len] = '\0';
  return LW_OK;
}

LwStatus lw_buf_append_str(LwBuf *buf, const char *str)
{
  return lw_buf_append(buf, str, strlen(str));
}

LwStatus lw_buf_appendf(LwBuf *buf, const char *fmt, ...)
{
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(NULL, 0, fmt, args);
  va_end(args);
  if (n < 0) {
    return LW_ERR_INTERNAL;
  }
  LW_TRY(lw_buf_reserve(buf, (size_t)n));
  va_start(args, fmt);
  vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, args);
  va_end(args);
  buf->len += (size_t)n;
  return LW_OK;
}

void lw_buf_reset(LwBuf *buf)
{
  buf->len = 0;
  if (buf->data) {
    buf->data[0] = '\0';
  }
}

void lw_buf_free(LwBuf *buf)
{
  if (buf) {
    free(buf->data);
    buf->data = NULL;
    buf->len = buf->cap = 0;
  }
}

char *lw_buf_steal(LwBuf *buf)
{
  if (!buf->data && lw_buf_reserve(buf, 0) != LW_OK) {
    return NULL;
  }
  if (buf->len == 0) {
    buf->data[0] = '\0';
  }
  char *data = buf->data;
  buf->data = NULL;
  buf->len = buf->cap = 0;
  return data;
}
