#include "jsonld/jsonld.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "base/base.h"

/* n bytes of src without the blanks around them, into dst (cut to size). */
static void copy_trimmed(char *dst, size_t size, const char *src, size_t n)
{
  while (n && (*src == ' ' || *src == '\t')) {
    src++;
    n--;
  }
  while (n && (src[n - 1] == '\r' || src[n - 1] == '\n' || src[n - 1] == ' ')) {
    n--;
  }
  if (n >= size) {
    n = size - 1;
  }
  memcpy(dst, src, n);
  dst[n] = 0;
}

static void lower_case(char *s)
{
  for (; *s; s++) {
    *s = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
  }
}

/* True if params (the part of a Link value after <url>) hold name="value"
 * or name=value. */
static bool has_param(const char *params, size_t n, const char *name, const char *value)
{
  char want1[96], want2[96];
  snprintf(want1, sizeof(want1), "%s=\"%s\"", name, value);
  snprintf(want2, sizeof(want2), "%s=%s", name, value);
  char copy[1024];
  copy_trimmed(copy, sizeof(copy), params, n);
  lower_case(copy);
  return strstr(copy, want1) || strstr(copy, want2);
}

/* The first target of link (Link: <a>; rel="alternate";
 * type="application/ld+json", <b>; rel=...) that is JSON-LD's alternate,
 * into out ("" when none). */
static void alternate_in(const char *link, char *out, size_t size)
{
  const char *v = link, *end = link + strlen(link);
  *out = 0;
  while (v < end) {
    const char *lt = memchr(v, '<', (size_t)(end - v));
    const char *gt = lt ? memchr(lt, '>', (size_t)(end - lt)) : NULL;
    if (!gt) {
      return;
    }
    const char *next = memchr(gt, ',', (size_t)(end - gt));
    const char *params_end = next ? next : end;
    size_t n = (size_t)(params_end - gt - 1);
    if (has_param(gt + 1, n, "rel", "alternate") &&
        has_param(gt + 1, n, "type", "application/ld+json")) {
      copy_trimmed(out, size, lt + 1, (size_t)(gt - lt - 1));
      return;
    }
    v = params_end + (next ? 1 : 0);
  }
}

/* application/json, application/ld+json, anything/+json (parameters aside) */
static bool is_json_type(const char *type)
{
  char t[128];
  copy_trimmed(t, sizeof(t), type, strcspn(type, ";"));
  lower_case(t);
  size_t l = strlen(t);
  return !strcmp(t, "application/json") || (l > 5 && !strcmp(t + l - 5, "+json"));
}

/* The JSON-LD a non-JSON answer points at with a Link rel="alternate"
 * type="application/ld+json" header of its last hop (JSON-LD 1.1
 * LoadDocumentCallback: schema.org serves HTML so), into out; "" when the
 * answer is JSON or names none. */
static void alternate_of(const LwFetchResult *result, char *out, size_t size)
{
  *out = 0;
  if (!result->content_type[0] || is_json_type(result->content_type)) {
    return;
  }
  const json_t *last = json_array_get(result->http, json_array_size(result->http) - 1);
  const char *link = json_string_value(
    json_object_get(json_object_get(last, "headers"), "link"));
  if (link) {
    alternate_in(link, out, size);
  }
}

/* One document fetched under the loader's rules; *document_url is where it
 * came from, alternate its JSON-LD alternate ("" when none). */
static LwStatus fetch_one(LwDocumentLoader *l, const char *url, char **body, size_t *len,
                          char **document_url, char *alternate, size_t alternate_size,
                          LwError *err)
{
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
    alternate_of(&result, alternate, alternate_size);
    *document_url = strdup(result.final_url ? result.final_url : url);
    if (!*document_url) {
      free(*body);
      *body = NULL;
      st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
  } else if (st == LW_NOTHING) {
    st = lw_error_set(err, LW_ERR_HTTP, "%s: no document", url);
  }
  lw_fetch_result_clear(&result);
  return st;
}

/* Follows the alternate of the document just fetched from url, once. */
static LwStatus follow_alternate(LwDocumentLoader *l, const char *url,
                                 const char *alternate, char **body, size_t *len,
                                 char **document_url, LwError *err)
{
  char *next = lw_uri_resolve(*document_url, alternate);
  free(*body);
  free(*document_url);
  *body = *document_url = NULL;
  if (!next) {
    return lw_error_set(err, LW_ERR_HTTP, "%s: bad alternate link '%s'", url, alternate);
  }
  char again[2048];
  LwStatus st = fetch_one(l, next, body, len, document_url, again, sizeof(again), err);
  free(next);
  return st;
}

LwStatus lw_document_load(void *handle, const char *url, char **body, size_t *len,
                          char **document_url, LwError *err)
{
  LwDocumentLoader *l = handle;
  *body = NULL;
  *document_url = NULL;
  if (l->cache_get &&
      l->cache_get(l->cache_handle, url, body, len, document_url) == LW_OK) {
    return LW_OK;
  }
  char alternate[2048];
  LwStatus st = fetch_one(l, url, body, len, document_url, alternate, sizeof(alternate),
                          err);
  if (st == LW_OK && alternate[0]) {
    st = follow_alternate(l, url, alternate, body, len, document_url, err);
  }
  if (st == LW_OK && l->cache_put) {
    l->cache_put(l->cache_handle, url, *body, *len, *document_url);
  }
  return st;
}
