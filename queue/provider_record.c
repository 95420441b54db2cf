#include "queue/provider_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/gc_index.h"
#include "queue/job.h"
#include "queue/keys.h"
#include "queue/records.h"
#include "queue/redis_cmd.h"
#include "queue/seed.h"
#include "queue/txn.h"

/* KEYS: provider, the collection's provider index  ARGV: harvest id, name
 * Marks the provider harvesting unless it already is. 1 claimed, 0 busy. */
static LwScript claim_script = {
  "if redis.call('HGET', KEYS[1], 'state') == 'harvesting' then return 0 end\n"
  "redis.call('HSET', KEYS[1], 'state', 'harvesting', 'harvest', ARGV[1])\n"
  "redis.call('SADD', KEYS[2], ARGV[2])\n"
  "redis.call('HDEL', KEYS[1], 'pending', 'force', 'dump_changed')\n"
  "return 1\n",
  ""};

/* KEYS: harvest, provider  ARGV: id, mode, error
 * mode "done" / "failed": ends a running harvest with that status (the
 * import stage writes the status itself; then mode "settle" only settles).
 * Settling: if the provider is still harvesting this harvest, it becomes
 * idle with `harvested` advanced (done), or error with a backoff (failed:
 * not every dump got in). Returns 1 when the provider was settled. */
static LwScript finish_script = {
  LW_LUA_NOW_MS
  "local status = redis.call('HGET', KEYS[1], 'status')\n"
  "if ARGV[2] ~= 'settle' and status == 'running' then\n"
  "  status = ARGV[2]\n"
  "  redis.call('HSET', KEYS[1], 'status', status, 'finished', now, 'error', ARGV[3])\n"
  "end\n"
  "if status ~= 'done' and status ~= 'failed' then return 0 end\n"
  "if redis.call('HGET', KEYS[2], 'harvest') ~= ARGV[1] or\n"
  "   redis.call('HGET', KEYS[2], 'state') ~= 'harvesting' then return 0 end\n"
  "if status == 'done' then\n"
  "  local m = redis.call('HMGET', KEYS[1], 'modified', 'void_hash', 'datasets')\n"
  "  redis.call('HSET', KEYS[2], 'state', 'idle', 'harvested', m[1] or '',\n"
  "             'harvested_hash', m[2] or '', 'harvested_at', now,\n"
  "             'failures', 0, 'retry_at', 0, 'error', '')\n"
  "  if m[3] then redis.call('HSET', KEYS[2], 'harvested_datasets', m[3]) end\n"
  "else\n"
  "  local f = redis.call('HINCRBY', KEYS[2], 'failures', 1)\n"
  "  local delay = math.min(60000 * 2 ^ math.min(f - 1, 20), 86400000)\n"
  "  local e = redis.call('HGET', KEYS[1], 'error')\n"
  "  if not e or e == '' then\n"
  "    e = 'harvest ' .. ARGV[1] .. ' failed: not every dump got in (see failed_files)'\n"
  "  end\n"
  "  redis.call('HSET', KEYS[2], 'state', 'error', 'retry_at', now + delay, 'error', e)\n"
  "end\n"
  "return 1\n",
  ""};

static LwStatus run_finish(redisContext *c, const char *prefix, const char *id,
                           const char *mode, const char *error, LwError *err);

/* The fields of provider:<name> the state is made of, read with HMGET: a
 * catalogue's record also holds its datasets (megabytes at 100,000), which
 * HGETALL would read at every visit. */
static const char *const state_fields[] = {
  "state",    "harvest",      "harvested",         "harvested_hash",
  "force",    "dump_changed", "checked",           "retry_at",
  "failures", "void_etag",    "void_http_modified", "source_digest"};
#define STATE_FIELDS (sizeof(state_fields) / sizeof(*state_fields))
_Static_assert(STATE_FIELDS == 12, "state_read's HMGET names each of them");

/* The value of field (one of state_fields) in the HMGET reply, or NULL. */
static const char *field_of(const redisReply *r, const char *field)
{
  for (size_t i = 0;
       r && r->type == REDIS_REPLY_ARRAY && i < r->elements && i < STATE_FIELDS; ++i) {
    if (!strcmp(state_fields[i], field) && r->element[i]->type == REDIS_REPLY_STRING) {
      return r->element[i]->str;
    }
  }
  return NULL;
}

