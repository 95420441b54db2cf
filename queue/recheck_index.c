#include "queue/recheck_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/gc_index.h"
#include "queue/index_marks.h"
#include "queue/keys.h"
#include "queue/redis_cmd.h"

#define INDEX_NAME "rechecks"
#define UPGRADE_PAGE 1000

/* Read for every seed of a page before the caller's fields: what says
 * whether it can ever be re-checked. */
static const char *const own_fields[] = {"status", "parent", "relative"};
#define N_OWN 3

/* KEYS: rechecks, seed:<hash>, seeds:index (the collection's)  ARGV: hash
 * Drops the seed from the index if it still can never be re-checked; a
 * record still there goes back to the collection's index, scored by its
 * `updated` (queue/gc_index.h: every seed is in one of the two). */
static LwScript prune_script = {
  "local st, parent, rel, upd, added = unpack(redis.call('HMGET', KEYS[2], 'status',\n"
  "  'parent', 'relative', 'updated', 'added'))\n"
  "if st and not (parent and parent ~= '') and rel ~= 'true' then return 0 end\n"
  "if st then redis.call('ZADD', KEYS[3], tonumber(upd or added) or 0, ARGV[1]) end\n"
  "return redis.call('ZREM', KEYS[1], ARGV[1])\n",
  ""};

void lw_txn_recheck_index(LwTxn *txn, const char *seed, const char *processed_ms)
{
  /* an archive entry (a parent) is never re-checked: not indexed */
  LwKey record = lw_key(lw_txn_prefix(txn), LW_KEY_SEED, seed);
  LwKey index = lw_key(lw_txn_prefix(txn), LW_KEY_RECHECKS, NULL);
  LwKey gc_index = lw_key(lw_txn_prefix(txn), LW_KEY_SEED_INDEX, NULL);
  lw_txn_op(txn, "rested", 5,
            (const char *[]){record.s, index.s, processed_ms, seed, gc_index.s});
}

void lw_recheck_cursor_reset(LwRecheckCursor *cur)
{
  snprintf(cur->from, sizeof(cur->from), "-inf");
}

static bool never_rechecked(const char *const *own)
{
  return !own[0] || (own[1] && *own[1]) || (own[2] && !strcmp(own[2], "true"));
}

/* ---- the upgrade ---- */

/* One SCAN page's old seeds, gathered while the page's replies are read
 * (a command sent then would take one of their places) and indexed after
 * it in one ZADD. */
typedef struct {
  char (*pairs)[2][LW_HASH_HEX_LEN + 1]; /* score text, hash */
  size_t n, cap;
  bool nomem;
} Upgrade;

static void index_old_seed(void *arg, const char *hash, const char *const *v)
{
  Upgrade *u = arg;
  const char *processed = v[N_OWN];
  if (!processed || never_rechecked(v) || strlen(hash) != LW_HASH_HEX_LEN ||
      strlen(processed) > LW_HASH_HEX_LEN) {
    return;
  }
  if (u->n == u->cap) {
    size_t cap = u->cap ? u->cap * 2 : 256;
    void *grown = realloc(u->pairs, cap * sizeof(*u->pairs));
    if (!grown) {
      u->nomem = true;
      return;
    }
    u->pairs = grown;
    u->cap = cap;
  }
  snprintf(u->pairs[u->n][0], sizeof(u->pairs[u->n][0]), "%s", processed);
  snprintf(u->pairs[u->n][1], sizeof(u->pairs[u->n][1]), "%s", hash);
  ++u->n;
}

/* ZADD NX of the page's seeds (NX: a worker's own entry, written meanwhile,
 * is the newer one), and out of the collection's index. */
static LwStatus index_page(LwRecords *c, const char *prefix, Upgrade *u, long long *added,
                           LwError *err)
{
  if (u->nomem) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  if (u->n == 0) {
    return LW_OK;
  }
  const char **argv = calloc(3 + 2 * u->n, sizeof(*argv));
  if (!argv) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwKey index = lw_key(prefix, LW_KEY_RECHECKS, NULL);
  argv[0] = "ZADD";
  argv[1] = index.s;
  argv[2] = "NX";
  for (size_t i = 0; i < u->n; ++i) {
    argv[3 + 2 * i] = u->pairs[i][0];
    argv[4 + 2 * i] = u->pairs[i][1];
  }
  redisReply *r = lw_redis_argv(c, (int)(3 + 2 * u->n), argv, NULL, err);
  free(argv);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  *added += r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
  freeReplyObject(r);
  const char **seeds = calloc(u->n, sizeof(*seeds));
  LwStatus st = seeds ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == LW_OK && i < u->n; ++i) {
    seeds[i] = u->pairs[i][1];
  }
  if (st == LW_OK) { /* one entry a seed: out of the collection's index */
    st = lw_gc_index_seeds_out(c, prefix, seeds, u->n, NULL, err);
  }
  free(seeds);
  u->n = 0;
  return st;
}

