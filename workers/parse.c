/*
 * Stage parse: `guessed` -> `parsing` -> `parsed`, cleaning the seed's file
 * into canonical N-Quads (clean/clean.h: the same code path as `lodwash
 * clean`). The clean file is named by the MD5 of its content,
 * DATA/clean/ab/cd/<md5>.nq.gz, and described by a record of its own,
 * PREFIXseed:<md5> with status `cleaned`, `dirty` pointing back and the
 * counts; the dirty seed gets `clean` pointing at it. Content already
 * cleaned (same content hash, PREFIXcleanof:<content hash>) is not parsed
 * again, except in a reclean (queue/reclean.h). The harvest counts the
 * file as done (queue/harvest.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clean/clean.h"
#include "jsonld/jsonld.h"
#include "files/files.h"
#include "base/base.h"
#include "queue/keys.h"
#include "queue/record.h"
#include "queue/records.h"
#include "queue/redis.h"
#include "queue/seed.h"
#include "workers/context_cache.h"
#include "workers/stage.h"

#define MAX_PARENTS 64

/* The base IRI for relative IRIs: the seed's URI, or for an archive entry
 * the URI of the download it came from. "" when none is found. */
static void base_iri_of(LwStageCtx *ctx, const json_t *seed, char *out, size_t size)
{
  out[0] = '\0';
  const char *uri = lw_record_str(seed, "uri", NULL);
  const char *parent = lw_record_str(seed, "parent", NULL);
  json_t *cur = NULL;
  for (int i = 0; !uri && parent && i < MAX_PARENTS; ++i) {
    json_t *next = NULL;
    LwError err;
    if (lw_seed_get(ctx->redis, ctx->config->prefix, parent, &next, &err) != LW_OK) {
      break;
    }
    json_decref(cur);
    cur = next;
    uri = lw_record_str(cur, "uri", NULL);
    parent = lw_record_str(cur, "parent", NULL);
  }
  if (uri) {
    snprintf(out, size, "%s", uri);
  }
  json_decref(cur);
}

/* scheme://authority of the graph base: blank nodes become
 * <that/.well-known/genid/...> (RFC 8615 puts .well-known at the root). */
static void skolem_base_of(const LwConfig *cfg, char *out, size_t size)
{
  LwUriParts parts;
  lw_uri_split(cfg->graph_base, &parts);
  if (!parts.scheme.ptr || !parts.authority.ptr) {
    snprintf(out, size, "%s", LW_CLEAN_DEFAULT_SKOLEM_BASE);
    return;
  }
  snprintf(out, size, "%.*s://%.*s", (int)parts.scheme.len, parts.scheme.ptr,
           (int)parts.authority.len, parts.authority.ptr);
}

/* The name of the seed's content for PREFIXcleanof: its hash, and its
 * provider, since blank nodes are named after the seed that was cleaned
 * (rdf/rdf.h) and one provider's graph must not name another's. */
static const char *content_hash_of(const json_t *seed, char *out, size_t size)
{
  json_t *content = json_loads(lw_record_str(seed, "content", "{}"), 0, NULL);
  const char *hash = json_string_value(json_object_get(content, "hash"));
  const char *provider = lw_record_str(seed, "provider", "");
  snprintf(out, size, "%s%s%s", hash ? hash : "", hash && *provider ? " " : "",
           hash ? provider : "");
  json_decref(content);
  return *out ? out : NULL;
}

/* The clean record of content already cleaned whose file is still there. */
static bool already_cleaned(LwStageCtx *ctx, const char *content_hash, char *clean_out)
{
  LwError err;
  if (lw_records_clean_of(ctx->redis, ctx->config->prefix, content_hash, clean_out, &err) !=
      LW_OK) {
    return false;
  }
  json_t *record = NULL;
  bool found = false;
  if (lw_seed_get(ctx->redis, ctx->config->prefix, clean_out, &record, &err) == LW_OK) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", ctx->config->data_dir,
             lw_record_str(record, "file", ""));
    found = access(path, R_OK) == 0;
  }
  json_decref(record);
  return found;
}

/* A reclean (queue/reclean.h) cleans again what was cleaned before:
 * the cleaner may have changed since, so the clean cache is not asked. */
static bool in_reclean(LwStageCtx *ctx)
{
  json_t *harvest = NULL;
  LwError err;
  if (!ctx->job->harvest ||
      lw_records_harvest_get(ctx->redis, ctx->config->prefix, ctx->job->harvest, &harvest,
                             &err) != LW_OK) {
    return false;
  }
  bool reclean = !strcmp(lw_record_str(harvest, "reclean", ""), "1");
  json_decref(harvest);
  return reclean;
}

static void set_count(LwTxn *txn, const char *seed, const char *field, unsigned long long n)
{
  char buf[32];
  snprintf(buf, sizeof(buf), "%llu", n);
  lw_txn_seed_set(txn, seed, field, buf);
}

static void count(LwStageCtx *ctx, const char *field, unsigned long long n)
{
  lw_txn_counter_add(ctx->txn, field, (long long)n);
}

