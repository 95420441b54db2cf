/*
 * External merge sort with duplicate removal for newline-terminated lines
 * (canonical N-Quads), in bounded memory whatever the input size.
 *
 * Lines are added one by one and copied into one arena of `memory_budget`
 * bytes: line bytes grow from its front, a small index entry per line
 * (16 bytes) from its back, so the budget counts bytes, not lines. When the
 * arena is full the lines are sorted (a multikey quicksort on 7-byte cached
 * key slices, bytewise like memcmp and LC_ALL=C sort), duplicates dropped,
 * and written as one sorted run to DATA/tmp (common/file_store.h). At the
 * end the runs are merged with a heap (several passes when there are more
 * runs than the budget has read buffers for), dropping duplicates across
 * runs, and each line goes to a callback. Input that fits the budget never
 * touches the disk. Runs are removed by lw_sorter_free, on success and on
 * error alike.
 *
 * Memory: the arena (the budget) while adding; read buffers sized to share
 * the budget while merging; plus a few KiB. A single line longer than the
 * arena can hold becomes a run of its own (its copy is the one exception to
 * the budget).
 */
#ifndef LW_NQ_SORT_H
#define LW_NQ_SORT_H

#include <stddef.h>

#include "common/status.h"

typedef struct LwSorter LwSorter;

typedef struct {
  const char *data_dir;   /* runs go to DATA/tmp; NULL: $TMPDIR or /tmp */
  size_t memory_budget;   /* bytes; 0: 256 MiB; smaller than 64 KiB: 64 KiB */
} LwSortOptions;

typedef struct {
  unsigned long long lines_in;   /* lines added */
  unsigned long long lines_out;  /* distinct lines handed to the sink */
  unsigned long long duplicates; /* lines_in - lines_out once finished */
  unsigned long long bytes_out;  /* bytes handed to the sink */
  unsigned runs;                 /* sorted runs written to disk */
  unsigned merge_passes;         /* 0: all in memory; 1: one merge; more */
} LwSortStats;

/* Receives one line including its final '\n'; the bytes are valid only
 * during the call. Returning an error (> LW_NOTHING) stops the sorter. */
typedef LwStatus (*LwLineSink)(void *handle, const char *line, size_t len);

/* A new sorter, or NULL when out of memory. The options are copied.
 * Free it with lw_sorter_free. */
LwSorter *lw_sorter_new(const LwSortOptions *options);

/* Adds one line: len bytes, the last of which must be '\n' (a line without
 * one gets it added). The bytes are copied. Errors: LW_ERR_IO when a run
 * cannot be written, LW_ERR_NOMEM. */
LwStatus lw_sorter_add(LwSorter *sorter, const char *line, size_t len,
                       LwError *err);

/* Sorts, merges and hands every distinct line to sink in bytewise order.
 * Call it once; afterwards only lw_sorter_stats and lw_sorter_free. */
LwStatus lw_sorter_finish(LwSorter *sorter, LwLineSink sink, void *handle,
                          LwError *err);

/* Counts so far (complete after lw_sorter_finish). */
LwSortStats lw_sorter_stats(const LwSorter *sorter);

/* Frees the sorter and removes its runs from disk. NULL is safe. */
void lw_sorter_free(LwSorter *sorter);

#endif
