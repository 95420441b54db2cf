/*
 * LwTxn: the changes a transition makes to the records, collected first and
 * then applied by one server-side script call (lw_script_apply in
 * queue/scripts.c), atomically. A stage handler adds its results to the
 * txn of its job; the worker frame applies them with the job's ack:
 *
 *   lw_txn_seed_set(txn, seed, "encoding", "UTF-8");
 *   lw_txn_seed_status(txn, seed, "filed");            // checked transition
 *   lw_txn_push_job(txn, "unpack", seed, harvest, LW_PRIORITY_NORMAL, NULL);
 *   lw_txn_command(txn, 3, (const char *[]){"SADD", key, member}, NULL);
 *
 * Guarantees of lw_txn_apply:
 *   - fenced: with a fence (a worker's in-flight list and a job), nothing
 *     at all is applied unless the job is still in that list: a worker that
 *     lost its job (reaped after a stall, or its ack already applied and the
 *     reply lost) changes nothing;
 *   - all or nothing: the results are checked first (every strict seed
 *     transition against the machine, queue/seed.h; every owner guard) and
 *     applied only if all pass; the job's own move (the core) applies
 *     either way;
 *   - sent once: one EVALSHA; a NOSCRIPT reply means nothing ran, and the
 *     same call is sent again with the script body (EVAL). No command is
 *     ever sent twice after it may have run.
 *
 * Everything is copied: arguments may be freed right after the call. Errors
 * while adding (out of memory, bad stage name) are remembered and reported
 * by lw_txn_exec / lw_txn_apply, so handlers need not check each call.
 */
#ifndef LW_QUEUE_TXN_H
#define LW_QUEUE_TXN_H

#include <jansson.h>
#include <stddef.h>

#include "base/base.h"
#include "queue/job.h"
#include "queue/redis.h"

typedef struct LwTxn LwTxn;

/* A new empty transaction for keys under prefix (copied). NULL when out of
 * memory. */
LwTxn *lw_txn_new(const char *prefix);

/* Frees txn; NULL is safe. */
void lw_txn_free(LwTxn *txn);

/* The key prefix the transaction was made for. */
const char *lw_txn_prefix(const LwTxn *txn);

/* Adds any Redis command (argc arguments; argvlen NULL means
 * NUL-terminated). It must not look at the results of the others. */
void lw_txn_command(LwTxn *txn, int argc, const char **argv, const size_t *argvlen);

/* Adds an op of lw_script_apply by name (queue/scripts.c lists them):
 * for the records' own modules (the harvest fan-in, the queue). */
void lw_txn_op(LwTxn *txn, const char *op, int argc, const char **argv);

/* HSET key field value. */
void lw_txn_hset(LwTxn *txn, const char *key, const char *field, const char *value);

/* HSET PREFIXseed:<seed> field value; `processed` also goes to the
 * re-check index (queue/recheck_index.h). */
void lw_txn_seed_set(LwTxn *txn, const char *seed, const char *field, const char *value);

/* Moves seed to status, checked against the seed status machine
 * (queue/seed.h): a refused transition refuses the whole txn
 * (LW_ERR_STATE). */
void lw_txn_seed_status(LwTxn *txn, const char *seed, const char *status);

/* The same, but a refused transition is just skipped. */
void lw_txn_seed_status_soft(LwTxn *txn, const char *seed, const char *status);

/* Moves seed to status whatever its status is (a re-harvest starts its
 * seeds again; the jobs of the old harvest are refused by their owner
 * guard, queue/harvest.h). */
void lw_txn_seed_reset(LwTxn *txn, const char *seed, const char *status);

/* Queues a new job for stage about seed (duplicates suppressed, as
 * lw_queue_push). extra: additional job fields or NULL (not stolen). */
void lw_txn_push_job(LwTxn *txn, const char *stage, const char *seed, const char *harvest,
                     LwPriority priority, const json_t *extra);

/* Number of ops added so far. */
size_t lw_txn_count(const LwTxn *txn);

/* The seeds of the jobs pushed so far (for the worker frame's fan-in):
 * lw_txn_pushed_count of them, in order. */
size_t lw_txn_pushed_count(const LwTxn *txn);
const char *lw_txn_pushed_seed(const LwTxn *txn, size_t i);

/* Applies txn alone, unfenced (outside a job). LW_ERR_STATE (nothing
 * applied) if a transition was refused, LW_ERR_REDIS if Redis failed, or
 * the first error remembered. */
LwStatus lw_txn_exec(LwRecords *c, LwTxn *txn, LwError *err);

/* A command sent right after the apply in the same round trip, outside it
 * (the worker fetches its next job this way). *reply gets its reply (caller
 * frees), or NULL when it was not sent or its reply was lost. */
typedef struct {
  int argc;
  const char **argv;
  const size_t *lens;
  struct redisReply **reply; /* hiredis replies, read inside queue/ */
} LwTxnTrailer;

/* For the queue: applies core, then txn (either may be NULL), in one
 * script call fenced by (fence_list, fence_job) (fence_list NULL: none).
 * Returns LW_OK; LW_NOTHING when the fence did not hold (nothing applied:
 * the caller lost the job); LW_ERR_STATE (err says why) when txn's results
 * were refused (core applied, txn not); LW_ERR_REDIS. trailer may be NULL;
 * it is sent once at most. */
LwStatus lw_txn_apply(LwRecords *c, const char *fence_list, const char *fence_job,
                      LwTxn *core, LwTxn *txn, const LwTxnTrailer *trailer, LwError *err);

#endif
