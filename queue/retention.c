#include "queue/retention.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "queue/job.h"
#include "queue/redis_cmd.h"
#include "queue/retention_gc.h"
#include "queue/seed.h"

#define SCAN_COUNT "1000"
#define BATCH 1000

/* KEYS: seed:<hash>, seeds (counts per status), rechecks (the re-check
 * index)  ARGV: `updated` as read, hash
 * Deletes the record unless it changed since the sweep read it, and its
 * index entry with it. 1 deleted. */
static LwScript delete_seed_script = {
  "if (redis.call('HGET', KEYS[1], 'updated') or '') ~= ARGV[1] then return 0 end\n"
  "local st = redis.call('HGET', KEYS[1], 'status')\n"
  "if redis.call('DEL', KEYS[1]) == 0 then return 0 end\n"
  "redis.call('ZREM', KEYS[3], ARGV[2])\n"
  "if st then redis.call('HINCRBY', KEYS[2], st, -1) end\n"
  "return 1\n",
  ""};

/* KEYS: harvest:<id>, then the keys that go with it (its unpack budget and
 * fan-in sets)  ARGV: `started` as read
 * Deletes a harvest that is not running and still the one read. */
static LwScript delete_harvest_script = {
  "if (redis.call('HGET', KEYS[1], 'started') or '') ~= ARGV[1] or\n"
  "   redis.call('HGET', KEYS[1], 'status') == 'running' then return 0 end\n"
  "redis.call('DEL', unpack(KEYS))\n"
  "return 1\n",
  ""};

/* The keys of a harvest besides its record, removed with it. */
static const char *const harvest_companions[] = {
  LW_KEY_UNPACKED, LW_KEY_HARVEST_EXPECTED, LW_KEY_HARVEST_FINISHED, LW_KEY_HARVEST_FAILED};
#define N_COMPANIONS (sizeof(harvest_companions) / sizeof(*harvest_companions))

/* KEYS: cleanof:<content hash>, seed:<clean hash>  ARGV: clean hash
 * Deletes the entry if it still names that record and the record is gone. */
