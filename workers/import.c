/*
 * Stage import: a harvest whose files are all cleaned (or failed) goes into
 * its provider's graph. S = the subjects of every clean file reachable from
 * the harvest's dumps (archives through their children; dumps that were
 * unchanged keep their clean files from the last harvest, so they count);
 * their triples are replaced, others kept (graph_store/graph_store.h). Files that
 * failed are left out and listed on the harvest.
 *
 * Job: {"stage":"import","seed":"<harvest id>","harvest":"<harvest id>"}.
 * Harvest fields read: provider, seeds (JSON array of dump seed hashes),
 * status, pending; written: the report, status done|failed, finished.
 *
 * Then an export job is queued (seed: the provider, so imports of two
 * providers each get one): it rewrites the provider's graph file view
 * (graph_store/graph_store.h) and the dump, work in the graph's size that the
 * import itself no longer does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_store/graph_store.h"
#include "base/base.h"
#include "queue/harvest.h"
#include "queue/keys.h"
#include "queue/queue.h"
#include "queue/record.h"
#include "queue/records.h"
#include "queue/seed.h"
#include "queue/redis.h"
#include "workers/stage.h"

#define MAX_DEPTH 64

typedef struct {
  char **paths; /* clean files (absolute) */
  size_t count;
  size_t cap;
  json_t *failed;            /* [{seed, uri, error}] */
  size_t unfinished;         /* files still on their way: neither clean nor failed */
  char first_unfinished[64]; /* one of them, "<seed> (<status>)", for the log */
} Collected;

/* True for a status on the way to clean: the file is not finished. (A file
 * is finished when it has a clean file, failed for good, or is an archive
 * unpacked, depleted.) */
static bool on_its_way(const char *status)
{
  const char *const working[] = {"added",      "downloading", "filed",   "unarchiving",
                                 "unarchived", "guessing",    "guessed", "parsing"};
  for (size_t i = 0; i < sizeof(working) / sizeof(*working); ++i) {
    if (!strcmp(status, working[i])) {
      return true;
    }
  }
  return false;
}

static LwStatus add_path(Collected *c, const char *path, LwError *err)
{
  if (c->count == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    char **grown = realloc(c->paths, cap * sizeof(char *));
    if (!grown) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    c->paths = grown;
    c->cap = cap;
  }
  c->paths[c->count] = strdup(path);
  return c->paths[c->count++] ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
}

static LwStatus note_failed(Collected *c, const char *hash, const json_t *seed)
{
  json_array_append_new(
    c->failed, json_pack("{s:s, s:s, s:s}", "seed", hash, "uri",
                         lw_record_str(seed, "uri", lw_record_str(seed, "archive", "")),
                         "error", lw_record_str(seed, "error", "")));
  return LW_OK;
}

#define READ_BATCH 64 /* seeds read in one round trip (pipelined) */

static LwStatus collect(LwStageCtx *ctx, const char *const *hashes, size_t n, unsigned depth,
                        Collected *c);

/* The strings of a JSON array, into a new array (caller frees): *n says
 * how many. NULL when there are none, or with *n > 0 when out of memory. */
static const char **strings_of(const json_t *array, size_t *n)
{
  *n = 0;
  size_t size = json_array_size(array);
  if (!size) {
    return NULL;
  }
  const char **out = calloc(size, sizeof(*out));
  if (!out) {
    *n = size; /* no list for n strings: out of memory */
    return NULL;
  }
  size_t i;
  json_t *item;
  json_array_foreach(array, i, item) {
    if (json_is_string(item)) {
      out[(*n)++] = json_string_value(item);
    }
  }
  return out;
}

/* The clean files under one seed, its record (NULL: not recorded) and its
 * clean record (NULL: none, or not read) given. */
