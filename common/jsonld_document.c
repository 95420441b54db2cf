/*
 * lw_jsonld_to_rdf: reads a JSON-LD document with jansson (size-capped,
 * depth-capped by jansson's own parser limit), then expands it, builds the
 * node map and emits quads, one top-level element at a time when the
 * document's shape allows it (a top-level array, or an object holding only
 * @context and @graph), so that the expanded form and the node map stay
 * small whatever the size of the document.
 */
#include <stdlib.h>
#include <string.h>

#include "common/jsonld_private.h"

#define DEFAULT_MAX_DEPTH 512
#define DEFAULT_MAX_CONTEXT_DEPTH 32
#define DEFAULT_MAX_REMOTE 64
#define DEFAULT_MAX_BYTES ((size_t)1 << 30)

/* Expands one element (or the whole document), maps and emits it. */
static LwStatus convert(LwJld *p, LwJldCtx *ctx, const char *active_property,
                        json_t *element, bool top) {
  json_t *expanded = NULL;
  LwStatus st;
  if (top) {
    st = lw_jld_expand_top(p, ctx, element, p->opt->base_iri, &expanded);
  } else {
    st = lw_jld_expand(p, ctx, active_property, element, p->opt->base_iri,
                       false, &expanded);
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
static bool is_context_and_graph(json_t *doc) {
  if (!json_is_object(doc) || !json_is_array(json_object_get(doc, "@graph"))) {
    return false;
  }
  size_t n = json_object_size(doc);
  return n == 1 || (n == 2 && json_object_get(doc, "@context"));
}

static LwStatus convert_document(LwJld *p, json_t *doc) {
  LwJldCtx *ctx = lw_jld_ctx_new(p->opt->base_iri);
  if (!ctx) {
    return lw_jld_nomem(p);
  }
  LwStatus st = LW_OK;
  if (json_is_array(doc)) {
    for (size_t i = 0; i < json_array_size(doc) && st == LW_OK; i++) {
      st = convert(p, ctx, NULL, json_array_get(doc, i), false);
      json_array_set_new(doc, i, json_null()); /* memory goes as we go */
    }
  } else if (is_context_and_graph(doc)) {
    json_t *local = json_object_get(doc, "@context");
    if (local) {
      LwJldCtx *next = NULL;
      st = lw_jld_process_context(p, ctx, local, p->opt->base_iri, NULL, false,
                                  true, true, &next);
      lw_jld_ctx_unref(ctx);
      ctx = next;
    }
    json_t *graph = json_object_get(doc, "@graph");
    for (size_t i = 0; i < json_array_size(graph) && st == LW_OK; i++) {
      st = convert(p, ctx, "@graph", json_array_get(graph, i), false);
      json_array_set_new(graph, i, json_null());
    }
  } else {
    st = convert(p, ctx, NULL, doc, true);
  }
  lw_jld_ctx_unref(ctx);
  return st;
}

static void report(const LwJsonldOptions *opt, LwReadStats *stats,
                   unsigned line, unsigned column, const char *message) {
  if (stats) {
    stats->errors++;
  }
  if (opt->on_error) {
    opt->on_error(opt->error_handle, line, column, message);
  }
}

static LwStatus run(json_t *doc, const LwJsonldOptions *opt, LwReadStats *stats,
                    LwError *err) {
  LwJld p;
  memset(&p, 0, sizeof(p));
  p.opt = opt;
  p.err = err;
  p.stats = stats;
  p.max_depth = opt->max_depth ? opt->max_depth : DEFAULT_MAX_DEPTH;
  p.max_context_depth =
      opt->max_context_depth ? opt->max_context_depth : DEFAULT_MAX_CONTEXT_DEPTH;
  p.max_remote =
      opt->max_remote_contexts ? opt->max_remote_contexts : DEFAULT_MAX_REMOTE;
  p.remote_cache = json_object();
  p.bnode_map = json_object();
  LwStatus st = p.remote_cache && p.bnode_map ? convert_document(&p, doc)
                                              : lw_jld_nomem(&p);
  json_decref(p.remote_cache);
  json_decref(p.bnode_map);
  if (st != LW_OK) {
    report(opt, stats, 0, 0, err->message);
  }
  return st;
}

static LwStatus parse_failed(const LwJsonldOptions *opt, LwReadStats *stats,
                             LwError *err, const json_error_t *jerr) {
  LwStatus st = LW_ERR_SYNTAX;
  if (err->status == LW_ERR_LIMIT || err->status == LW_ERR_IO) {
    st = err->status; /* set by the reader callback */
  } else if (strstr(jerr->text, "maximum parsing depth")) {
    st = LW_ERR_LIMIT;
  }
  char message[LW_ERROR_MESSAGE_MAX];
  snprintf(message, sizeof(message), "%s", err->message);
  lw_error_set(err, st, "line %d, column %d: %s%s%s", jerr->line,
               jerr->column, jerr->text, message[0] ? ": " : "", message);
  report(opt, stats, jerr->line > 0 ? (unsigned)jerr->line : 0,
         jerr->column > 0 ? (unsigned)jerr->column : 0, err->message);
  return st;
}

typedef struct {
  FILE *in;
  size_t total, cap;
  LwError *err;
} Reader;

static size_t read_chunk(void *buffer, size_t size, void *data) {
  Reader *r = data;
  size_t n = fread(buffer, 1, size, r->in);
  if (n == 0 && ferror(r->in)) {
    lw_error_set(r->err, LW_ERR_IO, "read error");
    return (size_t)-1;
  }
  r->total += n;
  if (r->total > r->cap) {
    lw_error_set(r->err, LW_ERR_LIMIT, "document larger than %zu bytes",
                 r->cap);
    return (size_t)-1;
  }
  return n;
}

/* \u0000 is allowed: RDF literals may hold it (LwTerm.len tells) */
#define JSON_FLAGS (JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL)

LwStatus lw_jsonld_to_rdf(FILE *in, const LwJsonldOptions *opt,
                          LwReadStats *stats, LwError *err) {
  LwError local;
  if (!err) {
    err = &local;
  }
  lw_error_clear(err);
  Reader r = {in, 0, opt->max_document_bytes ? opt->max_document_bytes
                                             : DEFAULT_MAX_BYTES,
              err};
  json_error_t jerr;
  json_t *doc = json_load_callback(read_chunk, &r, JSON_FLAGS, &jerr);
  if (!doc) {
    return parse_failed(opt, stats, err, &jerr);
  }
  LwStatus st = run(doc, opt, stats, err);
  json_decref(doc);
  return st;
}

LwStatus lw_jsonld_to_rdf_buffer(const char *json, size_t len,
                                 const LwJsonldOptions *opt,
                                 LwReadStats *stats, LwError *err) {
  LwError local;
  if (!err) {
    err = &local;
  }
  lw_error_clear(err);
  size_t cap = opt->max_document_bytes ? opt->max_document_bytes
                                       : DEFAULT_MAX_BYTES;
  if (len > cap) {
    lw_error_set(err, LW_ERR_LIMIT, "document larger than %zu bytes", cap);
    report(opt, stats, 0, 0, err->message);
    return LW_ERR_LIMIT;
  }
  json_error_t jerr;
  json_t *doc = json_loadb(json, len, JSON_FLAGS, &jerr);
  if (!doc) {
    return parse_failed(opt, stats, err, &jerr);
  }
  LwStatus st = run(doc, opt, stats, err);
  json_decref(doc);
  return st;
}
