/*
 * lodwash's network library: every HTTP request lodwash sends goes through
 * here. The address guard (netguard) decides which hosts and addresses may be
 * contacted; http_fetch downloads (libcurl) behind it, with size caps and
 * redirects checked hop by hop; robots reads robots.txt; http_service is the
 * small HTTP server (libmicrohttpd) the programs show their pages with.
 *
 * Uses base and files. Below, one section per module; its code is
 * net/<module>.c.
 */
#ifndef LW_NET_H
#define LW_NET_H

#include "base/base.h"
#include "files/files.h"

/* ---- netguard (net/netguard.c) ----------------------------------------- */

/*
 * Scheme and address rules for everything lodwash fetches (the SSRF guard).
 *
 * Only http and https URLs are fetched. A connection may only go to a public
 * unicast address: loopback, private (10/8, 172.16/12, 192.168/16), shared
 * (100.64/10), link-local, multicast, unspecified, broadcast, documentation,
 * benchmarking and other IANA special-purpose ranges are refused, and so are
 * their IPv6 equivalents (::1, ::, fc00::/7, fe80::/10, fec0::/10, ff00::/8,
 * 2001::/23, 2001:db8::/32, 100::/64, 3fff::/20, anything outside 2000::/3).
 * IPv4 inside IPv6 (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4
 * 2002::/16) is judged by the IPv4 address it carries.
 *
 * The check is made on the address actually connected to (http_fetch calls
 * lw_netguard_check_sockaddr from libcurl's socket callbacks), so a name
 * that resolves, or re-resolves, to a refused address does not get through.
 *
 * An allow list exempts addresses: a comma-separated list of addresses or
 * CIDR blocks, each optionally with a port, as in --allow-net /
 * LODWASH_ALLOW_NET:
 *
 *   127.0.0.1:8080, 10.0.0.0/8, ::1, [::1]:8080, [fd00::/8]:443, 192.168.1.7
 *
 * An IPv6 entry with a port is written in brackets. An entry without a port
 * matches every port. Nothing else (no host names) is accepted.
 */
#include <stdbool.h>
#include <sys/socket.h>

typedef struct LwNetGuard LwNetGuard;

/* Parses allow_list (NULL or "" for none) into a new guard owned by the
 * caller (lw_netguard_free). A bad entry is LW_ERR_USAGE naming the entry. */
LwStatus lw_netguard_new(const char *allow_list, LwNetGuard **out, LwError *err);

/* NULL safe. */
void lw_netguard_free(LwNetGuard *guard);

/* Number of allow-list entries (for logs and tests). */
int lw_netguard_allow_count(const LwNetGuard *guard);

/* LW_OK if url's scheme is http or https (any case), else LW_ERR_REFUSED. */
LwStatus lw_netguard_check_scheme(const char *url, LwError *err);

/* LW_OK if a connection to the address and port may be made: the allow list
 * exempts it, or it is public. Else LW_ERR_REFUSED saying which range it is
 * in. guard may be NULL (no allow list). */
LwStatus lw_netguard_check_sockaddr(const LwNetGuard *guard, const struct sockaddr *addr,
                                    LwError *err);

/* The same for a numeric IPv4 or IPv6 address in text ("10.0.0.1", "::1");
 * anything that is not a numeric address is LW_ERR_REFUSED. */
LwStatus lw_netguard_check_ip(const LwNetGuard *guard, const char *ip, unsigned port,
                              LwError *err);

/* The special-purpose range a numeric address is in ("loopback",
 * "private", ...), or NULL for a public unicast address. For tests and
 * messages; rules only, no allow list. */
const char *lw_netguard_range_name(const char *ip);

/* ---- http_fetch (net/http_fetch.c) ------------------------------------- */

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
 *   computing the content record (files/files.h); no second pass.
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
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LW_FETCH_DEFAULT_MAX_REDIRECTS 10
#define LW_FETCH_DEFAULT_CONNECT_TIMEOUT_MS 30000L