static long long ll_of(const redisReply *r, const char *field)
{
  const char *s = field_of(r, field);
  return s ? atoll(s) : 0;
}

static LwStatus state_read(redisContext *c, const char *prefix, const char *name,
                           LwProviderState *out, char *status, size_t status_size,
                           LwError *err)
{
  memset(out, 0, sizeof(*out));
  status[0] = '\0';
  const char *const *f = state_fields;
  redisReply *r = lw_redis_cmd(c, err, "HMGET", lw_key(prefix, LW_KEY_PROVIDER, name).s,
                               f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9],
                               f[10], f[11], NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  const char *state = field_of(r, "state");
  const char *harvest = field_of(r, "harvest");
  out->running = state && !strcmp(state, "harvesting");
  snprintf(out->harvest, sizeof(out->harvest), "%s", harvest ? harvest : "");
  const char *harvested = field_of(r, "harvested");
  const char *harvested_hash = field_of(r, "harvested_hash");
  out->has_harvested = (harvested && *harvested) || (harvested_hash && *harvested_hash);
  lw_version_from_text(harvested, harvested_hash, &out->harvested);
  const char *force = field_of(r, "force");
  out->forced = force && !strcmp(force, "1");
  out->dump_changed = ll_of(r, "dump_changed") > 0;
  out->checked_ms = ll_of(r, "checked");
  out->retry_at_ms = ll_of(r, "retry_at");
  out->failures = ll_of(r, "failures");
  const char *etag = field_of(r, "void_etag");
  const char *lm = field_of(r, "void_http_modified");
  snprintf(out->etag, sizeof(out->etag), "%s", etag ? etag : "");
  snprintf(out->http_modified, sizeof(out->http_modified), "%s", lm ? lm : "");
  const char *digest = field_of(r, "source_digest");
  snprintf(out->source_digest, sizeof(out->source_digest), "%s", digest ? digest : "");
  freeReplyObject(r);
  if (out->running && out->harvest[0]) {
    r = lw_redis_cmd(c, err, "HMGET", lw_key(prefix, LW_KEY_HARVEST, out->harvest).s,
                     "modified", "void_hash", "status", NULL);
    if (!r) {
      return err ? err->status : LW_ERR_REDIS;
    }
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 3) {
      if (r->element[2]->type == REDIS_REPLY_STRING) {
        snprintf(status, status_size, "%s", r->element[2]->str);
      }
      lw_version_from_text(
        r->element[0]->type == REDIS_REPLY_STRING ? r->element[0]->str : NULL,
        r->element[1]->type == REDIS_REPLY_STRING ? r->element[1]->str : NULL,
        &out->running_version);
    }
    freeReplyObject(r);
  }
  return LW_OK;
}

LwStatus lw_provider_state_read(redisContext *c, const char *prefix, const char *name,
                                LwProviderState *out, LwError *err)
{
  char status[32];
  LW_TRY(state_read(c, prefix, name, out, status, sizeof(status), err));
  if (out->running && (!strcmp(status, "done") || !strcmp(status, "failed"))) {
    /* The import ended the harvest: settle the provider, read again. */
    LW_TRY(lw_harvest_settle(c, prefix, out->harvest, err));
    LW_TRY(state_read(c, prefix, name, out, status, sizeof(status), err));
  }
  return LW_OK;
}

LwStatus lw_harvest_claim(redisContext *c, const char *prefix, const char *name,
                          const char *id, LwError *err)
{
  LwKey key = lw_key(prefix, LW_KEY_PROVIDER, name);
  LwKey index = lw_key(prefix, LW_KEY_PROVIDER_INDEX, NULL);
  const char *argv[] = {key.s, index.s, id, name};
  redisReply *r = lw_script_run(c, &claim_script, 2, 4, argv, NULL, err);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = r->type == REDIS_REPLY_INTEGER && r->integer == 1 ? LW_OK : LW_NOTHING;
  freeReplyObject(r);
  return st;
}

static char *json_text(json_t *j)
{
  char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
  json_decref(j);
  return s;
}

