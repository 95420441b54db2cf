#include "queue/seed_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/keys.h"
#include "queue/redis_cmd.h"

static const char *str_at(const redisReply *r, size_t i)
{
  return r->type == REDIS_REPLY_ARRAY && i < r->elements &&
             r->element[i]->type == REDIS_REPLY_STRING
           ? r->element[i]->str
           : NULL;
}

LwStatus lw_seed_read_fields(redisContext *c, const char *prefix, const char *const *hashes,
                             size_t n, const char *const *fields, size_t nfields,
                             LwSeedScanFn fn, void *arg, LwError *err)
{
  if (nfields > LW_SEED_SCAN_FIELDS_MAX) {
    return lw_error_set(err, LW_ERR_USAGE, "too many seed fields to read");
  }
  const char *argv[2 + LW_SEED_SCAN_FIELDS_MAX];
  argv[0] = "HMGET";
  for (size_t f = 0; f < nfields; ++f) {
    argv[2 + f] = fields[f];
  }
  for (size_t i = 0; i < n; ++i) {
    LwKey key = lw_key(prefix, LW_KEY_SEED, hashes[i]);
    argv[1] = key.s;
    redisAppendCommandArgv(c, (int)(2 + nfields), argv, NULL);
  }
  for (size_t i = 0; i < n; ++i) {
    redisReply *r = NULL;
    if (redisGetReply(c, (void **)&r) != REDIS_OK || !r) {
      return lw_error_set(err, LW_ERR_REDIS, "Redis: %s", c->errstr);
    }
    const char *values[LW_SEED_SCAN_FIELDS_MAX];
    for (size_t f = 0; f < nfields; ++f) {
      values[f] = str_at(r, f);
    }
    fn(arg, hashes[i], values);
    freeReplyObject(r);
  }
  return LW_OK;
}

/* The seeds of one SCAN page (their hashes after the key's last ':'). */
static LwStatus read_page(redisContext *c, const char *prefix, const redisReply *keys,
                          const char *const *fields, size_t nfields, LwSeedScanFn fn,
                          void *arg, LwError *err)
{
  const char **hashes = calloc(keys->elements ? keys->elements : 1, sizeof(*hashes));
  if (!hashes) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < keys->elements; ++i) {
    const char *colon = strrchr(keys->element[i]->str, ':');
    if (colon) {
      hashes[n++] = colon + 1;
    }
  }
  LwStatus st = lw_seed_read_fields(c, prefix, hashes, n, fields, nfields, fn, arg, err);
  free(hashes);
  return st;
}

LwStatus lw_seed_scan_step(redisContext *c, const char *prefix, char cursor[32], long count,
                           const char *const *fields, size_t nfields, LwSeedScanFn fn,
                           void *arg, LwError *err)
{
  if (nfields > LW_SEED_SCAN_FIELDS_MAX) {
    return lw_error_set(err, LW_ERR_USAGE, "too many seed fields to scan");
  }
  LwKey pattern = lw_key(prefix, LW_KEY_SEED, "*");
  char count_text[32];
  snprintf(count_text, sizeof(count_text), "%ld", count);
  redisReply *r = lw_redis_cmd(c, err, "SCAN", cursor, "MATCH", pattern.s, "COUNT",
                               count_text, NULL);
  if (!r) {
    return err ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = LW_OK;
  if (r->type == REDIS_REPLY_ARRAY && r->elements == 2) {
    snprintf(cursor, 32, "%s", r->element[0]->str);
    st = read_page(c, prefix, r->element[1], fields, nfields, fn, arg, err);
  }
  freeReplyObject(r);
  return st;
}
