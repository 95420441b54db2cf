/*
 * CKAN's Action API (api/3/action/package_search and package_show) read
 * into datasets: a package is a dataset, its resources are dumps when their
 * declared format says RDF (or says nothing: fetched and guessed) and skips
 * when it says something else (CSV, WMS, ...). package_search answers are
 * paged with start and rows; the next page goes to page->next.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "sources/sources.h"

/* CKAN's own upper bound for rows (ckan.search.rows_max): asking for more
 * gets 1000 anyway. */
#define CKAN_DEFAULT_ROWS 1000u

/* ---- small JSON helpers ------------------------------------------------- */

/* The string member key of obj, or NULL when absent, not a string or "". */
static const char *member_text(const json_t *obj, const char *key)
{
  const char *s = json_string_value(json_object_get(obj, key));
  return s && *s ? s : NULL;
}

static bool has_prefix_nocase(const char *s, const char *prefix)
{
  return !strncasecmp(s, prefix, strlen(prefix));
}

/* An http(s) URL with a host (something after "//"). */
static bool is_http_url(const char *s)
{
  size_t scheme = has_prefix_nocase(s, "http://")    ? 7
                  : has_prefix_nocase(s, "https://") ? 8
                                                     : 0;
  return scheme && s[scheme] != '\0' && s[scheme] != '/';
}

/* ---- checksums ---------------------------------------------------------- */

static bool all_hex(const char *s, size_t n)
{
  for (size_t i = 0; i < n; ++i) {
    if (!isxdigit((unsigned char)s[i])) {
      return false;
    }
  }
  return true;
}

/* The algorithm whose digests have n hex digits, or NULL. */
static const char *algorithm_of_length(size_t n)
{
  switch (n) {
  case 32:
    return "md5";
  case 40:
    return "sha1";
  case 64:
    return "sha256";
  default:
    return NULL;
  }
}

/* "sha-256", "SHA256", "sha1" as the short lower-case name ("sha256"). */
static void algorithm_name(const char *s, size_t n, char *out, size_t size)
{
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < size; ++i) {
    if (s[i] != '-' && s[i] != '_') {
      out[k++] = (char)tolower((unsigned char)s[i]);
    }
  }
  out[k] = '\0';
}

/* CKAN's free-text hash field: "sha256:HEX", "md5:HEX" or bare hex of an
 * MD5, SHA-1 or SHA-256 length. Publishers also put URLs, dates and
 * placeholders there, so only what looks like a digest is taken. */
static bool resource_checksum(LwSourceDump *dump, const char *hash)
{
  const char *colon = strchr(hash, ':');
  const char *hex = colon ? colon + 1 : hash;
  size_t n = strlen(hex);
  const char *by_length = algorithm_of_length(n);
  if (!by_length || !all_hex(hex, n)) {
    return true; /* not a digest: ignored */
  }
  if (!colon) {
    return lw_source_dump_set_checksum(dump, by_length, hex);
  }
  char named[16];
  algorithm_name(hash, (size_t)(colon - hash), named, sizeof(named));
  if (strcmp(named, by_length) != 0) {
    return true; /* "md5:" with 64 digits: not what it says */
  }
  return lw_source_dump_set_checksum(dump, named, hex);
}

/* ---- resources ---------------------------------------------------------- */

/* A declared format that is a media type ("text/turtle"), as the dump's
 * media type; labels ("Turtle") and IRIs are not. */
static const char *as_media_type(const char *declared)
{
  if (!declared || strstr(declared, "://") || !strchr(declared, '/')) {
    return NULL;
  }
  return declared;
}

/* What the resource's format, else its mimetype, says; *said is the text
 * that said it (for the skip reason), NULL when neither said anything
 * lw_media_class knows. */
static LwMediaClass resource_class(const json_t *res, const char **said)
{
  const char *declared[2] = {member_text(res, "format"), member_text(res, "mimetype")};
  for (int i = 0; i < 2; ++i) {
    LwMediaClass cls = lw_media_class(declared[i]);
    if (cls != LW_MEDIA_UNKNOWN) {
      *said = declared[i];
      return cls;
    }
  }
  *said = NULL;
  return LW_MEDIA_UNKNOWN;
}

/* The media type given to a fetched resource: its mimetype, else a format
 * written as a media type. */
static const char *resource_media_type(const json_t *res)
{
  const char *m = as_media_type(member_text(res, "mimetype"));
  return m ? m : as_media_type(member_text(res, "format"));
}

