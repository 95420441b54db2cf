/*
 * The unpack stage: a `filed` seed is either an archive, whose entries become
 * child seeds, or data, whose encoding is settled.
 *
 *   archive: filed -> unarchiving -> depleted, with `children` (hashes),
 *            `skipped` (links, devices, ... as JSON; none: absent),
 *            `format`... and per entry a child seed: status filed, parent,
 *            archive (entry JSON), content, depth, provider, harvest (its
 *            file its own raw/ab/cd/<hash>); plus an unpack job per child.
 *            The harvest expects n - 1 more files (the archive is replaced
 *            by its n entries).
 *   data:    filed -> unarchiving -> unarchived, with `encoding`,
 *            `encoding_source`, `encoding_replaced` (absent: 0), and when
 *            the data was recoded `file` pointing at the UTF-8 copy
 *            (`original_file` keeps the bytes as they came), with its
 *            `utf8_content`; then a guess job.
 *
 * Where a seed's bytes are: its `file` field (relative to the data
 * directory), else DATA/raw/ab/cd/<hash> (where the download stage puts a
 * body). Children are written to DATA/raw/ab/cd/<child hash>; UTF-8 copies
 * to DATA/utf8/ab/cd/<hash>.
 *
 * Caps come from the configuration (--archive-max-*). The harvest's budget
 * (--harvest-max-bytes, --harvest-max-files) holds across every archive
 * level and worker: the unpack reserves room before it writes
 * (queue/unpack_budget.h), the ack records what it wrote, a failure gives
 * its reservation back. Past it the archive fails with "harvest budget
 * exceeded: ..." and the rest of the harvest goes on.
 *
 * Everything recorded rides in the job's ack (ctx->txn), so a job that runs
 * twice records once; files are written by tmp + rename and land at the same
 * hashed paths. The seed's moves (filed -> unarchiving, then unarchived with
 * a guess job, or depleted) are the frame's, from the stage table
 * (workers/stages.c); a seed already past this stage, or another harvest's,
 * is left alone (LW_NOTHING).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/archive.h"
#include "files/files.h"
#include "base/base.h"
#include "queue/harvest.h"
#include "queue/record.h"
#include "queue/records.h"
#include "queue/seed.h"
#include "queue/unpack_budget.h"
#include "workers/stage.h"

/* The seed's file, relative to the data directory, into rel. */
static LwStatus seed_file(const json_t *seed, const char *hash, char *rel, size_t size)
{
  const char *file = lw_record_str(seed, "file", NULL);
  if (file && *file) {
    return snprintf(rel, size, "%s", file) < (int)size ? LW_OK : LW_ERR_LIMIT;
  }
  return lw_seed_default_file(hash, rel, size);
}

/* A name for a compressed single file's entry: the archive entry's path for
 * a child, else the last segment of the URI without query or fragment. */
static void seed_name(const json_t *seed, char *out, size_t size)
{
  out[0] = '\0';
  json_t *archive = json_loads(lw_record_str(seed, "archive", "{}"), 0, NULL);
  const char *path = json_string_value(json_object_get(archive, "path"));
  if (path) {
    snprintf(out, size, "%s", path);
  } else {
    snprintf(out, size, "%s", lw_record_str(seed, "uri", ""));
    out[strcspn(out, "?#")] = '\0';
  }
  json_decref(archive);
}

static bool on_progress(void *data, uint64_t bytes)
{
  LwStageCtx *ctx = data;
  lw_stage_progress(ctx, "%llu MB expanded", (unsigned long long)(bytes >> 20));
  return !lw_stage_stopping(ctx);
}

static char *json_text(json_t *j)
{
  char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
  return s;
}

static void txn_seed_json(LwTxn *txn, const char *seed, const char *field, json_t *value)
{
  char *text = json_text(value);
  if (text) {
    lw_txn_seed_set(txn, seed, field, text);
    free(text);
  }
}

static void txn_seed_int(LwTxn *txn, const char *seed, const char *field, long long v)
{
  char text[32];
  snprintf(text, sizeof(text), "%lld", v);
  lw_txn_seed_set(txn, seed, field, text);
}

