/*
 * The export: every provider graph of the files store combined into one
 * N-Quads dump, DATA/export/all.nq.gz, with a VoID description beside it,
 * DATA/export/void.ttl (void:dataDump, dcterms:modified, triples and distinct
 * subjects per graph, one void:subset per provider). Both are replaced
 * atomically: readers see the old pair or the new one.
 *
 * First the graph files (DATA/graphs/NAME.nq.gz) of graphs whose database
 * changed are rewritten from it (common/graph_view.h).
 *
 * Why the dump is cheap: graph files are gzip files and a sequence of gzip members
 * is itself a gzip file, so the dump is the graph files' bytes one after the
 * other, never decompressed; the counts come from each graph's stats file.
 */
#ifndef LW_EXPORT_H
#define LW_EXPORT_H

#include <stdbool.h>

#include "common/status.h"

typedef struct {
  unsigned graphs;
  unsigned long long triples;
  unsigned long long bytes;
  bool written; /* false: nothing changed since the last export */
} LwExportReport;

/* Exports DATA/graphs into DATA/export. Unless force, does nothing (LW_NOTHING)
 * when no graph changed since the last export. */
LwStatus lw_export(const char *data_dir, bool force, LwExportReport *report, LwError *err);

#endif
