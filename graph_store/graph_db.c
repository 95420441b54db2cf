#include "graph_store/graph_store.h"

#include <errno.h>
#include <lmdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/stat.h>

#include "base/base.h"
#include "files/files.h"

#define HASH_LEN 8
#define LONG_KEY (LW_GRAPH_DB_SHORT + HASH_LEN)
/* Address space only: the file grows with the data. */
#define MAP_SIZE ((size_t)1 << 40)

struct LwGraphDb {
  MDB_env *env;
  MDB_dbi triples;
  MDB_dbi meta;
  MDB_txn *txn;                 /* the open write transaction, or NULL */
  MDB_cursor *writer;           /* the transaction's puts and dels */
  unsigned long long mutations; /* puts and dels: cursors seek again after one */
  unsigned char key[LONG_KEY];  /* a long triple's key */
  /* The last key of the database, while it is known: a put of a greater
   * key appends (MDB_APPEND: no search, pages filled full). Keys come in
   * sorted order in a migration and past the old graph's end in an import,
   * so most of a new graph's puts are appends. */
  unsigned char tail[LONG_KEY];
  size_t tail_len;
  bool tail_known;
};

struct LwGraphCursor {
  LwGraphDb *db;
  MDB_txn *own_txn; /* a read snapshot when no write transaction was open */
  MDB_cursor *cursor;
  LwBuf prefix;
  LwBuf last_key; /* key of the last triple given back */
  bool started;
  bool reseek;   /* the cursor stands past last_key: seek from it */
  bool snapshot; /* in its own read snapshot: writes never move it */
  bool past_end; /* a snapshot cursor ran past the last key */
  unsigned long long seen_mutations;
  LwBuf *run; /* long triples sharing their first bytes, sorted */
  size_t run_len, run_pos, run_cap;
};

/* True when the file system holding env has no room left: LMDB reports a
 * short write on a full disk as EIO ("Input/output error"), which would
 * send an operator looking for a failing disk rather than a full one. */
static bool disk_full(MDB_env *env)
{
  const char *path = NULL;
  struct statvfs vfs;
  if (!env || mdb_env_get_path(env, &path) || !path || statvfs(path, &vfs)) {
    return false;
  }
  return (unsigned long long)vfs.f_bavail * vfs.f_frsize < 1024 * 1024;
}

static LwStatus mdb_fail(MDB_env *env, LwError *err, int rc, const char *what)
{
  LwStatus st = rc == ENOMEM ? LW_ERR_NOMEM : LW_ERR_IO;
  if (rc == ENOSPC || (rc == EIO && disk_full(env))) {
    return lw_error_set(err, st, "graph database: %s: no space left on device (ENOSPC)",
                        what);
  }
  return lw_error_set(err, st, "graph database: %s: %s", what, mdb_strerror(rc));
}

LwStatus lw_graph_db_path(const char *data_dir, const char *provider, char *buf,
                          size_t size)
{
  int n = snprintf(buf, size, "%s/graphs/%s.lmdb", data_dir, provider);
  return n < 0 || (size_t)n >= size ? LW_ERR_LIMIT : LW_OK;
}

bool lw_graph_db_exists(const char *data_dir, const char *provider)
{
  char path[4096 + 16];
  struct stat sb;
  return lw_graph_db_path(data_dir, provider, path, sizeof(path) - 16) == LW_OK &&
         strcat(path, "/data.mdb") && stat(path, &sb) == 0;
}

/* Opens the two databases, creating them in a writable environment. */
static LwStatus open_dbis(LwGraphDb *db, bool read_only, LwError *err)
{
  MDB_txn *txn;
  int rc = mdb_txn_begin(db->env, NULL, read_only ? MDB_RDONLY : 0, &txn);
  if (rc) {
    return mdb_fail(db->env, err, rc, "begin");
  }
  unsigned flags = read_only ? 0 : MDB_CREATE;
  rc = mdb_dbi_open(txn, "triples", flags, &db->triples);
  if (!rc) {
    rc = mdb_dbi_open(txn, "meta", flags, &db->meta);
  }
  if (rc) {
    mdb_txn_abort(txn);
    return mdb_fail(db->env, err, rc, "open");
  }
  rc = mdb_txn_commit(txn);
  return rc ? mdb_fail(db->env, err, rc, "commit") : LW_OK;
}

