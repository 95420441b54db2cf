/*
 * lodwash's base library: what every other library and program uses.
 *
 * Status codes and errors (LwStatus, LwError, LW_TRY): 0 is success,
 * LW_NOTHING a mild "nothing done", then real errors, retryable ones kept apart
 * from permanent ones. The logger, growable buffers, hashes, sets of hex
 * digests, UTF-8 checks, dates, a line reader and RFC 3986 URIs.
 *
 * Depends on no other lodwash library. Below, one section per module, each with
 * its own documentation; the module's code is base/<module>.c.
 */
#ifndef LW_BASE_H
#define LW_BASE_H

/* ---- errors (base/errors.c) -------------------------------------------- */

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
#include <stdbool.h>

typedef enum {
  LW_OK = 0,  /* success */
  LW_NOTHING, /* nothing done: queue empty, content unchanged, ... */
  /* retryable */
  LW_ERR_NET,   /* DNS, connect, TLS, timeout, 5xx, 429 */
  LW_ERR_REDIS, /* Redis unreachable or failing */
  LW_ERR_IO,    /* local file system (disk full, permissions) */
  LW_ERR_NOMEM, /* allocation failed */
  LW_ERR_STORE, /* triple store unreachable or failing */
  /* permanent */
  LW_ERR_HTTP,     /* 4xx and other definitive HTTP answers */
  LW_ERR_REFUSED,  /* scheme or address not allowed */
  LW_ERR_LIMIT,    /* a size, count, depth or ratio cap was hit */
  LW_ERR_SYNTAX,   /* input does not parse */
  LW_ERR_FORMAT,   /* input is not what it must be (not RDF, bad archive) */
  LW_ERR_CHECKSUM, /* declared checksum does not match */
  LW_ERR_STATE,    /* a record is not in a state that allows this */
  LW_ERR_USAGE,    /* bad arguments or configuration */
  LW_ERR_INTERNAL  /* a bug: should never happen */
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
  /* > 0: not the job's doing (its host is full with other downloads): the
   * job waits this long in the delayed set, no attempt spent, and its
   * worker goes on with other jobs (workers/worker.c). Reset like
   * retry_after_ms. */
  long long defer_ms;
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
#define LW_TRY(expr)                                                                       \
  do {                                                                                     \
    LwStatus lw_try_status_ = (expr);                                                      \
    if (lw_try_status_ > LW_NOTHING) {                                                     \
      return lw_try_status_;                                                               \
    }                                                                                      \
  } while (0)

/* ---- log (base/log.c) -------------------------------------------------- */

/*
 * The one logging module: levels, printf-format checking, one line per event
 * with key=value fields, to stderr (docker collects it). --log-json switches
 * to one JSON object per line for log collectors.
 *
 *   lw_log(LW_LOG_INFO, "stage=%s seed=%s outcome=done ms=%ld", ...);
 *
 * The message itself should be key=value fields; a free-text message goes in
 * msg="...". Each line starts with time, level and program.
 */
#include <stdbool.h>

typedef enum { LW_LOG_ERROR = 0, LW_LOG_WARN, LW_LOG_INFO, LW_LOG_DEBUG } LwLogLevel;

/* Sets the program name shown on each line, the lowest level printed and
 * whether lines are JSON. Safe to call again. */
void lw_log_init(const char *program, LwLogLevel level, bool json);

/* Parses "error", "warn", "info" or "debug"; returns false if unknown. */
bool lw_log_level_parse(const char *name, LwLogLevel *level);

/* True if a line at level would be printed. */
bool lw_log_enabled(LwLogLevel level);

void lw_log(LwLogLevel level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define lw_error(...) lw_log(LW_LOG_ERROR, __VA_ARGS__)
#define lw_warn(...) lw_log(LW_LOG_WARN, __VA_ARGS__)
#define lw_info(...) lw_log(LW_LOG_INFO, __VA_ARGS__)
#define lw_debug(...) lw_log(LW_LOG_DEBUG, __VA_ARGS__)

/* ---- escape (base/escape.c) -------------------------------------------- */

/*
 * Text from outside (a provider's literals, a server's reason phrase or
 * error body) made safe to print in a log line, an error message or a page,
 * and URLs printed without their user info (passwords).
 */
#include <stddef.h>

/* At most max bytes of s (len bytes) into out (size bytes, always ended):
 * control characters as \n, \r, \t or \xNN, and "..." when cut (by max or
 * by size). Returns out. */
char *lw_escape_text(const char *s, size_t len, size_t max, char *out, size_t size);

/* The same for a value printed between double quotes (key="..."): quotes
 * and backslashes escaped as well. s is a C string. Returns out. */
char *lw_escape_quoted(const char *s, size_t max, char *out, size_t size);

/* url without its user info: scheme://user:password@host/... becomes
 * scheme://host/...; any other text is copied as it is. Returns out. */
char *lw_url_redact(const char *url, char *out, size_t size);

/* Removes, in place, the user info of every URL in text ("scheme://" then
 * an authority holding '@'). lw_log and lw_error_set run every line and
 * every error message through it, so no password in a URL (the Redis URL,
 * a registry's or a store's) is ever printed. */
void lw_redact_userinfo(char *text);

/* ---- buf (base/buf.c) -------------------------------------------------- */

/*
 * LwBuf: a small growable byte buffer. The bytes are always followed by a
 * NUL (not counted in len) once anything was appended, so data can be used
 * as a C string when it holds no NUL itself.
 *
 * Usage: LwBuf b = LW_BUF_INIT; lw_buf_append(&b, ...); ... lw_buf_free(&b);
 * The buffer owns data; lw_buf_free releases it (safe on a zeroed or already
 * freed buffer, and on NULL). lw_buf_reset empties it and keeps the memory.
 */
#include <stddef.h>

typedef struct {
  char *data; /* owned; NULL until the first append */
  size_t len; /* bytes used, not counting the trailing NUL */
  size_t cap; /* bytes allocated */
} LwBuf;

#define LW_BUF_INIT                                                                        \
  {                                                                                        \
    NULL, 0, 0                                                                             \
  }

/* Makes room for at least extra more bytes (plus the NUL).
 * LW_ERR_NOMEM when the allocation fails (the buffer is unchanged). */
LwStatus lw_buf_reserve(LwBuf *buf, size_t extra);

/* Appends len bytes of data. */
LwStatus lw_buf_append(LwBuf *buf, const void *data, size_t len);

/* Appends the NUL-terminated string str (without its NUL). */
LwStatus lw_buf_append_str(LwBuf *buf, const char *str);

/* Appends one byte: inline, as the canonical writer appends a few for
 * every term of every statement. */
static inline LwStatus lw_buf_append_char(LwBuf *buf, char c)
{
  if (buf->len + 1 < buf->cap) {
    buf->data[buf->len++] = c;
    buf->data[buf->len] = '\0';
    return LW_OK;
  }
  return lw_buf_append(buf, &c, 1);
}

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

/* ---- hash (base/hash.c) ------------------------------------------------ */

/*
 * MD5 hashing (OpenSSL EVP) as lowercase hex: seed hashes, content hashes.
 */
#include <stddef.h>

#define LW_HASH_HEX_LEN 32

typedef struct LwMd5 LwMd5;

/* len bytes as 2 * len lowercase hex digits and a NUL in out. */
void lw_hex_encode(const unsigned char *bytes, size_t len, char *out);

/* MD5 of data as 32 lowercase hex digits and a NUL in out. */
void lw_md5_hex(const void *data, size_t len, char out[LW_HASH_HEX_LEN + 1]);

/* A streaming MD5: new, update any number of times, finish, free.
 * lw_md5_new returns NULL when out of memory. lw_md5_free(NULL) is safe. */
LwMd5 *lw_md5_new(void);
void lw_md5_update(LwMd5 *md5, const void *data, size_t len);
void lw_md5_finish(LwMd5 *md5, char out[LW_HASH_HEX_LEN + 1]);
void lw_md5_free(LwMd5 *md5);

/* A streaming SHA-256, the same way (the content record's second checksum,
 * for the metadata graph's spdx:checksum). */
#define LW_SHA256_HEX_LEN 64
typedef struct LwSha256 LwSha256;
LwSha256 *lw_sha256_new(void);
void lw_sha256_update(LwSha256 *sha, const void *data, size_t len);
void lw_sha256_finish(LwSha256 *sha, char out[LW_SHA256_HEX_LEN + 1]);
void lw_sha256_free(LwSha256 *sha);

/* ---- hex_set (base/hex_set.c) ------------------------------------------ */

/*
 * LwHexSet: a set of MD5 hashes written as 32 hex digits (seed hashes),
 * kept as 16 bytes each in an open-addressing table: retention marks every
 * live seed of a large keyspace in it (about 32 bytes of memory per seed).
 */
#include <stdbool.h>
#include <stddef.h>

typedef struct LwHexSet LwHexSet;

/* A new empty set; NULL when out of memory. */
LwHexSet *lw_hex_set_new(void);

/* Frees set; NULL is safe. */
void lw_hex_set_free(LwHexSet *set);

/* Adds hex (32 hex digits, either case). Returns 1 when added, 0 when it was
 * there already or is not a 32-digit hash, -1 when out of memory. */
int lw_hex_set_add(LwHexSet *set, const char *hex);

/* True when hex is in the set. */
bool lw_hex_set_has(const LwHexSet *set, const char *hex);

/* Members in the set. */
size_t lw_hex_set_count(const LwHexSet *set);

/* ---- utf8 (base/utf8.c) ------------------------------------------------ */

/*
 * UTF-8 validation (RFC 3629): no overlong forms, no surrogates
 * (U+D800..U+DFFF), nothing above U+10FFFF. The readers check every string
 * the parsers hand them with it, because serd 0.30 writes invalid UTF-8 for
 * \u escapes of surrogates and out-of-range code points.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the character at s (len bytes available). Returns its length in
 * bytes (1-4) and stores the code point in *cp, or returns 0 when the bytes
 * there are not a valid UTF-8 sequence (or are cut off by len). */
size_t lw_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

/* Length of the longest valid UTF-8 prefix of s: len when all of s is valid. */
size_t lw_utf8_valid_prefix(const char *s, size_t len);

/* True when all len bytes of s are valid UTF-8. */
bool lw_utf8_valid(const char *s, size_t len);

/* Encodes code point cp (must be a Unicode scalar value) into out; returns
 * the number of bytes written (1-4), or 0 for a surrogate or cp > 0x10FFFF. */
size_t lw_utf8_encode(uint32_t cp, char out[4]);

/* ---- byte spans (base/byte_spans.c) ----------------------------------- */

/* How many bytes from s on IRIREF allows (none of ASCII up to the space and
 * <>"{}|^`\), also stopping at the first non-ASCII byte when stop_at_high. */
size_t lw_span_iri_plain(const char *s, size_t len, bool stop_at_high);

/* How many bytes from s on a canonical N-Quads literal writes as they are:
 * ASCII other than controls, '"', '\' and DEL. */
size_t lw_span_literal_plain(const char *s, size_t len);

/* How many bytes from s on are ASCII. */
size_t lw_span_ascii(const char *s, size_t len);

/* How many bytes from s on are ASCII from the space up, other than a and b
 * (the pre-scanner's plain run in an IRI or a string). */
size_t lw_span_printable_except(const char *s, size_t len, char a, char b);

/* ---- datetime (base/datetime.c) ---------------------------------------- */

/*
 * Dates and date-times as providers write them: xsd:date, xsd:dateTime and
 * the forms people type into registry.yaml, turned into one comparable value.
 *
 * Accepted (surrounding whitespace ignored):
 *   2015-10-10                      a date
 *   2015-10-10Z, 2015-10-10+02:00   a date with a zone
 *   2015-12-04T14:25:44Z            xsd:dateTime
 *   2015-12-04T14:25:44.758604      fraction of any length (kept to the
 *                                   microsecond, the rest truncated)
 *   2015-12-04 14:25:44.758604      a space instead of T (Python's str(),
 *                                   YAML timestamps), also "t"
 *   2015-12-04 14:25                seconds may be left out
 *   ... +02:00, +0200, +02, -05:00, " -5", Z   zones, optionally after spaces
 *   2015-12-04T24:00:00             end of day = next day 00:00:00
 * Years 0001..9999 only.
 *
 * The rule that makes them comparable: a value is the number of microseconds
 * since 1970-01-01T00:00:00Z (UTC). A value without a zone is read as UTC,
 * and a date is the instant its day starts, midnight; so "2015-10-10" equals
 * "2015-10-10T00:00:00Z" and is earlier than "2015-10-10T00:00:01". A date
 * with a zone starts at midnight in that zone ("2015-10-10+02:00" is
 * 2015-10-09T22:00:00Z).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int64_t usec;   /* microseconds since 1970-01-01T00:00:00Z */
  bool date_only; /* written as a date, without a time of day */
  bool zoned;     /* written with a zone (Z or an offset) */
} LwDateTime;

/* Long enough for any formatted value, with its NUL. */
#define LW_DATETIME_BUF 40

/* Parses text (len bytes, need not be NUL-terminated) into out. Returns
 * LW_OK, or LW_ERR_SYNTAX with a message in err saying what is wrong. */
LwStatus lw_datetime_parse(const char *text, size_t len, LwDateTime *out, LwError *err);

/* Convenience for a NUL-terminated string; false when it does not parse. */
bool lw_datetime_parse_str(const char *text, LwDateTime *out);

/* Formats usec as ISO 8601 in UTC: "2015-12-04T14:25:44Z", with ".758604"
 * when there is a fraction. Returns out. */
char *lw_datetime_format_usec(int64_t usec, char out[LW_DATETIME_BUF]);

/* Formats ms (milliseconds since the epoch) as ISO 8601 in UTC with
 * milliseconds: "2026-11-24T15:40:43.801Z". Returns out. */
char *lw_datetime_format_ms(long long ms, char out[LW_DATETIME_BUF]);

/* Formats value: a date written without a zone comes back as a date
 * ("2015-10-10"); anything else as lw_datetime_format_usec. Returns out. */
char *lw_datetime_format(const LwDateTime *value, char out[LW_DATETIME_BUF]);

/* <0, 0 or >0 as a is earlier than, the same instant as, or later than b. */
int lw_datetime_compare(const LwDateTime *a, const LwDateTime *b);

/* Parses an HTTP date such as a Last-Modified header ("Sun, 06 Nov 1994
 * 08:49:37 GMT", and the obsolete RFC 850 and asctime forms; libcurl's
 * curl_getdate does the work). False when it does not parse. */
bool lw_datetime_parse_http(const char *text, LwDateTime *out);

/* The current time in microseconds since the epoch. */
int64_t lw_datetime_now_usec(void);

/* Seconds on a clock that only moves forward (CLOCK_MONOTONIC), to measure
 * how long something took. */
double lw_monotonic_seconds(void);

/* Sleeps about ms milliseconds (a signal may end it sooner). */
void lw_sleep_ms(long long ms);

/* ---- line_reader (base/line_reader.c) ---------------------------------- */

/*
 * Reads newline-terminated lines from a file that may be gzip-compressed or
 * plain (zlib reads both), with a growable buffer and a cap on line length.
 * Decompression runs on a thread of its own, a few chunks ahead of the
 * caller, so that inflating never sits on the caller's thread.
 */
#include <stddef.h>

typedef struct LwLineReader LwLineReader;

/* Opens path for reading. Returns NULL (with err set) when it cannot. */
LwLineReader *lw_line_reader_open(const char *path, size_t max_line, LwError *err);

/* Reads the next line without its "\n" into *line (valid until the next
 * call) and its length into *len. Returns LW_OK, LW_NOTHING at the end,
 * LW_ERR_LIMIT for a line longer than max_line, LW_ERR_IO on a read error. */
LwStatus lw_line_reader_next(LwLineReader *reader, const char **line, size_t *len,
                             LwError *err);

/* Closes the file and frees the reader. NULL is safe. */
void lw_line_reader_close(LwLineReader *reader);

/* ---- uri (base/uri.c) -------------------------------------------------- */

/*
 * URIs per RFC 3986: splitting, normalization (§6.2.2) for seed hashes, and
 * reference resolution (§5.2). lodwash resolves IRIs itself rather than
 * trusting the parsers, which get some edge cases wrong.
 *
 * All functions work on UTF-8 IRIs too: non-ASCII bytes pass through.
 */
#include <stdbool.h>
#include <stddef.h>

/* The five components of a URI reference. A component that is absent has
 * ptr NULL (an empty but present one, such as "http://h?" query, has len 0). */
typedef struct {
  const char *ptr;
  size_t len;
} LwSlice;

typedef struct {
  LwSlice scheme;    /* without ":" */
  LwSlice authority; /* without "//" */
  LwSlice path;      /* always present, may be empty */
  LwSlice query;     /* without "?" */
  LwSlice fragment;  /* without "#" */
} LwUriParts;

/* Splits uri (NUL-terminated) into its components (RFC 3986 appendix B). */
void lw_uri_split(const char *uri, LwUriParts *parts);

/* True if uri starts with a scheme ("http:", "urn:", ...). */
bool lw_uri_is_absolute(const char *uri);

/* Normalizes per RFC 3986 §6.2.2: scheme and host lower-cased,
 * percent-encoding hex digits upper-cased, percent-encoded unreserved
 * characters decoded, dot segments removed; nothing more (no default-port or
 * empty-path rewriting). Returns a new string the caller frees, or NULL when
 * out of memory. */
char *lw_uri_normalize(const char *uri);

/* The seed hash of uri: MD5 (hex) of its normalization. */
void lw_uri_hash(const char *uri, char out[LW_HASH_HEX_LEN + 1]);

/* Resolves reference ref against base (RFC 3986 §5.2, strict). Returns a new
 * string the caller frees; NULL when base is not absolute and ref is
 * relative, or when out of memory. */
char *lw_uri_resolve(const char *base, const char *ref);

/* Removes dot segments from a path (RFC 3986 §5.2.4). Returns a new string
 * the caller frees, or NULL when out of memory. */
char *lw_uri_remove_dot_segments(const char *path, size_t len);

#endif
