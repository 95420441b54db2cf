/*
 * Downloading one URL the careful way (libcurl), for the download stage and
 * for small documents (VoID files, JSON-LD contexts).
 *
 * What lw_fetch does, in order:
 * - Follows redirects itself, at most opts->max_redirects of them, and
 *   records every hop (one element of the seed's `http` list):
 *     {"headers": {"content-type": "...", ...}, "status": 200,
 *      "uri": "http://...", "version": {"major": 1, "minor": 1},
 *      "walltime": 0.0123}
 *   (header names lower-cased; a repeated header's values joined by ", ";
 *   walltime: seconds that hop took).
 * - Every hop passes lw_netguard: only http and https; the address libcurl
 *   actually connects to (checked in its socket callbacks, whatever the name
 *   resolved to, redirect targets included) must be public or on the allow
 *   list. A refusal is LW_ERR_REFUSED and nothing is sent to that address.
 * - Sends If-None-Match / If-Modified-Since from the last visit; a 304, or a
 *   body whose MD5 equals opts->previous_hash, is "unchanged": LW_NOTHING,
 *   no file kept, result->not_modified or result->same_hash set.
 * - Streams the body, decoded from any Content-Encoding this libcurl knows
 *   (gzip, deflate, br, zstd), into a file in the data directory while
 *   computing the content record (common/content_meta.h); no second pass.
 *   The file is renamed to opts->dest_path only when complete and verified.
 * - Resumes: with opts->partial_path, a retryable failure in the middle of a
 *   body that the server serves in ranges (Accept-Ranges: bytes or a 206,
 *   identity encoding, an ETag or Last-Modified to validate with) keeps the
 *   bytes so far (result->partial_kept). The next lw_fetch with the same
 *   partial_path asks for the rest (Range + If-Range) and appends it only
 *   when the server answers 206 with the expected Content-Range; a 200 means
 *   the resource changed and the body starts again from byte 0.
 * - Verifies checksums: opts->checksum (e.g. from VoID spdx:checksum) and,
 *   on a complete identity-encoded 200, the Content-MD5, Digest,
 *   Content-Digest and Repr-Digest headers. A mismatch is LW_ERR_CHECKSUM.
 * - Enforces limits: connect timeout, low-speed limit, total timeout (all
 *   hops), max_bytes counted on the DECODED bytes as they are written (a
 *   small gzip bomb is stopped after max_bytes), max_redirects.
 *
 * Errors (status and err->message, which says what HTTP or TCP said):
 *   LW_ERR_NET      DNS, connect, TLS, timeout, a cut transfer, HTTP 5xx,
 *                   408 and 429 (retryable; result->retry_after from the
 *                   Retry-After header, in seconds, -1 when none)
 *   LW_ERR_HTTP     other 4xx, a 3xx without Location, a bad Content-Encoding
 *   LW_ERR_LIMIT    max_bytes or max_redirects exceeded
 *   LW_ERR_REFUSED  scheme or address not allowed
 *   LW_ERR_CHECKSUM a declared checksum does not match
 *   LW_ERR_IO       the data directory failed
 *   LW_ERR_USAGE    a malformed URL or option
 * result->http holds the hops that did happen, whatever the outcome.
 *
 * Thread safety: lw_fetch may run in several threads at once; call
 * lw_fetch_global_init once before starting threads (lw_fetch calls it too).
 */
#ifndef LW_HTTP_FETCH_H
#define LW_HTTP_FETCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/content_meta.h"
#include "common/netguard.h"
#include "common/status.h"

#define LW_FETCH_DEFAULT_MAX_REDIRECTS 10
#define LW_FETCH_DEFAULT_CONNECT_TIMEOUT_MS 30000L

/* Everything comes from the caller; a zeroed struct plus data_dir is a
 * usable default (no size cap, no total timeout, 10 redirects). Strings are
 * borrowed for the duration of the call. */
