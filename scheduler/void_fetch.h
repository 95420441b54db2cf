/*
 * Fetching a VoID file: one small document over HTTP(S), with the download
 * stage's rules (net/net.h, lw_fetch_small): http and https only,
 * also for redirects (at most 5 here); the address connected to must be
 * public unless --allow-net lists it; connect timeout 10 s, whole fetch
 * (the caller's timeout), at most LW_VOID_MAX_BYTES decoded bytes; conditional GET
 * (If-None-Match / If-Modified-Since from the last visit); Content-Encoding
 * decoded.
 */
#ifndef LW_SCHEDULER_VOID_FETCH_H
#define LW_SCHEDULER_VOID_FETCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "queue/redis.h"

#include "config/config.h"
#include "base/base.h"

typedef struct {
  long status;            /* HTTP status of the last response, 0 if none */
  bool not_modified;      /* 304 */
  char etag[256];         /* of the last response, "" if none */
  char last_modified[64]; /* Last-Modified header, "" if none */
  char content_type[256];
  char final_url[2048]; /* after redirects: the base for relative IRIs */
} LwVoidFetchInfo;

/* Fetches url within timeout_ms (0: 30 s). etag / last_modified (may be NULL or "") make it
 * conditional. LW_OK: *body (NUL-terminated, caller frees) and *len set;
 * LW_NOTHING: 304 Not Modified, *body NULL. Errors: LW_ERR_NET (connect,
 * timeout, 5xx, 408, 429), LW_ERR_HTTP (other 4xx and odd answers),
 * LW_ERR_REFUSED (scheme or address), LW_ERR_LIMIT (too large or too many
 * redirects), LW_ERR_NOMEM; err says what HTTP or TCP said. */
LwStatus lw_void_fetch(const char *url, const LwConfig *cfg, long timeout_ms,
                       const char *etag, const char *last_modified, char **body,
                       size_t *len, LwVoidFetchInfo *info, LwError *err);

/* What a fetch may wait on and for, besides the server. */
typedef struct {
  /* Ends the fetch (LW_ERR_NET "stopped"), or its wait for the host's turn,
   * within about a second once *stop is true. NULL: never. */
  const atomic_bool *stop;
  /* The calling thread's Redis connection: with it the host's robots.txt
   * (a disallowed VoID is refused) and pace are kept, as for downloads
   * (politeness/politeness.h). NULL: neither. */
  LwRecords *redis;
  /* Before each request (redirects included), instead of the host policy
   * above: the pool's own, which also counts places per host. NULL: the
   * host policy with redis (when given). */
  LwStatus (*before_hop)(void *user, const char *url, LwError *err);
  void *before_hop_user;
  /* The Accept header; NULL: RDF first (Turtle, RDF/XML, N-Triples). */
  const char *accept;
} LwVoidFetchHooks;

/* lw_void_fetch with hooks (NULL: none). Thread safe. */
LwStatus lw_void_fetch_until(const char *url, const LwConfig *cfg, long timeout_ms,
                             const char *etag, const char *last_modified,
                             const LwVoidFetchHooks *hooks, char **body, size_t *len,
                             LwVoidFetchInfo *info, LwError *err);

#endif