/* The status an entry starts in: the one this stage takes (`filed`). */
static const char *entry_status(const LwStageCtx *ctx)
{
  return lw_stage_find(ctx->job->stage)->takes;
}

/* How a child's record gets to `filed`: "" (new, or filed already), or
 * "added" when an earlier harvest of the same dump left it further on and it
 * must start again (added, then filed). LW_ERR_STATE when the seed machine
 * cannot take it there: checked for every child before anything is added to
 * the ack, since a refused move in a MULTI does not undo the others. */
static LwStatus child_reset(LwStageCtx *ctx, const char *hash, bool *reset)
{
  *reset = false;
  json_t *old = NULL;
  LwStatus st = lw_seed_get(ctx->redis, ctx->config->prefix, hash, &old, ctx->err);
  if (st != LW_OK) {
    return st == LW_NOTHING ? LW_OK : st;
  }
  const char *status = lw_record_str(old, "status", "");
  const char *start = entry_status(ctx);
  if (lw_seed_transition_allowed(status, start)) {
    st = LW_OK;
  } else if (lw_seed_transition_allowed(status, "added") &&
             lw_seed_transition_allowed("added", start)) {
    *reset = true;
  } else {
    st = lw_error_set(ctx->err, LW_ERR_STATE,
                      "entry seed %s (from an earlier harvest) is %s and cannot be %s "
                      "again (the seed machine needs added -> %s)",
                      hash, status, start, start);
  }
  json_decref(old);
  return st;
}

/* A child seed, its record and its job (this stage's, lw_stage_spawn). */
static void record_child(LwStageCtx *ctx, const json_t *parent, const char *parent_hash,
                         unsigned depth, const LwUnpackEntry *e, bool reset)
{
  LwTxn *txn = ctx->txn;
  const char *harvest = ctx->job->harvest;
  lw_stage_spawn(ctx, e->hash, reset);
  lw_txn_seed_set(txn, e->hash, "parent", parent_hash);
  lw_txn_seed_file(txn, e->hash, e->relpath);
  txn_seed_json(txn, e->hash, "archive", e->archive);
  json_t *content = lw_content_meta_json(&e->content);
  txn_seed_json(txn, e->hash, "content", content);
  json_decref(content);
  txn_seed_int(txn, e->hash, "depth", (long long)depth + 1);
  txn_seed_int(txn, e->hash, "added", lw_now_ms());
  const char *provider = lw_record_str(parent, "provider", NULL);
  if (provider) {
    lw_txn_seed_set(txn, e->hash, "provider", provider);
  }
  if (*harvest) {
    lw_txn_seed_set(txn, e->hash, "harvest", harvest);
  }
}

