#include "files/files.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

LwStatus lw_store_relpath(const char *kind, const char *hash, const char *suffix, char *buf,
                          size_t size)
{
  if (strlen(hash) < 4) {
    return LW_ERR_INTERNAL;
  }
  int n = snprintf(buf, size, "%s/%.2s/%.2s/%s%s", kind, hash, hash + 2, hash,
                   suffix ? suffix : "");
  return n < 0 || (size_t)n >= size ? LW_ERR_LIMIT : LW_OK;
}

LwStatus lw_store_path(const char *data_dir, const char *kind, const char *hash,
                       const char *suffix, char *buf, size_t size)
{
  int n = snprintf(buf, size, "%s/", data_dir);
  if (n < 0 || (size_t)n >= size) {
    return LW_ERR_LIMIT;
  }
  return lw_store_relpath(kind, hash, suffix, buf + n, size - (size_t)n);
}

/* Makes sure directory dir exists, creating it and its missing parents.
 * The common case, a directory there already, costs one stat: a mkdir of
 * each component from the root took the lock of each parent directory for
 * writing (the data directory's, shared by every worker's transfers), 27
 * times a document. */
static LwStatus make_dir(char *dir, LwError *err)
{
  struct stat sb;
  if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    return LW_OK;
  }
  if (mkdir(dir, 0755) == 0 || errno == EEXIST) {
    return LW_OK;
  }
  char *slash = strrchr(dir, '/');
  if (errno != ENOENT || !slash || slash == dir) {
    return lw_error_set(err, LW_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
  }
  *slash = '\0';
  LwStatus st = make_dir(dir, err);
  *slash = '/';
  LW_TRY(st);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    return lw_error_set(err, LW_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
  }
  return LW_OK;
}

LwStatus lw_store_mkparents(const char *path, LwError *err)
{
  char dir[4096];
  if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
    return lw_error_set(err, LW_ERR_LIMIT, "path too long: %s", path);
  }
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir) {
    return LW_OK; /* a file of the working directory, or of the root */
  }
  *slash = '\0';
  return make_dir(dir, err);
}

LwStatus lw_store_tmpfile(const char *data_dir, char *path_buf, size_t size, FILE **out,
                          LwError *err)
{
  int n = snprintf(path_buf, size, "%s/tmp/lw-XXXXXX", data_dir);
  if (n < 0 || (size_t)n >= size) {
    return lw_error_set(err, LW_ERR_LIMIT, "data directory path too long");
  }
  LW_TRY(lw_store_mkparents(path_buf, err));
  int fd = mkstemp(path_buf);
  if (fd < 0) {
    return lw_error_set(err, LW_ERR_IO, "cannot create a file in %s/tmp: %s", data_dir,
                        strerror(errno));
  }
  *out = fdopen(fd, "w+b");
  if (!*out) {
    close(fd);
    unlink(path_buf);
    return lw_error_set(err, LW_ERR_IO, "fdopen: %s", strerror(errno));
  }
  return LW_OK;
}

LwStatus lw_store_commit(const char *tmp_path, const char *final_path, LwError *err)
{
  LW_TRY(lw_store_mkparents(final_path, err));
  if (rename(tmp_path, final_path) != 0) {
    return lw_error_set(err, LW_ERR_IO, "cannot rename %s to %s: %s", tmp_path, final_path,
                        strerror(errno));
  }
  return LW_OK;
}

LwStatus lw_store_each_graph(const char *data_dir, const char *suffix,
                             LwStatus (*fn)(void *handle, const char *name, LwError *err),
                             void *handle, LwError *err)
{
  char dir_path[4096];
  snprintf(dir_path, sizeof(dir_path), "%s/graphs", data_dir);
  DIR *dir = opendir(dir_path);
  if (!dir) {
    return errno == ENOENT ? LW_OK
                           : lw_error_set(err, LW_ERR_IO, "cannot read %s: %s", dir_path,
                                          strerror(errno));
  }
  size_t slen = strlen(suffix);
  struct dirent *e;
  LwStatus st = LW_OK;
  while (st == LW_OK && (e = readdir(dir)) != NULL) {
    size_t n = strlen(e->d_name);
    char name[256];
    if (n <= slen || n - slen >= sizeof(name) || strcmp(e->d_name + n - slen, suffix)) {
      continue;
    }
    snprintf(name, sizeof(name), "%.*s", (int)(n - slen), e->d_name);
    st = fn(handle, name, err);
  }
  closedir(dir);
  return st;
}
