/*
 * What the files store knows about one provider graph, kept beside it as
 * DATA/graphs/NAME.stats.json: the graph IRI, triples, distinct subjects and
 * when it last changed. The import writes it; export and status read it.
 */
#ifndef LW_GRAPH_STATS_H
#define LW_GRAPH_STATS_H

#include "common/status.h"

typedef struct {
  char graph_iri[1024];
  unsigned long long triples;
  unsigned long long subjects;
  long long modified; /* seconds since the epoch */
} LwGraphStats;

/* Writes the stats file atomically (temporary file + rename). */
LwStatus lw_graph_stats_write(const char *path, const LwGraphStats *stats, LwError *err);

/* Reads a stats file; LW_NOTHING when it does not exist. */
LwStatus lw_graph_stats_read(const char *path, LwGraphStats *stats, LwError *err);

#endif
