/*
 * The metadata graph sent to a SPARQL store (meta/meta_store.h). It is
 * small beside the providers' graphs (a few dozen triples a document) and
 * changes all over at each export, so it is replaced rather than patched:
 * a reader may see it empty or half sent for the time of the transfer.
 */
#include "meta/meta_store.h"

#include <stdio.h>
#include <string.h>

#include "graph_store/graph_store.h"

/* Bytes of triples sent per request. */
#define BATCH_BYTES (2u << 20)
/* Triples per INSERT DATA in update mode (as the import's, sparql_import.c). */
#define UPDATE_TRIPLES 10000

static LwSparqlStore *open_store(const LwConfig *cfg, LwError *err)
{
  LwSparqlOptions o = {.update_url = cfg->store,
                       .gsp_url = *cfg->store_gsp ? cfg->store_gsp : NULL,
                       .user = *cfg->store_user ? cfg->store_user : NULL,
                       .password = cfg->store_password,
                       .connections = 1};
  if (!lw_sparql_mode_parse(cfg->store_mode, &o.mode)) {
    lw_error_set(err, LW_ERR_USAGE, "--store-mode: '%s' is not gsp or update",
                 cfg->store_mode);
    return NULL;
  }
  return lw_sparql_open(&o, err);
}

typedef struct {
  LwSparqlStore *store;
  const char *graph;
  LwBuf batch;
  size_t triples;
} Sender;

static LwStatus flush(Sender *s, LwError *err)
{
  if (!s->triples) {
    return LW_OK;
  }
  LwStatus st;
  if (lw_sparql_mode(s->store) == LW_SPARQL_GSP) {
    st = lw_sparql_post(s->store, s->graph, s->batch.data, s->batch.len, err);
  } else {
    LwBuf u = LW_BUF_INIT;
    st = lw_buf_appendf(&u, "INSERT DATA { GRAPH <%s> {\n", s->graph);
    if (st == LW_OK) {
      st = lw_buf_append(&u, s->batch.data, s->batch.len);
    }
    if (st == LW_OK) {
      st = lw_buf_append_str(&u, "} }");
    }
    st = st == LW_OK ? lw_sparql_update(s->store, u.data, err)
                     : lw_error_set(err, st, "out of memory");
    lw_buf_free(&u);
  }
  lw_buf_reset(&s->batch);
  s->triples = 0;
  return st;
}

/* One quad line of the graph as a triple: " <graph> ." cut off. */
static LwStatus add(Sender *s, const char *line, size_t len, LwError *err)
{
  size_t tail = strlen(s->graph) + 5; /* " <" graph "> ." */
  if (len <= tail || strncmp(line + len - tail + 2, s->graph, tail - 5)) {
    return lw_error_set(err, LW_ERR_FORMAT, "metadata graph: a line not in <%s>", s->graph);
  }
  LwStatus st = lw_buf_append(&s->batch, line, len - tail);
  if (st == LW_OK) {
    st = lw_buf_append_str(&s->batch, " .\n");
  }
  if (st != LW_OK) {
    return lw_error_set(err, st, "out of memory");
  }
  s->triples++;
  bool full = lw_sparql_mode(s->store) == LW_SPARQL_GSP ? s->batch.len >= BATCH_BYTES
                                                        : s->triples >= UPDATE_TRIPLES;
  return full ? flush(s, err) : LW_OK;
}

LwStatus lw_meta_store_replace(const LwConfig *cfg, const char *graph, const char *path,
                               LwError *err)
{
  Sender s = {.graph = graph};
  s.store = open_store(cfg, err);
  if (!s.store) {
    return err->status;
  }
  char drop[4096];
  snprintf(drop, sizeof(drop), "DROP SILENT GRAPH <%s>", graph);
  LwStatus st = lw_sparql_update(s.store, drop, err);
  LwLineReader *r = st == LW_OK ? lw_line_reader_open(path, 1u << 26, err) : NULL;
  if (st == LW_OK && !r) {
    st = err->status;
  }
  const char *line;
  size_t len;
  while (st == LW_OK && (st = lw_line_reader_next(r, &line, &len, err)) == LW_OK) {
    st = add(&s, line, len, err);
  }
  if (st == LW_NOTHING) {
    st = flush(&s, err);
  }
  lw_line_reader_close(r);
  lw_buf_free(&s.batch);
  lw_sparql_close(s.store);
  return st;
}