/* Everything comes from the caller; a zeroed struct plus data_dir is a
 * usable default (no size cap, no total timeout, 10 redirects). Strings are
 * borrowed for the duration of the call. */
typedef struct {
  const char *data_dir;     /* temporary bodies go to DATA/tmp (required
                                  unless partial_path is given) */
  const char *dest_path;    /* rename the complete body here; NULL: leave
                                  it at result->path for the caller */
  const char *partial_path; /* where a partial body waits for a resume
                                  (plus PATH.meta); NULL: never resume */
  const LwNetGuard *guard;  /* allow list; NULL: none (public only) */

  long connect_timeout_ms; /* 0: 30 s */
  long timeout_ms;         /* whole fetch, all hops; 0: none */
  long low_speed_limit;    /* bytes/s; 0: off */
  long low_speed_time;     /* seconds below low_speed_limit; 0: 30 */
  uint64_t max_bytes;      /* decoded body bytes; 0: unlimited */
  int max_redirects;       /* 0: 10; negative: no redirect followed */

  const char *user_agent; /* NULL: "lodwash/VERSION (+contact)" */
  const char *contact;    /* a URL about this harvester, in User-Agent */
  const char *accept;     /* Accept header; NULL: none */

  const char *etag;          /* from the last visit: If-None-Match */
  const char *last_modified; /* from the last visit: If-Modified-Since */
  const char *previous_hash; /* MD5 hex of the last body: same = unchanged */

  const char *checksum;        /* declared: "ALGO:HEX", ALGO one of md5,
                                  sha1, sha224, sha256, sha384, sha512
                                  (also "sha-256", "SHA256",
                                  "checksumAlgorithm_sha256"); NULL: none.
                                  It is of the file as published, so with a
                                  checksum no Content-Encoding is asked for
                                  or decoded: the bytes are kept as sent */
  const char *checksum_source; /* named in the mismatch message; NULL: "declared" */

  const char *const *resolve; /* NULL-terminated "HOST:PORT:ADDRESS" pins,
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
   * pace and concurrency). LW_NOTHING means "not yet": it is asked again
   * after err->retry_after_ms (at most a second later; lw_fetch sleeps
   * meanwhile, LwFetchMulti runs the other transfers). Anything else ends
   * the fetch with that status and err. The time spent here counts in
   * timeout_ms. NULL: none. */
  LwStatus (*before_hop)(void *user, const char *url, LwError *err);
  void *before_hop_user;
} LwFetchOptions;

typedef struct {
  json_t *http; /* the hop list (owned) */
  double begin; /* wall clock, seconds since the epoch */
  double end;
  long status;           /* status of the last response; 0: none */
  char *final_url;       /* URL of the last hop (owned) */
  char path[4096];       /* the body on LW_OK: dest_path or DATA/tmp/... */
  LwContentMeta content; /* on LW_OK, and on LW_NOTHING by same hash */
  bool have_content;
  bool not_modified;     /* unchanged: HTTP 304 */
  bool same_hash;        /* unchanged: body MD5 == previous_hash */
  bool resumed;          /* the body continued a partial download */
  uint64_t resumed_from; /* bytes that were already there */
  bool partial_kept;     /* failed, but opts->partial_path can resume */
  long retry_after;      /* seconds (Retry-After), -1 when none */
  char etag[256];        /* of the last response, "" when none */
  char last_modified[64];
  char content_type[256];
  char content_encoding[64];    /* as the server sent it (decoded already) */
  char checksums_verified[128]; /* e.g. "declared sha256, Digest md5" */
} LwFetchResult;

/* curl_global_init, once per process (thread safe). */
void lw_fetch_global_init(void);

/* Fetches url into a file (see the top of this header). result is filled
 * in all cases; release it with lw_fetch_result_clear. Returns LW_OK (body at
 * result->path), LW_NOTHING (unchanged) or an error. */
LwStatus lw_fetch(const char *url, const LwFetchOptions *opts, LwFetchResult *result,
                  LwError *err);

