#include "queue/gc_index.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/index_marks.h"
#include "queue/keys.h"
#include "queue/redis_cmd.h"

#define INDEX_NAME "gc"
/* Marks the collection's index as holding no seed of the re-check index. */
#define ONE_ENTRY_NAME "gc_one_entry"
#define PAGE "1000"

void lw_txn_gc_index_harvest(LwTxn *txn, const char *id, const char *started)
{
  LwKey index = lw_key(lw_txn_prefix(txn), LW_KEY_HARVEST_INDEX, NULL);
  lw_txn_command(txn, 4, (const char *[]){"ZADD", index.s, started, id}, NULL);
}

/* ---- the upgrade ---- */

/* KEYS: the index, then one SCAN page's keys  ARGV: kind, length of the
 * keys' head (prefix and pattern up to the id), the re-check index
 * Indexes the records of the page the collection would look at (NX: an
 * entry written meanwhile is the newer one), a seed unless the re-check
 * index has it. Returns the number added. */
static LwScript index_page_script = {
  "local kind, head, n = ARGV[1], tonumber(ARGV[2]), 0\n"
  "local function fields(k, ...)\n"
  "  local v = redis.pcall('HMGET', k, ...)\n"
  "  if type(v) ~= 'table' or v.err then return nil end\n"
  "  return v\n"
  "end\n"
  "for i = 2, #KEYS do\n"
  "  local id = string.sub(KEYS[i], head + 1)\n"
  "  if kind == 'seed' then\n"
  "    local v = #id == 32 and fields(KEYS[i], 'status', 'updated', 'added')\n"
  "    if v and v[1] and not redis.call('ZSCORE', ARGV[3], id) then\n"
  "      n = n + redis.call('ZADD', KEYS[1], 'NX', tonumber(v[2] or v[3]) or 0, id)\n"
  "    end\n"
  "  elseif kind == 'harvest' then\n"
  "    local v = fields(KEYS[i], 'provider', 'started')\n"
  "    if v and v[1] then\n"
  "      n = n + redis.call('ZADD', KEYS[1], 'NX', tonumber(v[2]) or 0, id)\n"
  "    end\n"
  "  elseif kind == 'provider' then\n"
  "    local v = fields(KEYS[i], 'harvest', 'void_dumps')\n"
  "    if v and (v[1] or v[2]) then n = n + redis.call('SADD', KEYS[1], id) end\n"
  "  else\n"
  "    n = n + redis.call('SADD', KEYS[1], id)\n"
  "  end\n"
  "end\n"
  "return n\n",
  ""};

typedef struct {
  const char *kind;
  const char *pattern; /* the records' key pattern */
  const char *index;   /* their index's key */
} Part;

static LwStatus index_page(LwRecords *c, const char *prefix, const Part *p,
                           const redisReply *keys, long long *added, LwError *err)
{
  if (keys->elements == 0) {
    return LW_OK;
  }
  LwKey index = lw_key(prefix, p->index, NULL);
  LwKey rechecks = lw_key(prefix, LW_KEY_RECHECKS, NULL);
  char head[32];
  snprintf(head, sizeof(head), "%zu", strlen(lw_key(prefix, p->pattern, "").s));
  const char **argv = calloc(keys->elements + 4, sizeof(*argv));
  if (!argv) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  size_t argc = 0;
  argv[argc++] = index.s;
  for (size_t i = 0; i < keys->elements; ++i) {
    argv[argc++] = keys->element[i]->str;
  }
  argv[argc++] = p->kind;
  argv[argc++] = head;
  argv[argc++] = rechecks.s;
  redisReply *r = lw_script_run(c, &index_page_script, (int)keys->elements + 1, (int)argc,
                                argv, NULL, err);
  free(argv);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  *added += r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
  freeReplyObject(r);
  return LW_OK;
}

typedef struct {
  LwRecords *c;
  const char *prefix;
  const Part *part;
  long long *added;
} PartWalk;

static LwStatus index_scan_page(void *arg, const redisReply *page, LwError *err)
{
  PartWalk *w = arg;
  return index_page(w->c, w->prefix, w->part, page, w->added, err);
}

/* One SCAN over the part's pattern, each page indexed. */
static LwStatus index_part(LwRecords *c, const char *prefix, const Part *p,
                           long long *added, LwError *err)
{
  LwKey match = lw_key(prefix, p->pattern, "*");
  const char *argv[] = {"SCAN", "0", "MATCH", match.s, "COUNT", PAGE};
  PartWalk w = {c, prefix, p, added};
  return lw_redis_cursor_walk(c, argv, 6, 1, index_scan_page, &w, err);
}

