/*
 * The data directory part of a collection (queue/retention.h): files whose
 * record is gone. Every file lodwash writes is named after its record:
 *
 *   raw/ab/cd/<seed hash>, utf8/ab/cd/<seed hash>   seed:<hash>
 *   prefetch/ab/cd/<seed hash>                       seed:<hash> (a re-check's body)
 *   clean/ab/cd/<md5>.nq.gz                          seed:<md5> (clean record)
 *   changesets/<provider>/<harvest id, ':' as '_'>.{added,removed}.nq.gz   harvest:<id>
 *   tmp/<any name>                                   none (work in progress)
 *
 * A file goes when its record was swept by this collection, or when its
 * record does not exist and the file is older than the grace period (a
 * worker writes an entry's file before its ack records the seed). Other
 * names are left alone.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "queue/redis_cmd.h"
#include "queue/retention_gc.h"

typedef enum { OWNER_SEED, OWNER_HARVEST, OWNER_NONE } Owner;

/* One file looked at: its path relative to the data directory and the
 * record it belongs to. */
typedef struct {
  char rel[1024];
  char id[512];
  Owner owner;
} Candidate;

static bool old_enough(const LwGc *g, const char *path)
{
  struct stat sb;
  if (stat(path, &sb) != 0) {
    return false;
  }
  return (long long)sb.st_mtime * 1000 <= g->now_ms - g->grace_ms;
}

static LwStatus remove_file(LwGc *g, const char *rel)
{
  char path[4096];
  if (snprintf(path, sizeof(path), "%s/%s", g->cfg->data_dir, rel) >= (int)sizeof(path)) {
    return LW_OK;
  }
  if (!g->o->dry_run && unlink(path) != 0 && errno != ENOENT) {
    return lw_error_set(g->err, LW_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
  }
  ++g->stats->files;
  lw_gc_report(g, "file", rel);
  return LW_OK;
}

/* Whether the record of c is known for sure: live (keep), swept now (go). */
static int verdict(LwGc *g, const Candidate *c)
{
  if (c->owner == OWNER_SEED) {
    return lw_hex_set_has(g->live, c->id) ? 1 : lw_hex_set_has(g->doomed, c->id) ? -1 : 0;
  }
  if (c->owner == OWNER_HARVEST) {
    return lw_names_has(&g->gone_harvests, c->id) ? -1 : 0;
  }
  return 0;
}

/* Decides the files of one directory: EXISTS of the unsure ones' records in
 * one round trip. */
static LwStatus settle(LwGc *g, Candidate *cands, size_t n)
{
  int *argcs = calloc(n + 1, sizeof(*argcs));
  const char ***argvs = calloc(n + 1, sizeof(*argvs));
  const char **args = calloc(2 * n + 1, sizeof(*args));
  LwKey *keys = calloc(n + 1, sizeof(*keys));
  redisReply **replies = calloc(n + 1, sizeof(*replies));
  size_t *which = calloc(n + 1, sizeof(*which));
  LwStatus st = argcs && argvs && args && keys && replies && which
                  ? LW_OK
                  : lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
  size_t unsure = 0;
  for (size_t i = 0; st == LW_OK && i < n; ++i) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", g->cfg->data_dir, cands[i].rel);
    int v = verdict(g, &cands[i]);
    if (v < 0) {
      st = remove_file(g, cands[i].rel);
    } else if (v == 0 && old_enough(g, path)) {
      if (cands[i].owner == OWNER_NONE) {
        st = remove_file(g, cands[i].rel);
        continue;
      }
      keys[unsure] = lw_key(g->cfg->prefix,
                            cands[i].owner == OWNER_SEED ? LW_KEY_SEED : LW_KEY_HARVEST,
                            cands[i].id);
      args[2 * unsure] = "EXISTS";
      args[2 * unsure + 1] = keys[unsure].s;
      argvs[unsure] = &args[2 * unsure];
      argcs[unsure] = 2;
      which[unsure++] = i;
    }
  }
  if (st == LW_OK && unsure) {
    st = lw_gc_pipeline(g, unsure, argcs, (const char *const *const *)argvs, replies);
  }
  for (size_t k = 0; st == LW_OK && k < unsure; ++k) {
    if (replies[k] && replies[k]->type == REDIS_REPLY_INTEGER && replies[k]->integer == 0) {
      st = remove_file(g, cands[which[k]].rel);
    }
  }
  for (size_t k = 0; replies && k < unsure; ++k) {
    freeReplyObject(replies[k]);
  }
  free(argcs);
  free(argvs);
  free(args);
  free(keys);
  free(replies);
  free(which);
  return st;
}

