/*
 * A provider's graph, under its own graph IRI, as a void:Dataset: its size
 * (the files store's stats file, written by the import and by the export's
 * view refresh), the version harvested, its source and the documents of
 * its current dumps, and where its export is.
 */
#include <stdio.h>
#include <string.h>

#include "graph_store/graph_store.h"
#include "meta/meta_out.h"
#include "queue/seed.h"

/* The graph's size from DATA/graphs/NAME.stats.json, when there is one. */
static void describe_size(LwMetaOut *o, const char *data_dir, const char *name,
                          const char *g)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/graphs/%s.stats.json", data_dir, name);
  LwGraphStats s;
  LwError ignored;
  if (lw_graph_stats_read(path, &s, &ignored) != LW_OK) {
    return; /* never imported: no numbers rather than wrong ones */
  }
  lw_meta_int(o, g, NS_VOID "triples", (long long)s.triples);
  lw_meta_int(o, g, NS_VOID "distinctSubjects", (long long)s.subjects);
  if (s.has_properties) {
    lw_meta_int(o, g, NS_VOID "properties", (long long)s.properties);
  }
  snprintf(path, sizeof(path), "graphs/%s.nq.gz", name);
  lw_meta_lit(o, g, NS_LW "exportFile", path, NULL);
}

/* The documents of the dumps the source lists now (their seeds are named by
 * provider and URL, queue/seed.h). */
static void describe_dumps(LwMetaOut *o, const char *name, const char *g, const char *dumps)
{
  json_t *list = json_loads(dumps ? dumps : "[]", 0, NULL);
  size_t i;
  json_t *url;
  json_array_foreach(list, i, url) {
    if (json_is_string(url)) {
      char hash[LW_HASH_HEX_LEN + 1], doc[LW_META_IRI_MAX];
      lw_seed_hash_for(json_string_value(url), name, hash);
      lw_meta_node(o, doc, "document", hash);
      lw_meta_iri(o, g, NS_PROV "wasDerivedFrom", doc);
    }
  }
  json_decref(list);
}

void lw_meta_describe_provider(LwMetaOut *o, const LwMetaOptions *opt, const char *name,
                               const json_t *record)
{
  char g[LW_META_IRI_MAX], node[LW_META_IRI_MAX];
  snprintf(g, sizeof(g), "%s/%s", opt->graph_base, name);
  lw_meta_iri(o, g, NS_RDF "type", NS_VOID "Dataset");
  lw_meta_lit(o, g, NS_DCT "title", name, NULL);
  describe_size(o, opt->data_dir, name, g);
  const char *harvested = lw_meta_field(record, "harvested");
  if (harvested && *harvested) {
    lw_meta_lit(o, g, NS_DCT "modified", harvested, NS_XSD "dateTime");
  }
  lw_meta_iri(o, g, NS_DCT "source", lw_meta_field(record, "void"));
  const char *kind = lw_meta_field(record, "kind");
  lw_meta_lit(o, g, NS_LW "sourceKind", kind && *kind ? kind : "void", NULL);
  describe_dumps(o, name, g, lw_meta_field(record, "void_dumps"));
  const char *harvest = lw_meta_field(record, "harvest");
  if (harvest && *harvest) {
    lw_meta_node(o, node, "harvest", harvest);
    lw_meta_iri(o, g, NS_LW "lastHarvest", node);
  }
  if (!opt->provider) {
    lw_meta_node(o, node, "export", "all");
    lw_meta_iri(o, node, NS_VOID "subset", g);
  }
  o->stats.providers++;
}