static LwStatus record_archive(LwStageCtx *ctx, const json_t *seed, const char *hash,
                               unsigned depth, const LwUnpackResult *r, long long in_bytes)
{
  LwTxn *txn = ctx->txn;
  json_t *children = json_array();
  if (!children) {
    return lw_error_set(ctx->err, LW_ERR_NOMEM, "out of memory");
  }
  bool *reset = calloc(r->n_entries + 1, sizeof(*reset));
  if (!reset) {
    json_decref(children);
    return lw_error_set(ctx->err, LW_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < r->n_entries; ++i) {
    LwStatus st = child_reset(ctx, r->entries[i].hash, &reset[i]);
    if (st) {
      free(reset);
      json_decref(children);
      return st;
    }
  }
  for (size_t i = 0; i < r->n_entries; ++i) {
    record_child(ctx, seed, hash, depth, &r->entries[i], reset[i]);
    json_array_append_new(children, json_string(r->entries[i].hash));
  }
  free(reset);
  txn_seed_json(txn, hash, "children", children);
  json_decref(children);
  if (json_array_size(r->skipped) > 0) {
    txn_seed_json(txn, hash, "skipped", r->skipped);
  } else { /* none: no field (queue/seed.h), nor an earlier harvest's */
    lw_txn_seed_unset(txn, hash, "skipped");
  }
  json_t *fmt = json_pack("{s:s, s:O}", "format", r->format, "filters", r->filters);
  txn_seed_json(txn, hash, "archive_format", fmt);
  json_decref(fmt);
  txn_seed_int(txn, hash, "processed", lw_now_ms());
  lw_stage_other(ctx); /* depleted: its entries go on, not the archive */
  const char *harvest = ctx->job->harvest;
  if (*harvest) {
    /* The entries become files of the harvest in the frame's fan-in
     * (workers/stage_results.c); here only the budget is settled. */
    lw_txn_unpack_budget_settle(txn, harvest, hash, r->bytes_expanded, r->files_written,
                                (uint64_t)in_bytes);
  }
  lw_info(
    "stage=unpack seed=%s outcome=depleted entries=%zu skipped=%zu bytes=%llu format=\"%s\"",
    hash, r->n_entries, json_array_size(r->skipped), (unsigned long long)r->bytes_expanded,
    r->format);
  return LW_OK;
}

/* The data file's encoding settled; file (size bytes): the file the next
 * stage reads (the UTF-8 copy when recoded), relative to the data
 * directory. */
static LwStatus settle_data(LwStageCtx *ctx, const char *hash, const char *rel, char *file,
                           size_t size)
{
  const char *data = ctx->config->data_dir;
  char in[4096], out_rel[1024], out[4096];
  LW_TRY(lw_store_relpath("utf8", hash, "", out_rel, sizeof(out_rel)));
  if (snprintf(in, sizeof(in), "%s/%s", data, rel) >= (int)sizeof(in) ||
      snprintf(out, sizeof(out), "%s/%s", data, out_rel) >= (int)sizeof(out)) {
    return lw_error_set(ctx->err, LW_ERR_LIMIT, "data directory path too long");
  }
  LwEncodingResult enc;
  LW_TRY(lw_encoding_settle(data, in, out, &enc, ctx->err));
  LwTxn *txn = ctx->txn;
  lw_txn_seed_set(txn, hash, "encoding", enc.encoding);
  lw_txn_seed_set(txn, hash, "encoding_source", enc.source);
  lw_txn_seed_int_or_drop(txn, hash, "encoding_replaced", (long long)enc.replaced);
  if (enc.recoded) {
    lw_txn_seed_set(txn, hash, "original_file", rel);
    lw_txn_seed_file(txn, hash, out_rel);
    json_t *content = lw_content_meta_json(&enc.content);
    txn_seed_json(txn, hash, "utf8_content", content);
    json_decref(content);
  } else {
    lw_txn_seed_file(txn, hash, rel);
  }
  snprintf(file, size, "%s", enc.recoded ? out_rel : rel);
  txn_seed_int(txn, hash, "processed", lw_now_ms());
  /* unarchived, and on to the next stage: the frame's moves (the row) */
  lw_info(
    "stage=unpack seed=%s outcome=unarchived encoding=%s source=%s recoded=%s replaced=%llu",
    hash, enc.encoding, enc.source, enc.recoded ? "true" : "false",
    (unsigned long long)enc.replaced);
  return LW_OK;
}

/* A data file's guess, in this job when the worker serves the guess stage
 * and it is not paused (docs/design.md, round trips): reading its first KB
 * costs less than a job of its own. file: the data file, rel: the seed's
 * own; when they differ, file is this job's UTF-8 copy, which a failure
 * (not RDF) would leave unrecorded: it goes with it. */
static LwStatus fold_guess(LwStageCtx *ctx, const json_t *seed, const char *hash,
                           const char *rel, const char *file)
{
  const char *next = lw_stage_find(ctx->job->stage)->done.next;
  if (!next || !lw_stage_may_fold(ctx, next)) {
    return LW_OK;
  }
  bool skipped;
  LwStatus st = lw_stage_guess_file(ctx, seed, hash, file, &skipped);
  if (st > LW_NOTHING) {
    char path[4096];
    if (strcmp(file, rel) != 0 &&
        snprintf(path, sizeof(path), "%s/%s", ctx->config->data_dir, file) < (int)sizeof(path)) {
      unlink(path);
    }
    return st;
  }
  lw_stage_fold(ctx, next, skipped ? LW_STAGE_OTHER : LW_STAGE_DONE);
  return LW_OK;
}

static LwStatus unpack_seed(LwStageCtx *ctx, const json_t *seed, const char *hash)
{
  const LwConfig *cfg = ctx->config;
  char rel[1024], path[4096], name[1024];
  if (seed_file(seed, hash, rel, sizeof(rel)) ||
      snprintf(path, sizeof(path), "%s/%s", cfg->data_dir, rel) >= (int)sizeof(path)) {
    return lw_error_set(ctx->err, LW_ERR_LIMIT, "seed file path too long");
  }
  seed_name(seed, name, sizeof(name));
  long long depth = lw_record_int(seed, "depth", 0);
  LwUnpackOptions o;
  memset(&o, 0, sizeof(o));
  o.data_dir = cfg->data_dir;
  o.parent_hash = hash;
  o.name = name;
  o.depth = depth > 0 ? (unsigned)depth : 0;
  o.limits = lw_unpack_limits_default();
  o.limits.max_entries = cfg->archive_max_entries > 0 ? (uint64_t)cfg->archive_max_entries
                                                      : 0;
  o.limits.max_archive_bytes = cfg->archive_max_bytes > 0 ? (uint64_t)cfg->archive_max_bytes
                                                          : 0;
  o.limits.max_entry_bytes = o.limits.max_archive_bytes;
  o.limits.max_ratio = cfg->archive_max_ratio > 0 ? (uint64_t)cfg->archive_max_ratio : 0;
  o.limits.max_depth = cfg->archive_max_depth > 0 ? (unsigned)cfg->archive_max_depth : 0;
  o.progress = on_progress;
  o.progress_data = ctx;
  /* A downloaded archive (depth 0) brings its size into the harvest's
   * chain ratio: what all levels below it may expand to. */
  struct stat st_in;
  long long in_bytes = o.depth == 0 && stat(path, &st_in) == 0 ? (long long)st_in.st_size
                                                               : 0;
  LwUnpackBudgetRef budget = {ctx->redis,
                              cfg->prefix,
                              ctx->job->harvest,
                              hash,
                              cfg->harvest_max_bytes,
                              cfg->harvest_max_files,
                              in_bytes,
                              (long long)o.limits.max_ratio,
                              (long long)o.limits.ratio_min_bytes,
                              cfg->unpacked_max_bytes};
  if (*ctx->job->harvest) {
    o.budget.reserve = lw_unpack_budget_reserve;
    o.budget.data = &budget;
  }
  LwUnpackResult *r = NULL;
  LwStatus unpacked = lw_archive_unpack(path, &o, &r, ctx->err);
  if (unpacked != LW_OK) {
    LwError release_err;
    if (o.budget.reserve && lw_unpack_budget_release(&budget, &release_err) != LW_OK) {
      lw_warn("stage=unpack seed=%s msg=\"budget not given back\" error=\"%s\"", hash,
              release_err.message); /* counted against the harvest: errs on the safe side */
    }
    return unpacked;
  }
  char file[1024] = "";
  LwStatus st = r->kind == LW_UNPACK_ARCHIVE
                  ? record_archive(ctx, seed, hash, o.depth, r, in_bytes)
                  : settle_data(ctx, hash, rel, file, sizeof(file));
  lw_unpack_result_free(r);
  if (st == LW_OK && *file) {
    st = fold_guess(ctx, seed, hash, rel, file);
  }
  return st;
}

/* The seed is in this stage's working status (lw_stage_on_own_seed). */
static LwStatus unpack_own_seed(LwStageCtx *ctx, const json_t *seed)
{
  return unpack_seed(ctx, seed, ctx->job->seed);
}

LwStatus lw_stage_unpack_run(LwStageCtx *ctx)
{
  return lw_stage_on_own_seed(ctx, unpack_own_seed);
}
