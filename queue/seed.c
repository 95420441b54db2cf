#include "queue/seed.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "files/files.h"
#include "queue/gc_index.h"
#include "queue/harvest.h"
#include "queue/job.h"
#include "queue/keys.h"
#include "queue/queue.h"
#include "queue/record.h"
#include "queue/redis_cmd.h"
#include "queue/scripts.h"
#include "queue/txn.h"

const char *const lw_seed_statuses[] = {
  "added",    "downloading", "filed",   "failed", "unarchiving", "depleted", "unarchived",
  "guessing", "guessed",     "skipped", "parsing", "parsed", "cleaned",     NULL};

/* The machine: for each status, the statuses it may be reached from
 * ("" = a new record). Same-status moves are added by the code. */
static const struct {
  const char *to;
  const char *from[10];
} machine[] = {
  {"added",
   {"", "failed", "filed", "depleted", "unarchived", "guessed", "skipped", "parsed", NULL}},
  {"downloading", {"added", NULL}},
  /* "added": an archive entry that a re-harvest reset is filed again by unpack */
  /* "failed": a dead job retried by hand runs its stage again
   * (lw_pipeline_retry_dead); so for unarchived and guessed */
  {"filed", {"", "added", "downloading", "failed", NULL}},
  {"failed", {"downloading", "unarchiving", "guessing", "parsing", NULL}},
  {"unarchiving", {"filed", NULL}},
  {"depleted", {"unarchiving", NULL}},
  /* "guessed", "skipped", "parsed": `lodwash reclean` cleans a data file again */
  {"unarchived", {"unarchiving", "guessed", "skipped", "parsed", "failed", NULL}},
  {"guessing", {"unarchived", NULL}},
  {"guessed", {"guessing", "failed", NULL}},
  /* an optional file (a page, a distribution of undeclared format) that
   * holds no RDF: done, nothing to parse or import */
  {"skipped", {"guessing", NULL}},
  {"parsing", {"guessed", NULL}},
  {"parsed", {"parsing", NULL}},
  {"cleaned", {"", NULL}},
};

static int machine_row(const char *to)
{
  for (size_t i = 0; i < sizeof(machine) / sizeof(machine[0]); ++i) {
    if (!strcmp(machine[i].to, to)) {
      return (int)i;
    }
  }
  return -1;
}

bool lw_seed_status_valid(const char *status)
{
  return status && machine_row(status) >= 0;
}

bool lw_seed_status_resting(const char *status)
{
  return status && *status && strcmp(status, "added") &&
         lw_seed_transition_allowed(status, "added");
}

bool lw_seed_status_done(const char *status)
{
  return status && (!strcmp(status, "parsed") || !strcmp(status, "cleaned") ||
                    !strcmp(status, "depleted") || !strcmp(status, "skipped"));
}

bool lw_seed_transition_allowed(const char *from, const char *to)
{
  int row = to ? machine_row(to) : -1;
  if (row < 0) {
    return false;
  }
  from = from ? from : "";
  if (!strcmp(from, to)) {
    return true;
  }
  for (const char *const *f = machine[row].from; *f; ++f) {
    if (!strcmp(*f, from)) {
      return true;
    }
  }
  return false;
}

int lw_seed_transition_argv(const char *prefix, const char *hash, const char *status,
                            bool strict, const char **argv, int max)
{
  int row = status ? machine_row(status) : -1;
  if (row < 0 || max < 20) {
    return -1;
  }
  char now[32];
  snprintf(now, sizeof(now), "%lld", lw_now_ms());
  int argc = 0;
  argv[argc++] = strdup("EVALSHA");
  argv[argc++] = strdup(lw_script_sha(&lw_script_transition));
  argv[argc++] = strdup("2");
  argv[argc++] = strdup(lw_key(prefix, LW_KEY_SEED, hash).s);
  argv[argc++] = strdup(lw_key(prefix, LW_KEY_SEED_COUNTS, NULL).s);
  argv[argc++] = strdup(status);
  argv[argc++] = strdup(now);
  argv[argc++] = strdup(hash);
  argv[argc++] = strdup(strict ? "strict" : "soft");
  argv[argc++] = strdup(status);
  for (const char *const *f = machine[row].from; *f && argc < max; ++f) {
    argv[argc++] = strdup(*f);
  }
  for (int i = 0; i < argc; ++i) {
    if (!argv[i]) {
      lw_seed_transition_argv_free(argv, argc);
      return -1;
    }
  }
  return argc;
}