LwStatus lw_graph_db_open(const char *data_dir, const char *provider, bool read_only,
                          LwGraphDb **out, LwError *err)
{
  char path[4096], probe[4096 + 8];
  *out = NULL;
  if (lw_graph_db_path(data_dir, provider, path, sizeof(path)) != LW_OK) {
    return lw_error_set(err, LW_ERR_LIMIT, "data directory path too long");
  }
  if (read_only && !lw_graph_db_exists(data_dir, provider)) {
    return lw_error_set(err, LW_NOTHING, "no graph %s in %s", provider, data_dir);
  }
  snprintf(probe, sizeof(probe), "%s/x", path);
  LW_TRY(lw_store_mkparents(probe, err));
  LwGraphDb *db = calloc(1, sizeof(*db));
  if (!db) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  int rc = mdb_env_create(&db->env);
  if (!rc) {
    rc = mdb_env_set_maxdbs(db->env, 2);
  }
  if (!rc) {
    rc = mdb_env_set_mapsize(db->env, MAP_SIZE);
  }
  if (!rc) {
    rc = mdb_env_open(db->env, path, MDB_NOTLS | (read_only ? MDB_RDONLY : 0), 0644);
  }
  LwStatus st = rc ? mdb_fail(db->env, err, rc, path) : open_dbis(db, read_only, err);
  if (st != LW_OK) {
    lw_graph_db_close(db);
    return st;
  }
  *out = db;
  return LW_OK;
}

unsigned long long lw_graph_db_last_commit(LwGraphDb *db)
{
  MDB_envinfo info;
  return mdb_env_info(db->env, &info) == 0 ? (unsigned long long)info.me_last_txnid : 0;
}

void lw_graph_db_close(LwGraphDb *db)
{
  if (db) {
    lw_graph_db_abort(db);
    if (db->env) {
      mdb_env_close(db->env);
    }
    free(db);
  }
}

static void tail_set(LwGraphDb *db, const MDB_val *key)
{
  memcpy(db->tail, key->mv_data, key->mv_size);
  db->tail_len = key->mv_size;
  db->tail_known = true;
}

/* Opens the transaction's write cursor and finds the database's last key
 * (none in an empty database: every put appends). */
static int writer_open(LwGraphDb *db)
{
  int rc = mdb_cursor_open(db->txn, db->triples, &db->writer);
  if (rc) {
    return rc;
  }
  MDB_val key, value;
  rc = mdb_cursor_get(db->writer, &key, &value, MDB_LAST);
  db->tail_len = 0;
  db->tail_known = rc == 0 || rc == MDB_NOTFOUND;
  if (rc == 0) {
    tail_set(db, &key);
  }
  return rc == MDB_NOTFOUND ? 0 : rc;
}

static void writer_close(LwGraphDb *db)
{
  if (db->writer) {
    mdb_cursor_close(db->writer);
    db->writer = NULL;
  }
}

LwStatus lw_graph_db_begin(LwGraphDb *db, LwError *err)
{
  int rc = mdb_txn_begin(db->env, NULL, 0, &db->txn);
  if (rc) {
    db->txn = NULL;
    return mdb_fail(db->env, err, rc, "begin");
  }
  rc = writer_open(db);
  if (rc) {
    lw_graph_db_abort(db);
    return mdb_fail(db->env, err, rc, "cursor");
  }
  return LW_OK;
}

LwStatus lw_graph_db_clear(LwGraphDb *db, LwError *err)
{
  /* mdb_drop frees the tree's pages without visiting each key; the writer
   * cursor is reopened on the empty tree (every put is then an append) */
  writer_close(db);
  int rc = mdb_drop(db->txn, db->triples, 0);
  if (!rc) {
    rc = writer_open(db);
  }
  db->mutations++;
  return rc ? mdb_fail(db->env, err, rc, "clear") : LW_OK;
}

LwStatus lw_graph_db_commit(LwGraphDb *db, LwError *err)
{
  writer_close(db);
  int rc = mdb_txn_commit(db->txn);
  db->txn = NULL;
  return rc ? mdb_fail(db->env, err, rc, "commit") : LW_OK;
}

void lw_graph_db_abort(LwGraphDb *db)
{
  writer_close(db);
  if (db->txn) {
    mdb_txn_abort(db->txn);
    db->txn = NULL;
  }
}

