#include "queue/txn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/recheck_index.h"
#include "queue/redis_cmd.h"
#include "queue/scripts.h"
#include "queue/seed.h"

/* One op of lw_script_apply: argv[0] is the op's name. */
typedef struct {
  int argc;
  char **argv;
  size_t *lens;
} Op;

struct LwTxn {
  char *prefix;
  Op *ops;
  size_t n, cap;
  char **pushed; /* seeds of pushed jobs */
  size_t n_pushed, cap_pushed;
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

static void op_free(Op *op)
{
  for (int i = 0; i < op->argc; ++i) {
    free(op->argv[i]);
  }
  free(op->argv);
  free(op->lens);
}

void lw_txn_free(LwTxn *txn)
{
  if (!txn) {
    return;
  }
  for (size_t i = 0; i < txn->n; ++i) {
    op_free(&txn->ops[i]);
  }
  for (size_t i = 0; i < txn->n_pushed; ++i) {
    free(txn->pushed[i]);
  }
  free(txn->pushed);
  free(txn->ops);
  free(txn->prefix);
  free(txn);
}

const char *lw_txn_prefix(const LwTxn *txn)
{
  return txn->prefix;
}

size_t lw_txn_count(const LwTxn *txn)
{
  return txn ? txn->n : 0;
}

size_t lw_txn_pushed_count(const LwTxn *txn)
{
  return txn ? txn->n_pushed : 0;
}

const char *lw_txn_pushed_seed(const LwTxn *txn, size_t i)
{
  return txn->pushed[i];
}

static void remember(LwTxn *txn, LwStatus status, const char *message)
{
  if (txn->first_error.status == LW_OK) {
    lw_error_set(&txn->first_error, status, "%s", message);
  }
}

/* Adds op name with argc arguments (lens NULL: NUL-terminated). */
static void add_op(LwTxn *txn, const char *name, int argc, const char **argv,
                   const size_t *lens)
{
  if (txn->n == txn->cap) {
    size_t cap = txn->cap ? txn->cap * 2 : 8;
    Op *ops = realloc(txn->ops, cap * sizeof(*ops));
    if (!ops) {
      remember(txn, LW_ERR_NOMEM, "out of memory");
      return;
    }
    txn->ops = ops;
    txn->cap = cap;
  }
  Op op = {0, calloc((size_t)argc + 1, sizeof(char *)),
           calloc((size_t)argc + 1, sizeof(size_t))};
  if (!op.argv || !op.lens) {
    op_free(&op);
    remember(txn, LW_ERR_NOMEM, "out of memory");
    return;
  }
  for (int i = 0; i <= argc; ++i) {
    const char *s = i ? argv[i - 1] : name;
    size_t len = i && lens ? lens[i - 1] : strlen(s);
    op.argv[i] = malloc(len + 1);
    if (!op.argv[i]) {
      op.argc = i;
      op_free(&op);
      remember(txn, LW_ERR_NOMEM, "out of memory");
      return;
    }
    memcpy(op.argv[i], s, len);
    op.argv[i][len] = '\0';
    op.lens[i] = len;
  }
  op.argc = argc + 1;
  txn->ops[txn->n++] = op;
}

void lw_txn_command(LwTxn *txn, int argc, const char **argv, const size_t *argvlen)
{
  add_op(txn, "call", argc, argv, argvlen);
}

void lw_txn_op(LwTxn *txn, const char *op, int argc, const char **argv)
{
  add_op(txn, op, argc, argv, NULL);
}

void lw_txn_hset(LwTxn *txn, const char *key, const char *field, const char *value)
{
  const char *argv[] = {"HSET", key, field, value};
  lw_txn_command(txn, 4, argv, NULL);
}

void lw_txn_seed_set(LwTxn *txn, const char *seed, const char *field, const char *value)
{
  lw_txn_hset(txn, lw_key(txn->prefix, LW_KEY_SEED, seed).s, field, value);
  if (!strcmp(field, "processed")) {
    lw_txn_recheck_index(txn, seed, value); /* in the same call: never apart */
  }
}

static void seed_status(LwTxn *txn, const char *seed, const char *status, bool strict)
{
  const char *argv[64];
  int argc = lw_seed_transition_argv(txn->prefix, seed, status, strict, argv, 64);
  if (argc < 0) {
    char message[160];
    snprintf(message, sizeof(message), "unknown seed status '%s'", status);
    remember(txn, LW_ERR_STATE, message);
    return;
  }
  /* the transition script's arguments, without EVALSHA, its sha and "2" */
  lw_txn_op(txn, "status", argc - 3, argv + 3);
  lw_seed_transition_argv_free(argv, argc);
}

void lw_txn_seed_status(LwTxn *txn, const char *seed, const char *status)
{
  seed_status(txn, seed, status, true);
}

void lw_txn_seed_status_soft(LwTxn *txn, const char *seed, const char *status)
{
  seed_status(txn, seed, status, false);
}

void lw_txn_seed_reset(LwTxn *txn, const char *seed, const char *status)
{
  LwKey key = lw_key(txn->prefix, LW_KEY_SEED, seed);
  LwKey counts = lw_key(txn->prefix, LW_KEY_SEED_COUNTS, NULL);
  char now[32];
  snprintf(now, sizeof(now), "%lld", lw_now_ms());
  const char *argv[64] = {key.s, counts.s, status, now, seed, "soft", ""};
  int argc = 7;
  for (size_t i = 0; lw_seed_statuses[i] && argc < 64; ++i) {
    argv[argc++] = lw_seed_statuses[i];
  }
  lw_txn_op(txn, "status", argc, argv);
}

static void remember_push(LwTxn *txn, const char *seed)
{
  if (txn->n_pushed == txn->cap_pushed) {
    size_t cap = txn->cap_pushed ? txn->cap_pushed * 2 : 8;
    char **grown = realloc(txn->pushed, cap * sizeof(*grown));
    if (!grown) {
      remember(txn, LW_ERR_NOMEM, "out of memory");
      return;
    }
    txn->pushed = grown;
    txn->cap_pushed = cap;
  }
  if (!(txn->pushed[txn->n_pushed] = strdup(seed))) {
    remember(txn, LW_ERR_NOMEM, "out of memory");
    return;
  }
  ++txn->n_pushed;
}

void lw_txn_push_job(LwTxn *txn, const char *stage, const char *seed, const char *harvest,
                     LwPriority priority, const json_t *extra)
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
  char member[LW_JOB_MEMBER_MAX];
  lw_job_member(job, member);
  const char *argv[] = {queue.s,  queued.s,
                        stages.s, job->raw,
                        member,   priority == LW_PRIORITY_HIGH ? "high" : "normal",
                        stage};
  lw_txn_op(txn, "push", 7, argv);
  remember_push(txn, job->seed);
  lw_job_free(job);
}