/* ---- one entry a seed ---- */

LwStatus lw_gc_index_seeds_out(LwRecords *c, const char *prefix, const char *const *seeds,
                               size_t n, long long *removed, LwError *err)
{
  const char **argv = calloc(n + 2, sizeof(*argv));
  if (!argv) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwKey index = lw_key(prefix, LW_KEY_SEED_INDEX, NULL);
  argv[0] = "ZREM";
  argv[1] = index.s;
  memcpy(argv + 2, seeds, n * sizeof(*seeds));
  redisReply *r = lw_redis_argv(c, (int)n + 2, argv, NULL, err);
  free(argv);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  if (removed && r->type == REDIS_REPLY_INTEGER) {
    *removed += r->integer;
  }
  freeReplyObject(r);
  return LW_OK;
}

typedef struct {
  LwRecords *c;
  const char *prefix;
  long long *removed;
  LwError *err;
} OneEntry;

/* A page of the re-check index's members out of the collection's. */
static LwStatus unindex_page(void *arg, const char *const *members, size_t n)
{
  OneEntry *o = arg;
  return lw_gc_index_seeds_out(o->c, o->prefix, members, n, o->removed, o->err);
}

/* Installations whose seeds were in both indexes (before a seed had one
 * entry): the re-check index's seeds leave the collection's, once. */
static LwStatus one_entry(LwRecords *c, const char *prefix, long long *removed,
                          LwError *err)
{
  bool done = false;
  LW_TRY(lw_index_is_built(c, prefix, ONE_ENTRY_NAME, &done, err));
  if (done) {
    return LW_OK;
  }
  OneEntry o = {c, prefix, removed, err};
  LW_TRY(lw_gc_index_walk(c, lw_key(prefix, LW_KEY_RECHECKS, NULL).s, true, LLONG_MAX,
                          unindex_page, &o, err));
  LW_TRY(lw_index_mark_built(c, prefix, ONE_ENTRY_NAME, err));
  lw_info("index=gc one_entry=true seeds=%lld msg=\"seeds in the re-check index left "
          "the collection's\"",
          *removed);
  return LW_OK;
}

LwStatus lw_gc_index_upgrade(LwRecords *c, const char *prefix, LwGcIndexBuilt *added,
                             bool *built, LwError *err)
{
  memset(added, 0, sizeof(*added));
  *built = false;
  bool done = false;
  LW_TRY(lw_index_is_built(c, prefix, INDEX_NAME, &done, err));
  if (done) {
    return one_entry(c, prefix, &added->one_entry, err);
  }
  long long t0 = lw_now_ms();
  const Part parts[] = {{"seed", LW_KEY_SEED, LW_KEY_SEED_INDEX},
                        {"harvest", LW_KEY_HARVEST, LW_KEY_HARVEST_INDEX},
                        {"provider", LW_KEY_PROVIDER, LW_KEY_PROVIDER_INDEX},
                        {"cleanof", LW_KEY_CLEAN_OF, LW_KEY_CLEAN_OF_INDEX},
                        {"budget", LW_KEY_UNPACKED, LW_KEY_UNPACKED_ALL}};
  long long *counts[] = {&added->seeds, &added->harvests, &added->providers,
                         &added->cleanof, &added->budgets};
  for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); ++i) {
    LW_TRY(index_part(c, prefix, &parts[i], counts[i], err));
  }
  LW_TRY(lw_index_mark_built(c, prefix, INDEX_NAME, err));
  LW_TRY(lw_index_mark_built(c, prefix, ONE_ENTRY_NAME, err)); /* built so */
  *built = true;
  lw_info("index=gc built=true seeds=%lld harvests=%lld providers=%lld cleanof=%lld "
          "budgets=%lld ms=%lld",
          added->seeds, added->harvests, added->providers, added->cleanof, added->budgets,
          lw_now_ms() - t0);
  return LW_OK;
}

/* ---- the walk ---- */

/* Hands the members among the first count elements of page (every step-th:
 * 2 when scores come between) to fn, each without its first head bytes
 * (keys found by SCAN: their name after the key's head). */
