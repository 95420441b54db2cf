/*
 * Views of a provider's graph database (common/graph_db.h) as N-Quads, in
 * the provider's graph, sorted bytewise:
 *
 * - DATA/graphs/NAME.nq.gz, the graph file of the earlier layout, kept as an
 *   exported view for what reads it (the export's dump, scripts): rewritten
 *   by the export job when the database changed since (an O(N) streaming
 *   read, off the import's path, so an import costs what its change costs);
 * - one subject's triples or the whole graph, to a stream (`lodwash graph`).
 */
#ifndef LW_GRAPH_VIEW_H
#define LW_GRAPH_VIEW_H

#include <stdio.h>

#include "common/status.h"

/* Writes the provider's graph, or only its triples about subject (an IRI
 * without <>, or "_:label"; NULL: all), to out as N-Quads. LW_NOTHING when
 * the provider has no graph. */
LwStatus lw_graph_view_print(const char *data_dir, const char *provider,
                             const char *subject, FILE *out, LwError *err);

/* Rewrites DATA/graphs/NAME.nq.gz for every graph database newer than its
 * view (temporary file, then rename). *refreshed (may be NULL) counts them. */
LwStatus lw_graph_view_refresh_all(const char *data_dir, unsigned *refreshed, LwError *err);

#endif