static LwScript delete_cleanof_script = {
  "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end\n"
  "if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end\n"
  "return redis.call('DEL', KEYS[1])\n",
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

typedef LwStatus (*BatchFn)(LwGc *g, const redisReply *keys, void *data);

/* SCAN pattern, handing each batch of keys to fn. */
static LwStatus scan_each(LwGc *g, const char *pattern, BatchFn fn, void *data)
{
  char cursor[32] = "0";
  do {
    redisReply *r = lw_redis_cmd(g->c, g->err, "SCAN", cursor, "MATCH", pattern, "COUNT",
                                 SCAN_COUNT, NULL);
    if (!r) {
      return g->err->status;
    }
    LwStatus st = LW_OK;
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 2) {
      snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
      st = fn(g, r->element[1], data);
    } else {
      cursor[0] = '0';
      cursor[1] = '\0';
    }
    freeReplyObject(r);
    LW_TRY(st);
  } while (strcmp(cursor, "0") != 0);
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

/* A SCAN batch's keys (those keep accepts; keep NULL: all) with the reply
 * of an HMGET of the same fields on each. */
typedef struct {
  const char **names;
  redisReply **replies;
  size_t n;
} Batch;

static void batch_free(Batch *b)
{
  for (size_t i = 0; b->replies && i < b->n; ++i) {
    freeReplyObject(b->replies[i]);
  }
  free(b->replies);
  free(b->names);
  memset(b, 0, sizeof(*b));
}

static LwStatus batch_hmget(LwGc *g, const redisReply *keys,
                            bool (*keep)(const LwGc *, const char *),
                            const char *const *fields, int nf, Batch *b)
{
  memset(b, 0, sizeof(*b));
  b->names = calloc(keys->elements + 1, sizeof(*b->names));
  b->replies = calloc(keys->elements + 1, sizeof(*b->replies));
  if (!b->names || !b->replies) {
    batch_free(b);
    return lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < keys->elements; ++i) {
    if (!keep || keep(g, keys->element[i]->str)) {
      b->names[b->n++] = keys->element[i]->str;
    }
  }
  LwStatus st = hmget_all(g, b->names, b->n, fields, nf, b->replies);
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

static LwStatus harvest_batch(LwGc *g, const redisReply *keys, void *data)
{
  Harvests *h = data;
  size_t head = strlen(lw_key(g->cfg->prefix, LW_KEY_HARVEST, "").s);
  const char *fields[] = {"provider", "started", "status", "seeds"};
  Batch b;
  LwStatus st = batch_hmget(g, keys, NULL, fields, 4, &b);
  for (size_t i = 0; st == LW_OK && i < b.n; ++i) {
    const redisReply *r = b.replies[i];
    if (!element_str(r, 0)) {
      continue; /* not a harvest record */
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
    row->id = strdup(b.names[i] + head);
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
static LwStatus provider_batch(LwGc *g, const redisReply *keys, void *data)
{
  Harvests *h = data;
  size_t head = strlen(lw_key(g->cfg->prefix, LW_KEY_PROVIDER, "").s);
  const char *fields[] = {"harvest", "void_dumps"};
  Batch b;
  LwStatus st = batch_hmget(g, keys, NULL, fields, 2, &b);
  for (size_t i = 0; st == LW_OK && i < b.n; ++i) {
    const char *current = element_str(b.replies[i], 0);
    if (current && *current && !lw_names_add(&h->current, current)) {
      st = lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
    }
    if (st == LW_OK) {
      st = mark_json_list(g, element_str(b.replies[i], 1), b.names[i] + head, h->frontier);
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
    const char *argv[2 + N_COMPANIONS];
    keys[0] = lw_key(g->cfg->prefix, LW_KEY_HARVEST, row->id);
    argv[0] = keys[0].s;
    for (size_t i = 0; i < N_COMPANIONS; ++i) {
      keys[1 + i] = lw_key(g->cfg->prefix, harvest_companions[i], row->id);
      argv[1 + i] = keys[1 + i].s;
    }
    argv[1 + N_COMPANIONS] = row->started;
    redisReply *r = lw_script_run(g->c, &delete_harvest_script, 1 + (int)N_COMPANIONS,
                                  2 + (int)N_COMPANIONS, argv, NULL, g->err);
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
    const char *updated = element_str(r, F_UPDATED);
    const char *argv[] = {key.s, counts.s, index.s, updated ? updated : "", hash};
    redisReply *reply = lw_script_run(g->c, &delete_seed_script, 3, 5, argv, NULL, g->err);
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

/* A seed key (not a clean-of or other key) whose seed is not marked. */
static bool unmarked_seed(const LwGc *g, const char *key)
{
  size_t head = strlen(lw_key(g->cfg->prefix, LW_KEY_SEED, "").s);
  return strlen(key) == head + LW_HASH_HEX_LEN && !lw_hex_set_has(g->live, key + head);
}

static LwStatus seed_batch(LwGc *g, const redisReply *keys, void *data)
{
  (void)data;
  size_t head = strlen(lw_key(g->cfg->prefix, LW_KEY_SEED, "").s);
  const char *fields[N_FIELDS] = {"status",  "updated", "added", "provider",
                                  "harvest", "parent",  "dirty"};
  Batch b;
  LwStatus st = batch_hmget(g, keys, unmarked_seed, fields, N_FIELDS, &b);
  for (size_t i = 0; st == LW_OK && i < b.n; ++i) {
    if (garbage(g, b.replies[i])) {
      st = remove_seed(g, b.names[i] + head, b.replies[i]);
    }
  }
  batch_free(&b);
  return st;
}

/* cleanof:<content hash> entries whose clean record is gone. */
static LwStatus cleanof_batch(LwGc *g, const redisReply *keys, void *data)
{
  (void)data;
  size_t head = strlen(lw_key(g->cfg->prefix, LW_KEY_CLEAN_OF, "").s);
  for (size_t i = 0; i < keys->elements; ++i) {
    const char *key = keys->element[i]->str;
    redisReply *v = lw_redis_cmd(g->c, g->err, "GET", key, NULL);
    if (!v) {
      if (g->c->err) {
        return g->err->status;
      }
      continue;
    }
    char clean[LW_HASH_HEX_LEN + 1] = "";
    if (v->type == REDIS_REPLY_STRING && v->len == LW_HASH_HEX_LEN) {
      memcpy(clean, v->str, sizeof(clean));
    }
    freeReplyObject(v);
    if (!clean[0] || lw_hex_set_has(g->live, clean)) {
      continue;
    }
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
      const char *argv[] = {key, record.s, clean};
      redisReply *r = lw_script_run(g->c, &delete_cleanof_script, 2, 3, argv, NULL, g->err);
      if (!r) {
        return g->err->status;
      }
      gone = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
      freeReplyObject(r);
    }
    if (gone) {
      ++g->stats->cleanof;
      lw_gc_report(g, "cleanof", key + head);
    }
  }
  return LW_OK;
}

/* unpacked:<harvest id> budgets whose harvest is gone. */
static LwStatus budget_batch(LwGc *g, const redisReply *keys, void *data)
{
  (void)data;
  size_t head = strlen(lw_key(g->cfg->prefix, LW_KEY_UNPACKED, "").s);
  for (size_t i = 0; i < keys->elements; ++i) {
    const char *id = keys->element[i]->str + head;
    redisReply *e = lw_redis_cmd(g->c, g->err, "EXISTS",
                                 lw_key(g->cfg->prefix, LW_KEY_HARVEST, id).s, NULL);
    if (!e) {
      return g->err->status;
    }
    bool orphan = e->integer == 0 && !lw_names_has(&g->gone_harvests, id);
    freeReplyObject(e);
    if (!orphan) {
      continue;
    }
    if (!g->o->dry_run) {
      redisReply *d = lw_redis_cmd(g->c, g->err, "DEL", keys->element[i]->str, NULL);
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
  const char *prefix = g->cfg->prefix;
  LwStatus st = scan_each(g, lw_key(prefix, LW_KEY_PROVIDER, "*").s, provider_batch, &h);
  if (st == LW_OK) {
    st = scan_each(g, lw_key(prefix, LW_KEY_HARVEST, "*").s, harvest_batch, &h);
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
  if (st == LW_OK) {
    st = scan_each(g, lw_key(prefix, LW_KEY_SEED, "*").s, seed_batch, NULL);
  }
  if (st == LW_OK) {
    st = scan_each(g, lw_key(prefix, LW_KEY_CLEAN_OF, "*").s, cleanof_batch, NULL);
  }
  if (st == LW_OK) {
    st = scan_each(g, lw_key(prefix, LW_KEY_UNPACKED, "*").s, budget_batch, NULL);
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