static LwStatus collect_one(LwStageCtx *ctx, const char *hash, const json_t *seed,
                            const json_t *clean_record, unsigned depth, Collected *c)
{
  if (!seed) {
    return lw_error_set(ctx->err, LW_ERR_STATE, "no seed %s", hash);
  }
  LwStatus st = LW_OK;
  json_t *children = json_loads(lw_record_str(seed, "children", "[]"), 0, NULL);
  const char *clean = lw_record_str(seed, "clean", NULL);
  if (json_is_array(children) && json_array_size(children) > 0) {
    size_t n = 0;
    const char **list = strings_of(children, &n);
    st = list || !n ? collect(ctx, list, n, depth + 1, c)
                    : lw_error_set(ctx->err, LW_ERR_NOMEM, "out of memory");
    free(list);
  } else if (clean) {
    const char *file = clean_record ? lw_record_str(clean_record, "file", NULL) : NULL;
    if (file) {
      char path[4096];
      snprintf(path, sizeof(path), "%s/%s", ctx->config->data_dir, file);
      st = add_path(c, path, ctx->err);
    } else {
      st = lw_error_set(ctx->err, LW_ERR_STATE, "clean record %s of seed %s has no file",
                        clean, hash);
    }
  } else if (!strcmp(lw_record_str(seed, "status", ""), "failed")) {
    st = note_failed(c, hash, seed);
  } else if (on_its_way(lw_record_str(seed, "status", ""))) {
    if (!c->unfinished++) {
      snprintf(c->first_unfinished, sizeof(c->first_unfinished), "%s (%s)", hash,
               lw_record_str(seed, "status", ""));
    }
  }
  json_decref(children);
  return st;
}

/* The clean records of seeds[0..n) that name one, into cleans[] (one
 * round trip). */
static LwStatus read_cleans(LwStageCtx *ctx, json_t *const *seeds, size_t n, json_t **cleans)
{
  const char *ids[READ_BATCH];
  size_t at[READ_BATCH], k = 0;
  for (size_t i = 0; i < n; ++i) {
    cleans[i] = NULL;
    const char *clean = seeds[i] ? lw_record_str(seeds[i], "clean", NULL) : NULL;
    if (clean) {
      ids[k] = clean;
      at[k++] = i;
    }
  }
  json_t *got[READ_BATCH];
  LwStatus st =
    k ? lw_seed_get_many(ctx->redis, ctx->config->prefix, ids, k, got, ctx->err) : LW_OK;
  for (size_t j = 0; j < k; ++j) {
    cleans[at[j]] = got[j];
  }
  return st;
}

/* Adds the clean files under seeds hashes[0..n), in their order (recursing
 * into archive entries): a batch's seeds are read in one round trip, then
 * their clean records in another. */
static LwStatus collect(LwStageCtx *ctx, const char *const *hashes, size_t n, unsigned depth,
                        Collected *c)
{
  if (depth > MAX_DEPTH) {
    return lw_error_set(ctx->err, LW_ERR_LIMIT, "archives nested deeper than %d",
                        MAX_DEPTH);
  }
  LwStatus st = LW_OK;
  for (size_t from = 0; from < n && st == LW_OK; from += READ_BATCH) {
    size_t m = n - from < READ_BATCH ? n - from : READ_BATCH;
    json_t *seeds[READ_BATCH], *cleans[READ_BATCH] = {0};
    st = lw_seed_get_many(ctx->redis, ctx->config->prefix, hashes + from, m, seeds, ctx->err);
    if (st == LW_OK) {
      st = read_cleans(ctx, seeds, m, cleans);
    }
    for (size_t i = 0; i < m; ++i) {
      if (st == LW_OK) {
        st = collect_one(ctx, hashes[from + i], seeds[i], cleans[i], depth, c);
      }
      json_decref(seeds[i]);
      json_decref(cleans[i]);
    }
  }
  return st;
}

static void collected_free(Collected *c)
{
  for (size_t i = 0; i < c->count; ++i) {
    free(c->paths[i]);
  }
  free(c->paths);
  json_decref(c->failed);
}

