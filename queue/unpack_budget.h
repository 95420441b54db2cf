/*
 * A harvest's budget of bytes unpacked and files created, across every
 * archive level and every worker: PREFIXunpacked:<harvest id>, a hash with
 * one field per archive seed of the harvest, "<bytes> <files>[ <in>]", what
 * that archive's unpack holds (in: its own downloaded size, for an archive
 * at depth 0) (reserved while it runs, exactly what it wrote
 * once it is done).
 *
 * Each archive owns its own field and only ever sets it (never adds to it),
 * and the total is summed on the server: a job that runs again (a crash, a
 * lost ack, a NOSCRIPT replay) replaces its own count instead of adding to
 * it, and the children it writes again land on the same hashed paths. An
 * unpack asks for room before it writes (lw_unpack_budget_reserve, a Lua
 * script: the others' sum plus the new ask must fit), so the files on disk
 * stay under the budget however the archives are spread over workers.
 *
 * The key is removed with its harvest record (queue/retention.h).
 */
#ifndef LW_QUEUE_UNPACK_BUDGET_H
#define LW_QUEUE_UNPACK_BUDGET_H

#include <stdint.h>

#include "base/base.h"
#include "queue/keys.h"
#include "queue/redis.h"
#include "queue/txn.h"

typedef struct {
  LwRecords *redis;
  const char *prefix;
  const char *harvest; /* the harvest id */
  const char *seed;    /* the archive's seed hash: its field */
  long long max_bytes; /* the budget; <= 0: no cap of that kind */
  long long max_files;
  /* The expansion ratio over the whole chain: the harvest's archives hold
   * at most max_ratio times the bytes downloaded of its first archives
   * (depth 0; at least ratio_floor), across every nesting level, as one
   * archive's expansion is capped by its own compressed bytes. */
  long long in_bytes;    /* this archive's size when it was downloaded
                            (depth 0), else 0 */
  long long max_ratio;   /* <= 0: no such cap */
  long long ratio_floor; /* bytes always allowed, whatever was downloaded */
  /* The budget over all harvests: the archives of every harvest with a
   * budget (PREFIXunpacked, the set of them) hold at most this many bytes
   * together; <= 0: no such cap. Past it the unpack fails retryable
   * (LW_ERR_IO "unpack budget of all harvests full ..."): it is not the
   * harvest's own doing, and room comes back as budgets are given back. */
  long long max_all_bytes;
} LwUnpackBudgetRef;

/* Asks for *bytes and *files in all for ref->seed (see LwUnpackBudget in
 * archive/archive.h: the same contract, ref is its data). On LW_OK the
 * field holds the grant. LW_ERR_LIMIT "harvest budget exceeded: ..." when
 * even need_bytes / need_files do not fit beside the other archives. */
LwStatus lw_unpack_budget_reserve(void *ref, uint64_t need_bytes, uint64_t need_files,
                                  uint64_t *bytes, uint64_t *files, LwError *err);

/* In the ack: the archive's field becomes exactly what it wrote (and its
 * downloaded size, in_bytes, when at depth 0). */
void lw_txn_unpack_budget_settle(LwTxn *txn, const char *harvest, const char *seed,
                                 uint64_t bytes, uint64_t files, uint64_t in_bytes);

/* Gives back what a failed unpack held (its files were removed). */
LwStatus lw_unpack_budget_release(const LwUnpackBudgetRef *ref, LwError *err);

/* What the harvest's archives hold in all. */
LwStatus lw_unpack_budget_used(LwRecords *c, const char *prefix, const char *harvest,
                               long long *bytes, long long *files, LwError *err);

#endif