/* A label for a resource in skip reasons: its name, else its id. */
static const char *resource_label(const json_t *res)
{
  const char *name = member_text(res, "name");
  return name ? name : member_text(res, "id") ? member_text(res, "id") : "(unnamed)";
}

static bool mentions_sparql(const char *s)
{
  for (; *s; ++s) {
    if (!strncasecmp(s, "sparql", 6)) {
      return true;
    }
  }
  return false;
}

static bool add_resource(LwSourceDataset *ds, const json_t *res)
{
  if (!json_is_object(res)) {
    return true;
  }
  const char *url = member_text(res, "url");
  if (!url) {
    return lw_source_skip_add(ds, NULL, "resource %s has no URL", resource_label(res));
  }
  if (!is_http_url(url)) {
    return lw_source_skip_add(ds, url, "resource %s: URL is not http(s)",
                              resource_label(res));
  }
  const char *said = NULL;
  LwMediaClass cls = resource_class(res, &said);
  if (cls == LW_MEDIA_NOT_RDF) {
    /* datahub.io's LOD labels named endpoints "api/sparql" */
    bool endpoint = mentions_sparql(said);
    return lw_source_skip_add(ds, url, "format %s is not RDF%s", said,
                              endpoint
                                ? " (a SPARQL endpoint: name it as a sparql: provider "
                                  "to harvest it)"
                                : "");
  }
  /* Only a format that names an RDF syntax is trusted; a page (RDFa) and a
   * resource that says nothing are fetched and their format guessed. */
  LwSourceDump *dump = lw_source_dump_add(ds, url, resource_media_type(res),
                                          cls != LW_MEDIA_RDF);
  if (!dump) {
    return false;
  }
  const char *hash = member_text(res, "hash");
  return hash ? resource_checksum(dump, hash) : true;
}

/* ---- packages ----------------------------------------------------------- */

/* One package as a dataset. False only when out of memory. */
static bool add_package(LwSourcePage *page, const json_t *pkg)
{
  if (!json_is_object(pkg)) {
    lw_source_warn(page, "a package that is not a JSON object was ignored");
    return true;
  }
  const char *id = member_text(pkg, "name");
  if (!id) {
    id = member_text(pkg, "id");
  }
  if (!id) {
    lw_source_warn(page, "a package without a name or id was ignored");
    return true;
  }
  LwSourceDataset *ds = lw_source_dataset(page, id);
  if (!ds || !lw_source_dataset_set_version(ds, member_text(pkg, "metadata_modified"))) {
    return false;
  }
  const char *title = member_text(pkg, "title");
  if (title && !lw_source_dataset_set_title(ds, title)) {
    return false;
  }
  size_t i;
  json_t *res;
  json_array_foreach(json_object_get(pkg, "resources"), i, res) {
    if (!add_resource(ds, res)) {
      return false;
    }
  }
  return true;
}

/* ---- URLs: query parameters, paging ------------------------------------- */

/* The query (after '?', up to '#') of url, or NULL. */
static const char *query_of(const char *url, size_t *len)
{
  const char *q = strchr(url, '?');
  if (!q) {
    return NULL;
  }
  ++q;
  *len = strcspn(q, "#");
  return q;
}

/* The value of the numeric query parameter name of url; fallback when
 * absent or not a number. */
static unsigned long long query_number(const char *url, const char *name,
                                       unsigned long long fallback)
{
  size_t len = 0, n = strlen(name);
  const char *q = url ? query_of(url, &len) : NULL;
  for (const char *p = q; p && p < q + len;) {
    size_t field = strcspn(p, "&#");
    if (field > n && !strncmp(p, name, n) && p[n] == '=' &&
        isdigit((unsigned char)p[n + 1])) {
      return strtoull(p + n + 1, NULL, 10);
    }
    p += field + 1; /* past the '&' (or the end: the loop stops) */
  }
  return fallback;
}

/* url (its fragment dropped) with its start and rows parameters replaced
 * by these, its other parameters kept in order. Caller frees. */