static LwSparqlStore *open_store(const LwConfig *cfg, LwError *err)
{
  if (!strcmp(cfg->store, "files")) {
    return NULL;
  }
  LwSparqlOptions o = {.update_url = cfg->store,
                       .gsp_url = *cfg->store_gsp ? cfg->store_gsp : NULL,
                       .user = *cfg->store_user ? cfg->store_user : NULL,
                       .password = cfg->store_password,
                       .connections = (size_t)cfg->store_connections};
  if (!lw_sparql_mode_parse(cfg->store_mode, &o.mode)) {
    lw_error_set(err, LW_ERR_USAGE, "--store-mode: '%s' is not gsp or update",
                 cfg->store_mode);
    return NULL;
  }
  return lw_sparql_open(&o, err);
}

/* Records the import's report on the harvest and ends it, in the job's
 * fenced ack (queue/txn.h): the report and the end come together, once, and
 * only while the harvest is still running (not timed out meanwhile). */
static LwStatus record_report(LwStageCtx *ctx, const char *harvest,
                              const LwGraphImportReport *r, const Collected *c)
{
  LwTxn *txn = ctx->txn;
  lw_txn_harvest_running(txn, harvest);
  char buf[64];
  const struct {
    const char *field;
    unsigned long long value;
  } counts[] = {
    {"triples", r->merge.triples},
    {"subjects", r->merge.subjects},
    {"harvest_subjects", r->merge.harvest_subjects},
    {"added", r->merge.added},
    {"removed", r->merge.removed},
    {"foreign_graph", r->merge.foreign_graph},
    {"files", c->count},
    {"finished", (unsigned long long)lw_now_ms()},
  };
  for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); ++i) {
    snprintf(buf, sizeof(buf), "%llu", counts[i].value);
    lw_txn_harvest_set(txn, harvest, counts[i].field, buf);
  }
  char *failed = json_dumps(c->failed, JSON_COMPACT);
  lw_txn_harvest_set(txn, harvest, "failed_files", failed ? failed : "[]");
  free(failed);
  lw_txn_harvest_set(txn, harvest, "changeset_added", r->added_path);
  lw_txn_harvest_set(txn, harvest, "changeset_removed", r->removed_path);
  lw_txn_harvest_set(txn, harvest, "status",
                     json_array_size(c->failed) ? "failed" : "done");
  lw_txn_counter_add(txn, "triples_imported", (long long)r->merge.added);
  return LW_OK;
}

/* The import's progress note in the worker's heartbeat (`lodwash status`).
 * Called on the merge's thread, while the job's thread only writes the
 * graph's database: the job's Redis connection is never used by both. */
static void report_progress(void *handle, unsigned long long triples,
                            unsigned long long requests)
{
  LwStageCtx *ctx = handle;
  if (strcmp(ctx->config->store, "files")) {
    lw_stage_progress(ctx, "%llu triples merged, %llu requests sent to the store", triples,
                      requests);
  } else {
    lw_stage_progress(ctx, "%llu triples merged", triples);
  }
}

