/*
 * RFC 3986 URI references: split (appendix B), normalize (§6.2.2) and
 * resolve (§5.2). Works on bytes, so UTF-8 IRIs pass through unchanged.
 */
#include "base/base.h"


#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool is_scheme_char(char c)
{
  return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

/* Length of a valid scheme at the start of uri (before its ':'), or 0. */
static size_t scheme_length(const char *uri)
{
  if (!isalpha((unsigned char)uri[0])) {
    return 0;
  }
  size_t n = 1;
  while (is_scheme_char(uri[n])) {
    ++n;
  }
  return uri[n] == ':' ? n : 0;
}

bool lw_uri_is_absolute(const char *uri)
{
  return scheme_length(uri) > 0;
}

void lw_uri_split(const char *uri, LwUriParts *parts)
{
  memset(parts, 0, sizeof(*parts));
  const char *p = uri;
  size_t scheme_len = scheme_length(p);
  if (scheme_len) {
    parts->scheme = (LwSlice){p, scheme_len};
    p += scheme_len + 1;
  }
  if (p[0] == '/' && p[1] == '/') {
    p += 2;
    size_t n = strcspn(p, "/?#");
    parts->authority = (LwSlice){p, n};
    p += n;
  }
  size_t path_len = strcspn(p, "?#");
  parts->path = (LwSlice){p, path_len};
  p += path_len;
  if (*p == '?') {
    ++p;
    size_t n = strcspn(p, "#");
    parts->query = (LwSlice){p, n};
    p += n;
  }
  if (*p == '#') {
    ++p;
    parts->fragment = (LwSlice){p, strlen(p)};
  }
}

/* ---- a string builder whose first failure sticks: every put can be
 * called unchecked, and finish says NULL at the end ---- */

typedef struct {
  LwBuf buf;
  bool failed;
} Builder;

static void put(Builder *b, const char *s, size_t n)
{
  if (!b->failed && lw_buf_append(&b->buf, s, n) != LW_OK) {
    b->failed = true;
  }
}

static void put_char(Builder *b, char c)
{
  put(b, &c, 1);
}

static char *finish(Builder *b)
{
  if (b->failed) {
    lw_buf_free(&b->buf);
    return NULL;
  }
  return lw_buf_steal(&b->buf);
}

/* ---- dot segments (§5.2.4) ---- */

/* Removes the last segment and its preceding "/" (if any) from the output. */
static void drop_last_segment(Builder *out)
{
  LwBuf *b = &out->buf;
  while (b->len > 0 && b->data[b->len - 1] != '/') {
    --b->len;
  }
  if (b->len > 0) {
    --b->len;
  }
  if (b->data) {
    b->data[b->len] = '\0';
  }
}

static bool starts(const char *p, const char *end, const char *prefix)
{
  size_t n = strlen(prefix);
  return (size_t)(end - p) >= n && !memcmp(p, prefix, n);
}

static bool equals(const char *p, const char *end, const char *s)
{
  return (size_t)(end - p) == strlen(s) && !memcmp(p, s, (size_t)(end - p));
}

char *lw_uri_remove_dot_segments(const char *path, size_t len)
{
  Builder out = {0};
  const char *p = path;
  const char *end = path + len;
  while (p < end) {
    if (starts(p, end, "../")) {
      p += 3;
    } else if (starts(p, end, "./") || starts(p, end, "/./")) {
      p += 2;
    } else if (equals(p, end, "/.")) {
      p += 1; /* leaves "/" */
      put_char(&out, '/');
      break;
    } else if (starts(p, end, "/../")) {
      p += 3;
      drop_last_segment(&out);
    } else if (equals(p, end, "/..")) {
      drop_last_segment(&out);
      put_char(&out, '/');
      break;
    } else if (equals(p, end, ".") || equals(p, end, "..")) {
      break;
    } else {
      /* Move the first segment (with its leading "/", if any) to the output. */
      const char *seg_end = p + (*p == '/' ? 1 : 0);
      while (seg_end < end && *seg_end != '/') {
        ++seg_end;
      }
      put(&out, p, (size_t)(seg_end - p));
      p = seg_end;
    }
  }
  return finish(&out);
}

/* ---- normalization (§6.2.2) ---- */

static int hex_value(char c)
{
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  c = (char)tolower((unsigned char)c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool is_unreserved(int c)
{
  return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* Appends s with percent-encodings normalized: unreserved octets decoded,
 * the others' hex digits upper-cased; lower-cases everything if fold. */
static void put_normalized(Builder *b, LwSlice s, bool fold)
{
  static const char digits[] = "0123456789ABCDEF";
  for (size_t i = 0; i < s.len; ++i) {
    char c = s.ptr[i];
    if (c == '%' && i + 2 < s.len) {
      int hi = hex_value(s.ptr[i + 1]);
      int lo = hex_value(s.ptr[i + 2]);
      if (hi >= 0 && lo >= 0) {
        int octet = hi * 16 + lo;
        if (is_unreserved(octet)) {
          put_char(b, (char)(fold ? tolower(octet) : octet));
        } else {
          char enc[3] = {'%', digits[hi], digits[lo]};
          put(b, enc, 3);
        }
        i += 2;
        continue;
      }
    }
    put_char(b, fold ? (char)tolower((unsigned char)c) : c);
  }
}

/* Appends the authority with the host lower-cased (userinfo and port kept). */
static void put_authority(Builder *b, LwSlice auth)
{
  const char *at = NULL;
  for (size_t i = 0; i < auth.len; ++i) {
    if (auth.ptr[i] == '@') {
      at = auth.ptr + i;
    }
  }
  const char *host = at ? at + 1 : auth.ptr;
  const char *end = auth.ptr + auth.len;
  const char *host_end = end;
  if (*host == '[') {
    const char *close = memchr(host, ']', (size_t)(end - host));
    host_end = close ? close + 1 : end;
  } else {
    const char *colon = memchr(host, ':', (size_t)(end - host));
    host_end = colon ? colon : end;
  }
  put_normalized(b, (LwSlice){auth.ptr, (size_t)(host - auth.ptr)}, false);
  put_normalized(b, (LwSlice){host, (size_t)(host_end - host)}, true);
  put(b, host_end, (size_t)(end - host_end));
}

char *lw_uri_normalize(const char *uri)
{
  LwUriParts parts;
  lw_uri_split(uri, &parts);
  Builder b = {0};
  if (parts.scheme.ptr) {
    for (size_t i = 0; i < parts.scheme.len; ++i) {
      put_char(&b, (char)tolower((unsigned char)parts.scheme.ptr[i]));
    }
    put_char(&b, ':');
  }
  if (parts.authority.ptr) {
    put(&b, "//", 2);
    put_authority(&b, parts.authority);
  }
  /* Dot segments are removed after decoding, so "%2E%2E" counts as "..";
   * only in absolute URIs: in a relative reference they still mean something. */
  Builder path = {0};
  put_normalized(&path, parts.path, false);
  char *path_str = finish(&path);
  if (!path_str) {
    lw_buf_free(&b.buf);
    return NULL;
  }
  if (parts.scheme.ptr) {
    char *clean = lw_uri_remove_dot_segments(path_str, strlen(path_str));
    free(path_str);
    path_str = clean;
    if (!path_str) {
      lw_buf_free(&b.buf);
      return NULL;
    }
  }
  put(&b, path_str, strlen(path_str));
  free(path_str);
  if (parts.query.ptr) {
    put_char(&b, '?');
    put_normalized(&b, parts.query, false);
  }
  if (parts.fragment.ptr) {
    put_char(&b, '#');
    put_normalized(&b, parts.fragment, false);
  }
  return finish(&b);
}

void lw_uri_hash(const char *uri, char out[LW_HASH_HEX_LEN + 1])
{
  char *normal = lw_uri_normalize(uri);
  const char *s = normal ? normal : uri;
  lw_md5_hex(s, strlen(s), out);
  free(normal);
}

/* ---- resolution (§5.2.2) ---- */

/* Appends the merge of base's path with a relative path (§5.2.3). */
static void put_merged(Builder *b, const LwUriParts *base, LwSlice rel)
{
  if (base->authority.ptr && base->path.len == 0) {
    put_char(b, '/');
  } else {
    size_t keep = base->path.len;
    while (keep > 0 && base->path.ptr[keep - 1] != '/') {
      --keep;
    }
    put(b, base->path.ptr, keep);
  }
  put(b, rel.ptr, rel.len);
}

static void put_clean_path(Builder *b, const char *path, size_t len)
{
  char *clean = lw_uri_remove_dot_segments(path, len);
  if (!clean) {
    b->failed = true;
    return;
  }
  put(b, clean, strlen(clean));
  free(clean);
}

static void put_part(Builder *b, char sep, LwSlice s)
{
  if (s.ptr) {
    if (sep) {
      put_char(b, sep);
    }
    put(b, s.ptr, s.len);
  }
}

/* "scheme:" and, when there is one, "//authority". */
static void put_scheme_authority(Builder *b, LwSlice scheme, LwSlice authority)
{
  put(b, scheme.ptr, scheme.len);
  put_char(b, ':');
  if (authority.ptr) {
    put(b, "//", 2);
    put(b, authority.ptr, authority.len);
  }
}

char *lw_uri_resolve(const char *base, const char *ref)
{
  LwUriParts r, bp;
  lw_uri_split(ref, &r);
  if (r.scheme.ptr) {
    Builder t = {0};
    put_scheme_authority(&t, r.scheme, r.authority);
    put_clean_path(&t, r.path.ptr, r.path.len);
    put_part(&t, '?', r.query);
    put_part(&t, '#', r.fragment);
    return finish(&t);
  }
  if (!base) {
    return NULL;
  }
  lw_uri_split(base, &bp);
  if (!bp.scheme.ptr) {
    return NULL;
  }
  Builder t = {0};
  if (r.authority.ptr) {
    put_scheme_authority(&t, bp.scheme, r.authority);
    put_clean_path(&t, r.path.ptr, r.path.len);
    put_part(&t, '?', r.query);
  } else {
    put_scheme_authority(&t, bp.scheme, bp.authority);
    if (r.path.len == 0) {
      put(&t, bp.path.ptr, bp.path.len);
      put_part(&t, '?', r.query.ptr ? r.query : bp.query);
    } else {
      if (r.path.ptr[0] == '/') {
        put_clean_path(&t, r.path.ptr, r.path.len);
      } else {
        Builder merged = {0};
        put_merged(&merged, &bp, r.path);
        char *m = finish(&merged);
        if (!m) {
          lw_buf_free(&t.buf);
          return NULL;
        }
        put_clean_path(&t, m, strlen(m));
        free(m);
      }
      put_part(&t, '?', r.query);
    }
  }
  put_part(&t, '#', r.fragment);
  return finish(&t);
}