/* FNV-1a, 64 bits, big-endian into out. */
static void hash64(const char *data, size_t len, unsigned char *out)
{
  uint64_t h = 14695981039346656037ULL;
  for (size_t i = 0; i < len; ++i) {
    h = (h ^ (unsigned char)data[i]) * 1099511628211ULL;
  }
  for (int i = HASH_LEN - 1; i >= 0; --i, h >>= 8) {
    out[i] = (unsigned char)h;
  }
}

static MDB_val key_of(LwGraphDb *db, const char *triple, size_t len)
{
  if (len <= LW_GRAPH_DB_SHORT) {
    return (MDB_val){len, (void *)triple};
  }
  memcpy(db->key, triple, LW_GRAPH_DB_SHORT);
  hash64(triple, len, db->key + LW_GRAPH_DB_SHORT);
  return (MDB_val){LONG_KEY, db->key};
}

static int compare_keys(const MDB_val *a, const unsigned char *b, size_t blen)
{
  size_t n = a->mv_size < blen ? a->mv_size : blen;
  int c = memcmp(a->mv_data, b, n);
  return c ? c : (a->mv_size > blen) - (a->mv_size < blen);
}

/* Puts and dels go through one cursor: in key order, LMDB finds the next
 * key's page from the cursor's (no search from the root). */
LwStatus lw_graph_db_put(LwGraphDb *db, const char *triple, size_t len, LwError *err)
{
  MDB_val key = key_of(db, triple, len);
  MDB_val value = {len > LW_GRAPH_DB_SHORT ? len : 0, (void *)triple};
  bool append = db->tail_known && compare_keys(&key, db->tail, db->tail_len) > 0;
  int rc = mdb_cursor_put(db->writer, &key, &value, append ? MDB_APPEND : 0);
  if (rc == 0 && append) {
    tail_set(db, &key);
  }
  ++db->mutations;
  return rc ? mdb_fail(db->env, err, rc, "put") : LW_OK;
}

LwStatus lw_graph_db_del(LwGraphDb *db, const char *triple, size_t len, LwError *err)
{
  MDB_val key = key_of(db, triple, len), value;
  int rc = mdb_cursor_get(db->writer, &key, &value, MDB_SET);
  if (rc == 0) {
    if (db->tail_known && compare_keys(&key, db->tail, db->tail_len) == 0) {
      db->tail_known = false; /* the new last key is not worth a lookup */
    }
    rc = mdb_cursor_del(db->writer, 0);
  }
  ++db->mutations;
  return rc && rc != MDB_NOTFOUND ? mdb_fail(db->env, err, rc, "del") : LW_OK;
}

/* ---- graph IRI and counts ---- */

static void meta_get(MDB_txn *txn, MDB_dbi dbi, const char *name, char *buf, size_t size)
{
  MDB_val key = {strlen(name), (void *)name}, value;
  buf[0] = '\0';
  if (mdb_get(txn, dbi, &key, &value) == 0 && value.mv_size < size) {
    memcpy(buf, value.mv_data, value.mv_size);
    buf[value.mv_size] = '\0';
  }
}

LwStatus lw_graph_db_info(LwGraphDb *db, LwGraphDbInfo *info, LwError *err)
{
  MDB_txn *txn = db->txn;
  if (!txn) {
    int rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn);
    if (rc) {
      return mdb_fail(db->env, err, rc, "begin");
    }
  }
  char number[32];
  meta_get(txn, db->meta, "graph_iri", info->graph_iri, sizeof(info->graph_iri));
  meta_get(txn, db->meta, "triples", number, sizeof(number));
  info->triples = strtoull(number, NULL, 10);
  meta_get(txn, db->meta, "subjects", number, sizeof(number));
  info->subjects = strtoull(number, NULL, 10);
  if (txn != db->txn) {
    mdb_txn_abort(txn);
  }
  return LW_OK;
}

static int meta_put(LwGraphDb *db, const char *name, const char *text)
{
  MDB_val key = {strlen(name), (void *)name}, value = {strlen(text), (void *)text};
  return mdb_put(db->txn, db->meta, &key, &value, 0);
}

