/*
 * A harvest as a prov:Activity: when, how it ended, what kind (full,
 * partial, unstated, or a reclean), the documents it used (its dumps: the
 * archive entries and the data of a reclean say themselves which harvest
 * used them last, meta/meta_document.c) and the two changesets it
 * generated with their counts, all read from its record harvest:<id>.
 */
#include <stdio.h>
#include <string.h>

#include "meta/meta_out.h"

/* A path under the data directory, relative to it (the records keep some
 * absolute). */
static const char *relative(const char *path, const char *data_dir)
{
  size_t n = strlen(data_dir);
  if (path && !strncmp(path, data_dir, n) && path[n] == '/') {
    return path + n + 1;
  }
  return path;
}

static void describe_changeset(LwMetaOut *o, const LwMetaOptions *opt, const char *h,
                               const char *id, const char *which, const char *count,
                               const char *path)
{
  if (!path || !*path) {
    return; /* not imported (yet): no changeset */
  }
  char node[LW_META_IRI_MAX], name[512];
  snprintf(name, sizeof(name), "%s/%s", id, which);
  lw_meta_node(o, node, "changeset", name);
  lw_meta_iri(o, h, NS_PROV "generated", node);
  lw_meta_iri(o, node, NS_RDF "type", NS_LW "Changeset");
  lw_meta_lit(o, node, NS_LW "change", which, NULL);
  lw_meta_count(o, node, NS_VOID "triples", count);
  lw_meta_lit(o, node, NS_LW "file", relative(path, opt->data_dir), NULL);
}

/* full, partial or unstated as the source said; reclean for a reclean. */
static const char *kind_of(const json_t *record)
{
  const char *reclean = lw_meta_field(record, "reclean");
  if (reclean && !strcmp(reclean, "1")) {
    return "reclean";
  }
  const char *kind = lw_meta_field(record, "kind");
  return kind && *kind ? kind : "unstated";
}

static void describe_used(LwMetaOut *o, const char *h, const json_t *record)
{
  json_t *seeds = json_loads(
    lw_meta_field(record, "seeds") ? lw_meta_field(record, "seeds") : "[]", 0, NULL);
  size_t i;
  json_t *seed;
  json_array_foreach(seeds, i, seed) {
    if (json_is_string(seed)) {
      char doc[LW_META_IRI_MAX];
      lw_meta_node(o, doc, "document", json_string_value(seed));
      lw_meta_iri(o, h, NS_PROV "used", doc);
    }
  }
  json_decref(seeds);
}

void lw_meta_describe_harvest(LwMetaOut *o, const LwMetaOptions *opt, const char *id,
                              const json_t *record)
{
  char h[LW_META_IRI_MAX], g[LW_META_IRI_MAX];
  lw_meta_node(o, h, "harvest", id);
  snprintf(g, sizeof(g), "%s/%s", opt->graph_base, lw_meta_field(record, "provider"));
  lw_meta_iri(o, h, NS_RDF "type", NS_PROV "Activity");
  lw_meta_iri(o, h, NS_LW "target", g);
  lw_meta_lit(o, h, NS_DCT "identifier", id, NULL);
  lw_meta_time_ms(o, h, NS_PROV "startedAtTime", lw_meta_field(record, "started"));
  lw_meta_time_ms(o, h, NS_PROV "endedAtTime", lw_meta_field(record, "finished"));
  lw_meta_lit(o, h, NS_LW "outcome", lw_meta_field(record, "status"), NULL);
  lw_meta_lit(o, h, NS_LW "harvestKind", kind_of(record), NULL);
  const char *version = lw_meta_field(record, "modified");
  if (version && *version) {
    lw_meta_lit(o, h, NS_LW "sourceVersion", version, NS_XSD "dateTime");
  }
  lw_meta_iri(o, h, NS_DCT "source", lw_meta_field(record, "void"));
  const char *error = lw_meta_field(record, "error");
  if (error && *error) {
    lw_meta_lit(o, h, NS_LW "error", error, NULL);
  }
  lw_meta_count(o, h, NS_LW "files", lw_meta_field(record, "files"));
  lw_meta_count(o, h, NS_LW "failedFiles", lw_meta_field(record, "failed"));
  lw_meta_count(o, h, NS_LW "graphTriples", lw_meta_field(record, "triples"));
  describe_used(o, h, record);
  describe_changeset(o, opt, h, id, "added", lw_meta_field(record, "added"),
                     lw_meta_field(record, "changeset_added"));
  describe_changeset(o, opt, h, id, "removed", lw_meta_field(record, "removed"),
                     lw_meta_field(record, "changeset_removed"));
  o->stats.harvests++;
}
