#include "graph_store/graph_store.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
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
 * predicates counts its triples and predicates, *commit gets the database's
 * last commit as the read began. */
static LwStatus refresh(const char *data_dir, const char *provider, const char *view,
                        LwPredicateSet *predicates, unsigned long long *commit,
                        LwError *err)
{
  LwGraphDb *db = NULL;
  LwStatus st = lw_graph_db_open(data_dir, provider, true, &db, err);
  if (st != LW_OK) {
    return st;
  }
  /* before the read: a commit during it makes the view stale, not wrong */
  *commit = lw_graph_db_last_commit(db);
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

/* DATA/graphs/NAME.view.json: the commit the view shows and what it
 * counted (graph_store/graph_store.h). */
static void view_json_path(const char *data_dir, const char *name, char *buf, size_t size)
{
  snprintf(buf, size, "%s/graphs/%s.view.json", data_dir, name);
}

static LwStatus write_view_json(const char *data_dir, const char *name,
                                unsigned long long commit, const LwPredicateSet *counted,
                                LwError *err)
{
  char path[4096], tmp[4200];
  view_json_path(data_dir, name, path, sizeof(path));
  snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
  json_t *j = json_pack("{s:I, s:I, s:I}", "commit", (json_int_t)commit, "triples",
                        (json_int_t)counted->triples, "properties",
                        (json_int_t)counted->count);
  int rc = j ? json_dump_file(j, tmp, JSON_SORT_KEYS) : -1;
  json_decref(j);
  if (rc != 0 || rename(tmp, path) != 0) {
    unlink(tmp);
    return lw_error_set(err, LW_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  }
  return LW_OK;
}

/* The commit the view shows, 0 when unknown (no view.json: a view of an
 * earlier version, judged by its time). */
static unsigned long long view_commit(const char *data_dir, const char *name)
{
  char path[4096];
  view_json_path(data_dir, name, path, sizeof(path));
  json_t *j = json_load_file(path, 0, NULL);
  json_int_t commit = json_integer_value(json_object_get(j, "commit"));
  json_decref(j);
  return commit > 0 ? (unsigned long long)commit : 0;
}

/* The database's last commit, 0 when it cannot be opened. */
static unsigned long long db_commit(const char *data_dir, const char *name)
{
  LwGraphDb *db = NULL;
  LwError ignored;
  unsigned long long commit = 0;
  if (lw_graph_db_open(data_dir, name, true, &db, &ignored) == LW_OK) {
    commit = lw_graph_db_last_commit(db);
  }
  lw_graph_db_close(db);
  return commit;
}

/* True when the view is missing or shows another commit than the
 * database's last; without a view.json, when it is older than the
 * database's data file. */
static bool stale(const char *data_dir, const char *name, char *view, size_t size)
{
  char data[4096];
  snprintf(data, sizeof(data), "%s/graphs/%s.lmdb/data.mdb", data_dir, name);
  snprintf(view, size, "%s/graphs/%s.nq.gz", data_dir, name);
  struct stat d, v;
  if (stat(data, &d) != 0) {
    return false;
  }
  if (stat(view, &v) != 0) {
    return true;
  }
  unsigned long long shown = view_commit(data_dir, name);
  if (shown) {
    return shown != db_commit(data_dir, name);
  }
  return v.st_mtim.tv_sec < d.st_mtim.tv_sec ||
         (v.st_mtim.tv_sec == d.st_mtim.tv_sec && v.st_mtim.tv_nsec <= d.st_mtim.tv_nsec);
}

typedef struct {
  const char *data_dir;
  unsigned refreshed;
} Refresh;

static LwStatus refresh_if_stale(void *handle, const char *name, LwError *err)
{
  Refresh *r = handle;
  char view[4096];
  if (!lw_graph_name_is_provider(name) || !stale(r->data_dir, name, view, sizeof(view))) {
    return LW_OK;
  }
  /* LW_NOTHING: a database no import completed, perhaps still loading the
   * earlier layout's graph file, which must then stay as it is. */
  LwPredicateSet counted = {0};
  unsigned long long commit = 0;
  LwStatus st = refresh(r->data_dir, name, view, &counted, &commit, err);
  if (st == LW_OK) {
    st = write_view_json(r->data_dir, name, commit, &counted, err);
  }
  lw_predicate_set_free(&counted);
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

bool lw_graph_name_is_provider(const char *name)
{
  return *name && strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                               "0123456789") == strlen(name);
}