/* The harvest record's fields, in the transaction. */
static void record_harvest(LwTxn *txn, const char *prefix, const char *id,
                           const LwHarvestStart *h, json_t *seeds)
{
  json_t *dumps = json_array();
  json_t *features = json_array();
  for (size_t i = 0; i < h->dump_count; ++i) {
    json_array_append_new(dumps, json_string(h->dumps[i].url));
  }
  for (size_t i = 0; i < h->feature_count; ++i) {
    json_array_append_new(features, json_string(h->features[i]));
  }
  char version[LW_DATETIME_BUF], started[32], pending[32];
  lw_version_to_text(h->version, version);
  snprintf(started, sizeof(started), "%lld", lw_now_ms());
  snprintf(pending, sizeof(pending), "0"); /* the fan-in counts the dumps in */
  char *dumps_s = json_text(dumps);
  char *features_s = json_text(features);
  char *seeds_s = json_dumps(seeds, JSON_COMPACT);
  LwKey key = lw_key(prefix, LW_KEY_HARVEST, id);
  const char *argv[] = {"HSET",      key.s,
                        "id",        id,
                        "provider",  h->provider,
                        "void",      h->void_url,
                        "modified",  version,
                        "source",    h->source ? h->source : "",
                        "void_hash", h->version->hash,
                        "kind",      h->kind,
                        "features",  features_s ? features_s : "[]",
                        "dumps",     dumps_s ? dumps_s : "[]",
                        "seeds",     seeds_s ? seeds_s : "[]",
                        "started",   started,
                        "forced",    h->forced ? "1" : "0",
                        "status",    "running",
                        "pending",   pending,
                        "error",     ""};
  lw_txn_command(txn, (int)(sizeof(argv) / sizeof(*argv)), argv, NULL);
  lw_txn_gc_index_harvest(txn, id, started);
  if (h->datasets) {
    const char *ds[] = {"HSET", key.s, "datasets", h->datasets};
    lw_txn_command(txn, 4, ds, NULL);
  }
  free(dumps_s);
  free(features_s);
  free(seeds_s);
}

void lw_harvest_new_id(const char *provider, char id_out[LW_HARVEST_ID_MAX])
{
  char now[LW_DATETIME_BUF];
  lw_datetime_format_usec(lw_now_ms() * 1000, now);
  size_t n = strlen(now);
  if (n > 4 && !strcmp(now + n - 4, "000Z")) {
    strcpy(now + n - 4, "Z"); /* milliseconds are enough: ".638Z" */
  }
  snprintf(id_out, LW_HARVEST_ID_MAX, "%s:%s", provider, now);
}

