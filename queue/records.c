#include "queue/records.h"

#include <stdio.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/record.h"
#include "queue/redis_cmd.h"
#include "queue/seed.h"

void lw_txn_seed_unset(LwTxn *txn, const char *seed, const char *field)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_SEED, seed);
  lw_txn_command(txn, 3, (const char *[]){"HDEL", key.s, field}, NULL);
}

void lw_txn_seed_set_or_drop(LwTxn *txn, const char *seed, const char *field,
                             const char *value, const char *fallback)
{
  if (strcmp(value, fallback) != 0) {
    lw_txn_seed_set(txn, seed, field, value);
  } else {
    lw_txn_seed_unset(txn, seed, field);
  }
}

void lw_txn_seed_int_or_drop(LwTxn *txn, const char *seed, const char *field, long long v)
{
  char text[32];
  snprintf(text, sizeof(text), "%lld", v);
  lw_txn_seed_set_or_drop(txn, seed, field, text, "0");
}

void lw_txn_seed_file(LwTxn *txn, const char *seed, const char *rel)
{
  char own[512];
  if (lw_seed_default_file(seed, own, sizeof(own)) != LW_OK) {
    snprintf(own, sizeof(own), "%s", ""); /* not a hash: kept as it is */
  }
  lw_txn_seed_set_or_drop(txn, seed, "file", rel, own);
}

void lw_txn_counter_add(LwTxn *txn, const char *counter, long long n)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_COUNTERS, NULL);
  char text[32];
  snprintf(text, sizeof(text), "%lld", n);
  lw_txn_command(txn, 4, (const char *[]){"HINCRBY", key.s, counter, text}, NULL);
}

void lw_txn_provider_dump_changed(LwTxn *txn, const char *provider, const char *ms)
{
  lw_txn_hset(txn, lw_key(lw_txn_prefix(txn), LW_KEY_PROVIDER, provider).s, "dump_changed",
              ms);
}

void lw_txn_harvest_set(LwTxn *txn, const char *harvest, const char *field,
                        const char *value)
{
  lw_txn_hset(txn, lw_key(lw_txn_prefix(txn), LW_KEY_HARVEST, harvest).s, field, value);
}

void lw_txn_clean_of_set(LwTxn *txn, const char *content_key, const char *clean)
{
  LwKey key = lw_key(lw_txn_prefix(txn), LW_KEY_CLEAN_OF, content_key);
  LwKey index = lw_key(lw_txn_prefix(txn), LW_KEY_CLEAN_OF_INDEX, NULL);
  lw_txn_command(txn, 3, (const char *[]){"SET", key.s, clean}, NULL);
  lw_txn_command(txn, 3, (const char *[]){"SADD", index.s, content_key}, NULL);
}

LwStatus lw_records_clean_of(redisContext *c, const char *prefix, const char *content_key,
                             char out[LW_HASH_HEX_LEN + 1], LwError *err)
{
  redisReply *r = lw_redis_cmd(c, err, "GET",
                               lw_key(prefix, LW_KEY_CLEAN_OF, content_key).s, NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = LW_NOTHING;
  if (r->type == REDIS_REPLY_STRING && r->len == LW_HASH_HEX_LEN) {
    memcpy(out, r->str, LW_HASH_HEX_LEN + 1);
    st = LW_OK;
  }
  freeReplyObject(r);
  return st;
}

LwStatus lw_records_harvest_get(redisContext *c, const char *prefix, const char *harvest,
                                json_t **out, LwError *err)
{
  return lw_record_get(c, lw_key(prefix, LW_KEY_HARVEST, harvest).s, out, err);
}

LwStatus lw_records_provider_get(redisContext *c, const char *prefix, const char *name,
                                 json_t **out, LwError *err)
{
  return lw_record_get(c, lw_key(prefix, LW_KEY_PROVIDER, name).s, out, err);
}

LwStatus lw_records_harvest_set_fields(redisContext *c, const char *prefix,
                                       const char *harvest, const char *const *fields,
                                       size_t n, LwError *err)
{
  const char *argv[2 + 32];
  if (n > 32) {
    return lw_error_set(err, LW_ERR_USAGE, "too many harvest fields at once");
  }
  LwKey key = lw_key(prefix, LW_KEY_HARVEST, harvest);
  argv[0] = "HSET";
  argv[1] = key.s;
  memcpy(argv + 2, fields, n * sizeof(*fields));
  redisReply *r = lw_redis_argv(c, (int)(2 + n), argv, NULL, err);
  LwStatus st = r ? LW_OK : (err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS);
  freeReplyObject(r);
  return st;
}

typedef struct {
  redisContext *c;
  size_t skip;
  bool names_only;
  void (*fn)(void *, const char *, const json_t *);
  void *arg;
} RecordWalk;

static LwStatus record_page(void *arg, const redisReply *page, LwError *err)
{
  RecordWalk *w = arg;
  for (size_t i = 0; i < page->elements; ++i) {
    const char *key = page->element[i]->str;
    json_t *record = NULL;
    if (!(w->names_only && strchr(key + w->skip, ':')) &&
        lw_record_get(w->c, key, &record, err) == LW_OK) {
      w->fn(w->arg, key + w->skip, record);
    }
    json_decref(record);
  }
  return LW_OK;
}

/* Calls fn with every record whose key matches match (SCAN, a page at a
 * time), named by its key after skip characters; names_only keeps the keys
 * whose name holds no ':' (a provider's own record, not its sub-keys). */
static LwStatus each_record(redisContext *c, const LwKey *match, size_t skip,
                            bool names_only,
                            void (*fn)(void *, const char *, const json_t *), void *arg,
                            LwError *err)
{
  RecordWalk w = {c, skip, names_only, fn, arg};
  const char *argv[] = {"SCAN", "0", "MATCH", match->s, "COUNT", "1000"};
  return lw_redis_cursor_walk(c, argv, 6, 1, record_page, &w, err);
}

LwStatus lw_records_harvest_each(redisContext *c, const char *prefix, const char *provider,
                                 LwHarvestEachFn fn, void *arg, LwError *err)
{
  /* harvest ids are "<name>:<start time>": one SCAN pattern finds them */
  char pattern[LW_KEY_MAX];
  snprintf(pattern, sizeof(pattern), "%s:*", provider ? provider : "*");
  LwKey match = lw_key(prefix, LW_KEY_HARVEST, pattern);
  size_t skip = strlen(lw_key(prefix, LW_KEY_HARVEST, "").s);
  return each_record(c, &match, skip, false, fn, arg, err);
}

LwStatus lw_records_provider_each(redisContext *c, const char *prefix, LwProviderEachFn fn,
                                  void *arg, LwError *err)
{
  /* names are [A-Za-z0-9]+: a key with more after the name is not one */
  LwKey match = lw_key(prefix, LW_KEY_PROVIDER, "*");
  size_t skip = strlen(lw_key(prefix, LW_KEY_PROVIDER, "").s);
  return each_record(c, &match, skip, true, fn, arg, err);
}