static LwStatus import_harvest(LwStageCtx *ctx, const char *id, const json_t *harvest)
{
  const char *provider = lw_record_str(harvest, "provider", "");
  json_t *dumps = json_loads(lw_record_str(harvest, "seeds", "[]"), 0, NULL);
  Collected c = {.failed = json_array()};
  LwStatus st = json_is_array(dumps) && c.failed
                  ? LW_OK
                  : lw_error_set(ctx->err, LW_ERR_FORMAT, "harvest %s: bad dumps", id);
  size_t n = 0;
  const char **files = st == LW_OK ? strings_of(dumps, &n) : NULL;
  if (st == LW_OK && !files && n) {
    st = lw_error_set(ctx->err, LW_ERR_NOMEM, "out of memory");
  }
  if (st == LW_OK) {
    st = collect(ctx, files, n, 0, &c);
  }
  free(files);
  if (st == LW_OK && c.unfinished) {
    /* Never a harvest done with data missing: it stays running, and is
     * imported once those files finish (a retried job reopened it; else the
     * harvest timeout ends it). */
    lw_warn("stage=import harvest=%s outcome=waiting unfinished=%zu first=\"%s\" "
            "msg=\"files of the harvest are not finished: not imported now\"",
            id, c.unfinished, c.first_unfinished);
    collected_free(&c);
    json_decref(dumps);
    return LW_NOTHING;
  }
  LwSparqlStore *store = st == LW_OK ? open_store(ctx->config, ctx->err) : NULL;
  if (st == LW_OK && strcmp(ctx->config->store, "files") && !store) {
    st = ctx->err->status;
  }
  char graph[2048];
  snprintf(graph, sizeof(graph), "%s/%s", ctx->config->graph_base, provider);
  LwGraphImportReport report;
  if (st == LW_OK) {
    /* shown by `lodwash status` and the dashboard while the merge runs */
    lw_stage_progress(ctx, "merging %zu clean files (%zu failed) into the graph of %s%s",
                      c.count, json_array_size(c.failed), provider,
                      store ? " and the triple store" : "");
    LwGraphImportOptions o = {.data_dir = ctx->config->data_dir,
                              .provider = provider,
                              .graph_iri = graph,
                              .harvest_id = id,
                              .clean_paths = (const char *const *)c.paths,
                              .clean_count = c.count,
                              .store = store,
                              .progress = report_progress,
                              .progress_handle = ctx};
    st = lw_graph_import(&o, &report, ctx->err);
  }
  if (st == LW_OK) {
    st = record_report(ctx, id, &report, &c);
  }
  if (st == LW_OK) {
    /* with the import's ack, in its call (none queued twice) */
    lw_txn_push_job(ctx->txn, "export", provider, NULL, LW_PRIORITY_NORMAL, NULL);
  }
  if (st == LW_OK) {
    lw_info("stage=import provider=%s harvest=%s files=%zu failed=%zu triples=%llu "
            "added=%llu removed=%llu foreign_graph=%llu",
            provider, id, c.count, json_array_size(c.failed), report.merge.triples,
            report.merge.added, report.merge.removed, report.merge.foreign_graph);
  }
  lw_sparql_close(store);
  collected_free(&c);
  json_decref(dumps);
  return st;
}

LwStatus lw_stage_import_run(LwStageCtx *ctx)
{
  const char *id = ctx->job->harvest;
  json_t *harvest = NULL;
  LwStatus st = lw_records_harvest_get(ctx->redis, ctx->config->prefix, id, &harvest,
                                       ctx->err);
  if (st != LW_OK) {
    return st == LW_NOTHING ? lw_error_set(ctx->err, LW_ERR_STATE, "no harvest %s", id)
                            : st;
  }
  const char *state = lw_record_str(harvest, "status", "");
  if (!strcmp(state, "done") || !strcmp(state, "failed")) {
    st = LW_NOTHING; /* imported already: this job ran twice */
  } else if (lw_record_int(harvest, "pending", 0) > 0) {
    /* Queued by hand too early; the last file will queue it again. */
    lw_warn("stage=import harvest=%s msg=\"still waiting for %lld files\"", id,
            lw_record_int(harvest, "pending", 0));
    st = LW_NOTHING;
  } else {
    size_t unfinished = 0;
    char first[64];
    st = lw_harvest_unfinished(ctx->redis, ctx->config->prefix, id, &unfinished, first,
                               ctx->err);
    if (st == LW_OK && unfinished) {
      /* pending says none, the sets say otherwise: trust the files */
      lw_warn("stage=import harvest=%s outcome=waiting unfinished=%zu first=%s "
              "msg=\"files of the harvest are not finished: not imported now\"",
              id, unfinished, first);
      st = LW_NOTHING;
    } else if (st == LW_OK) {
      st = import_harvest(ctx, id, harvest);
    }
  }
  json_decref(harvest);
  return st;
}