void lw_seed_transition_argv_free(const char **argv, int argc)
{
  for (int i = 0; i < argc; ++i) {
    free((char *)argv[i]);
  }
}

LwStatus lw_seed_set_status(redisContext *c, const char *prefix, const char *hash,
                            const char *status, LwError *err)
{
  const char *argv[32];
  int argc = lw_seed_transition_argv(prefix, hash, status, true, argv, 32);
  if (argc < 0) {
    return lw_error_set(err, LW_ERR_STATE, "unknown seed status '%s'",
                        status ? status : "");
  }
  /* argv[0..2] are EVALSHA, sha, numkeys: lw_script_run adds its own */
  redisReply *reply = lw_script_run(c, &lw_script_transition, 2, argc - 3, argv + 3, NULL,
                                    err);
  lw_seed_transition_argv_free(argv, argc);
  if (!reply) {
    return err ? err->status : LW_ERR_REDIS;
  }
  freeReplyObject(reply);
  return LW_OK;
}

LwStatus lw_seed_default_file(const char *hash, char *buf, size_t size)
{
  return lw_store_relpath("raw", hash, "", buf, size);
}

/* A record read whole as its readers see it: a body recorded without a
 * `file` is at the seed's default file. */
static void complete_record(json_t *record, const char *hash)
{
  char rel[512];
  if (record && !json_object_get(record, "file") && json_object_get(record, "content") &&
      lw_seed_default_file(hash, rel, sizeof(rel)) == LW_OK) {
    json_object_set_new(record, "file", json_string(rel));
  }
}

LwStatus lw_seed_set_working(redisContext *c, const char *prefix, const char *worker_id,
                             const LwJob *job, const char *status, LwError *err)
{
  LwTxn *txn = lw_txn_new(prefix);
  if (!txn) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  lw_txn_seed_status(txn, job->seed, status);
  LwKey inflight = lw_key(prefix, LW_KEY_INFLIGHT, worker_id);
  LwStatus st = lw_txn_apply(c, inflight.s, job->raw, NULL, txn, NULL, err);
  lw_txn_free(txn);
  return st;
}

LwStatus lw_seed_take_working(redisContext *c, const char *prefix, const char *worker_id,
                              const LwJob *job, const char *status, json_t **record,
                              LwError *err)
{
  *record = NULL;
  LwTxn *txn = lw_txn_new(prefix);
  if (!txn) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  if (*job->harvest) {
    lw_txn_harvest_owns_or_none(txn, job->harvest, job->seed);
  }
  lw_txn_seed_status(txn, job->seed, status);
  LwKey inflight = lw_key(prefix, LW_KEY_INFLIGHT, worker_id);
  LwKey seed = lw_key(prefix, LW_KEY_SEED, job->seed);
  const char *keys[] = {seed.s};
  LwScript *script = lw_script_apply_read();
  redisReply *reply = NULL;
  LwTxnTrailer read = {lw_script_sha(script), script->source, 1, 1, keys, &reply};
  LwStatus st = lw_txn_apply(c, inflight.s, job->raw, NULL, txn, &read, err);
  lw_txn_free(txn);
  if (reply) {
    LwError read_err;
    if (lw_record_from_reply(reply->element[2], record, &read_err) > LW_NOTHING &&
        st <= LW_NOTHING) {
      st = lw_error_set(err, read_err.status, "%s", read_err.message);
    }
    complete_record(*record, job->seed);
    freeReplyObject(reply);
  }
  return st;
}

LwStatus lw_seed_set(redisContext *c, const char *prefix, const char *hash,
                     const char *field, const char *value, LwError *err)
{
  redisReply *reply = lw_redis_cmd(c, err, "HSET", lw_key(prefix, LW_KEY_SEED, hash).s,
                                   field, value, NULL);
  if (!reply) {
    return err ? err->status : LW_ERR_REDIS;
  }
  freeReplyObject(reply);
  return LW_OK;
}

void lw_seed_hash_of(const char *text, char out[LW_HASH_HEX_LEN + 1])
{
  size_t len = strlen(text);
  bool hex = len == LW_HASH_HEX_LEN;
  for (size_t i = 0; hex && i < len; ++i) {
    hex = isxdigit((unsigned char)text[i]) != 0;
  }
  if (hex) {
    for (size_t i = 0; i < len; ++i) {
      out[i] = (char)tolower((unsigned char)text[i]);
    }
    out[len] = '\0';
  } else {
    lw_uri_hash(text, out);
  }
}