/* The whole call as one argv: EVALSHA sha 0 fence job ncore ops... */
typedef struct {
  const char **argv;
  size_t *lens;
  int argc;
} Call;

static LwStatus build_call(const char *fence_list, const char *fence_job, LwTxn *core,
                           LwTxn *txn, Call *call, char ncore[32], char counts[][16],
                           LwError *err)
{
  size_t total = 6;
  LwTxn *parts[2] = {core, txn};
  for (int p = 0; p < 2; ++p) {
    for (size_t i = 0; parts[p] && i < parts[p]->n; ++i) {
      total += (size_t)parts[p]->ops[i].argc + 1;
    }
  }
  call->argv = calloc(total, sizeof(char *));
  call->lens = calloc(total, sizeof(size_t));
  if (!call->argv || !call->lens) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  snprintf(ncore, 32, "%zu", lw_txn_count(core));
  int a = 0;
  call->argv[a++] = "EVALSHA";
  call->argv[a++] = lw_script_sha(&lw_script_apply);
  call->argv[a++] = "0";
  call->argv[a++] = fence_list ? fence_list : "";
  call->argv[a++] = fence_job ? fence_job : "";
  call->argv[a++] = ncore;
  for (int i = 0; i < a; ++i) {
    call->lens[i] = strlen(call->argv[i]);
  }
  size_t k = 0;
  for (int p = 0; p < 2; ++p) {
    for (size_t i = 0; parts[p] && i < parts[p]->n; ++i, ++k) {
      Op *op = &parts[p]->ops[i];
      snprintf(counts[k], 16, "%d", op->argc - 1);
      call->argv[a] = op->argv[0];
      call->lens[a++] = op->lens[0];
      call->argv[a] = counts[k];
      call->lens[a++] = strlen(counts[k]);
      for (int j = 1; j < op->argc; ++j) {
        call->argv[a] = op->argv[j];
        call->lens[a++] = op->lens[j];
      }
    }
  }
  call->argc = a;
  return LW_OK;
}

