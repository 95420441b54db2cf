#include "queue/retention.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "queue/gc_index.h"
#include "queue/job.h"
#include "queue/redis_cmd.h"
#include "queue/retention_gc.h"
#include "queue/seed.h"

#define BATCH 1000

/* KEYS: seed:<hash>, seeds (counts per status), rechecks (the re-check
 * index), seeds:index (the collection's)  ARGV: `updated` as read, hash
 * Deletes the record unless it changed since the sweep read it, and its
 * index entries with it. 1 deleted. */
static LwScript delete_seed_script = {
  "if (redis.call('HGET', KEYS[1], 'updated') or '') ~= ARGV[1] then return 0 end\n"
  "local st = redis.call('HGET', KEYS[1], 'status')\n"
  "if redis.call('DEL', KEYS[1]) == 0 then return 0 end\n"
  "redis.call('ZREM', KEYS[3], ARGV[2])\n"
  "redis.call('ZREM', KEYS[4], ARGV[2])\n"
  "if st then redis.call('HINCRBY', KEYS[2], st, -1) end\n"
  "return 1\n",
  ""};

/* KEYS: harvest:<id>, then the keys that go with it (its unpack budget and
 * fan-in sets)  ARGV: `started` as read, the harvest index, the budgets'
 * set, the id
 * Deletes a harvest that is not running and still the one read, and its
 * index entries. */
static LwScript delete_harvest_script = {
  "if (redis.call('HGET', KEYS[1], 'started') or '') ~= ARGV[1] or\n"
  "   redis.call('HGET', KEYS[1], 'status') == 'running' then return 0 end\n"
  "redis.call('DEL', unpack(KEYS))\n"
  "redis.call('ZREM', ARGV[2], ARGV[4])\n"
  "redis.call('SREM', ARGV[3], ARGV[4])\n"
  "return 1\n",
  ""};

/* The keys of a harvest besides its record, removed with it. */
static const char *const harvest_companions[] = {
  LW_KEY_UNPACKED, LW_KEY_HARVEST_EXPECTED, LW_KEY_HARVEST_FINISHED, LW_KEY_HARVEST_FAILED};
#define N_COMPANIONS (sizeof(harvest_companions) / sizeof(*harvest_companions))

/* KEYS: cleanof:<content hash>, seed:<clean hash>, cleanofs (the index)
 * ARGV: clean hash, content key
 * Deletes the entry (and its index entry) if it still names that record
 * and the record is gone. */
static LwScript delete_cleanof_script = {
  "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end\n"
  "if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end\n"
  "redis.call('SREM', KEYS[3], ARGV[2])\n"
  "return redis.call('DEL', KEYS[1])\n",
  ""};

/* KEYS: the index, the record  ARGV: member, a field of the record ("": the
 * record is not a hash)
 * Drops an index entry whose record is gone (or has lost the field that
 * made it one). 1 dropped. */
static LwScript prune_script = {
  "local there\n"
  "if ARGV[2] == '' then there = redis.call('EXISTS', KEYS[2]) == 1\n"
  "else\n"
  "  local v = redis.pcall('HEXISTS', KEYS[2], ARGV[2])\n"
  "  there = type(v) ~= 'table' and v == 1\n"
  "end\n"
  "if there then return 0 end\n"
  "if redis.call('TYPE', KEYS[1]).ok == 'zset' then return redis.call('ZREM', KEYS[1], ARGV[1]) end\n"
  "return redis.call('SREM', KEYS[1], ARGV[1])\n",
  ""};

/* ---- small helpers ---- */