void lw_seed_hash_for(const char *uri, const char *provider, char out[LW_HASH_HEX_LEN + 1])
{
  if (!provider || !*provider) {
    lw_uri_hash(uri, out);
    return;
  }
  char *normal = lw_uri_normalize(uri);
  const char *u = normal ? normal : uri;
  LwMd5 *md5 = lw_md5_new();
  if (!md5) {
    lw_uri_hash(uri, out); /* out of memory: unscoped, still a valid hash */
    free(normal);
    return;
  }
  lw_md5_update(md5, provider, strlen(provider));
  lw_md5_update(md5, " ", 1);
  lw_md5_update(md5, u, strlen(u));
  lw_md5_finish(md5, out);
  lw_md5_free(md5);
  free(normal);
}

/* KEYS: seed, seed counts, the collection's seed index  ARGV: now, hash,
 * then field, value pairs
 * Creates the record as `added` with the fields unless it exists, and
 * indexes it (queue/gc_index.h). Returns 1 created, 0 existed. */
static LwScript record_script = {
  "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end\n"
  "redis.call('HSET', KEYS[1], 'status', 'added', 'updated', ARGV[1])\n"
  "redis.call('ZADD', KEYS[3], ARGV[1], ARGV[2])\n"
  "redis.call('HINCRBY', KEYS[2], 'added', 1)\n"
  "for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end\n"
  "return 1\n",
  ""};

LwStatus lw_seed_record(redisContext *c, const char *prefix, const char *uri,
                        const char *provider, const char *harvest,
                        char hash_out[LW_HASH_HEX_LEN + 1], LwError *err)
{
  if (!uri || !*uri) {
    return lw_error_set(err, LW_ERR_USAGE, "empty URI");
  }
  lw_seed_hash_for(uri, provider, hash_out);
  LwKey seed = lw_key(prefix, LW_KEY_SEED, hash_out);
  LwKey counts = lw_key(prefix, LW_KEY_SEED_COUNTS, NULL);
  LwKey index = lw_key(prefix, LW_KEY_SEED_INDEX, NULL);
  char now[32];
  snprintf(now, sizeof(now), "%lld", lw_now_ms());
  const char *argv[16] = {seed.s, counts.s, index.s, now, hash_out, "uri", uri, "added", now};
  int argc = 9;
  if (!lw_uri_is_absolute(uri)) { /* absent: "false" to every reader */
    argv[argc++] = "relative";
    argv[argc++] = "true";
  }
  if (provider) {
    argv[argc++] = "provider";
    argv[argc++] = provider;
  }
  if (harvest) {
    argv[argc++] = "harvest";
    argv[argc++] = harvest;
  }
  redisReply *r = lw_script_run(c, &record_script, 3, argc, argv, NULL, err);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  bool created = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  freeReplyObject(r);
  return created ? LW_OK : LW_NOTHING;
}

LwStatus lw_seed_add(redisContext *c, const char *prefix, const char *uri,
                     const char *provider, const char *harvest,
                     char hash_out[LW_HASH_HEX_LEN + 1], bool *queued, LwError *err)
{
  if (queued) {
    *queued = false;
  }
  LwStatus status = lw_seed_record(c, prefix, uri, provider, harvest, hash_out, err);
  if (status > LW_NOTHING) {
    return status;
  }
  if (!lw_uri_is_absolute(uri)) {
    return status; /* relative: recorded, never downloaded */
  }
  if (status == LW_NOTHING) {
    /* an existing seed is queued again only while it waits to be fetched
     * (its job may have been lost); re-harvests are the scheduler's */
    redisReply *r = lw_redis_cmd(c, err, "HGET", lw_key(prefix, LW_KEY_SEED, hash_out).s,
                                 "status", NULL);
    if (!r) {
      return err ? err->status : LW_ERR_REDIS;
    }
    bool waiting = r->type == REDIS_REPLY_STRING && !strcmp(r->str, "added");
    freeReplyObject(r);
    if (!waiting) {
      return status;
    }
  }
  LwJob *job = lw_job_new("download", hash_out, harvest, NULL, err);
  if (!job) {
    return err ? err->status : LW_ERR_NOMEM;
  }
  LwStatus pushed = lw_queue_push_prefix(c, prefix, job, LW_PRIORITY_NORMAL, err);
  lw_job_free(job);
  if (pushed > LW_NOTHING) {
    return pushed;
  }
  if (queued) {
    *queued = pushed == LW_OK;
  }
  return status;
}

