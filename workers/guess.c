/*
 * Stage guess: `unarchived` -> `guessing` -> `guessed` with `format`, from
 * the content's first KB (rdf/rdf.h); the media type the download was
 * answered with (queue/seed_http.h) and the file name are hints only. Not
 * RDF: the seed fails with the reason (a permanent error: the frame marks
 * it failed), unless it is `optional` (a catalogue's distribution of
 * undeclared format, a sitemap's page: sources/sources.h): then it ends
 * `skipped`, with the reason in its field `skipped`: done, no parse,
 * nothing to import.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf.h"
#include "base/base.h"
#include "queue/record.h"
#include "queue/seed.h"
#include "queue/seed_http.h"
#include "workers/stage.h"

/* A name to take the extension from: the archive entry's path, else the URI. */
static char *file_name_of(const json_t *seed)
{
  json_t *archive = json_loads(lw_record_str(seed, "archive", "{}"), 0, NULL);
  const char *path = json_string_value(json_object_get(archive, "path"));
  char *name = strdup(path ? path : lw_record_str(seed, "uri", ""));
  json_decref(archive);
  return name;
}

static LwStatus read_head(const LwStageCtx *ctx, const char *file, char *head, size_t *len)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", ctx->config->data_dir, file);
  FILE *f = fopen(path, "rb");
  if (!f) {
    return lw_error_set(ctx->err, LW_ERR_IO, "cannot read %s", path);
  }
  *len = fread(head, 1, LW_GUESS_HEAD_MAX, f);
  bool failed = ferror(f);
  fclose(f);
  return failed ? lw_error_set(ctx->err, LW_ERR_IO, "read error on %s", path) : LW_OK;
}

LwStatus lw_stage_guess_file(LwStageCtx *ctx, const json_t *seed, const char *hash,
                             const char *rel, bool *skipped)
{
  *skipped = false;
  char *head = malloc(LW_GUESS_HEAD_MAX);
  if (!head) {
    return lw_error_set(ctx->err, LW_ERR_NOMEM, "out of memory");
  }
  size_t len = 0;
  LwStatus st = read_head(ctx, rel, head, &len);
  char *media = lw_seed_http_media_type(seed);
  char *name = file_name_of(seed);
  LwGuessInfo info;
  LwFormat format = st == LW_OK ? lw_guess_format(head, len, media, name, &info)
                                : LW_FORMAT_UNKNOWN;
  if (st == LW_OK && format == LW_FORMAT_UNKNOWN) {
    *skipped = !strcmp(lw_record_str(seed, "optional", "0"), "1");
    if (*skipped) {
      char reason[LW_ERROR_MESSAGE_MAX];
      snprintf(reason, sizeof(reason), "not RDF: %s", info.reason);
      lw_txn_seed_set(ctx->txn, hash, "skipped", reason);
      lw_info("stage=guess seed=%s outcome=skipped msg=\"%s\"", hash, reason);
    } else {
      st = lw_error_set(ctx->err, LW_ERR_FORMAT, "not RDF: %s", info.reason);
    }
  }
  if (st == LW_OK && !*skipped) {
    lw_txn_seed_set(ctx->txn, hash, "format", lw_format_name(format));
    lw_txn_seed_set(ctx->txn, hash, "guess", info.reason);
  }
  free(head);
  free(media);
  free(name);
  return st;
}

static LwStatus guess_seed(LwStageCtx *ctx, const json_t *seed)
{
  const char *hash = ctx->job->seed;
  const char *file = lw_record_str(seed, "file", NULL);
  if (!file) {
    return lw_error_set(ctx->err, LW_ERR_STATE, "seed %s has no file", hash);
  }
  bool skipped;
  LW_TRY(lw_stage_guess_file(ctx, seed, hash, file, &skipped));
  if (skipped) {
    lw_stage_other(ctx);
  }
  return LW_OK;
}

LwStatus lw_stage_guess_run(LwStageCtx *ctx)
{
  return lw_stage_on_own_seed(ctx, guess_seed);
}