static char *with_paging(const char *url, unsigned long long start, unsigned rows)
{
  size_t base_len = strcspn(url, "?#"), qlen = 0;
  const char *q = query_of(url, &qlen);
  LwBuf b = LW_BUF_INIT;
  LwStatus st = lw_buf_append(&b, url, base_len);
  char sep = '?';
  for (const char *p = q; st == LW_OK && p && p < q + qlen;) {
    size_t field = strcspn(p, "&#");
    if (field > 0 && !(field >= 5 && !strncmp(p, "rows=", 5)) &&
        !(field >= 6 && !strncmp(p, "start=", 6))) {
      st = lw_buf_append_char(&b, sep);
      st = st == LW_OK ? lw_buf_append(&b, p, field) : st;
      sep = '&';
    }
    p += field + 1;
  }
  if (st == LW_OK) {
    st = lw_buf_appendf(&b, "%crows=%u&start=%llu", sep, rows, start);
  }
  if (st != LW_OK) {
    lw_buf_free(&b);
    return NULL;
  }
  return lw_buf_steal(&b);
}

/* The next package_search page when this one did not reach count. */
static bool add_next_page(LwSourcePage *page, const char *url, unsigned long long count,
                          size_t got)
{
  unsigned long long start = query_number(url, "start", 0);
  if (got == 0 || start + got >= count) {
    return true;
  }
  if (!url) {
    lw_source_warn(page, "more packages than this page holds, but no URL to page on");
    return true;
  }
  unsigned long long rows = query_number(url, "rows", CKAN_DEFAULT_ROWS);
  if (rows == 0 || rows > UINT32_MAX) {
    rows = CKAN_DEFAULT_ROWS;
  }
  char *next = with_paging(url, start + got, (unsigned)rows);
  bool ok = next && lw_source_next_add(page, next);
  free(next);
  return ok;
}

/* ---- the answer --------------------------------------------------------- */

/* CKAN's error: {"message": "..."} or, for validation errors, fields with
 * lists of messages and a "__type". */
static LwStatus ckan_error(const json_t *answer, LwError *err)
{
  const json_t *e = json_object_get(answer, "error");
  const char *msg = member_text(e, "message");
  const char *type = member_text(e, "__type");
  if (msg) {
    return lw_error_set(err, LW_ERR_FORMAT, "CKAN said: %s%s%s%s", msg, type ? " (" : "",
                        type ? type : "", type ? ")" : "");
  }
  char *dump = e ? json_dumps(e, JSON_COMPACT) : NULL;
  lw_error_set(err, LW_ERR_FORMAT, "CKAN said: %s", dump ? dump : "success is false");
  free(dump);
  return LW_ERR_FORMAT;
}

static LwStatus read_search(LwSourcePage *page, const json_t *result, const char *url,
                            LwError *err)
{
  const json_t *results = json_object_get(result, "results");
  json_int_t count = json_integer_value(json_object_get(result, "count"));
  page->total = count > 0 ? (unsigned long long)count : 0;
  size_t i;
  json_t *pkg;
  json_array_foreach(results, i, pkg) {
    if (!add_package(page, pkg)) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory reading CKAN packages");
    }
  }
  if (!add_next_page(page, url, page->total, json_array_size(results))) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  return LW_OK;
}

static LwStatus read_answer(LwSourcePage *page, const json_t *answer, const char *url,
                            LwError *err)
{
  const json_t *success = json_object_get(answer, "success");
  if (!json_is_object(answer) || !json_is_boolean(success)) {
    return lw_error_set(err, LW_ERR_FORMAT,
                        "not a CKAN Action API answer (no \"success\")");
  }
  if (json_is_false(success)) {
    return ckan_error(answer, err);
  }
  const json_t *result = json_object_get(answer, "result");
  if (json_is_object(result) && json_is_array(json_object_get(result, "results"))) {
    return read_search(page, result, url, err);
  }
  if (json_is_object(result) &&
      (member_text(result, "name") || member_text(result, "id"))) {
    return add_package(page, result)
             ? LW_OK
             : lw_error_set(err, LW_ERR_NOMEM, "out of memory reading a CKAN package");
  }
  return lw_error_set(err, LW_ERR_FORMAT,
                      "not a package_search or package_show answer (its result is neither "
                      "a search result nor a package)");
}

LwStatus lw_ckan_parse(const char *data, size_t len, const char *url, LwSourcePage **out,
                       LwError *err)
{
  *out = NULL;
  if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3)) {
    data += 3; /* a UTF-8 BOM, which jansson refuses */
    len -= 3;
  }
  json_error_t je;
  json_t *answer = json_loadb(data, len, 0, &je);
  if (!answer) {
    return lw_error_set(err, LW_ERR_SYNTAX, "not JSON: %s (line %d)", je.text, je.line);
  }
  LwSourcePage *page = lw_source_page_new();
  LwStatus st = page ? read_answer(page, answer, url, err)
                     : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  json_decref(answer);
  if (st != LW_OK) {
    lw_source_page_free(page);
    return st;
  }
  *out = page;
  return LW_OK;
}

