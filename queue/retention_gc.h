/*
 * Internal to queue/retention*.c: the state of one collection, shared by
 * the Redis part (retention.c) and the data directory part
 * (retention_files.c).
 */
#ifndef LW_QUEUE_RETENTION_GC_H
#define LW_QUEUE_RETENTION_GC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"
#include "queue/redis_cmd.h"
#include "queue/retention.h"

/* A growable list of strings (harvest ids). */
typedef struct {
  char **items;
  size_t count, cap;
  bool sorted;
} LwNames;

typedef struct {
  LwRecords *c;
  const LwConfig *cfg;
  const LwRetentionOptions *o;
  LwRetentionStats *stats;
  LwError *err;
  long long now_ms;
  long long grace_ms;
  LwHexSet *live;        /* seeds and clean records marked live */
  LwHexSet *doomed;      /* seeds and clean records swept (dry: would be) */
  LwNames gone_harvests; /* harvest ids swept (dry: would be) */
} LwGc;

/* Appends a copy of s; false when out of memory. */
bool lw_names_add(LwNames *n, const char *s);
/* True when s is in n (sorts n on first use after adding). */
bool lw_names_has(LwNames *n, const char *s);
void lw_names_free(LwNames *n);

/* Reports a removal through the options' callback. */
void lw_gc_report(const LwGc *g, const char *kind, const char *what);

/* Sends the n commands of argvs (argcs[i] arguments each) in one round
 * trip; replies[i] gets each reply (caller frees), NULL for an error reply.
 * LW_ERR_REDIS when the connection failed. */
LwStatus lw_gc_pipeline(LwGc *g, size_t n, const int *argcs,
                        const char *const *const *argvs, redisReply **replies);

/* The data directory part: files whose record is gone. */
LwStatus lw_retention_sweep_files(LwGc *g);

#endif