/* Fetches a small document into memory under the same rules: at most
 * max_size decoded bytes (else LW_ERR_LIMIT). On LW_OK *body is a
 * NUL-terminated malloc'd buffer owned by the caller and *len its length.
 * partial_path and dest_path are ignored. */
LwStatus lw_fetch_small(const char *url, const LwFetchOptions *opts, size_t max_size,
                        char **body, size_t *len, LwFetchResult *result, LwError *err);

/* Many fetches at once in one thread (libcurl's multi interface), each
 * under every rule of lw_fetch (its own options, guard, caps, timeouts,
 * hops, checksums, resume and callbacks), so that a slow host holds only
 * its own transfer. A before_hop that answers LW_NOTHING ("not yet": a
 * host's turn, a busy host) leaves the other transfers running.
 *
 *   LwFetchMulti *m = lw_fetch_multi_new();
 *   lw_fetch_multi_add(m, url, &opts, &result, &err, user);   (many)
 *   while (lw_fetch_multi_count(m)) {
 *     lw_fetch_multi_run(m, 100, &err2);
 *     while ((user = lw_fetch_multi_done(m, &status))) ... result, err
 *   }
 *   lw_fetch_multi_free(m);
 *
 * Not thread safe: one thread drives a LwFetchMulti. */
typedef struct LwFetchMulti LwFetchMulti;

/* NULL when out of memory. */
LwFetchMulti *lw_fetch_multi_new(void);

/* Adds a fetch of url. opts, result and err are borrowed until the fetch
 * ends (lw_fetch_multi_done gives back user): its outcome is written there
 * as lw_fetch writes it. LW_OK: added; else the fetch ended at once (it
 * could not start: result and err say why) and is not added. */
LwStatus lw_fetch_multi_add(LwFetchMulti *m, const char *url, const LwFetchOptions *opts,
                            LwFetchResult *result, LwError *err, void *user);

/* Fetches added and not yet given back by lw_fetch_multi_done. */
size_t lw_fetch_multi_count(const LwFetchMulti *m);

/* Moves every transfer on, waiting at most max_wait_ms for something to
 * happen (returns sooner when a fetch ended). LW_ERR_NET when libcurl's
 * multi handle itself failed. */
LwStatus lw_fetch_multi_run(LwFetchMulti *m, long max_wait_ms, LwError *err);

/* A fetch that ended: returns its user pointer and its status (as
 * lw_fetch's) in *status, its result and err filled; NULL when none
 * ended. */
void *lw_fetch_multi_done(LwFetchMulti *m, LwStatus *status);

/* Ends every fetch still running or waiting: LW_ERR_NET "stopped"
 * (partial bodies kept as lw_fetch keeps them); lw_fetch_multi_done then
 * gives them back. */
void lw_fetch_multi_stop(LwFetchMulti *m);

/* lw_fetch_multi_stop (their opts, result and err must still be valid),
 * then frees m, with the fetches not given back. NULL safe. */
void lw_fetch_multi_free(LwFetchMulti *m);

/* Frees what result owns and zeroes it. NULL safe. */
void lw_fetch_result_clear(LwFetchResult *result);

/* {"begin": 1700000000.123, "end": 1700000001.456} (new reference). */
json_t *lw_fetch_timestamp_json(const LwFetchResult *result);

/* The default User-Agent for contact (NULL allowed) into buf. */
const char *lw_fetch_user_agent(const char *contact, char *buf, size_t size);

/* ---- robots (net/robots.c) --------------------------------------------- */

/*
 * robots.txt (RFC 9309) read for one crawler: which paths it may fetch and
 * the Crawl-delay asked of it (not in the RFC, but widely used).
 *
 * The group for the crawler is the one(s) whose user-agent names its
 * product token (case-insensitive, "lodwash"); if none does, the "*"
 * groups. Within the rules, the longest matching path pattern wins, an
 * allow winning a tie; patterns may hold "*" (any run of characters) and a
 * final "$" (end of the path). No rule matching: allowed. /robots.txt
 * itself is always allowed. Lines that are not understood are skipped.
 *
 * Fetching and caching robots.txt per host is politeness/politeness.h.
 */