/* The record a file name belongs to; false for names lodwash does not
 * write there. */
typedef bool (*NameFn)(const char *name, Candidate *c);

static bool seed_name(const char *name, Candidate *c)
{
  size_t len = strlen(name);
  size_t hash_len = len > 6 && !strcmp(name + len - 6, ".nq.gz") ? len - 6 : len;
  if (hash_len != LW_HASH_HEX_LEN || strspn(name, "0123456789abcdef") < hash_len) {
    return false;
  }
  snprintf(c->id, sizeof(c->id), "%.*s", (int)hash_len, name);
  c->owner = OWNER_SEED;
  return true;
}

static bool changeset_name(const char *name, Candidate *c)
{
  static const char *const ends[] = {".added.nq.gz", ".removed.nq.gz"};
  size_t len = strlen(name);
  for (size_t i = 0; i < 2; ++i) {
    size_t e = strlen(ends[i]);
    if (len > e && !strcmp(name + len - e, ends[i]) && len - e < sizeof(c->id)) {
      snprintf(c->id, sizeof(c->id), "%.*s", (int)(len - e), name);
      /* the import writes the id's ':' as '_' (graph_store/graph_import.c);
       * names written before that have their ':' and no '_' */
      for (char *u = strchr(c->id, '_'); u; u = strchr(u + 1, '_')) {
        *u = ':';
      }
      c->owner = OWNER_HARVEST;
      return true;
    }
  }
  return false;
}

static bool tmp_name(const char *name, Candidate *c)
{
  (void)name;
  c->id[0] = '\0';
  c->owner = OWNER_NONE;
  return true;
}

/* Looks at the regular files of DATA/rel (not below). */
static LwStatus sweep_dir(LwGc *g, const char *rel, NameFn name_of)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", g->cfg->data_dir, rel);
  DIR *d = opendir(path);
  if (!d) {
    return LW_OK;
  }
  Candidate *cands = NULL;
  size_t n = 0, cap = 0;
  LwStatus st = LW_OK;
  struct dirent *e;
  while (st == LW_OK && (e = readdir(d))) {
    Candidate c;
    if (e->d_name[0] == '.' || (e->d_type != DT_REG && e->d_type != DT_UNKNOWN) ||
        !name_of(e->d_name, &c) ||
        snprintf(c.rel, sizeof(c.rel), "%s/%s", rel, e->d_name) >= (int)sizeof(c.rel)) {
      continue;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      Candidate *grown = realloc(cands, cap * sizeof(*grown));
      if (!grown) {
        st = lw_error_set(g->err, LW_ERR_NOMEM, "out of memory");
        break;
      }
      cands = grown;
    }
    cands[n++] = c;
  }
  closedir(d);
  if (st == LW_OK && n) {
    st = settle(g, cands, n);
  }
  free(cands);
  return st;
}

/* Calls sweep_dir on every subdirectory of DATA/rel, levels deep. */
static LwStatus sweep_tree(LwGc *g, const char *rel, int levels, NameFn name_of)
{
  if (levels == 0) {
    return sweep_dir(g, rel, name_of);
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", g->cfg->data_dir, rel);
  DIR *d = opendir(path);
  if (!d) {
    return LW_OK;
  }
  LwStatus st = LW_OK;
  struct dirent *e;
  while (st == LW_OK && (e = readdir(d))) {
    char sub[1024];
    if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
        snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name) >= (int)sizeof(sub)) {
      continue;
    }
    st = sweep_tree(g, sub, levels - 1, name_of);
  }
  closedir(d);
  return st;
}

LwStatus lw_retention_sweep_files(LwGc *g)
{
  LW_TRY(sweep_tree(g, "raw", 2, seed_name));
  LW_TRY(sweep_tree(g, "utf8", 2, seed_name));
  LW_TRY(sweep_tree(g, "prefetch", 2, seed_name));
  LW_TRY(sweep_tree(g, "clean", 2, seed_name));
  LW_TRY(sweep_tree(g, "changesets", 1, changeset_name));
  return sweep_dir(g, "tmp", tmp_name);
}
