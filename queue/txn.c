#include "queue/txn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/scripts.h"
#include "queue/seed.h"

typedef struct {
  int argc;
  char **argv;
  size_t *lens;
} Command;

struct LwTxn {
  char *prefix;
  Command *cmds;
  size_t n, cap;
  LwError first_error; /* the first error while adding; LW_OK if none */
};

LwTxn *lw_txn_new(const char *prefix)
{
  LwTxn *txn = calloc(1, sizeof(*txn));
  if (txn && !(txn->prefix = strdup(prefix ? prefix : ""))) {
    free(txn);
    return NULL;
  }
  return txn;
}

static void command_free(Command *cmd)
{
  for (int i = 0; i < cmd->argc; ++i) {
    free(cmd->argv[i]);
  }
  free(cmd->argv);
  free(cmd->lens);
}

void lw_txn_free(LwTxn *txn)
{
  if (!txn) {
    return;
  }
  for (size_t i = 0; i < txn->n; ++i) {
    command_free(&txn->cmds[i]);
  }
  free(txn->cmds);
  free(txn->prefix);
  free(txn);
}

const char *lw_txn_prefix(const LwTxn *txn) { return txn->prefix; }

size_t lw_txn_count(const LwTxn *txn) { return txn ? txn->n : 0; }

static void remember(LwTxn *txn, LwStatus status, const char *message)
{
  if (txn->first_error.status == LW_OK) {
    lw_error_set(&txn->first_error, status, "%s", message);
  }
}

void lw_txn_command(LwTxn *txn, int argc, const char **argv,
                    const size_t *argvlen)
{
  if (txn->n == txn->cap) {
    size_t cap = txn->cap ? txn->cap * 2 : 8;
    Command *cmds = realloc(txn->cmds, cap * sizeof(*cmds));
    if (!cmds) {
      remember(txn, LW_ERR_NOMEM, "out of memory");
      return;
    }
    txn->cmds = cmds;
    txn->cap = cap;
  }
  Command cmd = {0, calloc((size_t)argc, sizeof(char *)),
                 calloc((size_t)argc, sizeof(size_t))};
  if (!cmd.argv || !cmd.lens) {
    command_free(&cmd);
    remember(txn, LW_ERR_NOMEM, "out of memory");
    return;
  }
  for (int i = 0; i < argc; ++i) {
    size_t len = argvlen ? argvlen[i] : strlen(argv[i]);
    cmd.argv[i] = malloc(len + 1);
    if (!cmd.argv[i]) {
      cmd.argc = i;
      command_free(&cmd);
      remember(txn, LW_ERR_NOMEM, "out of memory");
      return;
    }
    memcpy(cmd.argv[i], argv[i], len);
    cmd.argv[i][len] = '\0';
    cmd.lens[i] = len;
  }
  cmd.argc = argc;
  txn->cmds[txn->n++] = cmd;
}

void lw_txn_hset(LwTxn *txn, const char *key, const char *field,
                 const char *value)
{
  const char *argv[] = {"HSET", key, field, value};
  lw_txn_command(txn, 4, argv, NULL);
}

void lw_txn_seed_set(LwTxn *txn, const char *seed, const char *field,
                     const char *value)
{
  lw_txn_hset(txn, lw_key(txn->prefix, LW_KEY_SEED, seed).s, field, value);
}

void lw_txn_seed_status(LwTxn *txn, const char *seed, const char *status)
{
  const char *argv[64];
  int argc = lw_seed_transition_argv(txn->prefix, seed, status, true, argv, 64);
  if (argc < 0) {
    char message[160];
    snprintf(message, sizeof(message), "unknown seed status '%s'", status);
    remember(txn, LW_ERR_STATE, message);
    return;
  }
  lw_txn_command(txn, argc, argv, NULL);
  lw_seed_transition_argv_free(argv, argc);
}

void lw_txn_push_job(LwTxn *txn, const char *stage, const char *seed,
                     const char *harvest, LwPriority priority,
                     const json_t *extra)
{
  LwError err;
  LwJob *job = lw_job_new(stage, seed, harvest, extra, &err);
  if (!job) {
    remember(txn, err.status, err.message);
    return;
  }
  LwKey queue = lw_key(txn->prefix, LW_KEY_QUEUE, stage);
  LwKey queued = lw_key(txn->prefix, LW_KEY_QUEUED, stage);
  LwKey stages = lw_key(txn->prefix, LW_KEY_STAGES, NULL);
  const char *argv[] = {"EVALSHA", lw_script_sha(&lw_script_enqueue), "3",
                        queue.s, queued.s, stages.s, job->raw, job->seed,
                        priority == LW_PRIORITY_HIGH ? "high" : "normal", stage};
  lw_txn_command(txn, 10, argv, NULL);
  lw_job_free(job);
}

/* A command sent after EXEC in the same round trip. */
typedef struct {
  int argc;
  const char **argv;
  const size_t *lens;
  redisReply **reply;
} Trailer;

