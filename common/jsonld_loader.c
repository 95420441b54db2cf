/*
 * Document loaders for remote JSON-LD contexts: a map from URL prefixes to
 * local files or directories (tests, offline users: --context-map URL=PATH),
 * and a small HTTP loader on libcurl. Both are plain LwJsonldLoadFn
 * functions, so the download stage's address rules and a Redis cache can be
 * put in front of them without touching the processor.
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/jsonld.h"
#include "common/uri.h"

/* ---- map loader ------------------------------------------------------------ */

typedef struct {
  char *prefix;
  char *path;
  bool is_dir;
} MapEntry;

struct LwJsonldMap {
  MapEntry *entries;
  size_t count;
  LwJsonldLoadFn fallback;
  void *fallback_handle;
};

LwJsonldMap *lw_jsonld_map_new(void) { return calloc(1, sizeof(LwJsonldMap)); }

void lw_jsonld_map_free(LwJsonldMap *map) {
  if (!map) {
    return;
  }
  for (size_t i = 0; i < map->count; i++) {
    free(map->entries[i].prefix);
    free(map->entries[i].path);
  }
  free(map->entries);
  free(map);
}

LwStatus lw_jsonld_map_add(LwJsonldMap *map, const char *url_prefix,
                           const char *path, LwError *err) {
  struct stat sb;
  if (stat(path, &sb) != 0) {
    return lw_error_set(err, LW_ERR_USAGE, "context map: %s: %s", path,
                        strerror(errno));
  }
  MapEntry *grown = realloc(map->entries, (map->count + 1) * sizeof(*grown));
  if (!grown) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  map->entries = grown;
  MapEntry *e = &map->entries[map->count];
  e->prefix = strdup(url_prefix);
  e->path = strdup(path);
  e->is_dir = S_ISDIR(sb.st_mode);
  if (!e->prefix || !e->path) {
    free(e->prefix);
    free(e->path);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  map->count++;
  return LW_OK;
}

LwStatus lw_jsonld_map_add_spec(LwJsonldMap *map, const char *spec,
                                LwError *err) {
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || !eq[1]) {
    return lw_error_set(err, LW_ERR_USAGE,
                        "context map: expected URL=PATH, got '%s'", spec);
  }
  char *url = strndup(spec, (size_t)(eq - spec));
  if (!url) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwStatus st = lw_jsonld_map_add(map, url, eq + 1, err);
  free(url);
  return st;
}

void lw_jsonld_map_set_fallback(LwJsonldMap *map, LwJsonldLoadFn fallback,
                                void *fallback_handle) {
  map->fallback = fallback;
  map->fallback_handle = fallback_handle;
}

static LwStatus read_file(const char *path, char **body, size_t *len,
                          LwError *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    return lw_error_set(err, LW_ERR_HTTP, "%s: %s", path, strerror(errno));
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n + 1 >= cap) {
      if (cap >= ((size_t)64 << 20)) {
        free(buf);
        fclose(f);
        return lw_error_set(err, LW_ERR_LIMIT, "%s: larger than 64 MiB", path);
      }
      char *g = realloc(buf, cap * 2);
      if (!g) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = g;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    if (got == 0) {
      break;
    }
    n += got;
  }
  bool failed = ferror(f);
  fclose(f);
  if (!buf) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  if (failed) {
    free(buf);
    return lw_error_set(err, LW_ERR_IO, "%s: read error", path);
  }
  buf[n] = 0;
  *body = buf;
  *len = n;
  return LW_OK;
}

