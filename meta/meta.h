/*
 * The metadata graph: what lodwash knows about every provider graph,
 * harvest and document, said in RDF (docs/metadata.md), the LOD
 * Laundromat's metadata for lodwash's records.
 *
 * It is read from the records (queue/: provider:<name>, harvest:<id>,
 * seed:<hash>) and the graphs' stats files, never kept apart: every number
 * in it is a record's number. Standard vocabularies first (VoID, DCAT,
 * PROV-O, SPDX, DCTERMS, HTTP and Content in RDF); lodwash's own terms,
 * where none exists, under LW_META_NS.
 *
 * The graph's IRI is <graph base>/lodwash-meta: a provider's graph is
 * <graph base>/<name> with a name of [A-Za-z0-9]+, so the '-' keeps the two
 * apart. Its nodes are below it (.../lodwash-meta/harvest/<id>,
 * .../document/<seed hash>, .../clean/<hash>); a provider's graph is
 * described under its own graph IRI.
 *
 * Memory is bounded whatever the number of seeds: providers, harvests and
 * seeds are walked with SCAN a page at a time and each statement goes to
 * the caller's sink as soon as it is made; only the ids of the harvest
 * records (a few per provider, queue/retention.h) are held.
 */
#ifndef LW_META_META_H
#define LW_META_META_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"
#include "clean/clean.h"
#include "config/config.h"
#include "queue/redis.h"

/* lodwash's own terms (docs/metadata.md has their Turtle description). */
#define LW_META_NS "https://lodwash.invalid/ns/meta#"

/* The metadata graph's name in the files store: DATA/graphs/lodwash-meta.lmdb
 * (graph_store/graph_store.h, lw_graph_replace). */
#define LW_META_STORE_NAME "lodwash-meta"

/* The metadata graph's IRI for a graph base (no trailing '/'). */
void lw_meta_graph_iri(const char *graph_base, char *buf, size_t size);

typedef struct {
  const char *prefix;     /* Redis key prefix */
  const char *data_dir;   /* for the graphs' stats files */
  const char *graph_base; /* --graph-base */
  const char *provider;   /* only this provider's part; NULL: all */
  bool triples;           /* N-Triples lines (no graph), for Turtle pages */
  size_t sort_memory;     /* the sort's budget where one sorts (--sort-memory);
                             0: 64 MiB */
} LwMetaOptions;

/* Statistics of one writing. */
typedef struct {
  unsigned long long statements, providers, harvests, documents;
} LwMetaStats;

/* Makes the metadata graph (or one provider's part) and hands each
 * statement to sink as one canonical N-Quads line (in the metadata graph,
 * or without a graph when o->triples), in no particular order and possibly
 * repeated (SCAN may show a record twice). stats may be NULL. */
LwStatus lw_meta_write(LwRecords *c, const LwMetaOptions *o, LwLineSink sink, void *handle,
                       LwMetaStats *stats, LwError *err);

/* ---- meta_turtle (meta/meta_turtle.c) ---------------------------------- */

/* The metadata graph, or o->provider's part of it (the scheduler's page
 * /providers/NAME/void.ttl), as Turtle into out: prefixes, then one block
 * per subject, sorted, without repeats (o->triples is ignored). The text is
 * built in memory: a provider's part is a few dozen lines a document. */
LwStatus lw_meta_turtle(LwRecords *c, const LwMetaOptions *o, LwBuf *out, LwError *err);

/* ---- meta_export (meta/meta_export.c) ---------------------------------- */

/*
 * DATA/export/meta.nq.gz: the metadata graph sorted bytewise without
 * repeats (clean/clean.h's sorter), gzip, replaced atomically, and only
 * when its content changed (the MD5 of its lines, kept with its counts in
 * DATA/export/meta.stats.json, which export/void.ttl reads). It replaces
 * the graph LW_META_STORE_NAME of the files store, and, when the store is a
 * SPARQL store, the graph there too (DROP, then Graph Store POSTs).
 * LW_NOTHING: the graph did not change, nothing written.
 */
typedef struct {
  unsigned long long triples;
  bool written; /* false: unchanged since the last export */
  bool stored;  /* sent to the SPARQL store */
} LwMetaExportReport;

LwStatus lw_meta_export(LwRecords *c, const LwConfig *cfg, bool force,
                        LwMetaExportReport *report, LwError *err);

#endif