LwStatus lw_recheck_index_upgrade(LwRecords *c, const char *prefix, long long *indexed,
                                  bool *built, LwError *err)
{
  *indexed = 0;
  *built = false;
  bool done = false;
  LW_TRY(lw_index_is_built(c, prefix, INDEX_NAME, &done, err));
  if (done) {
    return LW_OK;
  }
  Upgrade u = {NULL, 0, 0, false};
  const char *fields[] = {own_fields[0], own_fields[1], own_fields[2], "processed"};
  char cursor[32] = "0";
  long long added = 0;
  LwStatus st;
  do {
    st = lw_seed_scan_step(c, prefix, cursor, UPGRADE_PAGE, fields, N_OWN + 1,
                           index_old_seed, &u, err);
    if (st == LW_OK) {
      st = index_page(c, prefix, &u, &added, err);
    }
  } while (st == LW_OK && strcmp(cursor, "0"));
  free(u.pairs);
  LW_TRY(st);
  LW_TRY(lw_index_mark_built(c, prefix, INDEX_NAME, err));
  *indexed = added;
  *built = true;
  return LW_OK;
}

/* ---- the walk ---- */

static LwStatus prune(LwRecords *c, const char *prefix, const char *hash, LwError *err)
{
  LwKey index = lw_key(prefix, LW_KEY_RECHECKS, NULL);
  LwKey seed = lw_key(prefix, LW_KEY_SEED, hash);
  LwKey gc_index = lw_key(prefix, LW_KEY_SEED_INDEX, NULL);
  const char *argv[] = {index.s, seed.s, gc_index.s, hash};
  redisReply *r = lw_script_run(c, &prune_script, 3, 4, argv, NULL, err);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  freeReplyObject(r);
  return LW_OK;
}

/* A page being read: the caller's fn gets the seeds that may be re-checked,
 * the others are noted for pruning once the replies are all in. */
typedef struct {
  LwSeedScanFn fn;
  void *arg;
  const char **gone;
  size_t n_gone;
} Page;

static void sort_seed(void *arg, const char *hash, const char *const *values)
{
  Page *p = arg;
  if (never_rechecked(values)) {
    p->gone[p->n_gone++] = hash;
  } else {
    p->fn(p->arg, hash, values + N_OWN);
  }
}

/* The fields of every seed of a page (members and scores alternate in
 * page), the caller's after the index's own. */
static LwStatus read_page(LwRecords *c, const char *prefix, const redisReply *page,
                          const char *const *fields, size_t nfields, LwSeedScanFn fn,
                          void *arg, LwError *err)
{
  size_t n = page->elements / 2;
  const char **hashes = calloc(2 * n + 1, sizeof(*hashes));
  if (!hashes) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < n; ++i) {
    hashes[i] = page->element[2 * i]->str;
  }
  const char *all[LW_SEED_SCAN_FIELDS_MAX];
  memcpy(all, own_fields, sizeof(own_fields));
  memcpy(all + N_OWN, fields, nfields * sizeof(*fields));
  Page p = {fn, arg, hashes + n, 0};
  LwStatus st = lw_seed_read_fields(c, prefix, hashes, n, all, N_OWN + nfields, sort_seed,
                                    &p, err);
  for (size_t i = 0; st == LW_OK && i < p.n_gone; ++i) {
    st = prune(c, prefix, p.gone[i], err);
  }
  free(hashes);
  return st;
}

LwStatus lw_recheck_index_step(LwRecords *c, const char *prefix, LwRecheckCursor *cur,
                               long long until_ms, long count, const char *const *fields,
                               size_t nfields, LwSeedScanFn fn, void *arg, bool *done,
                               LwError *err)
{
  *done = true;
  if (nfields + N_OWN > LW_SEED_SCAN_FIELDS_MAX) {
    return lw_error_set(err, LW_ERR_USAGE, "too many seed fields to read");
  }
  char until[32], limit[32];
  snprintf(until, sizeof(until), "%lld", until_ms);
  snprintf(limit, sizeof(limit), "%ld", count);
  redisReply *page = lw_redis_cmd(c, err, "ZRANGEBYSCORE",
                                  lw_key(prefix, LW_KEY_RECHECKS, NULL).s, cur->from, until,
                                  "WITHSCORES", "LIMIT", "0", limit, NULL);
  if (!page) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = LW_OK;
  size_t n = page->type == REDIS_REPLY_ARRAY ? page->elements / 2 : 0;
  if (n > 0) {
    st = read_page(c, prefix, page, fields, nfields, fn, arg, err);
  }
  if ((long)n < count) {
    lw_recheck_cursor_reset(cur); /* the walk is over: the next starts again */
  } else {
    /* on from the last score; exclusive when the whole page had it, so that
     * many seeds of one millisecond never hold the walk in place */
    const char *first = page->element[1]->str, *last = page->element[2 * n - 1]->str;
    snprintf(cur->from, sizeof(cur->from), "%s%s", strcmp(first, last) ? "" : "(", last);
    *done = false;
  }
  freeReplyObject(page);
  return st;
}