static LwStatus hand_on(const redisReply *page, size_t count, size_t step, size_t head,
                        LwGcIndexPageFn fn, void *arg, LwError *err)
{
  const char **members = calloc(count + 1, sizeof(*members));
  if (!members) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < count && i < page->elements; i += step) {
    const redisReply *e = page->element[i];
    if (e->type == REDIS_REPLY_STRING && e->len >= head) {
      members[n++] = e->str + head;
    }
  }
  LwStatus st = n ? fn(arg, members, n) : LW_OK;
  free(members);
  return st;
}

typedef struct {
  LwGcIndexPageFn fn;
  void *arg;
  size_t head;
} SetWalk;

static LwStatus set_page(void *arg, const redisReply *page, LwError *err)
{
  SetWalk *w = arg;
  return hand_on(page, page->elements, 1, w->head, w->fn, w->arg, err);
}

/* A set: SSCAN pages. */
static LwStatus walk_set(LwRecords *c, const char *index, LwGcIndexPageFn fn, void *arg,
                         LwError *err)
{
  const char *argv[] = {"SSCAN", index, "0", "COUNT", PAGE};
  SetWalk w = {fn, arg, 0};
  return lw_redis_cursor_walk(c, argv, 5, 2, set_page, &w, err);
}

/* A zset, by score up to max: a page of PAGE members, then the rest of the
 * members scored as its last one (many seeds are written in one ms), and
 * the next page starts above that score. Members removed meanwhile (the
 * caller's deletes) move nothing that is still to come. */
static LwStatus walk_zset(LwRecords *c, const char *index, const char *max,
                          LwGcIndexPageFn fn, void *arg, LwError *err)
{
  char from[48] = "-inf";
  for (;;) {
    redisReply *r = lw_redis_cmd(c, err, "ZRANGEBYSCORE", index, from, max, "WITHSCORES",
                                 "LIMIT", "0", PAGE, NULL);
    if (!r) {
      return err ? err->status : LW_ERR_REDIS;
    }
    size_t n = r->type == REDIS_REPLY_ARRAY ? r->elements / 2 : 0;
    if (n == 0) {
      freeReplyObject(r);
      return LW_OK;
    }
    char last[40];
    snprintf(last, sizeof(last), "%s", r->element[2 * n - 1]->str);
    bool full = n == (size_t)atol(PAGE);
    /* of the last score, only what this page holds; the whole group next */
    size_t keep = n;
    while (full && keep > 0 && !strcmp(r->element[2 * keep - 1]->str, last)) {
      --keep;
    }
    LwStatus st = hand_on(r, 2 * keep, 2, 0, fn, arg, err);
    freeReplyObject(r);
    LW_TRY(st);
    if (!full) {
      return LW_OK;
    }
    redisReply *group = lw_redis_cmd(c, err, "ZRANGEBYSCORE", index, last, last, NULL);
    if (!group) {
      return err ? err->status : LW_ERR_REDIS;
    }
    st = group->type == REDIS_REPLY_ARRAY
           ? hand_on(group, group->elements, 1, 0, fn, arg, err)
           : LW_OK;
    freeReplyObject(group);
    LW_TRY(st);
    snprintf(from, sizeof(from), "(%s", last);
  }
}

LwStatus lw_gc_index_walk(LwRecords *c, const char *index, bool zset, long long max_score,
                          LwGcIndexPageFn fn, void *arg, LwError *err)
{
  if (!zset) {
    return walk_set(c, index, fn, arg, err);
  }
  char max[32];
  snprintf(max, sizeof(max), "%lld", max_score);
  return walk_zset(c, index, max_score == LLONG_MAX ? "+inf" : max, fn, arg, err);
}

LwStatus lw_gc_index_providers_walk(LwRecords *c, const char *prefix, LwGcIndexPageFn fn,
                                    void *arg, LwError *err)
{
  bool built = false;
  LW_TRY(lw_index_is_built(c, prefix, INDEX_NAME, &built, err));
  if (built) {
    return walk_set(c, lw_key(prefix, LW_KEY_PROVIDER_INDEX, NULL).s, fn, arg, err);
  }
  LwKey match = lw_key(prefix, LW_KEY_PROVIDER, "*");
  SetWalk w = {fn, arg, strlen(match.s) - 1};
  const char *argv[] = {"SCAN", "0", "MATCH", match.s, "COUNT", PAGE};
  return lw_redis_cursor_walk(c, argv, 6, 1, set_page, &w, err);
}