LwStatus lw_graph_db_set_info(LwGraphDb *db, const LwGraphDbInfo *info, LwError *err)
{
  char triples[32], subjects[32];
  snprintf(triples, sizeof(triples), "%llu", info->triples);
  snprintf(subjects, sizeof(subjects), "%llu", info->subjects);
  int rc = meta_put(db, "graph_iri", info->graph_iri);
  if (!rc) {
    rc = meta_put(db, "triples", triples);
  }
  if (!rc) {
    rc = meta_put(db, "subjects", subjects);
  }
  return rc ? mdb_fail(db->env, err, rc, "meta") : LW_OK;
}

LwStatus lw_graph_db_last_import(LwGraphDb *db, char *buf, size_t size, LwError *err)
{
  MDB_txn *txn = db->txn;
  if (!txn) {
    int rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn);
    if (rc) {
      return mdb_fail(db->env, err, rc, "begin");
    }
  }
  meta_get(txn, db->meta, "last_import", buf, size);
  if (txn != db->txn) {
    mdb_txn_abort(txn);
  }
  return LW_OK;
}

LwStatus lw_graph_db_set_last_import(LwGraphDb *db, const char *record, LwError *err)
{
  int rc = meta_put(db, "last_import", record);
  return rc ? mdb_fail(db->env, err, rc, "meta") : LW_OK;
}

/* ---- cursors ---- */

/* True when every key starting with the cursor's prefix sorts before every
 * key starting with prefix (greater, and not an extension of it). */
static bool prefix_after(const LwGraphCursor *c, const char *prefix, size_t len)
{
  size_t n = len < c->prefix.len ? len : c->prefix.len;
  return c->prefix.len && memcmp(prefix, c->prefix.data, n) > 0;
}

LwStatus lw_graph_cursor_seek(LwGraphCursor *c, const char *prefix, size_t len,
                              LwError *err)
{
  /* In a snapshot, no key follows the last one: an import's new subjects
   * past the old graph's end cost no search. */
  c->past_end = c->snapshot && c->past_end && prefix_after(c, prefix, len);
  lw_buf_reset(&c->prefix);
  if (len && lw_buf_append(&c->prefix, prefix, len) != LW_OK) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  c->started = c->reseek = false;
  c->run_len = c->run_pos = 0;
  return LW_OK;
}

static LwStatus cursor_open(LwGraphDb *db, const char *prefix, size_t len, bool snapshot,
                            LwGraphCursor **out, LwError *err)
{
  LwGraphCursor *c = calloc(1, sizeof(*c));
  if (!c || lw_graph_cursor_seek(c, prefix, len, err) != LW_OK) {
    free(c);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  c->db = db;
  c->snapshot = snapshot || !db->txn;
  int rc = 0;
  if (c->snapshot) {
    rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, &c->own_txn);
  }
  if (!rc) {
    rc = mdb_cursor_open(c->snapshot ? c->own_txn : db->txn, db->triples, &c->cursor);
  }
  if (rc) {
    lw_graph_cursor_close(c);
    return mdb_fail(db->env, err, rc, "cursor");
  }
  *out = c;
  return LW_OK;
}

LwStatus lw_graph_cursor_open(LwGraphDb *db, const char *prefix, size_t len,
                              LwGraphCursor **out, LwError *err)
{
  return cursor_open(db, prefix, len, false, out, err);
}

LwStatus lw_graph_cursor_open_committed(LwGraphDb *db, LwGraphCursor **out, LwError *err)
{
  return cursor_open(db, NULL, 0, true, out, err);
}

void lw_graph_cursor_close(LwGraphCursor *c)
{
  if (!c) {
    return;
  }
  if (c->cursor) {
    mdb_cursor_close(c->cursor);
  }
  if (c->own_txn) {
    mdb_txn_abort(c->own_txn);
  }
  for (size_t i = 0; i < c->run_cap; ++i) {
    lw_buf_free(&c->run[i]);
  }
  free(c->run);
  lw_buf_free(&c->prefix);
  lw_buf_free(&c->last_key);
  free(c);
}

static bool has_prefix(const LwGraphCursor *c, const MDB_val *key)
{
  return key->mv_size >= c->prefix.len &&
         (!c->prefix.len || !memcmp(key->mv_data, c->prefix.data, c->prefix.len));
}

