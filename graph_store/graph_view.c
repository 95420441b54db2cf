#include "graph_store/graph_store.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "files/files.h"
#include "graph_store/predicate_set.h"

typedef LwStatus (*LineFn)(void *handle, const char *line, size_t len, LwError *err);

/* Calls fn with "S P O <graph> .\n" for each triple starting with prefix;
 * predicates (may be NULL) gets their predicates. */
static LwStatus each_quad(LwGraphDb *db, const char *prefix, size_t plen, LineFn fn,
                          void *handle, LwPredicateSet *predicates, LwError *err)
{
  LwGraphDbInfo info;
  LW_TRY(lw_graph_db_info(db, &info, err));
  if (!info.graph_iri[0]) {
    return LW_NOTHING; /* no import ever committed: no graph yet */
  }
  LwGraphCursor *cursor = NULL;
  LW_TRY(lw_graph_cursor_open(db, prefix, plen, &cursor, err));
  LwBuf line = LW_BUF_INIT;
  const char *triple;
  size_t len;
  LwStatus st;
  while ((st = lw_graph_cursor_next(cursor, &triple, &len, err)) == LW_OK) {
    if (predicates && lw_predicate_set_add_triple(predicates, triple, len) != LW_OK) {
      st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
      break;
    }
    lw_buf_reset(&line);
    if (lw_buf_append(&line, triple, len) ||
        lw_buf_appendf(&line, " <%s> .\n", info.graph_iri)) {
      st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
      break;
    }
    if ((st = fn(handle, line.data, line.len, err)) != LW_OK) {
      break;
    }
  }
  lw_buf_free(&line);
  lw_graph_cursor_close(cursor);
  return st == LW_NOTHING ? LW_OK : st;
}

static LwStatus to_file(void *handle, const char *line, size_t len, LwError *err)
{
  return fwrite(line, 1, len, handle) == len
           ? LW_OK
           : lw_error_set(err, LW_ERR_IO, "write error: %s", strerror(errno));
}

LwStatus lw_graph_view_print(const char *data_dir, const char *provider,
                             const char *subject, FILE *out, LwError *err)
{
  LwGraphDb *db = NULL;
  LwStatus st = lw_graph_db_open(data_dir, provider, true, &db, err);
  if (st != LW_OK) {
    return st; /* LW_NOTHING: no such graph */
  }
  LwBuf prefix = LW_BUF_INIT;
  if (subject &&
      lw_buf_appendf(&prefix, !strncmp(subject, "_:", 2) ? "%s " : "<%s> ", subject)) {
    st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  if (st == LW_OK) {
    st = each_quad(db, prefix.data, prefix.len, to_file, out, NULL, err);
  }
  lw_buf_free(&prefix);
  lw_graph_db_close(db);
  return st;
}

static LwStatus to_gz(void *handle, const char *line, size_t len, LwError *err)
{
  return lw_gz_writer_write(handle, line, len, err);
}

/* Writes the view of one graph to a temporary file and renames it in place;
 * predicates gets the graph's predicates. */
static LwStatus refresh(const char *data_dir, const char *provider, const char *view,
                        LwPredicateSet *predicates, LwError *err)
{
  LwGraphDb *db = NULL;
  LwStatus st = lw_graph_db_open(data_dir, provider, true, &db, err);
  if (st != LW_OK) {
    return st;
  }
  char tmp[4096];
  FILE *f = NULL;
  LwGzWriter *gz = NULL;
  LwGzOptions o = {.gzip = true, .level = 1, .threads = 2, .no_md5 = true};
  st = lw_store_tmpfile(data_dir, tmp, sizeof(tmp), &f, err);
  if (st == LW_OK) {
    st = lw_gz_writer_open(f, &o, &gz, err);
  }
  if (st == LW_OK) {
    st = each_quad(db, NULL, 0, to_gz, gz, predicates, err);
    LwStatus cst = st == LW_OK ? lw_gz_writer_close(gz, NULL, err) : LW_OK;
    if (st != LW_OK) {
      lw_gz_writer_free(gz);
    }
    st = st != LW_OK ? st : cst;
  }
  if (f && fclose(f) != 0 && st == LW_OK) {
    st = lw_error_set(err, LW_ERR_IO, "cannot finish %s: %s", tmp, strerror(errno));
  }
  lw_graph_db_close(db);
  if (st == LW_OK) {
    st = lw_store_commit(tmp, view, err);
  }
  if (st != LW_OK && f) {
    unlink(tmp);
  }
  return st;
}

/* True when the view is missing or older than the database's data file. */
static bool stale(const char *data_dir, const char *name, char *view, size_t size)
{
  char data[4096];
  snprintf(data, sizeof(data), "%s/graphs/%s.lmdb/data.mdb", data_dir, name);
  snprintf(view, size, "%s/graphs/%s.nq.gz", data_dir, name);
  struct stat d, v;
  if (stat(data, &d) != 0) {
    return false;
  }
  return stat(view, &v) != 0 || v.st_mtim.tv_sec < d.st_mtim.tv_sec ||
         (v.st_mtim.tv_sec == d.st_mtim.tv_sec && v.st_mtim.tv_nsec <= d.st_mtim.tv_nsec);
}

typedef struct {
  const char *data_dir;
  unsigned refreshed;
} Refresh;

/* The graph's distinct predicates into its stats file (void:properties):
 * the import does not know them, the view's full read does. */
static LwStatus note_properties(const char *data_dir, const char *name, size_t count,
                                LwError *err)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/graphs/%s.stats.json", data_dir, name);
  LwGraphStats s;
  LwStatus st = lw_graph_stats_read(path, &s, err);
  if (st != LW_OK) {
    return st == LW_NOTHING ? LW_OK : st;
  }
  s.has_properties = true;
  s.properties = count;
  return lw_graph_stats_write(path, &s, err);
}

static LwStatus refresh_if_stale(void *handle, const char *name, LwError *err)
{
  Refresh *r = handle;
  char view[4096];
  if (!stale(r->data_dir, name, view, sizeof(view))) {
    return LW_OK;
  }
  /* LW_NOTHING: a database no import completed, perhaps still loading the
   * earlier layout's graph file, which must then stay as it is. */
  LwPredicateSet predicates = {0};
  LwStatus st = refresh(r->data_dir, name, view, &predicates, err);
  if (st == LW_OK) {
    st = note_properties(r->data_dir, name, predicates.count, err);
  }
  lw_predicate_set_free(&predicates);
  r->refreshed += st == LW_OK;
  return st == LW_NOTHING ? LW_OK : st;
}

LwStatus lw_graph_view_refresh_all(const char *data_dir, unsigned *refreshed, LwError *err)
{
  Refresh r = {.data_dir = data_dir};
  LwStatus st = lw_store_each_graph(data_dir, ".lmdb", refresh_if_stale, &r, err);
  if (refreshed) {
    *refreshed = r.refreshed;
  }
  return st;
}