#include <stdbool.h>
#include <stddef.h>

typedef struct LwRobots LwRobots;

/* Reads text (len bytes, need not be NUL-terminated) for the crawler whose
 * product token is agent. NULL only when out of memory. */
LwRobots *lw_robots_parse(const char *text, size_t len, const char *agent);

/* Whether path (the URL's path and query, "/a/b?c"; "" counts as "/") may
 * be fetched. */
bool lw_robots_allowed(const LwRobots *robots, const char *path);

/* The group's Crawl-delay in milliseconds, or -1 when it has none. */
long lw_robots_crawl_delay_ms(const LwRobots *robots);

/* NULL safe. */
void lw_robots_free(LwRobots *robots);

/* ---- http_service (net/http_service.c) --------------------------------- */

/*
 * A small HTTP service for operators (libmicrohttpd, its own threads): the
 * scheduler serves its pages (/metrics, /status, /healthz and the dashboard)
 * with it. Each request asks one callback for the page; the callback builds
 * it from Redis at that moment. GET and HEAD are answered; a POST reaches
 * the callback with its form fields (application/x-www-form-urlencoded or
 * multipart/form-data, parsed by libmicrohttpd); other methods get 405.
 */
#include <stdbool.h>
#include <stddef.h>

typedef struct LwHttpForm LwHttpForm;

typedef struct {
  const char *method;     /* "GET", "HEAD" or "POST" */
  const char *path;       /* "/metrics", ... (without the query) */
  const LwHttpForm *form; /* a POST's fields; NULL for GET */
  const char *accept;     /* the Accept header, "" when none */
} LwHttpRequest;

/* The value of the form field name of a POST, or NULL when absent (or not
 * a POST). Values longer than LW_HTTP_FIELD_MAX bytes are cut. */
const char *lw_http_form_get(const LwHttpRequest *req, const char *name);

#define LW_HTTP_FIELD_MAX 4096

typedef struct {
  int status; /* HTTP status, such as 200 or 404 */
  const char *content_type;
  char *body;     /* malloc'd; the service frees it */
  size_t length;  /* bytes of body; 0: strlen(body) */
  char *file;     /* malloc'd path: its content is sent instead of
                             body (404 when it cannot be opened) */
  char *location; /* malloc'd: a Location header (redirects) */
} LwHttpPage;

/* Fills page for req. Runs on the service's thread. */
typedef void (*LwHttpPageFn)(void *handle, const LwHttpRequest *req, LwHttpPage *page);

typedef struct LwHttpService LwHttpService;

/* What no number of idle or slow connections may take from the pages or
 * the process (docs/operations.md, "The pages under load"): connections are
 * polled with epoll (or poll), never select, so no descriptor number is too
 * high; at most LW_HTTP_CONNECTIONS_MAX at once, and never more than a
 * quarter of the process's descriptor limit; at most LW_HTTP_PER_ADDRESS_MAX
 * from one address; a connection idle (no byte in or out) for
 * LW_HTTP_IDLE_TIMEOUT_S is closed. */
#define LW_HTTP_CONNECTIONS_MAX 512
#define LW_HTTP_PER_ADDRESS_MAX 16
#define LW_HTTP_IDLE_TIMEOUT_S 10

/* Listens on bind_address:port (port 0: any free port, see
 * lw_http_service_port). NULL with err set when it cannot (LW_ERR_USAGE for
 * a bad address). */
LwHttpService *lw_http_service_start(const char *bind_address, int port, LwHttpPageFn page,
                                     void *handle, LwError *err);

/* The port actually listened on. */
int lw_http_service_port(const LwHttpService *service);

/* Stops the service and frees it. NULL is safe. */
void lw_http_service_stop(LwHttpService *service);

#endif