/* Appends MULTI, the commands, EXEC and the trailer (if any); reads the
 * replies. *exec_out gets EXEC's reply (NULL on connection loss, with err
 * set), *trailer->reply the trailer's. */
static LwStatus run_once(redisContext *c, LwTxn *prelude, LwTxn *txn,
                         const Trailer *trailer, redisReply **exec_out, LwError *err)
{
  *exec_out = NULL;
  if (!c || c->err) {
    return lw_error_set(err, LW_ERR_REDIS, "Redis connection lost%s%s",
                        c ? ": " : "", c ? c->errstr : "");
  }
  LwTxn *parts[2] = {prelude, txn};
  size_t sent = 0;
  redisAppendCommand(c, "MULTI");
  ++sent;
  for (int p = 0; p < 2; ++p) {
    for (size_t i = 0; parts[p] && i < parts[p]->n; ++i) {
      Command *cmd = &parts[p]->cmds[i];
      redisAppendCommandArgv(c, cmd->argc, (const char **)cmd->argv, cmd->lens);
      ++sent;
    }
  }
  redisAppendCommand(c, "EXEC");
  ++sent;
  size_t exec_index = sent - 1;
  if (trailer) {
    redisAppendCommandArgv(c, trailer->argc, trailer->argv, trailer->lens);
    ++sent;
  }
  LwStatus status = LW_OK;
  for (size_t i = 0; i < sent; ++i) {
    redisReply *reply = NULL;
    if (redisGetReply(c, (void **)&reply) != REDIS_OK || !reply) {
      freeReplyObject(*exec_out);
      *exec_out = NULL;
      return lw_error_set(err, LW_ERR_REDIS, "Redis connection lost: %s",
                          c->errstr[0] ? c->errstr : "no reply");
    }
    if (i == exec_index + 1) {
      *trailer->reply = reply;
    } else if (i == exec_index) {
      *exec_out = reply;
    } else {
      if (reply->type == REDIS_REPLY_ERROR && status == LW_OK) {
        /* a command refused while queuing: EXEC will abort the lot */
        status = lw_error_set(err, LW_ERR_REDIS, "Redis refused a command: %s", reply->str);
      }
      freeReplyObject(reply);
    }
  }
  if (status == LW_OK && (*exec_out)->type != REDIS_REPLY_ARRAY) {
    status = lw_redis_reply_status(*exec_out, err);
    if (status == LW_OK) {
      status = lw_error_set(err, LW_ERR_REDIS, "transaction aborted");
    }
  }
  return status;
}

LwStatus lw_txn_exec_with(redisContext *c, LwTxn *prelude, LwTxn *txn,
                          redisReply **exec_out, LwError *err)
{
  return lw_txn_exec_then(c, prelude, txn, exec_out, 0, NULL, NULL, NULL, err);
}

LwStatus lw_txn_exec_then(redisContext *c, LwTxn *prelude, LwTxn *txn,
                          redisReply **exec_out, int argc, const char **argv,
                          const size_t *lens, redisReply **after, LwError *err)
{
  if (exec_out) {
    *exec_out = NULL;
  }
  if (after) {
    *after = NULL;
  }
  Trailer trailer = {argc, argv, lens, after};
  for (int p = 0; p < 2; ++p) {
    LwTxn *t = p ? txn : prelude;
    if (t && t->first_error.status != LW_OK) {
      return lw_error_set(err, t->first_error.status, "%s", t->first_error.message);
    }
  }
  for (int round = 0; round < 2; ++round) {
    redisReply *exec = NULL;
    /* the trailer goes with the first round only: it is not idempotent */
    LwStatus status = run_once(c, prelude, txn, round == 0 && argc > 0 ? &trailer : NULL,
                               &exec, err);
    if (status != LW_OK) {
      freeReplyObject(exec);
      return status;
    }
    bool noscript = false;
    LwStatus first = LW_OK;
    for (size_t i = 0; i < exec->elements; ++i) {
      redisReply *r = exec->element[i];
      if (lw_reply_is_noscript(r)) {
        noscript = true;
      } else if (r->type == REDIS_REPLY_ERROR && first == LW_OK) {
        first = lw_redis_reply_status(r, err);
      }
    }
    if (noscript && round == 0) {
      freeReplyObject(exec);
      /* Redis restarted or its script cache was flushed: every command is
       * idempotent or guarded (the ack checks the in-flight list, pushes are
       * deduplicated), so load the scripts and run it all again. */
      LW_TRY(lw_scripts_load_all(c, err));
      continue;
    }
    if (noscript) {
      freeReplyObject(exec);
      return lw_error_set(err, LW_ERR_REDIS, "Redis keeps forgetting the queue's scripts");
    }
    if (exec_out && first == LW_OK) {
      *exec_out = exec;
    } else {
      freeReplyObject(exec);
    }
    return first;
  }
  return LW_OK;
}

LwStatus lw_txn_exec(redisContext *c, LwTxn *txn, LwError *err)
{
  return lw_txn_exec_with(c, NULL, txn, NULL, err);
}