bool lw_names_add(LwNames *n, const char *s)
{
  if (n->count == n->cap) {
    size_t cap = n->cap ? n->cap * 2 : 16;
    char **grown = realloc(n->items, cap * sizeof(*grown));
    if (!grown) {
      return false;
    }
    n->items = grown;
    n->cap = cap;
  }
  n->items[n->count] = strdup(s);
  n->sorted = false;
  return n->items[n->count++] != NULL;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

bool lw_names_has(LwNames *n, const char *s)
{
  if (n->count == 0) {
    return false;
  }
  if (!n->sorted) {
    qsort(n->items, n->count, sizeof(*n->items), cmp_str);
    n->sorted = true;
  }
  return bsearch(&s, n->items, n->count, sizeof(*n->items), cmp_str) != NULL;
}

void lw_names_free(LwNames *n)
{
  for (size_t i = 0; i < n->count; ++i) {
    free(n->items[i]);
  }
  free(n->items);
  memset(n, 0, sizeof(*n));
}

void lw_gc_report(const LwGc *g, const char *kind, const char *what)
{
  if (g->o && g->o->removed) {
    g->o->removed(g->o->data, kind, what);
  }
}

LwStatus lw_gc_pipeline(LwGc *g, size_t n, const int *argcs,
                        const char *const *const *argvs, redisReply **replies)
{
  for (size_t i = 0; i < n; ++i) {
    replies[i] = NULL;
    if (redisAppendCommandArgv(g->c, argcs[i], (const char **)argvs[i], NULL) != REDIS_OK) {
      return lw_error_set(g->err, LW_ERR_REDIS, "Redis: %s", g->c->errstr);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    void *reply = NULL;
    if (redisGetReply(g->c, &reply) != REDIS_OK || !reply) {
      for (size_t j = 0; j < i; ++j) {
        freeReplyObject(replies[j]);
        replies[j] = NULL;
      }
      return lw_error_set(g->err, LW_ERR_REDIS, "Redis connection lost: %s", g->c->errstr);
    }
    redisReply *r = reply;
    if (r->type == REDIS_REPLY_ERROR) { /* a key of another type: not ours to judge */
      freeReplyObject(r);
      r = NULL;
    }
    replies[i] = r;
  }
  return LW_OK;
}

static const char *element_str(const redisReply *r, size_t i)
{
  return r && r->type == REDIS_REPLY_ARRAY && i < r->elements &&
             r->element[i]->type == REDIS_REPLY_STRING
           ? r->element[i]->str
           : NULL;
}

/* A page of an index's members (record ids). */
typedef LwStatus (*BatchFn)(LwGc *g, const char *const *ids, size_t n, void *data);

typedef struct {
  LwGc *g;
  BatchFn fn;
  void *data;
} Walk;

static LwStatus walk_page(void *arg, const char *const *ids, size_t n)
{
  Walk *w = arg;
  return w->fn(w->g, ids, n, w->data);
}

/* Walks the index (a key of queue/keys.h, no argument), handing each page
 * of ids to fn; a zset's only up to max_score. */
static LwStatus index_each(LwGc *g, const char *index, bool zset, long long max_score,
                           BatchFn fn, void *data)
{
  Walk w = {g, fn, data};
  return lw_gc_index_walk(g->c, lw_key(g->cfg->prefix, index, NULL).s, zset, max_score,
                          walk_page, &w, g->err);
}

/* Drops the index entry of a record found gone (not when dry). */
static LwStatus prune(LwGc *g, const char *index, const char *id, const char *pattern,
                      const char *field)
{
  if (g->o->dry_run) {
    return LW_OK;
  }
  LwKey keys[2] = {lw_key(g->cfg->prefix, index, NULL), lw_key(g->cfg->prefix, pattern, id)};
  const char *argv[] = {keys[0].s, keys[1].s, id, field};
  redisReply *r = lw_script_run(g->c, &prune_script, 2, 4, argv, NULL, g->err);
  if (!r) {
    return g->err->status;
  }
  freeReplyObject(r);
  return LW_OK;
}

/* HMGET of fields on every key of keys[0..n), in one round trip. */
static LwStatus hmget_all(LwGc *g, const char *const *keys, size_t n,
                          const char *const *fields, int nf, redisReply **replies)
{
  const char ***argvs = calloc(n ? n : 1, sizeof(*argvs));
  int *argcs = calloc(n ? n : 1, sizeof(*argcs));
  const char **args = calloc((n ? n : 1) * (size_t)(nf + 2), sizeof(*args));
  if (!argvs || !argcs || !args) {
    free(argvs);
    free(argcs);
    free(args);
    return lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < n; ++i) {
    const char **a = args + i * (size_t)(nf + 2);
    a[0] = "HMGET";
    a[1] = keys[i];
    for (int f = 0; f < nf; ++f) {
      a[2 + f] = fields[f];
    }
    argvs[i] = a;
    argcs[i] = nf + 2;
  }
  LwStatus st = lw_gc_pipeline(g, n, argcs, (const char *const *const *)argvs, replies);
  free(argvs);
  free(argcs);
  free(args);
  return st;
}

/* A page's ids (those keep accepts; keep NULL: all) with the reply of an
 * HMGET of the same fields on each one's record. */
typedef struct {
  const char **names; /* the ids */
  LwKey *keys;
  redisReply **replies;
  size_t n;
} Batch;

static void batch_free(Batch *b)
{
  for (size_t i = 0; b->replies && i < b->n; ++i) {
    freeReplyObject(b->replies[i]);
  }
  free(b->replies);
  free(b->keys);
  free(b->names);
  memset(b, 0, sizeof(*b));
}

static LwStatus batch_hmget(LwGc *g, const char *const *ids, size_t n, const char *pattern,
                            bool (*keep)(const LwGc *, const char *),
                            const char *const *fields, int nf, Batch *b)
{
  memset(b, 0, sizeof(*b));
  b->names = calloc(n + 1, sizeof(*b->names));
  b->keys = calloc(n + 1, sizeof(*b->keys));
  b->replies = calloc(n + 1, sizeof(*b->replies));
  const char **keys = calloc(n + 1, sizeof(*keys));
  if (!b->names || !b->keys || !b->replies || !keys) {
    free(keys);
    batch_free(b);
    return lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < n; ++i) {
    if (!keep || keep(g, ids[i])) {
      b->keys[b->n] = lw_key(g->cfg->prefix, pattern, ids[i]);
      keys[b->n] = b->keys[b->n].s;
      b->names[b->n++] = ids[i];
    }
  }
  LwStatus st = hmget_all(g, keys, b->n, fields, nf, b->replies);
  free(keys);
  if (st != LW_OK) {
    batch_free(b);
  }
  return st;
}

static LwStatus mark(LwGc *g, const char *hash, LwNames *frontier)
{
  int added = lw_hex_set_add(g->live, hash);
  if (added < 0) {
    return lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
  }
  if (added == 1 && !lw_names_add(frontier, hash)) {
    return lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
  }
  return LW_OK;
}

/* Marks every hash of a JSON array text (harvest `seeds`, seed `children`),
 * or with provider set, the seed of every URL in it (`void_dumps`). */
static LwStatus mark_json_list(LwGc *g, const char *text, const char *provider,
                               LwNames *frontier)
{
  json_t *list = text ? json_loads(text, 0, NULL) : NULL;
  size_t i;
  json_t *item;
  LwStatus st = LW_OK;
  json_array_foreach(list, i, item) {
    const char *s = json_string_value(item);
    if (s && st == LW_OK) {
      char hash[LW_HASH_HEX_LEN + 1];
      if (provider) {
        lw_seed_hash_for(s, provider, hash); /* a provider's own dump seed */
        s = hash;
      }
      st = mark(g, s, frontier);
    }
  }
  json_decref(list);
  return st;
}

/* ---- harvests ---- */

typedef struct {
  char *id;
  char *provider;
  char *started; /* as stored, for the delete script's check */
  char *seeds;   /* JSON */
  bool running;
} HarvestRow;

typedef struct {
  HarvestRow *rows;
  size_t count, cap;
  LwNames current; /* each provider's current harvest */
  LwNames *frontier;
} Harvests;

static LwStatus harvest_batch(LwGc *g, const char *const *ids, size_t n, void *data)
{
  Harvests *h = data;
  const char *fields[] = {"provider", "started", "status", "seeds"};
  Batch b;
  LwStatus st = batch_hmget(g, ids, n, LW_KEY_HARVEST, NULL, fields, 4, &b);
  for (size_t i = 0; st == LW_OK && i < b.n; ++i) {
    const redisReply *r = b.replies[i];
    if (!element_str(r, 0)) { /* gone, or not a harvest record */
      st = prune(g, LW_KEY_HARVEST_INDEX, b.names[i], LW_KEY_HARVEST, "provider");
      continue;
    }
    if (h->count == h->cap) {
      size_t cap = h->cap ? h->cap * 2 : 64;
      HarvestRow *grown = realloc(h->rows, cap * sizeof(*grown));
      if (!grown) {
        st = lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
        break;
      }
      h->rows = grown;
      h->cap = cap;
    }
    const char *status = element_str(r, 2);
    HarvestRow *row = &h->rows[h->count++];
    row->id = strdup(b.names[i]);
    row->provider = strdup(element_str(r, 0));
    row->started = strdup(element_str(r, 1) ? element_str(r, 1) : "");
    row->seeds = strdup(element_str(r, 3) ? element_str(r, 3) : "[]");
    row->running = status && !strcmp(status, "running");
    if (!row->id || !row->provider || !row->started || !row->seeds) {
      st = lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
    }
  }
  batch_free(&b);
  return st;
}

/* Providers: their current harvest, and the dumps their VoID lists now. */
static LwStatus provider_batch(LwGc *g, const char *const *ids, size_t n, void *data)
{
  Harvests *h = data;
  const char *fields[] = {"harvest", "void_dumps"};
  Batch b;
  LwStatus st = batch_hmget(g, ids, n, LW_KEY_PROVIDER, NULL, fields, 2, &b);
  for (size_t i = 0; st == LW_OK && i < b.n; ++i) {
    const char *current = element_str(b.replies[i], 0);
    if (current && *current && !lw_names_add(&h->current, current)) {
      st = lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
    }
    if (st == LW_OK) {
      st = mark_json_list(g, element_str(b.replies[i], 1), b.names[i], h->frontier);
    }
  }
  batch_free(&b);
  return st;
}

/* Newest first within a provider. */
static int cmp_harvest(const void *a, const void *b)
{
  const HarvestRow *x = a, *y = b;
  int c = strcmp(x->provider, y->provider);
  if (c) {
    return c;
  }
  long long sx = atoll(x->started), sy = atoll(y->started);
  return sx < sy ? 1 : sx > sy ? -1 : strcmp(y->id, x->id);
}

static LwStatus remove_harvest(LwGc *g, const HarvestRow *row)
{
  bool removed = true;
  if (!g->o->dry_run) {
    LwKey keys[1 + N_COMPANIONS];
    LwKey index = lw_key(g->cfg->prefix, LW_KEY_HARVEST_INDEX, NULL);
    LwKey budgets = lw_key(g->cfg->prefix, LW_KEY_UNPACKED_ALL, NULL);
    const char *argv[5 + N_COMPANIONS];
    keys[0] = lw_key(g->cfg->prefix, LW_KEY_HARVEST, row->id);
    argv[0] = keys[0].s;
    for (size_t i = 0; i < N_COMPANIONS; ++i) {
      keys[1 + i] = lw_key(g->cfg->prefix, harvest_companions[i], row->id);
      argv[1 + i] = keys[1 + i].s;
    }
    argv[1 + N_COMPANIONS] = row->started;
    argv[2 + N_COMPANIONS] = index.s;
    argv[3 + N_COMPANIONS] = budgets.s;
    argv[4 + N_COMPANIONS] = row->id;
    redisReply *r = lw_script_run(g->c, &delete_harvest_script, 1 + (int)N_COMPANIONS,
                                  5 + (int)N_COMPANIONS, argv, NULL, g->err);
    if (!r) {
      return g->err->status;
    }
    removed = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
    freeReplyObject(r);
  }
  if (removed) {
    if (!lw_names_add(&g->gone_harvests, row->id)) {
      return lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
    }
    ++g->stats->harvests;
    lw_gc_report(g, "harvest", row->id);
  }
  return LW_OK;
}

/* Keeps the newest keep_harvests of each provider (and every running or
 * current one), marking their seeds; removes the others. */
static LwStatus settle_harvests(LwGc *g, Harvests *h)
{
  if (h->count > 1) {
    qsort(h->rows, h->count, sizeof(*h->rows), cmp_harvest);
  }
  long long rank = 0;
  for (size_t i = 0; i < h->count; ++i) {
    HarvestRow *row = &h->rows[i];
    if (i > 0 && !strcmp(row->id, h->rows[i - 1].id)) {
      continue; /* met twice in the index's walk */
    }
    rank = i > 0 && !strcmp(row->provider, h->rows[i - 1].provider) ? rank + 1 : 0;
    if (rank < g->cfg->keep_harvests || row->running ||
        lw_names_has(&h->current, row->id)) {
      LW_TRY(mark_json_list(g, row->seeds, NULL, h->frontier));
    } else {
      LW_TRY(remove_harvest(g, row));
    }
  }
  return LW_OK;
}

static void harvests_free(Harvests *h)
{
  for (size_t i = 0; i < h->count; ++i) {
    free(h->rows[i].id);
    free(h->rows[i].provider);
    free(h->rows[i].started);
    free(h->rows[i].seeds);
  }
  free(h->rows);
  lw_names_free(&h->current);
}

/* ---- marking ---- */

/* Every seed with a job queued, delayed or in flight. */
static LwStatus mark_queued(LwGc *g, LwNames *frontier)
{
  redisReply *stages = lw_redis_cmd(g->c, g->err, "SMEMBERS",
                                    lw_key(g->cfg->prefix, LW_KEY_STAGES, NULL).s, NULL);
  if (!stages) {
    return g->err->status;
  }
  LwStatus st = LW_OK;
  for (size_t i = 0; st == LW_OK && i < stages->elements; ++i) {
    redisReply *seeds = lw_redis_cmd(
      g->c, g->err, "SMEMBERS",
      lw_key(g->cfg->prefix, LW_KEY_QUEUED, stages->element[i]->str).s, NULL);
    if (!seeds) {
      st = g->err->status;
      break;
    }
    for (size_t j = 0; st == LW_OK && j < seeds->elements; ++j) {
      /* a member is the seed hash, or "<seed hash> <harvest id>" */
      char hash[LW_HASH_HEX_LEN + 1];
      snprintf(hash, sizeof(hash), "%s", seeds->element[j]->str);
      st = mark(g, hash, frontier);
    }
    freeReplyObject(seeds);
  }
  freeReplyObject(stages);
  return st;
}

/* From the roots in frontier, marks archive entries and clean records, one
 * level per round trip. */
static LwStatus mark_reachable(LwGc *g, LwNames *frontier)
{
  const char *fields[] = {"children", "clean"};
  while (frontier->count > 0) {
    LwNames next = {0};
    LwStatus st = LW_OK;
    for (size_t at = 0; st == LW_OK && at < frontier->count; at += BATCH) {
      size_t n = frontier->count - at < BATCH ? frontier->count - at : BATCH;
      LwKey *keys = calloc(n, sizeof(*keys));
      const char **names = calloc(n, sizeof(*names));
      redisReply **replies = calloc(n, sizeof(*replies));
      st = keys && names && replies ? LW_OK
                                    : lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
      for (size_t i = 0; st == LW_OK && i < n; ++i) {
        keys[i] = lw_key(g->cfg->prefix, LW_KEY_SEED, frontier->items[at + i]);
        names[i] = keys[i].s;
      }
      if (st == LW_OK) {
        st = hmget_all(g, names, n, fields, 2, replies);
      }
      for (size_t i = 0; st == LW_OK && i < n; ++i) {
        st = mark_json_list(g, element_str(replies[i], 0), NULL, &next);
        const char *clean = element_str(replies[i], 1);
        if (st == LW_OK && clean) {
          st = mark(g, clean, &next);
        }
      }
      for (size_t i = 0; replies && i < n; ++i) {
        freeReplyObject(replies[i]);
      }
      free(replies);
      free(names);
      free(keys);
    }
    lw_names_free(frontier);
    *frontier = next;
    LW_TRY(st);
  }
  return LW_OK;
}

/* ---- sweeping records ---- */

static bool working(const char *status)
{
  static const char *const busy[] = {"downloading", "unarchiving", "guessing", "parsing"};
  for (size_t i = 0; status && i < sizeof(busy) / sizeof(*busy); ++i) {
    if (!strcmp(status, busy[i])) {
      return true;
    }
  }
  return false;
}

enum { F_STATUS, F_UPDATED, F_ADDED, F_PROVIDER, F_HARVEST, F_PARENT, F_DIRTY, N_FIELDS };

/* Whether an unmarked seed record may go. */
static bool garbage(const LwGc *g, const redisReply *r)
{
  const char *status = element_str(r, F_STATUS);
  if (!r || !status || working(status)) {
    return false;
  }
  const char *when = element_str(r, F_UPDATED) ? element_str(r, F_UPDATED)
                                               : element_str(r, F_ADDED);
  if (when && atoll(when) > g->now_ms - g->grace_ms) {
    return false;
  }
  bool by_hand = !element_str(r, F_PROVIDER) && !element_str(r, F_HARVEST) &&
                 !element_str(r, F_PARENT) && !element_str(r, F_DIRTY);
  return !by_hand;
}

static LwStatus remove_seed(LwGc *g, const char *hash, const redisReply *r)
{
  const char *status = element_str(r, F_STATUS);
  bool removed = true;
  if (!g->o->dry_run) {
    LwKey key = lw_key(g->cfg->prefix, LW_KEY_SEED, hash);
    LwKey counts = lw_key(g->cfg->prefix, LW_KEY_SEED_COUNTS, NULL);
    LwKey index = lw_key(g->cfg->prefix, LW_KEY_RECHECKS, NULL);
    LwKey gc_index = lw_key(g->cfg->prefix, LW_KEY_SEED_INDEX, NULL);
    const char *updated = element_str(r, F_UPDATED);
    const char *argv[] = {key.s, counts.s, index.s, gc_index.s, updated ? updated : "", hash};
    redisReply *reply = lw_script_run(g->c, &delete_seed_script, 4, 6, argv, NULL, g->err);
    if (!reply) {
      return g->err->status;
    }
    removed = reply->type == REDIS_REPLY_INTEGER && reply->integer == 1;
    freeReplyObject(reply);
  }
  if (removed) {
    if (lw_hex_set_add(g->doomed, hash) < 0) {
      return lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
    }
    bool clean = !strcmp(status, "cleaned");
    ++*(clean ? &g->stats->cleaned : &g->stats->seeds);
    lw_gc_report(g, clean ? "clean" : "seed", hash);
  }
  return LW_OK;
}

/* A seed not marked, and not met before in this walk (the index may hand
 * a member twice). */
static bool unmarked_seed(const LwGc *g, const char *hash)
{
  return strlen(hash) == LW_HASH_HEX_LEN && !lw_hex_set_has(g->live, hash) &&
         !lw_hex_set_has(g->doomed, hash);
}

/* A page of seeds from an index (data: its key name in queue/keys.h, where
 * an entry whose record is gone is dropped). */
static LwStatus seed_batch(LwGc *g, const char *const *ids, size_t n, void *data)
{
  const char *index = data;
  const char *fields[N_FIELDS] = {"status",  "updated", "added", "provider",
                                  "harvest", "parent",  "dirty"};
  Batch b;
  LwStatus st = batch_hmget(g, ids, n, LW_KEY_SEED, unmarked_seed, fields, N_FIELDS, &b);
  for (size_t i = 0; st == LW_OK && i < b.n; ++i) {
    if (!element_str(b.replies[i], F_STATUS)) { /* gone: its entry goes */
      st = prune(g, index, b.names[i], LW_KEY_SEED, "status");
    } else if (garbage(g, b.replies[i])) {
      st = remove_seed(g, b.names[i], b.replies[i]);
    }
  }
  batch_free(&b);
  return st;
}

/* cleanof:<content hash> entries whose clean record is gone. */
/* A cleanof entry naming clean, whose record is not marked: removed when
 * that record is gone (dry: would be). */
static LwStatus settle_cleanof(LwGc *g, const char *id, const char *clean)
{
  LwKey entry = lw_key(g->cfg->prefix, LW_KEY_CLEAN_OF, id);
  LwKey record = lw_key(g->cfg->prefix, LW_KEY_SEED, clean);
  long long gone = 0;
  if (g->o->dry_run) {
    redisReply *e = lw_redis_cmd(g->c, g->err, "EXISTS", record.s, NULL);
    if (!e) {
      return g->err->status;
    }
    gone = e->integer == 0 || lw_hex_set_has(g->doomed, clean);
    freeReplyObject(e);
  } else {
    LwKey index = lw_key(g->cfg->prefix, LW_KEY_CLEAN_OF_INDEX, NULL);
    const char *argv[] = {entry.s, record.s, index.s, clean, id};
    redisReply *r = lw_script_run(g->c, &delete_cleanof_script, 3, 5, argv, NULL, g->err);
    if (!r) {
      return g->err->status;
    }
    gone = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
    freeReplyObject(r);
  }
  if (gone) {
    ++g->stats->cleanof;
    lw_gc_report(g, "cleanof", id);
  }
  return LW_OK;
}

/* cleanof:<content hash> entries whose clean record is gone: a page's
 * entries read in one round trip. */
static LwStatus cleanof_batch(LwGc *g, const char *const *ids, size_t n, void *data)
{
  (void)data;
  LwKey *keys = calloc(n, sizeof(*keys));
  const char **args = calloc(2 * n, sizeof(*args));
  const char ***argvs = calloc(n, sizeof(*argvs));
  int *argcs = calloc(n, sizeof(*argcs));
  redisReply **replies = calloc(n, sizeof(*replies));
  LwStatus st = keys && args && argvs && argcs && replies
                  ? LW_OK
                  : lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == LW_OK && i < n; ++i) {
    keys[i] = lw_key(g->cfg->prefix, LW_KEY_CLEAN_OF, ids[i]);
    args[2 * i] = "GET";
    args[2 * i + 1] = keys[i].s;
    argvs[i] = args + 2 * i;
    argcs[i] = 2;
  }
  if (st == LW_OK) {
    st = lw_gc_pipeline(g, n, argcs, (const char *const *const *)argvs, replies);
  }
  for (size_t i = 0; st == LW_OK && i < n; ++i) {
    const redisReply *v = replies[i]; /* NULL: not a string (not ours to judge) */
    if (v && v->type == REDIS_REPLY_NIL) { /* gone: its entry goes */
      st = prune(g, LW_KEY_CLEAN_OF_INDEX, ids[i], LW_KEY_CLEAN_OF, "");
    } else if (v && v->type == REDIS_REPLY_STRING && v->len == LW_HASH_HEX_LEN &&
               !lw_hex_set_has(g->live, v->str)) {
      st = settle_cleanof(g, ids[i], v->str);
    }
  }
  for (size_t i = 0; replies && i < n; ++i) {
    freeReplyObject(replies[i]);
  }
  free(replies);
  free(argcs);
  free(argvs);
  free(args);
  free(keys);
  return st;
}

static LwStatus exists(LwGc *g, const char *key, bool *there)
{
  redisReply *e = lw_redis_cmd(g->c, g->err, "EXISTS", key, NULL);
  if (!e) {
    return g->err->status;
  }
  *there = e->type == REDIS_REPLY_INTEGER && e->integer == 1;
  freeReplyObject(e);
  return LW_OK;
}

/* unpacked:<harvest id> budgets whose harvest is gone. */
static LwStatus budget_batch(LwGc *g, const char *const *ids, size_t n, void *data)
{
  (void)data;
  for (size_t i = 0; i < n; ++i) {
    const char *id = ids[i];
    LwKey budget = lw_key(g->cfg->prefix, LW_KEY_UNPACKED, id);
    bool budget_there = false, harvest_there = false;
    LW_TRY(exists(g, budget.s, &budget_there));
    if (!budget_there) { /* a harvest swept now took it along, or gone before */
      LW_TRY(prune(g, LW_KEY_UNPACKED_ALL, id, LW_KEY_UNPACKED, ""));
      continue;
    }
    LW_TRY(exists(g, lw_key(g->cfg->prefix, LW_KEY_HARVEST, id).s, &harvest_there));
    if (harvest_there || lw_names_has(&g->gone_harvests, id)) {
      continue;
    }
    if (!g->o->dry_run) {
      LwKey all = lw_key(g->cfg->prefix, LW_KEY_UNPACKED_ALL, NULL);
      redisReply *d = lw_redis_cmd(g->c, g->err, "DEL", budget.s, NULL);
      if (d) {
        freeReplyObject(d);
        d = lw_redis_cmd(g->c, g->err, "SREM", all.s, id, NULL);
      }
      if (!d) {
        return g->err->status;
      }
      freeReplyObject(d);
    }
    ++g->stats->budgets;
    lw_gc_report(g, "budget", id);
  }
  return LW_OK;
}

/* ---- dead lists ---- */

LwStatus lw_retention_trim_dead(redisContext *c, const LwConfig *cfg,
                                const LwRetentionOptions *o, LwRetentionStats *stats,
                                LwError *err)
{
  if (cfg->dead_max <= 0) {
    return LW_OK;
  }
  redisReply *stages = lw_redis_cmd(c, err, "SMEMBERS",
                                    lw_key(cfg->prefix, LW_KEY_STAGES, NULL).s, NULL);
  if (!stages) {
    return err->status;
  }
  LwStatus st = LW_OK;
  char keep[32];
  snprintf(keep, sizeof(keep), "%lld", cfg->dead_max - 1);
  for (size_t i = 0; st == LW_OK && i < stages->elements; ++i) {
    const char *stage = stages->element[i]->str;
    LwKey dead = lw_key(cfg->prefix, LW_KEY_DEAD, stage);
    redisReply *len = lw_redis_cmd(c, err, "LLEN", dead.s, NULL);
    if (!len) {
      st = err->status;
      break;
    }
    long long over = len->integer - cfg->dead_max;
    freeReplyObject(len);
    if (over <= 0) {
      continue;
    }
    if (!o || !o->dry_run) {
      /* Newest jobs are pushed on the left: the oldest are at the right end. */
      char n[32], field[LW_KEY_MAX];
      snprintf(n, sizeof(n), "%lld", over);
      snprintf(field, sizeof(field), "dead_dropped:%s", stage);
      redisReply *r = lw_redis_cmd(c, err, "LTRIM", dead.s, "0", keep, NULL);
      if (r) {
        freeReplyObject(r);
        r = lw_redis_cmd(c, err, "HINCRBY", lw_key(cfg->prefix, LW_KEY_COUNTERS, NULL).s,
                         field, n, NULL);
      }
      if (!r) {
        st = err->status;
        break;
      }
      freeReplyObject(r);
    }
    stats->dead_dropped += over;
    if (o && o->removed) {
      char what[256];
      snprintf(what, sizeof(what), "%s %lld", stage, over);
      o->removed(o->data, "dead", what);
    }
  }
  freeReplyObject(stages);
  return st;
}

/* ---- the collection ---- */

static LwStatus collect(LwGc *g)
{
  LwNames frontier = {0};
  Harvests h = {.frontier = &frontier};
  LwGcIndexBuilt added;
  bool built;
  LwStatus st = lw_gc_index_upgrade(g->c, g->cfg->prefix, &added, &built, g->err);
  if (st == LW_OK) {
    st = index_each(g, LW_KEY_PROVIDER_INDEX, false, 0, provider_batch, &h);
  }
  if (st == LW_OK) {
    st = index_each(g, LW_KEY_HARVEST_INDEX, true, LLONG_MAX, harvest_batch, &h);
  }
  if (st == LW_OK) {
    st = settle_harvests(g, &h);
  }
  harvests_free(&h);
  if (st == LW_OK) {
    st = mark_queued(g, &frontier);
  }
  if (st == LW_OK) {
    st = mark_reachable(g, &frontier);
  }
  lw_names_free(&frontier);
  g->stats->live = (long long)lw_hex_set_count(g->live);
  /* those indexed within the grace period changed in it. A seed that may
   * be re-checked is in the re-check index instead (queue/gc_index.h),
   * scored by its `processed`: met once that is older than the grace
   * period, its `updated` then decides (garbage) */
  if (st == LW_OK) {
    st = index_each(g, LW_KEY_SEED_INDEX, true, g->now_ms - g->grace_ms, seed_batch,
                    (void *)LW_KEY_SEED_INDEX);
  }
  if (st == LW_OK) {
    st = index_each(g, LW_KEY_RECHECKS, true, g->now_ms - g->grace_ms, seed_batch,
                    (void *)LW_KEY_RECHECKS);
  }
  if (st == LW_OK) {
    st = index_each(g, LW_KEY_CLEAN_OF_INDEX, false, 0, cleanof_batch, NULL);
  }
  if (st == LW_OK) {
    st = index_each(g, LW_KEY_UNPACKED_ALL, false, 0, budget_batch, NULL);
  }
  if (st == LW_OK) {
    st = lw_retention_sweep_files(g);
  }
  return st;
}

LwStatus lw_retention_run(redisContext *c, const LwConfig *cfg, const LwRetentionOptions *o,
                          LwRetentionStats *stats, LwError *err)
{
  static const LwRetentionOptions none = {0};
  memset(stats, 0, sizeof(*stats));
  LwGc g = {c,
            cfg,
            o ? o : &none,
            stats,
            err,
            lw_now_ms(),
            cfg->gc_grace_s * 1000,
            lw_hex_set_new(),
            lw_hex_set_new(),
            {0}};
  LwStatus st = g.live && g.doomed ? LW_OK
                                   : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  if (st == LW_OK) {
    st = lw_retention_trim_dead(c, cfg, g.o, stats, err);
  }
  if (st == LW_OK) {
    st = collect(&g);
  }
  lw_hex_set_free(g.live);
  lw_hex_set_free(g.doomed);
  lw_names_free(&g.gone_harvests);
  return st;
}

LwStatus lw_retention_duty(redisContext *c, const LwConfig *cfg, long long *last_ms,
                           LwError *err)
{
  LwRetentionStats stats;
  memset(&stats, 0, sizeof(stats));
  long long now = lw_now_ms();
  long long t0 = now;
  bool due = cfg->gc_interval_s > 0 &&
             (*last_ms == 0 || now - *last_ms >= cfg->gc_interval_s * 1000);
  LwStatus st;
  if (due) {
    *last_ms = now;
    st = lw_retention_run(c, cfg, NULL, &stats, err);
  } else {
    st = lw_retention_trim_dead(c, cfg, NULL, &stats, err);
  }
  if (st == LW_ERR_REDIS) {
    return st; /* the scheduler reconnects */
  }
  if (st != LW_OK) { /* a file that cannot be removed: say so, the cycle goes on */
    lw_warn("gc=failed msg=\"%s\"", err->message);
    return LW_OK;
  }
  if (due || stats.dead_dropped) {
    lw_info(
      "gc=%s harvests=%lld seeds=%lld cleaned=%lld cleanof=%lld budgets=%lld files=%lld "
      "dead_dropped=%lld live=%lld ms=%lld",
      due ? "done" : "dead-lists", stats.harvests, stats.seeds, stats.cleaned,
      stats.cleanof, stats.budgets, stats.files, stats.dead_dropped, stats.live,
      lw_now_ms() - t0);
  }
  return LW_OK;
}