/* Moves to the first key after last_key (or the first key of the prefix). */
static int step(LwGraphCursor *c, MDB_val *key, MDB_val *value)
{
  if (!c->started) {
    c->started = true;
    *key = (MDB_val){c->prefix.len, c->prefix.data};
    return c->prefix.len ? mdb_cursor_get(c->cursor, key, value, MDB_SET_RANGE)
                         : mdb_cursor_get(c->cursor, key, value, MDB_FIRST);
  }
  if (!c->reseek && (c->snapshot || c->seen_mutations == c->db->mutations)) {
    return mdb_cursor_get(c->cursor, key, value, MDB_NEXT);
  }
  c->reseek = false;
  *key = (MDB_val){c->last_key.len, c->last_key.data};
  int rc = mdb_cursor_get(c->cursor, key, value, MDB_SET_RANGE);
  if (!rc && key->mv_size == c->last_key.len &&
      !memcmp(key->mv_data, c->last_key.data, key->mv_size)) {
    rc = mdb_cursor_get(c->cursor, key, value, MDB_NEXT);
  }
  return rc;
}

static int by_bytes(const void *a, const void *b)
{
  const LwBuf *x = a, *y = b;
  int d = memcmp(x->data, y->data, x->len < y->len ? x->len : y->len);
  return d ? d : (x->len > y->len) - (x->len < y->len);
}

static LwStatus run_add(LwGraphCursor *c, const MDB_val *value, LwError *err)
{
  if (c->run_len == c->run_cap) {
    size_t cap = c->run_cap ? c->run_cap * 2 : 4;
    LwBuf *grown = realloc(c->run, cap * sizeof(LwBuf));
    if (!grown) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    memset(grown + c->run_cap, 0, (cap - c->run_cap) * sizeof(LwBuf));
    c->run = grown;
    c->run_cap = cap;
  }
  LwBuf *b = &c->run[c->run_len++];
  lw_buf_reset(b);
  return lw_buf_append(b, value->mv_data, value->mv_size) == LW_OK
           ? LW_OK
           : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
}

/* Reads the long triples whose keys share key's first bytes, and sorts them
 * by their whole text: their hashes order them otherwise. */
static LwStatus read_run(LwGraphCursor *c, MDB_val key, MDB_val value, LwError *err)
{
  unsigned char head[LW_GRAPH_DB_SHORT];
  memcpy(head, key.mv_data, sizeof(head));
  c->run_len = c->run_pos = 0;
  int rc = 0;
  while (!rc && key.mv_size == LONG_KEY && !memcmp(key.mv_data, head, sizeof(head)) &&
         has_prefix(c, &key)) {
    LW_TRY(run_add(c, &value, err));
    lw_buf_reset(&c->last_key);
    if (lw_buf_append(&c->last_key, key.mv_data, key.mv_size) != LW_OK) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    rc = mdb_cursor_get(c->cursor, &key, &value, MDB_NEXT);
  }
  if (rc && rc != MDB_NOTFOUND) {
    return mdb_fail(c->db->env, err, rc, "read");
  }
  c->reseek = true;
  qsort(c->run, c->run_len, sizeof(LwBuf), by_bytes);
  return LW_OK;
}

LwStatus lw_graph_cursor_next(LwGraphCursor *c, const char **triple, size_t *len,
                              LwError *err)
{
  if (c->run_pos < c->run_len) {
    LwBuf *b = &c->run[c->run_pos++];
    *triple = b->data;
    *len = b->len;
    return LW_OK;
  }
  if (c->past_end) {
    return LW_NOTHING;
  }
  MDB_val key, value;
  int rc = step(c, &key, &value);
  c->seen_mutations = c->db->mutations;
  c->past_end = rc == MDB_NOTFOUND;
  if (rc == MDB_NOTFOUND || (!rc && !has_prefix(c, &key))) {
    return LW_NOTHING;
  }
  if (rc) {
    return mdb_fail(c->db->env, err, rc, "read");
  }
  if (key.mv_size == LONG_KEY) {
    LW_TRY(read_run(c, key, value, err));
    return lw_graph_cursor_next(c, triple, len, err);
  }
  lw_buf_reset(&c->last_key);
  if (lw_buf_append(&c->last_key, key.mv_data, key.mv_size) != LW_OK) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  *triple = key.mv_data;
  *len = key.mv_size;
  return LW_OK;
}
