/*
 * PREFIXindexes: which indexes kept as the records are written were built
 * from the records written before them (index name -> ms it was built).
 * An upgrade reads its mark, walks the older records once when it is
 * missing, then sets it (queue/recheck_index.h, queue/gc_index.h).
 */
#ifndef LW_QUEUE_INDEX_MARKS_H
#define LW_QUEUE_INDEX_MARKS_H

#include <stdbool.h>

#include "base/base.h"
#include "queue/redis.h"

/* *built gets whether index name is marked built. */
LwStatus lw_index_is_built(LwRecords *c, const char *prefix, const char *name, bool *built,
                           LwError *err);

/* Marks index name built now. */
LwStatus lw_index_mark_built(LwRecords *c, const char *prefix, const char *name,
                             LwError *err);

#endif
