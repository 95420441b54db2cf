/*
 * The metadata graph in a SPARQL store: replaced whole (meta/meta.h).
 */
#ifndef LW_META_META_STORE_H
#define LW_META_META_STORE_H

#include "base/base.h"
#include "config/config.h"

/* Replaces graph in cfg's SPARQL store by the N-Quads of the file at path
 * (every line in graph): DROP SILENT GRAPH, then the triples in batches,
 * by Graph Store POST or, in update mode, INSERT DATA. */
LwStatus lw_meta_store_replace(const LwConfig *cfg, const char *graph, const char *path,
                               LwError *err);

#endif
