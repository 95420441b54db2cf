/*
 * The `files` store's import: one streaming pass over the clean files of a
 * harvest that replaces their subjects' triples in a provider's graph,
 * either a graph database (common/graph_db.h: only the harvest's subjects
 * are read and edited, O(S log N)) or a sorted graph file (rewritten whole).
 *
 * The rule (GeoLink harvester proposal): S = every subject in the harvest's
 * clean files; every triple whose subject is in S is replaced by the
 * harvest's triples about it; subjects not in S keep their triples. Every
 * quad goes into the provider's graph, whatever graph the dump named.
 *
 * Why one pass suffices: clean files and graph files are canonical N-Quads
 * sorted bytewise, and all lines about one subject share the prefix
 * "SUBJECT " — so they are contiguous, and subject groups appear in the
 * same order in every file. A merge-join on that prefix finds S, the
 * replaced groups and the changeset (added, removed) at once, in memory
 * bounded by one line per input.
 */
#ifndef LW_GRAPH_MERGE_H
#define LW_GRAPH_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/graph_db.h"
#include "common/status.h"

typedef struct {
  const char *graph_iri;       /* the provider's graph, without <> */
  LwGraphDb *db;               /* the graph, edited in its open write
                                  transaction (the caller commits), which
                                  must hold no writes yet: the old triples
                                  are read from the last commit; NULL:
                                  old_path and out_path instead */
  const char *old_path;        /* current graph file; NULL or missing: empty */
  const char *const *new_paths;/* the harvest's clean files (gzip or plain) */
  size_t new_count;
  const char *out_path;        /* the new graph file (gzip), written in place:
                                  give a temporary path and rename it */
  const char *added_path;      /* changeset: lines added (gzip); NULL: none */
  const char *removed_path;    /* changeset: lines removed (gzip); NULL: none */
  size_t max_line;             /* longest line accepted; 0: 64 MiB */
  /* Called for every line of the harvest, in order, after it is written;
   * first_of_subject is true on the first line of each subject, and
   * subject_in_old says whether the old graph had triples about that
   * subject. The sparql store pushes the harvest to the triple store from
   * here. May be NULL. */
  LwStatus (*on_harvest_line)(void *handle, const char *line, size_t len,
                              bool first_of_subject, bool subject_in_old, LwError *err);
  /* Called after each harvest subject's lines: changed says whether its
   * triples differ from the old graph's (the sparql store then sends
   * nothing for it). May be NULL. */
  LwStatus (*on_subject_end)(void *handle, bool changed, LwError *err);
  void *handle;
  /* Called every 65,536 harvest lines merged, with the count so far (for a
   * worker's progress note). May be NULL. */
  void (*progress)(void *progress_handle, unsigned long long lines);
  void *progress_handle;
} LwGraphMergeOptions;

typedef struct {
  unsigned long long triples;         /* triples in the new graph */
  unsigned long long subjects;        /* distinct subjects in the new graph */
  unsigned long long harvest_subjects;/* |S| */
  unsigned long long added;
  unsigned long long removed;
  unsigned long long foreign_graph;   /* harvest quads that named another graph */
} LwGraphMergeReport;

LwStatus lw_graph_merge(const LwGraphMergeOptions *options,
                        LwGraphMergeReport *report, LwError *err);

/* Parses a canonical N-Quads line: the length of "S P O" (without the graph
 * label and " ."), and the graph label's position and length (0 when the
 * line names no graph). Returns false when the line is not canonical. */
bool lw_nquads_split_line(const char *line, size_t len, size_t *triple_len,
                          size_t *graph_start, size_t *graph_len);

#endif
