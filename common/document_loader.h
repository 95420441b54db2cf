/*
 * The JSON-LD document loader lodwash uses for remote contexts, its only
 * HTTP client for them: fetched with lw_fetch_small under the download
 * stage's rules (http and https only, refused address ranges unless
 * allowed, size cap, timeouts), optionally through a cache (the worker
 * caches in Redis with a TTL, so ten thousand documents naming one context
 * fetch it once).
 *
 * As JSON-LD 1.1's LoadDocumentCallback does, an answer that is not JSON
 * (schema.org serves HTML) with a `Link: <URL>; rel="alternate";
 * type="application/ld+json"` header is not the document: URL (resolved
 * against the answer's) is fetched instead, once, under the same rules. The
 * cache keeps it under the URL asked for.
 */
#ifndef LW_DOCUMENT_LOADER_H
#define LW_DOCUMENT_LOADER_H

#include <stddef.h>

#include "common/netguard.h"
#include "common/status.h"

typedef struct {
  const LwNetGuard *guard;   /* allow list; NULL: public addresses only */
  const char *contact;       /* in the User-Agent; may be NULL */
  size_t max_bytes;          /* 0: 4 MiB */
  long timeout_ms;           /* 0: 30 s */
  /* A cache, all optional: get returns LW_OK with a new body (and the URL it
   * was fetched from) when url is cached; put stores a fetched document. */
  LwStatus (*cache_get)(void *handle, const char *url, char **body, size_t *len,
                        char **document_url);
  void (*cache_put)(void *handle, const char *url, const char *body, size_t len,
                    const char *document_url);
  void *cache_handle;
  unsigned long long fetches; /* counted by lw_document_load */
} LwDocumentLoader;

/* An LwJsonldLoadFn (common/jsonld.h); handle is an LwDocumentLoader. */
LwStatus lw_document_load(void *handle, const char *url, char **body, size_t *len,
                          char **document_url, LwError *err);

#endif
