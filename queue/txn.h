/*
 * LwTxn: Redis commands collected while a stage runs and executed later, in
 * one MULTI/EXEC round trip together with the job's ack. Either the job
 * leaves the in-flight list and all of its results are recorded, or (the
 * worker died first) none of them are and the job runs again.
 *
 * A stage handler adds its results:
 *
 *   lw_txn_seed_set(txn, seed, "encoding", "UTF-8");
 *   lw_txn_seed_status(txn, seed, "filed");            // checked transition
 *   lw_txn_push_job(txn, "unpack", seed, harvest, LW_PRIORITY_NORMAL, NULL);
 *   lw_txn_command(txn, 3, (const char *[]){"SADD", key, member}, NULL);
 *
 * Everything is copied: arguments may be freed right after the call. Errors
 * while adding (out of memory, bad stage name) are remembered and reported
 * by lw_txn_exec / the ack, so handlers need not check each call.
 *
 * Commands in a MULTI cannot look at each other's results; the checks that
 * must be atomic (status transitions, duplicate suppression of pushes) are
 * Lua scripts run inside the MULTI.
 */
#ifndef LW_QUEUE_TXN_H
#define LW_QUEUE_TXN_H

#include <hiredis/hiredis.h>
#include <jansson.h>
#include <stddef.h>

#include "common/status.h"
#include "queue/job.h"

typedef struct LwTxn LwTxn;

/* A new empty transaction for keys under prefix (copied). NULL when out of
 * memory. */
LwTxn *lw_txn_new(const char *prefix);

/* Frees txn; NULL is safe. */
void lw_txn_free(LwTxn *txn);

/* The key prefix the transaction was made for. */
const char *lw_txn_prefix(const LwTxn *txn);

/* Adds any command (argc arguments; argvlen NULL means NUL-terminated). */
void lw_txn_command(LwTxn *txn, int argc, const char **argv,
                    const size_t *argvlen);

/* HSET key field value. */
void lw_txn_hset(LwTxn *txn, const char *key, const char *field,
                 const char *value);

/* HSET PREFIXseed:<seed> field value. */
void lw_txn_seed_set(LwTxn *txn, const char *seed, const char *field,
                     const char *value);

/* Moves seed to status, checked against the seed status machine
 * (queue/seed.h) atomically; a refused transition fails the exec with
 * LW_ERR_STATE. */
void lw_txn_seed_status(LwTxn *txn, const char *seed, const char *status);

/* Queues a new job for stage about seed (duplicates suppressed, as
 * lw_queue_push). extra: additional job fields or NULL (not stolen). */
void lw_txn_push_job(LwTxn *txn, const char *stage, const char *seed,
                     const char *harvest, LwPriority priority,
                     const json_t *extra);

/* Number of commands added so far. */
size_t lw_txn_count(const LwTxn *txn);

/* Runs the commands alone in one MULTI/EXEC (outside a job). LW_ERR_STATE
 * if a transition was refused (the other commands did run: MULTI has no
 * rollback), LW_ERR_REDIS if Redis failed, or the first error remembered. */
LwStatus lw_txn_exec(redisContext *c, LwTxn *txn, LwError *err);

/* For the queue: appends MULTI, prelude commands, txn's commands and EXEC to
 * c's output buffer and reads all replies (one round trip); checks every
 * EXEC result. prelude (may be NULL) is an extra transaction whose commands
 * run first. If exec_out is not NULL it gets EXEC's array reply (one
 * element per command, prelude first), which the caller frees with
 * freeReplyObject; it is NULL when the status is not LW_OK. */
LwStatus lw_txn_exec_with(redisContext *c, LwTxn *prelude, LwTxn *txn,
                          redisReply **exec_out, LwError *err);

/* lw_txn_exec_with, and one more command (argc > 0) sent right after EXEC
 * in the same round trip, outside the transaction: the worker fetches its
 * next job this way. *after gets that command's reply (caller frees), or
 * NULL when it was not sent or its reply was lost. The command is sent
 * once even when the transaction is run again after NOSCRIPT. */
LwStatus lw_txn_exec_then(redisContext *c, LwTxn *prelude, LwTxn *txn,
                          redisReply **exec_out, int argc, const char **argv,
                          const size_t *lens, redisReply **after, LwError *err);

#endif