/* Sends the call (and the trailer), reads the replies. */
static redisReply *send_call(redisContext *c, Call *call, const LwTxnTrailer *trailer,
                             LwError *err)
{
  redisAppendCommandArgv(c, call->argc, call->argv, call->lens);
  if (trailer) {
    redisAppendCommandArgv(c, trailer->argc, trailer->argv, trailer->lens);
  }
  redisReply *reply = NULL;
  if (redisGetReply(c, (void **)&reply) != REDIS_OK || !reply) {
    lw_error_set(err, LW_ERR_REDIS, "Redis connection lost: %s",
                 c->errstr[0] ? c->errstr : "no reply");
    return NULL;
  }
  if (trailer) {
    redisReply *after = NULL;
    if (redisGetReply(c, (void **)&after) == REDIS_OK) {
      *trailer->reply = after;
    }
  }
  return reply;
}

static LwStatus outcome(const redisReply *reply, LwError *err)
{
  if (reply->type == REDIS_REPLY_ERROR) {
    return lw_redis_reply_status(reply, err);
  }
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 ||
      reply->element[0]->type != REDIS_REPLY_INTEGER) {
    return lw_error_set(err, LW_ERR_REDIS, "unexpected reply to a transition");
  }
  if (reply->element[0]->integer == 0) {
    return LW_NOTHING;
  }
  const redisReply *refusal = reply->element[1];
  if (refusal->type == REDIS_REPLY_STRING && refusal->len > 0) {
    const char *text = refusal->str;
    /* "LWSTATE ..." / "LWSTALE ...": the message follows the tag */
    return lw_error_set(err, LW_ERR_STATE, "%s", strlen(text) > 8 ? text + 8 : text);
  }
  return LW_OK;
}

LwStatus lw_txn_apply(redisContext *c, const char *fence_list, const char *fence_job,
                      LwTxn *core, LwTxn *txn, const LwTxnTrailer *trailer, LwError *err)
{
  if (trailer) {
    *trailer->reply = NULL;
  }
  LwTxn *parts[2] = {core, txn};
  for (int p = 0; p < 2; ++p) {
    if (parts[p] && parts[p]->first_error.status != LW_OK) {
      return lw_error_set(err, parts[p]->first_error.status, "%s",
                          parts[p]->first_error.message);
    }
  }
  if (!c || c->err) {
    return lw_error_set(err, LW_ERR_REDIS, "Redis connection lost%s%s", c ? ": " : "",
                        c ? c->errstr : "");
  }
  size_t nops = lw_txn_count(core) + lw_txn_count(txn);
  char ncore[32];
  char(*counts)[16] = calloc(nops + 1, sizeof(*counts));
  Call call = {0};
  LwStatus st = counts
                  ? build_call(fence_list, fence_job, core, txn, &call, ncore, counts, err)
                  : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  redisReply *reply = st == LW_OK ? send_call(c, &call, trailer, err) : NULL;
  if (st == LW_OK && !reply) {
    st = err->status;
  }
  if (st == LW_OK && lw_reply_is_noscript(reply)) {
    /* Redis restarted or its scripts were flushed: nothing ran, so the
     * same call goes again with the body (the trailer does not). */
    freeReplyObject(reply);
    call.argv[0] = "EVAL";
    call.lens[0] = 4;
    call.argv[1] = lw_script_apply.source;
    call.lens[1] = strlen(lw_script_apply.source);
    reply = send_call(c, &call, NULL, err);
    st = reply ? LW_OK : err->status;
  }
  if (st == LW_OK) {
    st = outcome(reply, err);
  }
  freeReplyObject(reply);
  free(call.argv);
  free(call.lens);
  free(counts);
  return st;
}

LwStatus lw_txn_exec(redisContext *c, LwTxn *txn, LwError *err)
{
  LwStatus st = lw_txn_apply(c, NULL, NULL, NULL, txn, NULL, err);
  return st == LW_NOTHING ? LW_OK : st;
}
