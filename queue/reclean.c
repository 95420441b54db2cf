#include "queue/reclean.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/controls.h"
#include "queue/gc_index.h"
#include "queue/job.h"
#include "queue/keys.h"
#include "queue/record.h"
#include "queue/records.h"
#include "queue/redis_cmd.h"
#include "queue/seed.h"
#include "queue/txn.h"

#define MAX_DEPTH 64

/* A kept data file: the statuses a reclean moves back to `unarchived`. */
static bool is_data_leaf(const char *status)
{
  return !strcmp(status, "unarchived") || !strcmp(status, "guessed") ||
         !strcmp(status, "skipped") || !strcmp(status, "parsed");
}

/* Appends to leaves the data seeds under seed hash (archive entries through
 * their children). */
static LwStatus collect_leaves(redisContext *c, const char *prefix, const char *hash,
                               unsigned depth, json_t *leaves, LwError *err)
{
  if (depth > MAX_DEPTH) {
    return lw_error_set(err, LW_ERR_LIMIT, "archives nested deeper than %d", MAX_DEPTH);
  }
  json_t *seed = NULL;
  LwStatus st = lw_seed_get(c, prefix, hash, &seed, err);
  if (st != LW_OK) {
    return st == LW_NOTHING ? LW_OK : st; /* collected meanwhile: nothing to clean */
  }
  json_t *children = json_loads(lw_record_str(seed, "children", "[]"), 0, NULL);
  if (json_is_array(children) && json_array_size(children) > 0) {
    size_t i;
    json_t *child;
    json_array_foreach(children, i, child) {
      if (st == LW_OK && json_is_string(child)) {
        st = collect_leaves(c, prefix, json_string_value(child), depth + 1, leaves, err);
      }
    }
  } else if (is_data_leaf(lw_record_str(seed, "status", "")) &&
             *lw_record_str(seed, "file", "")) {
    json_array_append_new(leaves, json_string(hash));
  }
  json_decref(children);
  json_decref(seed);
  return st;
}

/* The reclean's record: the last harvest's, as a new running harvest. */
static void record_reclean(LwTxn *txn, const char *id, const json_t *last)
{
  char started[32];
  snprintf(started, sizeof(started), "%lld", lw_now_ms());
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_HARVEST, id);
  const char *copied[] = {"provider", "void",     "modified", "source", "void_hash",
                          "kind",     "features", "dumps",    "seeds"};
  for (size_t i = 0; i < sizeof(copied) / sizeof(*copied); ++i) {
    lw_txn_hset(txn, key.s, copied[i], lw_record_str(last, copied[i], ""));
  }
  const char *fields[][2] = {
    {"id", id},       {"started", started}, {"forced", "1"}, {"status", "running"},
    {"pending", "0"}, {"error", ""},        {"reclean", "1"}};
  for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); ++i) {
    lw_txn_hset(txn, key.s, fields[i][0], fields[i][1]);
  }
  lw_txn_gc_index_harvest(txn, id, started);
}

/* In one transaction: the record, each leaf back to unarchived and the
 * reclean's, its guess job, and the fan-in's expected files. */
static LwStatus queue_reclean(redisContext *c, const char *prefix, const char *id,
                              const json_t *last, const json_t *leaves, LwError *err)
{
  LwTxn *txn = lw_txn_new(prefix);
  size_t n = json_array_size(leaves);
  const char **files = calloc(n + 1, sizeof(char *));
  if (!txn || !files) {
    lw_txn_free(txn);
    free(files);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  record_reclean(txn, id, last);
  for (size_t i = 0; i < n; ++i) {
    files[i] = json_string_value(json_array_get(leaves, i));
    lw_txn_seed_status(txn, files[i], "unarchived");
    lw_txn_seed_set(txn, files[i], "harvest", id);
    lw_txn_push_job(txn, "guess", files[i], id, LW_PRIORITY_NORMAL, NULL);
  }
  lw_txn_harvest_expect_files(txn, id, files, n);
  LwStatus st = lw_txn_exec(c, txn, err);
  free(files);
  lw_txn_free(txn);
  return st;
}

/* The provider's last harvest record; LW_ERR_STATE when there is none. */
static LwStatus last_harvest(redisContext *c, const char *prefix, const char *provider,
                             json_t **out, LwError *err)
{
  char *last_id = NULL;
  redisReply *r = lw_redis_cmd(c, err, "HGET", lw_key(prefix, LW_KEY_PROVIDER, provider).s,
                               "harvest", NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  if (r->type == REDIS_REPLY_STRING && r->len > 0) {
    last_id = strdup(r->str);
  }
  freeReplyObject(r);
  LwStatus st = last_id ? lw_records_harvest_get(c, prefix, last_id, out, err) : LW_NOTHING;
  free(last_id);
  if (st == LW_NOTHING) {
    return lw_error_set(err, LW_ERR_STATE, "%s was never harvested: nothing to clean again",
                        provider);
  }
  return st;
}

LwStatus lw_reclean_start(redisContext *c, const char *prefix, const char *provider,
                          char id_out[LW_HARVEST_ID_MAX], size_t *files, LwError *err)
{
  *files = 0;
  /* settles a harvest whose import ended it since the scheduler's last visit */
  LwProviderState state;
  LW_TRY(lw_provider_state_read(c, prefix, provider, &state, err));
  bool held = false;
  LW_TRY(lw_controls_provider_held(c, prefix, provider, &held, err));
  if (held) {
    return lw_error_set(err, LW_ERR_STATE,
                        "%s is held; `lodwash provider release %s` first", provider,
                        provider);
  }
  json_t *last = NULL;
  LW_TRY(last_harvest(c, prefix, provider, &last, err));
  json_t *dumps = json_loads(lw_record_str(last, "seeds", "[]"), 0, NULL);
  json_t *leaves = json_array();
  LwStatus st = leaves ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  size_t i;
  json_t *dump;
  json_array_foreach(dumps, i, dump) {
    if (st == LW_OK && json_is_string(dump)) {
      st = collect_leaves(c, prefix, json_string_value(dump), 0, leaves, err);
    }
  }
  if (st == LW_OK && json_array_size(leaves) == 0) {
    st = lw_error_set(err, LW_ERR_STATE, "%s has no data file kept: nothing to clean again",
                      provider);
  }
  if (st == LW_OK) {
    lw_harvest_new_id(provider, id_out);
    st = lw_harvest_claim(c, prefix, provider, id_out, err);
  }
  if (st == LW_OK) {
    st = queue_reclean(c, prefix, id_out, last, leaves, err);
    if (st != LW_OK) {
      /* Give the claim back: the provider is as it was. */
      redisReply *r = lw_redis_cmd(c, NULL, "HSET",
                                   lw_key(prefix, LW_KEY_PROVIDER, provider).s, "state",
                                   "idle", "harvest", lw_record_str(last, "id", ""), NULL);
      freeReplyObject(r);
    } else {
      *files = json_array_size(leaves);
    }
  }
  json_decref(leaves);
  json_decref(dumps);
  json_decref(last);
  return st;
}