/* ---- lw_ckan_api_url ---------------------------------------------------- */

/* name percent-encoded where it is not an unreserved character. */
static LwStatus append_encoded(LwBuf *b, const char *s, size_t n)
{
  static const char hex[] = "0123456789ABCDEF";
  LwStatus st = LW_OK;
  for (size_t i = 0; i < n && st == LW_OK; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      st = lw_buf_append_char(b, (char)c);
    } else {
      char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
      st = lw_buf_append(b, esc, 3);
    }
  }
  return st;
}

/* The "/dataset" segment of root's path (followed by the path's end or a
 * '/'), or NULL. The host is not searched: dataset.example.org is a site. */
static const char *dataset_segment(const char *root)
{
  LwUriParts parts;
  lw_uri_split(root, &parts);
  if (!parts.path.ptr) {
    return NULL;
  }
  const char *path_end = parts.path.ptr + parts.path.len;
  for (const char *d = strstr(parts.path.ptr, "/dataset"); d && d + 8 <= path_end;
       d = strstr(d + 1, "/dataset")) {
    if (d + 8 == path_end || d[8] == '/') {
      return d;
    }
  }
  return NULL;
}

/* package_show?id=NAME for a dataset page ".../dataset/NAME[/...]", the
 * site root being what precedes "/dataset/". */
static char *package_show_url(const char *root, const char *d, size_t name_len)
{
  LwBuf b = LW_BUF_INIT;
  LwStatus st = lw_buf_append(&b, root, (size_t)(d - root));
  st = st == LW_OK ? lw_buf_append_str(&b, "/api/3/action/package_show?id=") : st;
  st = st == LW_OK ? append_encoded(&b, d + 9, name_len) : st;
  if (st != LW_OK) {
    lw_buf_free(&b);
    return NULL;
  }
  return lw_buf_steal(&b);
}

/* The length of root's site part: without query, fragment, trailing
 * slashes, and a trailing "/api" or "/api/3" (the API's root given for the
 * site's). */
static size_t site_length(const char *root)
{
  size_t n = strcspn(root, "?#");
  while (n > 0 && root[n - 1] == '/') {
    --n;
  }
  static const char *const api_roots[] = {"/api/3", "/api"};
  for (size_t i = 0; i < 2; ++i) {
    size_t k = strlen(api_roots[i]);
    if (n >= k && !strncmp(root + n - k, api_roots[i], k)) {
      return n - k;
    }
  }
  return n;
}

/* root under an Action API path: package_search with its paging set, any
 * other action as it is. */
static char *action_url(const char *root, const char *action, unsigned long long start,
                        unsigned rows)
{
  size_t n = strlen("package_search");
  bool search = !strncmp(action, "package_search", n) &&
                (action[n] == '\0' || action[n] == '?' || action[n] == '#');
  return search ? with_paging(root, start, rows) : strdup(root);
}

char *lw_ckan_api_url(const char *root, unsigned long long start, unsigned rows)
{
  if (!root) {
    return NULL;
  }
  rows = rows ? rows : CKAN_DEFAULT_ROWS;
  static const char *const api_paths[] = {"/api/3/action/", "/api/action/"};
  for (size_t i = 0; i < 2; ++i) {
    const char *a = strstr(root, api_paths[i]);
    if (a) {
      return action_url(root, a + strlen(api_paths[i]), start, rows);
    }
  }
  /* A dataset page: that package; the dataset list (".../dataset",
   * ".../dataset?q=..."): the site's search. */
  const char *d = dataset_segment(root);
  size_t name_len = d && d[8] == '/' ? strcspn(d + 9, "/?#") : 0;
  if (name_len > 0) {
    return package_show_url(root, d, name_len);
  }
  size_t n = d ? (size_t)(d - root) : site_length(root);
  while (n > 0 && root[n - 1] == '/') {
    --n;
  }
  LwBuf b = LW_BUF_INIT;
  if (lw_buf_appendf(&b, "%.*s/api/3/action/package_search?rows=%u&start=%llu", (int)n,
                     root, rows, start) != LW_OK) {
    lw_buf_free(&b);
    return NULL;
  }
  return lw_buf_steal(&b);
}
