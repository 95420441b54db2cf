/*
 * lodwash status codes and error context.
 *
 * One status type for the whole code base (as serd's SerdStatus): 0 is
 * success, LW_NOTHING a mild "nothing was done", then real errors. The queue
 * treats retryable errors (network, 5xx, Redis down) apart from permanent
 * ones (bad syntax, hostile archive, 4xx): lw_status_retryable() says which.
 *
 * Error detail travels in an LwError (code + short message) owned by the
 * caller; the worker copies the message onto the seed record.
 */
#ifndef LW_STATUS_H
#define LW_STATUS_H

#include <stdbool.h>

typedef enum {
  LW_OK = 0,          /* success */
  LW_NOTHING,         /* nothing done: queue empty, content unchanged, ... */
  /* retryable */
  LW_ERR_NET,         /* DNS, connect, TLS, timeout, 5xx, 429 */
  LW_ERR_REDIS,       /* Redis unreachable or failing */
  LW_ERR_IO,          /* local file system (disk full, permissions) */
  LW_ERR_NOMEM,       /* allocation failed */
  LW_ERR_STORE,       /* triple store unreachable or failing */
  /* permanent */
  LW_ERR_HTTP,        /* 4xx and other definitive HTTP answers */
  LW_ERR_REFUSED,     /* scheme or address not allowed */
  LW_ERR_LIMIT,       /* a size, count, depth or ratio cap was hit */
  LW_ERR_SYNTAX,      /* input does not parse */
  LW_ERR_FORMAT,      /* input is not what it must be (not RDF, bad archive) */
  LW_ERR_CHECKSUM,    /* declared checksum does not match */
  LW_ERR_STATE,       /* a record is not in a state that allows this */
  LW_ERR_USAGE,       /* bad arguments or configuration */
  LW_ERR_INTERNAL     /* a bug: should never happen */
} LwStatus;

#define LW_ERROR_MESSAGE_MAX 512

/* An error context: filled by the function that failed, read by its caller. */
typedef struct {
  LwStatus status;
  char message[LW_ERROR_MESSAGE_MAX];
  /* A retryable error may say how long to wait (an HTTP Retry-After), in
   * milliseconds; 0: the queue's own backoff. lw_error_set and
   * lw_error_clear reset it: set it after the message. */
  long long retry_after_ms;
} LwError;

/* Records status and a printf-style message in err (err may be NULL) and
 * returns status, so that `return lw_error_set(err, LW_ERR_IO, ...)` reads
 * naturally. */
LwStatus lw_error_set(LwError *err, LwStatus status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears err to LW_OK with an empty message. */
void lw_error_clear(LwError *err);

/* A short stable name for status, such as "net" or "syntax". */
const char *lw_status_name(LwStatus status);

/* True for errors that may go away by themselves (the queue retries them). */
bool lw_status_retryable(LwStatus status);

/* Propagates real errors (anything above LW_NOTHING) to the caller. */
#define LW_TRY(expr)                                                           \
  do {                                                                         \
    LwStatus lw_try_status_ = (expr);                                          \
    if (lw_try_status_ > LW_NOTHING) {                                         \
      return lw_try_status_;                                                   \
    }                                                                          \
  } while (0)

#endif
