/*
 * lw_jsonld_to_rdf: one document through the processor. The reading (and
 * the choice between streaming element by element and loading the whole
 * document) is in jsonld_stream.c; this file sets up a run, converts
 * elements or whole documents (expansion, node map, quads) and reports
 * errors.
 */
#include <stdlib.h>
#include <string.h>

#include "jsonld/jsonld_private.h"

#define DEFAULT_MAX_DEPTH 512
#define DEFAULT_MAX_CONTEXT_DEPTH 32
#define DEFAULT_MAX_REMOTE 64
#define DEFAULT_MAX_BYTES ((size_t)1 << 30)

LwStatus lw_jld_convert_element(LwJld *p, LwJldCtx *ctx, const char *active_property,
                                json_t *element, bool top)
{
  json_t *expanded = NULL;
  LwStatus st;
  if (top) {
    st = lw_jld_expand_top(p, ctx, element, p->opt->base_iri, &expanded);
  } else {
    st = lw_jld_expand(p, ctx, active_property, element, p->opt->base_iri, false,
                       &expanded);
  }
  if (st != LW_OK || !expanded) {
    json_decref(expanded);
    return st;
  }
  json_t *map = json_pack("{s:{}}", "@default");
  if (!map) {
    json_decref(expanded);
    return lw_jld_nomem(p);
  }
  st = lw_jld_node_map(p, expanded, map, "@default", NULL, NULL, NULL);
  json_decref(expanded);
  if (st == LW_OK) {
    st = lw_jld_emit_node_map(p, map);
  }
  json_decref(map);
  return st;
}

/* True for {"@context": ..., "@graph": [...]} (literal keys): its elements
 * can be converted one by one. */
static bool is_context_and_graph(json_t *doc)
{
  if (!json_is_object(doc) || !json_is_array(json_object_get(doc, "@graph"))) {
    return false;
  }
  size_t n = json_object_size(doc);
  return n == 1 || (n == 2 && json_object_get(doc, "@context"));
}

LwStatus lw_jld_convert_whole(LwJld *p, json_t *doc)
{
  LwJldCtx *ctx = lw_jld_ctx_new(p->opt->base_iri);
  if (!ctx) {
    return lw_jld_nomem(p);
  }
  LwStatus st = LW_OK;
  if (json_is_array(doc)) {
    for (size_t i = 0; i < json_array_size(doc) && st == LW_OK; i++) {
      st = lw_jld_convert_element(p, ctx, NULL, json_array_get(doc, i), false);
      json_array_set_new(doc, i, json_null()); /* memory goes as we go */
    }
  } else if (is_context_and_graph(doc)) {
    json_t *local = json_object_get(doc, "@context");
    if (local) {
      LwJldCtx *next = NULL;
      st = lw_jld_process_context(p, ctx, local, p->opt->base_iri, NULL, false, true, true,
                                  &next);
      lw_jld_ctx_unref(ctx);
      ctx = next;
    }
    json_t *graph = json_object_get(doc, "@graph");
    for (size_t i = 0; i < json_array_size(graph) && st == LW_OK; i++) {
      st = lw_jld_convert_element(p, ctx, "@graph", json_array_get(graph, i), false);
      json_array_set_new(graph, i, json_null());
    }
  } else {
    st = lw_jld_convert_element(p, ctx, NULL, doc, true);
  }
  lw_jld_ctx_unref(ctx);
  return st;
}

LwStatus lw_jsonld_to_rdf(FILE *in, const LwJsonldOptions *opt, LwReadStats *stats,
                          LwError *err)
{
  LwError local;
  if (!err) {
    err = &local;
  }
  lw_error_clear(err);
  LwJld p;
  memset(&p, 0, sizeof(p));
  p.opt = opt;
  p.err = err;
  p.stats = stats;
  p.max_depth = opt->max_depth ? opt->max_depth : DEFAULT_MAX_DEPTH;
  p.max_context_depth = opt->max_context_depth ? opt->max_context_depth
                                               : DEFAULT_MAX_CONTEXT_DEPTH;
  p.max_remote = opt->max_remote_contexts ? opt->max_remote_contexts : DEFAULT_MAX_REMOTE;
  p.max_bytes = opt->max_document_bytes ? opt->max_document_bytes : DEFAULT_MAX_BYTES;
  p.remote_cache = json_object();
  p.bnode_map = json_object();
  LwStatus st = p.remote_cache && p.bnode_map ? lw_jld_read(&p, in) : lw_jld_nomem(&p);
  json_decref(p.remote_cache);
  json_decref(p.bnode_map);
  lw_jld_scoped_cache_free(&p);
  if (st != LW_OK) {
    if (stats) {
      stats->errors++;
    }
    if (opt->on_error) {
      opt->on_error(opt->error_handle, p.err_line, p.err_column, err->message);
    }
  }
  return st;
}

LwStatus lw_jsonld_to_rdf_buffer(const char *json, size_t len, const LwJsonldOptions *opt,
                                 LwReadStats *stats, LwError *err)
{
  /* fmemopen gives a seekable stream, so buffers take the same paths as
   * files; it refuses size 0, which is an empty document anyway */
  FILE *in = len ? fmemopen((void *)json, len, "r") : tmpfile();
  if (!in) {
    LwError local;
    if (!err) {
      err = &local;
    }
    return lw_error_set(err, LW_ERR_NOMEM, "cannot open the buffer as a stream");
  }
  LwStatus st = lw_jsonld_to_rdf(in, opt, stats, err);
  fclose(in);
  return st;
}
