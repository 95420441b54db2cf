#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>

LwStatus lw_error_set(LwError *err, LwStatus status, const char *fmt, ...)
{
  if (err) {
    va_list args;
    va_start(args, fmt);
    err->status = status;
    err->retry_after_ms = 0;
    err->defer_ms = 0;
    vsnprintf(err->message, sizeof(err->message), fmt, args);
    va_end(args);
    lw_redact_userinfo(err->message); /* messages are printed: no passwords */
  }
  return status;
}

void lw_error_clear(LwError *err)
{
  if (err) {
    err->status = LW_OK;
    err->message[0] = '\0';
    err->retry_after_ms = 0;
    err->defer_ms = 0;
  }
}

const char *lw_status_name(LwStatus status)
{
  switch (status) {
  case LW_OK:
    return "ok";
  case LW_NOTHING:
    return "nothing";
  case LW_ERR_NET:
    return "net";
  case LW_ERR_REDIS:
    return "redis";
  case LW_ERR_IO:
    return "io";
  case LW_ERR_NOMEM:
    return "nomem";
  case LW_ERR_STORE:
    return "store";
  case LW_ERR_HTTP:
    return "http";
  case LW_ERR_REFUSED:
    return "refused";
  case LW_ERR_LIMIT:
    return "limit";
  case LW_ERR_SYNTAX:
    return "syntax";
  case LW_ERR_FORMAT:
    return "format";
  case LW_ERR_CHECKSUM:
    return "checksum";
  case LW_ERR_STATE:
    return "state";
  case LW_ERR_USAGE:
    return "usage";
  case LW_ERR_INTERNAL:
    return "internal";
  }
  return "unknown";
}

bool lw_status_retryable(LwStatus status)
{
  switch (status) {
  case LW_ERR_NET:
  case LW_ERR_REDIS:
  case LW_ERR_IO:
  case LW_ERR_NOMEM:
  case LW_ERR_STORE:
    return true;
  default:
    return false;
  }
}
