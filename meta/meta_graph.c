/*
 * The whole metadata graph, or one provider's part, from the records:
 * providers (SCAN provider:*), the harvest records (one SCAN), then every
 * seed a page at a time (queue/seed_scan.h). Each statement goes to
 * the sink at once; what is held is the ids of the harvest records, so that
 * a document links only to a harvest still described (retention,
 * queue/retention.h, removes old harvest records before their seeds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/meta_out.h"
#include "queue/provider_record.h"
#include "queue/records.h"
#include "queue/seed_scan.h"

/* Seeds read per SCAN page. */
#define SEED_PAGE 500

typedef struct {
  LwMetaOut *out;
  const LwMetaOptions *opt;
  LwRecords *c;
  char **harvests; /* ids of the harvest records, sorted once all are in */
  size_t count, cap;
  LwStatus st; /* the first failure of a walk's callback */
} Walk;

static int by_text(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool harvest_known(const Walk *w, const char *id)
{
  return id && w->count && bsearch(&id, w->harvests, w->count, sizeof(char *), by_text);
}

static void keep_id(Walk *w, const char *id)
{
  if (w->count == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 64;
    char **more = realloc(w->harvests, cap * sizeof(char *));
    if (!more) {
      w->st = lw_error_set(w->out->err, LW_ERR_NOMEM, "out of memory for %zu harvests",
                           cap);
      return;
    }
    w->harvests = more;
    w->cap = cap;
  }
  w->harvests[w->count] = strdup(id);
  w->count += w->harvests[w->count] != NULL;
}

/* LwHarvestEachFn: one harvest record of the provider being walked. */
static void on_harvest(void *arg, const char *id, const json_t *record)
{
  Walk *w = arg;
  if (w->st == LW_OK && lw_meta_field(record, "provider")) {
    keep_id(w, id);
    lw_meta_describe_harvest(w->out, w->opt, id, record);
  }
}

/* LwProviderEachFn: the provider. Its state is read
 * first as the providers' report reads it (queue/provider_record.h): that
 * settles a harvest the import ended, so that the graph says what
 * `lodwash providers` says. */
static void on_provider(void *arg, const char *name, const json_t *scanned)
{
  Walk *w = arg;
  if (w->st != LW_OK || (w->opt->provider && strcmp(name, w->opt->provider))) {
    return;
  }
  (void)scanned;
  LwProviderState settled;
  json_t *record = NULL;
  LwStatus st = lw_provider_state_read(w->c, w->opt->prefix, name, &settled, w->out->err);
  if (st == LW_OK) {
    st = lw_records_provider_get(w->c, w->opt->prefix, name, &record, w->out->err);
  }
  if (st != LW_OK) {
    w->st = st > LW_NOTHING ? st : LW_OK;
    return;
  }
  lw_meta_describe_provider(w->out, w->opt, name, record);
  json_decref(record);
}

/* LwSeedScanFn: a provider's document (clean records and seeds added by
 * hand are not documents of a harvest). */
static void on_seed(void *arg, const char *hash, const char *const *v)
{
  Walk *w = arg;
  const char *provider = v[LW_MS_PROVIDER];
  if (w->st != LW_OK || !v[LW_MS_STATUS] || !strcmp(v[LW_MS_STATUS], "cleaned") ||
      !provider || !*provider || (w->opt->provider && strcmp(provider, w->opt->provider))) {
    return;
  }
  if (!v[LW_MS_PARENT] && (!v[LW_MS_URI] || !strstr(v[LW_MS_URI], "://"))) {
    return; /* a relative URL, never fetched */
  }
  lw_meta_describe_document(w->out, hash, v, harvest_known(w, v[LW_MS_HARVEST]));
}

static LwStatus walk_seeds(Walk *w)
{
  char cursor[32] = "0";
  do {
    LwStatus st = lw_seed_scan_step(w->c, w->opt->prefix, cursor, SEED_PAGE,
                                    lw_meta_seed_fields, lw_meta_seed_field_count, on_seed,
                                    w, w->out->err);
    if (st > LW_NOTHING) {
      return st;
    }
    if (w->st != LW_OK) {
      return w->st;
    }
  } while (strcmp(cursor, "0"));
  return LW_OK;
}

void lw_meta_graph_iri(const char *graph_base, char *buf, size_t size)
{
  snprintf(buf, size, "%s/lodwash-meta", graph_base);
}

/* The metadata graph itself and the export of all graphs. */
static void describe_graph(LwMetaOut *o)
{
  char node[LW_META_IRI_MAX];
  lw_meta_iri(o, o->base, NS_RDF "type", NS_VOID "Dataset");
  lw_meta_lit(o, o->base, NS_DCT "title",
              "lodwash metadata: providers, harvests, documents", NULL);
  lw_meta_node(o, node, "export", "all");
  lw_meta_iri(o, node, NS_RDF "type", NS_VOID "Dataset");
  lw_meta_lit(o, node, NS_LW "exportFile", "export/all.nq.gz", NULL);
}

LwStatus lw_meta_write(LwRecords *c, const LwMetaOptions *opt, LwLineSink sink,
                       void *handle, LwMetaStats *stats, LwError *err)
{
  LwMetaOut out = {
    .sink = sink, .handle = handle, .graph_base = opt->graph_base, .err = err};
  lw_meta_graph_iri(opt->graph_base, out.base, sizeof(out.base));
  out.graph = opt->triples ? NULL : out.base;
  Walk w = {.out = &out, .opt = opt, .c = c};
  if (!opt->provider) {
    describe_graph(&out);
  }
  LwStatus st = lw_records_provider_each(c, opt->prefix, on_provider, &w, err);
  if (st == LW_OK) {
    st = w.st != LW_OK ? w.st : out.st;
  }
  /* every provider's harvests in one walk of the keys, not one a provider */
  if (st == LW_OK) {
    st = lw_records_harvest_each(c, opt->prefix, opt->provider, on_harvest, &w, err);
  }
  if (st == LW_OK) {
    st = w.st != LW_OK ? w.st : out.st;
  }
  if (st == LW_OK && w.count) {
    qsort(w.harvests, w.count, sizeof(char *), by_text);
  }
  if (st == LW_OK) {
    st = walk_seeds(&w);
  }
  if (st == LW_OK) {
    st = out.st;
  }
  for (size_t i = 0; i < w.count; ++i) {
    free(w.harvests[i]);
  }
  free(w.harvests);
  lw_buf_free(&out.line);
  if (stats) {
    *stats = out.stats;
  }
  return st;
}
