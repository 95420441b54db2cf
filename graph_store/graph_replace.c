/*
 * A graph of the files store replaced whole (graph_store/graph_store.h):
 * for a graph made anew each time, such as the metadata graph, where an
 * import's rule (subjects of the harvest replaced, the others kept) would
 * keep what left it.
 */
#include "graph_store/graph_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deletes every triple in the open write transaction. */
static LwStatus delete_all(LwGraphDb *db, LwError *err)
{
  LwGraphCursor *cursor = NULL;
  LW_TRY(lw_graph_cursor_open(db, NULL, 0, &cursor, err));
  const char *triple;
  size_t len;
  LwStatus st;
  while ((st = lw_graph_cursor_next(cursor, &triple, &len, err)) == LW_OK) {
    /* the cursor seeks again after the delete: copy the key first */
    char *copy = strndup(triple, len);
    st = copy ? lw_graph_db_del(db, copy, len, err)
              : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    free(copy);
    if (st != LW_OK) {
      break;
    }
  }
  lw_graph_cursor_close(cursor);
  return st == LW_NOTHING ? LW_OK : st;
}

/* Puts the triples of the sorted N-Quads file at path, counting them and
 * their subjects into info. */
static LwStatus put_all(LwGraphDb *db, const char *path, LwGraphDbInfo *info, LwError *err)
{
  LwLineReader *r = lw_line_reader_open(path, 1u << 26, err);
  if (!r) {
    return err->status;
  }
  const char *line;
  size_t len, triple_len, graph_start, graph_len;
  LwBuf subject = LW_BUF_INIT;
  LwStatus st;
  while ((st = lw_line_reader_next(r, &line, &len, err)) == LW_OK) {
    if (!lw_nquads_split_line(line, len, &triple_len, &graph_start, &graph_len)) {
      st = lw_error_set(err, LW_ERR_FORMAT, "%s: a line that is not canonical N-Quads",
                        path);
      break;
    }
    size_t slen = strcspn(line, " ");
    if (subject.len != slen || memcmp(subject.data, line, slen)) {
      info->subjects++;
      lw_buf_reset(&subject);
      lw_buf_append(&subject, line, slen);
    }
    info->triples++;
    if ((st = lw_graph_db_put(db, line, triple_len, err)) != LW_OK) {
      break;
    }
  }
  lw_buf_free(&subject);
  lw_line_reader_close(r);
  return st == LW_NOTHING ? LW_OK : st;
}

LwStatus lw_graph_replace(const char *data_dir, const char *name, const char *graph_iri,
                          const char *path, LwError *err)
{
  LwGraphDb *db = NULL;
  LW_TRY(lw_graph_db_open(data_dir, name, false, &db, err));
  LwGraphDbInfo info = {.triples = 0};
  snprintf(info.graph_iri, sizeof(info.graph_iri), "%s", graph_iri);
  LwStatus st = lw_graph_db_begin(db, err);
  if (st == LW_OK) {
    st = delete_all(db, err);
  }
  if (st == LW_OK) {
    st = put_all(db, path, &info, err);
  }
  if (st == LW_OK) {
    st = lw_graph_db_set_info(db, &info, err);
  }
  if (st == LW_OK) {
    st = lw_graph_db_commit(db, err);
  } else {
    lw_graph_db_abort(db);
  }
  lw_graph_db_close(db);
  return st;
}