/* The results, in the ack: the clean record, the dirty seed, the counters. */
static void record(LwStageCtx *ctx, const char *relpath, const char *content_hash,
                   const LwCleanReport *r)
{
  const char *dirty = ctx->job->seed;
  const char *clean = r->md5;
  lw_txn_seed_status(ctx->txn, clean, "cleaned");
  lw_txn_seed_set(ctx->txn, clean, "dirty", dirty);
  lw_txn_seed_set(ctx->txn, clean, "file", relpath);
  lw_txn_seed_set(ctx->txn, clean, "format", "N-Quads");
  set_count(ctx->txn, clean, "triples", r->triples);
  set_count(ctx->txn, clean, "bytes", r->bytes);

  lw_txn_seed_set(ctx->txn, dirty, "clean", clean);
  set_count(ctx->txn, dirty, "triples", r->triples);
  set_count(ctx->txn, dirty, "duplicates", r->duplicates);
  set_count(ctx->txn, dirty, "syntax_errors", r->syntax_errors);
  set_count(ctx->txn, dirty, "literal_errors", r->literal_errors);
  char *errors = lw_clean_report_errors_json(r);
  lw_txn_seed_set_or_drop(ctx->txn, dirty, "errors", errors ? errors : "[]", "[]");
  free(errors);
  char now[32];
  snprintf(now, sizeof(now), "%lld", lw_now_ms());
  lw_txn_seed_set(ctx->txn, dirty, "processed", now);
  if (content_hash) {
    lw_txn_clean_of_set(ctx->txn, content_hash, clean);
  }
  count(ctx, "triples_cleaned", r->triples);
  count(ctx, "errors:syntax", r->syntax_errors);
  count(ctx, "errors:literal", r->literal_errors);
}

/* Shown by `lodwash status` for the job in flight. */
static void report_progress(void *handle, unsigned long long statements)
{
  lw_stage_progress(handle, "%llu statements read", statements);
}

/* Cleans the seed's file into DATA/tmp, then renames it to its content name. */
static LwStatus clean_file(LwStageCtx *ctx, const json_t *seed, LwCleanReport *r,
                           char *relpath, size_t size)
{
  const LwConfig *cfg = ctx->config;
  char input[4096], tmp[4096], base[4096], skolem[1024];
  snprintf(input, sizeof(input), "%s/%s", cfg->data_dir, lw_record_str(seed, "file", ""));
  snprintf(tmp, sizeof(tmp), "%s/tmp/parse-%s-%ld.nq.gz", cfg->data_dir, ctx->job->seed,
           (long)getpid());
  LW_TRY(lw_store_mkparents(tmp, ctx->err));
  base_iri_of(ctx, seed, base, sizeof(base));
  skolem_base_of(cfg, skolem, sizeof(skolem));
  LwNetGuard *guard = NULL;
  LW_TRY(lw_netguard_new(cfg->allow_net, &guard, ctx->err));
  LwContextCache cache = {ctx->redis, cfg->prefix, cfg->context_cache_max_bytes};
  LwDocumentLoader loader = {.guard = guard,
                             .contact = cfg->contact,
                             .cache_get = lw_context_cache_get,
                             .cache_put = lw_context_cache_put,
                             .cache_handle = &cache};
  LwCleanOptions o = {
    .format = lw_format_parse(lw_record_str(seed, "format", "")),
    .base_iri = *base ? base : NULL,
    .seed_hash = ctx->job->seed,
    .skolem_base = skolem,
    .data_dir = cfg->data_dir,
    .memory_budget = (size_t)cfg->sort_memory_bytes,
    .max_errors = (int)cfg->max_errors_kept,
    .output_path = tmp,
    .compress = LW_CLEAN_GZIP_ON,
    .load_document = lw_document_load,
    .load_handle = &loader,
    .progress = report_progress,
    .progress_handle = ctx,
  };
  LwStatus st = lw_clean_file(input, &o, r, ctx->err);
  lw_netguard_free(guard);
  if (st != LW_OK) {
    unlink(tmp);
    return st;
  }
  char final[4096];
  lw_store_relpath("clean", r->md5, ".nq.gz", relpath, size);
  snprintf(final, sizeof(final), "%s/%s", cfg->data_dir, relpath);
  if (access(final, F_OK) == 0) {
    unlink(tmp); /* the same content was cleaned before: same file */
    return LW_OK;
  }
  return lw_store_commit(tmp, final, ctx->err);
}

static LwStatus parse_seed(LwStageCtx *ctx, const json_t *seed)
{
  const char *hash = ctx->job->seed;
  char content_hash[LW_HASH_HEX_LEN + 256], clean[LW_HASH_HEX_LEN + 1];
  const char *chash = content_hash_of(seed, content_hash, sizeof(content_hash));
  /* the harvest is read only for content cleaned before: most is not */
  if (chash && already_cleaned(ctx, chash, clean) && !in_reclean(ctx)) {
    lw_txn_seed_set(ctx->txn, hash, "clean", clean);
    lw_info("stage=parse seed=%s clean=%s msg=\"content cleaned before\"", hash, clean);
    return LW_OK;
  }
  LwCleanReport report;
  memset(&report, 0, sizeof(report));
  char relpath[1024];
  LwStatus st = clean_file(ctx, seed, &report, relpath, sizeof(relpath));
  if (st == LW_OK) {
    record(ctx, relpath, chash, &report);
    lw_info("stage=parse seed=%s format=%s triples=%llu duplicates=%llu syntax_errors=%llu "
            "literal_errors=%llu clean=%s",
            hash, lw_format_name(report.format), report.triples, report.duplicates,
            report.syntax_errors, report.literal_errors, report.md5);
  }
  lw_clean_report_free(&report);
  return st;
}

LwStatus lw_stage_parse_run(LwStageCtx *ctx)
{
  return lw_stage_on_own_seed(ctx, parse_seed);
}