LwStatus lw_seed_get(redisContext *c, const char *prefix, const char *hash, json_t **out,
                     LwError *err)
{
  LwStatus st = lw_record_get(c, lw_key(prefix, LW_KEY_SEED, hash).s, out, err);
  complete_record(*out, hash);
  return st;
}

LwStatus lw_seed_get_many(redisContext *c, const char *prefix, const char *const *hashes,
                          size_t n, json_t **out, LwError *err)
{
  for (size_t i = 0; i < n; ++i) {
    out[i] = NULL;
    LwKey key = lw_key(prefix, LW_KEY_SEED, hashes[i]);
    const char *argv[] = {"HGETALL", key.s};
    redisAppendCommandArgv(c, 2, argv, NULL);
  }
  LwStatus st = LW_OK;
  for (size_t i = 0; i < n; ++i) { /* every reply is read, whatever comes */
    redisReply *r = NULL;
    if (redisGetReply(c, (void **)&r) != REDIS_OK || !r) {
      return lw_error_set(err, LW_ERR_REDIS, "Redis: %s", c->errstr);
    }
    LwStatus got = lw_record_from_reply(r, &out[i], err);
    freeReplyObject(r);
    if (got > LW_NOTHING && st == LW_OK) {
      st = got;
    }
    complete_record(out[i], hashes[i]);
  }
  return st;
}

LwStatus lw_seed_get_field(redisContext *c, const char *prefix, const char *hash,
                           const char *field, char **out, LwError *err)
{
  *out = NULL;
  redisReply *reply = lw_redis_cmd(c, err, "HGET", lw_key(prefix, LW_KEY_SEED, hash).s,
                                   field, NULL);
  if (!reply) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus status = LW_NOTHING;
  if (reply->type == REDIS_REPLY_STRING) {
    *out = malloc(reply->len + 1);
    if (!*out) {
      status = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    } else {
      memcpy(*out, reply->str, reply->len);
      (*out)[reply->len] = '\0';
      status = LW_OK;
    }
  }
  freeReplyObject(reply);
  return status;
}

typedef struct {
  redisContext *c;
  const char *prefix;
  const char *uri;
  char hash[LW_HASH_HEX_LEN + 1];
  json_t **out;
  LwStatus st; /* LW_NOTHING until found */
  LwError *err;
} ProviderSeed;

static LwStatus provider_seed_page(void *arg, const char *const *names, size_t n)
{
  ProviderSeed *f = arg;
  for (size_t i = 0; i < n && f->st == LW_NOTHING; ++i) {
    char hash[LW_HASH_HEX_LEN + 1];
    lw_seed_hash_for(f->uri, names[i], hash);
    f->st = lw_seed_get(f->c, f->prefix, hash, f->out, f->err);
    if (f->st == LW_OK) {
      memcpy(f->hash, hash, sizeof(hash));
    }
  }
  return f->st > LW_NOTHING ? f->st : LW_OK;
}

/* The seed of uri listed by one of the providers known to Redis. */
static LwStatus find_provider_seed(redisContext *c, const char *prefix, const char *uri,
                                   char hash_out[LW_HASH_HEX_LEN + 1], json_t **out,
                                   LwError *err)
{
  ProviderSeed f = {.c = c, .prefix = prefix, .uri = uri, .out = out, .st = LW_NOTHING,
                    .err = err};
  LW_TRY(lw_gc_index_providers_walk(c, prefix, provider_seed_page, &f, err));
  if (f.st == LW_OK) {
    memcpy(hash_out, f.hash, sizeof(f.hash));
  }
  return f.st;
}

LwStatus lw_seed_find(redisContext *c, const char *prefix, const char *text,
                      char hash_out[LW_HASH_HEX_LEN + 1], json_t **out, LwError *err)
{
  *out = NULL;
  lw_seed_hash_of(text, hash_out);
  LwStatus st = lw_seed_get(c, prefix, hash_out, out, err);
  if (st != LW_NOTHING || !lw_uri_is_absolute(text)) {
    return st;
  }
  char found[LW_HASH_HEX_LEN + 1];
  st = find_provider_seed(c, prefix, text, found, out, err);
  if (st == LW_OK) {
    memcpy(hash_out, found, sizeof(found));
  }
  return st;
}