LwStatus lw_jsonld_map_load(void *handle, const char *url, char **body,
                            size_t *len, char **document_url, LwError *err) {
  LwJsonldMap *map = handle;
  const MapEntry *best = NULL;
  for (size_t i = 0; i < map->count; i++) {
    const MapEntry *e = &map->entries[i];
    size_t n = strlen(e->prefix);
    bool match = e->is_dir ? !strncmp(url, e->prefix, n) : !strcmp(url, e->prefix);
    if (match && (!best || n > strlen(best->prefix))) {
      best = e;
    }
  }
  if (!best) {
    if (map->fallback) {
      return map->fallback(map->fallback_handle, url, body, len, document_url,
                           err);
    }
    return lw_error_set(err, LW_ERR_HTTP, "%s: not in the context map", url);
  }
  char *path;
  if (best->is_dir) {
    const char *rest = url + strlen(best->prefix);
    size_t rlen = strcspn(rest, "?#");
    /* the rest of the URL must stay inside the directory */
    for (const char *c = rest; c < rest + rlen; c++) {
      if ((c == rest || c[-1] == '/') && c[0] == '.' && c[1] == '.') {
        return lw_error_set(err, LW_ERR_REFUSED, "%s: '..' in mapped URL", url);
      }
    }
    size_t plen = strlen(best->path);
    path = malloc(plen + rlen + 2);
    if (!path) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    snprintf(path, plen + rlen + 2, "%s/%.*s", best->path, (int)rlen, rest);
  } else {
    path = strdup(best->path);
    if (!path) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
  }
  LwStatus st = read_file(path, body, len, err);
  free(path);
  if (st != LW_OK) {
    return st;
  }
  *document_url = strdup(url);
  if (!*document_url) {
    free(*body);
    *body = NULL;
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  return LW_OK;
}

/* ---- HTTP loader ----------------------------------------------------------- */

typedef struct {
  char *data;
  size_t len, cap, max;
  bool too_big;
} Body;

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata) {
  Body *b = userdata;
  size_t n = size * nmemb;
  if (b->len + n > b->max) {
    b->too_big = true;
    return 0; /* aborts the transfer */
  }
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 16384;
    while (cap < b->len + n + 1) {
      cap *= 2;
    }
    char *d = realloc(b->data, cap);
    if (!d) {
      return 0;
    }
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->len, ptr, n);
  b->len += n;
  b->data[b->len] = 0;
  return n;
}

/* What the loader needs from the response headers of the last hop. */
typedef struct {
  char content_type[128];
  char alternate[2048]; /* Link: <...>; rel="alternate"; type="application/ld+json" */
} Headers;

