/*
 * A graph of the files store replaced whole (graph_store/graph_store.h):
 * for a graph made anew each time, such as the metadata graph, where an
 * import's rule (subjects of the harvest replaced, the others kept) would
 * keep what left it. The lines come as their writer makes them (sorted), so
 * that nothing is read back.
 */
#include "graph_store/graph_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct LwGraphReplace {
  LwGraphDb *db;
  LwGraphDbInfo info;
  LwBuf subject; /* the last line's subject, to count distinct ones */
};

void lw_graph_replace_abort(LwGraphReplace *r)
{
  if (r) {
    lw_graph_db_close(r->db); /* aborts the open transaction */
    lw_buf_free(&r->subject);
    free(r);
  }
}

LwStatus lw_graph_replace_begin(const char *data_dir, const char *name,
                                const char *graph_iri, LwGraphReplace **out, LwError *err)
{
  *out = NULL;
  LwGraphReplace *r = calloc(1, sizeof(*r));
  if (!r) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  snprintf(r->info.graph_iri, sizeof(r->info.graph_iri), "%s", graph_iri);
  LwStatus st = lw_graph_db_open(data_dir, name, false, &r->db, err);
  if (st == LW_OK) {
    st = lw_graph_db_begin(r->db, err);
  }
  if (st == LW_OK) {
    st = lw_graph_db_clear(r->db, err);
  }
  if (st != LW_OK) {
    lw_graph_replace_abort(r);
    return st;
  }
  *out = r;
  return LW_OK;
}

LwStatus lw_graph_replace_line(LwGraphReplace *r, const char *line, size_t len,
                               LwError *err)
{
  if (len && line[len - 1] == '\n') {
    --len;
  }
  size_t triple_len, graph_start, graph_len;
  if (!lw_nquads_split_line(line, len, &triple_len, &graph_start, &graph_len)) {
    return lw_error_set(err, LW_ERR_FORMAT, "not a canonical N-Quads line: %.*s",
                        (int)(len < 200 ? len : 200), line);
  }
  size_t slen = strcspn(line, " ");
  if (r->subject.len != slen || memcmp(r->subject.data, line, slen)) {
    r->info.subjects++;
    lw_buf_reset(&r->subject);
    if (lw_buf_append(&r->subject, line, slen) != LW_OK) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
  }
  r->info.triples++;
  return lw_graph_db_put(r->db, line, triple_len, err);
}

LwStatus lw_graph_replace_commit(LwGraphReplace *r, LwError *err)
{
  LwStatus st = lw_graph_db_set_info(r->db, &r->info, err);
  if (st == LW_OK) {
    st = lw_graph_db_commit(r->db, err);
  }
  lw_graph_replace_abort(r); /* frees; nothing left to abort after a commit */
  return st;
}
