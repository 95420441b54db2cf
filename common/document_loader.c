#include "common/document_loader.h"

#include <stdlib.h>
#include <string.h>

#include "common/http_fetch.h"

LwStatus lw_document_load(void *handle, const char *url, char **body, size_t *len,
                          char **document_url, LwError *err)
{
  LwDocumentLoader *l = handle;
  *body = NULL;
  *document_url = NULL;
  if (l->cache_get && l->cache_get(l->cache_handle, url, body, len, document_url) == LW_OK) {
    return LW_OK;
  }
  LwFetchOptions o = {
    .guard = l->guard,
    .contact = l->contact,
    .timeout_ms = l->timeout_ms ? l->timeout_ms : 30000,
    .accept = "application/ld+json, application/json;q=0.9, */*;q=0.1",
  };
  LwFetchResult result;
  memset(&result, 0, sizeof(result));
  ++l->fetches;
  LwStatus st = lw_fetch_small(url, &o, l->max_bytes ? l->max_bytes : 4u << 20, body, len,
                               &result, err);
  if (st == LW_OK) {
    *document_url = strdup(result.final_url ? result.final_url : url);
    if (!*document_url) {
      free(*body);
      *body = NULL;
      st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    } else if (l->cache_put) {
      l->cache_put(l->cache_handle, url, *body, *len, *document_url);
    }
  } else if (st == LW_NOTHING) {
    st = lw_error_set(err, LW_ERR_HTTP, "%s: no document", url);
  }
  lw_fetch_result_clear(&result);
  return st;
}