static void copy_trimmed(char *dst, size_t size, const char *src, size_t n) {
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

/* True if params (the part after <url>) hold name="value" or name=value. */
static bool has_param(const char *params, size_t n, const char *name,
                      const char *value) {
  char want1[96], want2[96];
  snprintf(want1, sizeof(want1), "%s=\"%s\"", name, value);
  snprintf(want2, sizeof(want2), "%s=%s", name, value);
  char copy[1024];
  copy_trimmed(copy, sizeof(copy), params, n);
  for (char *c = copy; *c; c++) {
    *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
  }
  return strstr(copy, want1) || strstr(copy, want2);
}

/* Link: <a>; rel="alternate"; type="application/ld+json", <b>; rel=... */
static void parse_link(Headers *h, const char *v, size_t n) {
  const char *end = v + n;
  while (v < end) {
    const char *lt = memchr(v, '<', (size_t)(end - v));
    const char *gt = lt ? memchr(lt, '>', (size_t)(end - lt)) : NULL;
    if (!gt) {
      return;
    }
    const char *next = memchr(gt, ',', (size_t)(end - gt));
    const char *params_end = next ? next : end;
    if (has_param(gt + 1, (size_t)(params_end - gt - 1), "rel", "alternate") &&
        has_param(gt + 1, (size_t)(params_end - gt - 1), "type",
                  "application/ld+json") &&
        !h->alternate[0]) {
      copy_trimmed(h->alternate, sizeof(h->alternate), lt + 1,
                   (size_t)(gt - lt - 1));
    }
    v = params_end + (next ? 1 : 0);
  }
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *userdata) {
  Headers *h = userdata;
  size_t n = size * nitems;
  if (n >= 5 && !strncasecmp(buf, "HTTP/", 5)) {
    memset(h, 0, sizeof(*h)); /* a new hop: only the last one counts */
  } else if (n > 13 && !strncasecmp(buf, "content-type:", 13)) {
    copy_trimmed(h->content_type, sizeof(h->content_type), buf + 13, n - 13);
  } else if (n > 5 && !strncasecmp(buf, "link:", 5)) {
    parse_link(h, buf + 5, n - 5);
  }
  return n;
}

/* application/json, application/ld+json, anything/+json (parameters aside) */
static bool is_json_type(const char *type) {
  char t[128];
  size_t n = strcspn(type, ";");
  copy_trimmed(t, sizeof(t), type, n);
  for (char *c = t; *c; c++) {
    *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
  }
  size_t l = strlen(t);
  return !strcmp(t, "application/json") || (l > 5 && !strcmp(t + l - 5, "+json"));
}

static LwStatus http_fetch(const LwJsonldHttpOptions *o, const char *url,
                           char **body, size_t *len, char **document_url,
                           Headers *headers, LwError *err);

LwStatus lw_jsonld_http_load(void *handle, const char *url, char **body,
                             size_t *len, char **document_url, LwError *err) {
  const LwJsonldHttpOptions *o = handle;
  LwJsonldHttpOptions d = {0};
  Headers h;
  LwStatus st = http_fetch(o ? o : &d, url, body, len, document_url, &h, err);
  /* JSON-LD 1.1 LoadDocumentCallback: a non-JSON answer (schema.org serves
   * HTML) with a Link rel="alternate" type="application/ld+json" header
   * points at the JSON-LD; follow it once */
  if (st == LW_OK && h.content_type[0] && !is_json_type(h.content_type) &&
      h.alternate[0]) {
    char *next = lw_uri_resolve(*document_url, h.alternate);
    free(*body);
    free(*document_url);
    *body = *document_url = NULL;
    if (!next) {
      return lw_error_set(err, LW_ERR_HTTP, "%s: bad alternate link '%s'", url,
                          h.alternate);
    }
    Headers h2;
    st = http_fetch(o ? o : &d, next, body, len, document_url, &h2, err);
    free(next);
  }
  return st;
}

static LwStatus http_fetch(const LwJsonldHttpOptions *o, const char *url,
                           char **body, size_t *len, char **document_url,
                           Headers *headers, LwError *err) {
  memset(headers, 0, sizeof(*headers));
  if (strncasecmp(url, "http://", 7) && strncasecmp(url, "https://", 8)) {
    return lw_error_set(err, LW_ERR_REFUSED, "%s: only http and https", url);
  }
  CURL *curl = curl_easy_init();
  if (!curl) {
    return lw_error_set(err, LW_ERR_NOMEM, "curl_easy_init failed");
  }
  Body b = {NULL, 0, 0, o->max_bytes ? o->max_bytes : ((size_t)10 << 20), false};
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS,
                   o->max_redirects ? o->max_redirects : 5L);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS,
                   CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
  curl_easy_setopt(curl, CURLOPT_TIMEOUT,
                   o->timeout_seconds ? o->timeout_seconds : 30L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT,
                   o->connect_timeout_seconds ? o->connect_timeout_seconds : 10L);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)b.max);
  struct curl_slist *request_headers = curl_slist_append(
      NULL, "Accept: application/ld+json, application/json;q=0.9, */*;q=0.1");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, request_headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "lodwash/" LODWASH_VERSION);
  CURLcode rc = curl_easy_perform(curl);
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  char *final = NULL;
  curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &final);
  LwStatus st = LW_OK;
  if (b.too_big || rc == CURLE_FILESIZE_EXCEEDED) {
    st = lw_error_set(err, LW_ERR_LIMIT, "%s: larger than %zu bytes", url, b.max);
  } else if (rc == CURLE_TOO_MANY_REDIRECTS) {
    st = lw_error_set(err, LW_ERR_LIMIT, "%s: too many redirects", url);
  } else if (rc == CURLE_UNSUPPORTED_PROTOCOL) {
    st = lw_error_set(err, LW_ERR_REFUSED, "%s: redirected to a refused scheme",
                      url);
  } else if (rc != CURLE_OK) {
    st = lw_error_set(err, LW_ERR_NET, "%s: %s", url, curl_easy_strerror(rc));
  } else if (code >= 500 || code == 429) {
    st = lw_error_set(err, LW_ERR_NET, "%s: HTTP %ld", url, code);
  } else if (code >= 300) {
    st = lw_error_set(err, LW_ERR_HTTP, "%s: HTTP %ld", url, code);
  }
  if (st == LW_OK) {
    *document_url = strdup(final ? final : url);
    if (!b.data) {
      b.data = strdup("");
    }
    if (!*document_url || !b.data) {
      free(*document_url);
      *document_url = NULL;
      st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
  }
  curl_slist_free_all(request_headers);
  curl_easy_cleanup(curl);
  if (st != LW_OK) {
    free(b.data);
    return st;
  }
  *body = b.data;
  *len = b.len;
  return LW_OK;
}