LwStatus lw_harvest_start(redisContext *c, const char *prefix, const LwHarvestStart *h,
                          char id_out[LW_HARVEST_ID_MAX], LwError *err)
{
  lw_harvest_new_id(h->provider, id_out);
  LW_TRY(lw_harvest_claim(c, prefix, h->provider, id_out, err));
  LwTxn *txn = lw_txn_new(prefix);
  json_t *seeds = json_array();
  if (!txn || !seeds) {
    lw_txn_free(txn);
    json_decref(seeds);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwStatus st = LW_OK;
  for (size_t i = 0; i < h->dump_count && st <= LW_NOTHING; ++i) {
    const LwHarvestDump *d = &h->dumps[i];
    char hash[LW_HASH_HEX_LEN + 1];
    st = lw_seed_record(c, prefix, d->url, h->provider, id_out, hash, err);
    if (st > LW_NOTHING) {
      break;
    }
    st = LW_OK;
    json_array_append_new(seeds, json_string(hash));
    /* A seed from an earlier harvest starts again from `added`, whatever
     * it was doing: that harvest's jobs are refused by the owner guard. */
    lw_txn_seed_reset(txn, hash, "added");
    lw_txn_seed_set(txn, hash, "provider", h->provider);
    lw_txn_seed_set(txn, hash, "harvest", id_out);
    lw_txn_seed_set_or_drop(txn, hash, "optional", d->optional ? "1" : "0", "0");
    lw_txn_seed_unset(txn, hash, "skipped");
    json_t *extra = NULL;
    if (d->checksum_algorithm && d->checksum_value) {
      char sum[512];
      snprintf(sum, sizeof(sum), "%s:%s", d->checksum_algorithm, d->checksum_value);
      extra = json_pack("{s:s}", "checksum", sum);
    }
    lw_txn_push_job(txn, "download", hash, id_out,
                    h->forced ? LW_PRIORITY_HIGH : LW_PRIORITY_NORMAL, extra);
    json_decref(extra);
  }
  if (st == LW_OK) {
    record_harvest(txn, prefix, id_out, h, seeds);
    size_t count = json_array_size(seeds);
    const char **files = calloc(count + 1, sizeof(char *));
    for (size_t i = 0; files && i < count; ++i) {
      files[i] = json_string_value(json_array_get(seeds, i));
    }
    if (files) {
      lw_txn_harvest_expect_files(txn, id_out, files, count);
      st = lw_txn_exec(c, txn, err);
    } else {
      st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    free(files);
  }
  json_decref(seeds);
  lw_txn_free(txn);
  if (st > LW_NOTHING) {
    /* Give the claim back so that the next cycle can try again. */
    redisReply *r = lw_redis_cmd(c, NULL, "HSET",
                                 lw_key(prefix, LW_KEY_PROVIDER, h->provider).s, "state",
                                 "error", NULL);
    freeReplyObject(r);
  }
  return st;
}

static LwStatus run_finish(redisContext *c, const char *prefix, const char *id,
                           const char *mode, const char *error, LwError *err)
{
  LwKey hkey = lw_key(prefix, LW_KEY_HARVEST, id);
  redisReply *r = lw_redis_cmd(c, err, "HGET", hkey.s, "provider", NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  if (r->type != REDIS_REPLY_STRING) {
    freeReplyObject(r);
    return LW_NOTHING;
  }
  LwKey pkey = lw_key(prefix, LW_KEY_PROVIDER, r->str);
  freeReplyObject(r);
  const char *argv[] = {hkey.s, pkey.s, id, mode, error ? error : ""};
  r = lw_script_run(c, &finish_script, 2, 5, argv, NULL, err);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = r->type == REDIS_REPLY_INTEGER && r->integer == 1 ? LW_OK : LW_NOTHING;
  freeReplyObject(r);
  return st;
}

LwStatus lw_harvest_finish(redisContext *c, const char *prefix, const char *id, bool ok,
                           const char *error, LwError *err)
{
  return run_finish(c, prefix, id, ok ? "done" : "failed", error, err);
}

LwStatus lw_harvest_settle(redisContext *c, const char *prefix, const char *id,
                           LwError *err)
{
  return run_finish(c, prefix, id, "settle", NULL, err);
}

/* KEYS: harvest, provider  ARGV: id, timeout ms
 * Ends a running harvest whose last progress (or start) is older than the
 * timeout as failed, with its reason, and settles its provider (as
 * finish_script). Returns 1 when it timed out. */
static LwScript timeout_script = {
  LW_LUA_NOW_MS
  "local h = redis.call('HMGET', KEYS[1], 'status', 'progress', 'started', 'pending')\n"
  "if h[1] ~= 'running' then return 0 end\n"
  "local last = math.max(tonumber(h[2]) or 0, tonumber(h[3]) or 0)\n"
  "if now - last < tonumber(ARGV[2]) then return 0 end\n"
  "local e = 'no progress for ' .. math.floor((now - last) / 1000) .. ' s (' ..\n"
  "  (h[4] or '?') .. ' files pending): the harvest timed out'\n"
  "redis.call('HSET', KEYS[1], 'status', 'failed', 'finished', now, 'error', e)\n"
  "return 1\n",
  ""};

LwStatus lw_harvest_check_timeout(redisContext *c, const char *prefix, const char *id,
                                  long long timeout_ms, bool *timed_out, LwError *err)
{
  *timed_out = false;
  if (timeout_ms <= 0 || !id || !*id) {
    return LW_OK;
  }
  LwKey hkey = lw_key(prefix, LW_KEY_HARVEST, id);
  char ms[32];
  snprintf(ms, sizeof(ms), "%lld", timeout_ms);
  const char *argv[] = {hkey.s, id, ms};
  LW_TRY(lw_script_run_yes(c, &timeout_script, 1, 3, argv, timed_out, err));
  if (*timed_out && lw_harvest_settle(c, prefix, id, err) > LW_NOTHING) {
    return err ? err->status : LW_ERR_REDIS;
  }
  return LW_OK;
}

LwStatus lw_provider_request_force(redisContext *c, const char *prefix, const char *name,
                                   LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, "HSET", lw_key(prefix, LW_KEY_PROVIDER, name).s,
                               "force", "1", NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  freeReplyObject(r);
  return LW_OK;
}
