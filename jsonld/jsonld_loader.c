/*
 * A document loader for remote JSON-LD contexts from local files: a map from
 * URL prefixes to files or directories (tests, offline users: --context-map
 * URL=PATH). A plain LwJsonldLoadFn; what it does not map goes to a fallback
 * loader, over HTTP jsonld/jsonld.h (the address guard, a cache).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jsonld/jsonld.h"

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

LwJsonldMap *lw_jsonld_map_new(void)
{
  return calloc(1, sizeof(LwJsonldMap));
}

void lw_jsonld_map_free(LwJsonldMap *map)
{
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

LwStatus lw_jsonld_map_add(LwJsonldMap *map, const char *url_prefix, const char *path,
                           LwError *err)
{
  struct stat sb;
  if (stat(path, &sb) != 0) {
    return lw_error_set(err, LW_ERR_USAGE, "context map: %s: %s", path, strerror(errno));
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

LwStatus lw_jsonld_map_add_spec(LwJsonldMap *map, const char *spec, LwError *err)
{
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || !eq[1]) {
    return lw_error_set(err, LW_ERR_USAGE, "context map: expected URL=PATH, got '%s'",
                        spec);
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
                                void *fallback_handle)
{
  map->fallback = fallback;
  map->fallback_handle = fallback_handle;
}

static LwStatus read_file(const char *path, char **body, size_t *len, LwError *err)
{
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

LwStatus lw_jsonld_map_load(void *handle, const char *url, char **body, size_t *len,
                            char **document_url, LwError *err)
{
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
      return map->fallback(map->fallback_handle, url, body, len, document_url, err);
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