typedef struct {
  const char *data_dir;        /* temporary bodies go to DATA/tmp (required
                                  unless partial_path is given) */
  const char *dest_path;       /* rename the complete body here; NULL: leave
                                  it at result->path for the caller */
  const char *partial_path;    /* where a partial body waits for a resume
                                  (plus PATH.meta); NULL: never resume */
  const LwNetGuard *guard;     /* allow list; NULL: none (public only) */

  long connect_timeout_ms;     /* 0: 30 s */
  long timeout_ms;             /* whole fetch, all hops; 0: none */
  long low_speed_limit;        /* bytes/s; 0: off */
  long low_speed_time;         /* seconds below low_speed_limit; 0: 30 */
  uint64_t max_bytes;          /* decoded body bytes; 0: unlimited */
  int max_redirects;           /* 0: 10; negative: no redirect followed */

  const char *user_agent;      /* NULL: "lodwash/VERSION (+contact)" */
  const char *contact;         /* a URL about this harvester, in User-Agent */
  const char *accept;          /* Accept header; NULL: none */

  const char *etag;            /* from the last visit: If-None-Match */
  const char *last_modified;   /* from the last visit: If-Modified-Since */
  const char *previous_hash;   /* MD5 hex of the last body: same = unchanged */

  const char *checksum;        /* declared: "ALGO:HEX", ALGO one of md5,
                                  sha1, sha224, sha256, sha384, sha512
                                  (also "sha-256", "SHA256",
                                  "checksumAlgorithm_sha256"); NULL: none.
                                  It is of the file as published, so with a
                                  checksum no Content-Encoding is asked for
                                  or decoded: the bytes are kept as sent */
  const char *checksum_source; /* named in the mismatch message; NULL: "declared" */

  const char *const *resolve;  /* NULL-terminated "HOST:PORT:ADDRESS" pins,
                                  as curl --resolve (tests, fixed hosts) */

  /* Called now and then during the transfer (at least once a second) with
   * the document's body bytes so far (a resumed part included) and the
   * expected total (0 when unknown). Return false to stop: the fetch ends
   * with LW_ERR_NET "stopped" (and keeps a resumable partial). NULL: none. */
  bool (*progress)(void *user, uint64_t bytes, uint64_t total);
  void *progress_user;

  /* Called before every request, the first and each redirect's, with the
   * URL about to be fetched (the host actually connected to, after
   * redirects): the place for per-host politeness (robots.txt, a host's
   * pace and concurrency). Anything but LW_OK ends the fetch with that
   * status and err. The time spent here counts in timeout_ms. NULL: none. */
  LwStatus (*before_hop)(void *user, const char *url, LwError *err);
  void *before_hop_user;
} LwFetchOptions;

typedef struct {
  json_t *http;               /* the hop list (owned) */
  double begin;               /* wall clock, seconds since the epoch */
  double end;
  long status;                /* status of the last response; 0: none */
  char *final_url;            /* URL of the last hop (owned) */
  char path[4096];            /* the body on LW_OK: dest_path or DATA/tmp/... */
  LwContentMeta content;      /* on LW_OK, and on LW_NOTHING by same hash */
  bool have_content;
  bool not_modified;          /* unchanged: HTTP 304 */
  bool same_hash;             /* unchanged: body MD5 == previous_hash */
  bool resumed;               /* the body continued a partial download */
  uint64_t resumed_from;      /* bytes that were already there */
  bool partial_kept;          /* failed, but opts->partial_path can resume */
  long retry_after;           /* seconds (Retry-After), -1 when none */
  char etag[256];             /* of the last response, "" when none */
  char last_modified[64];
  char content_type[256];
  char content_encoding[64];  /* as the server sent it (decoded already) */
  char checksums_verified[128]; /* e.g. "declared sha256, Digest md5" */
} LwFetchResult;

/* curl_global_init, once per process (thread safe). */
void lw_fetch_global_init(void);

/* Fetches url into a file (see the top of this header). result is filled
 * in all cases; release it with lw_fetch_result_clear. Returns LW_OK (body at
 * result->path), LW_NOTHING (unchanged) or an error. */
LwStatus lw_fetch(const char *url, const LwFetchOptions *opts,
                  LwFetchResult *result, LwError *err);

/* Fetches a small document into memory under the same rules: at most
 * max_size decoded bytes (else LW_ERR_LIMIT). On LW_OK *body is a
 * NUL-terminated malloc'd buffer owned by the caller and *len its length.
 * partial_path and dest_path are ignored. */
LwStatus lw_fetch_small(const char *url, const LwFetchOptions *opts,
                        size_t max_size, char **body, size_t *len,
                        LwFetchResult *result, LwError *err);

/* Frees what result owns and zeroes it. NULL safe. */
void lw_fetch_result_clear(LwFetchResult *result);

/* {"begin": 1700000000.123, "end": 1700000001.456} (new reference). */
json_t *lw_fetch_timestamp_json(const LwFetchResult *result);

/* The default User-Agent for contact (NULL allowed) into buf. */
const char *lw_fetch_user_agent(const char *contact, char *buf, size_t size);

#endif
