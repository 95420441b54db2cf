#include "archive/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files/files.h"

/* Read and write in blocks of this size: the memory used per archive is a
 * few of these plus what the decompressor needs, whatever the input size. */
#define BLOCK (256 * 1024)

LwUnpackLimits lw_unpack_limits_default(void)
{
  LwUnpackLimits l = {
    .max_entries = 100000,
    .max_entry_bytes = 16ULL << 30,
    .max_archive_bytes = 64ULL << 30,
    .max_ratio = 200,
    .ratio_min_bytes = 4ULL << 20,
    .max_depth = 8,
  };
  return l;
}

void lw_unpack_child_hash(const char *parent_hash, const char *entry_path,
                          char out[LW_HASH_HEX_LEN + 1])
{
  LwMd5 *md5 = lw_md5_new();
  if (!md5) {
    out[0] = '\0';
    return;
  }
  lw_md5_update(md5, parent_hash, strlen(parent_hash));
  lw_md5_update(md5, entry_path, strlen(entry_path));
  lw_md5_finish(md5, out);
  lw_md5_free(md5);
}

char *lw_unpack_single_name(const char *name)
{
  static const char *const exts[] = {".gz",   ".gzip", ".bz2",  ".bz",  ".xz",
                                     ".lzma", ".zst",  ".zstd", ".lz4", ".lz",
                                     ".Z",    ".lzo",  ".lrz",  ".uu",  NULL};
  const char *base = name ? strrchr(name, '/') : NULL;
  base = base ? base + 1 : name;
  if (!base || !*base) {
    return strdup("data");
  }
  size_t len = strlen(base);
  const char *dot = strrchr(base, '.');
  for (size_t i = 0; dot && dot != base && exts[i]; ++i) {
    if (!strcmp(dot, exts[i])) {
      len = (size_t)(dot - base);
      break;
    }
  }
  return strndup(base, len);
}

static void entry_clear(LwUnpackEntry *e)
{
  free(e->path);
  free(e->relpath);
  json_decref(e->archive);
}

void lw_unpack_result_free(LwUnpackResult *r)
{
  if (!r) {
    return;
  }
  for (size_t i = 0; i < r->n_entries; ++i) {
    entry_clear(&r->entries[i]);
  }
  free(r->entries);
  free(r->format);
  json_decref(r->filters);
  json_decref(r->skipped);
  free(r);
}

/* ---- the writer thread ----
 *
 * Decompression (libarchive, in the caller's thread) and hashing, counting
 * and writing (this thread) each take about half the time: with two cores
 * they overlap. Blocks go through a ring of WRITER_SLOTS buffers; libarchive
 * decompresses straight into the free slot. The file and counter change only
 * between entries, when the ring is empty (writer_drain). If the thread
 * cannot be started, the blocks are written in the caller's thread. */

#define WRITER_SLOTS 4

typedef struct {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool inited; /* mutex and condition exist */
  bool started;
  bool quit;
  char *slots[WRITER_SLOTS];
  size_t lens[WRITER_SLOTS];
  size_t head;  /* the next slot to fill */
  size_t count; /* filled slots not yet written */
  FILE *file;   /* the current entry's tmp file */
  LwContentCounter *counter;
  int error; /* errno of the first failed write */
} Writer;

static int write_block(FILE *file, LwContentCounter *counter, const char *b, size_t n)
{
  lw_content_counter_update(counter, b, n);
  if (fwrite(b, 1, n, file) != n) {
    return errno ? errno : EIO;
  }
  return 0;
}

static void *writer_main(void *arg)
{
  Writer *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (w->count == 0 && !w->quit) {
      pthread_cond_wait(&w->cv, &w->mu);
    }
    if (w->count == 0) {
      break;
    }
    size_t slot = (w->head + WRITER_SLOTS - w->count) % WRITER_SLOTS;
    FILE *file = w->file;
    LwContentCounter *counter = w->counter;
    pthread_mutex_unlock(&w->mu);
    int e = write_block(file, counter, w->slots[slot], w->lens[slot]);
    pthread_mutex_lock(&w->mu);
    if (e && !w->error) {
      w->error = e;
    }
    --w->count;
    pthread_cond_signal(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

static bool writer_init(Writer *w)
{
  memset(w, 0, sizeof(*w));
  for (size_t i = 0; i < WRITER_SLOTS; ++i) {
    if (!(w->slots[i] = malloc(BLOCK))) {
      return false;
    }
  }
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  w->inited = true;
  w->started = pthread_create(&w->thread, NULL, writer_main, w) == 0;
  return true;
}

static void writer_stop(Writer *w)
{
  if (w->started) {
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    w->started = false;
  }
  if (w->inited) {
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
  }
  for (size_t i = 0; i < WRITER_SLOTS; ++i) {
    free(w->slots[i]);
  }
}

/* The free slot libarchive may fill (waits while the ring is full). */
static char *writer_slot(Writer *w)
{
  if (!w->started) {
    return w->slots[0];
  }
  pthread_mutex_lock(&w->mu);
  while (w->count == WRITER_SLOTS) {
    pthread_cond_wait(&w->cv, &w->mu);
  }
  char *slot = w->slots[w->head];
  pthread_mutex_unlock(&w->mu);
  return slot;
}

/* Hands over the slot just filled with n bytes. */
static void writer_push(Writer *w, size_t n)
{
  if (!w->started) {
    int e = write_block(w->file, w->counter, w->slots[0], n);
    if (e && !w->error) {
      w->error = e;
    }
    return;
  }
  pthread_mutex_lock(&w->mu);
  w->lens[w->head] = n;
  w->head = (w->head + 1) % WRITER_SLOTS;
  ++w->count;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

/* Waits until every block is written; returns (and clears) the errno of a
 * failed write, 0 when all went well. */
static int writer_drain(Writer *w)
{
  if (w->started) {
    pthread_mutex_lock(&w->mu);
    while (w->count > 0) {
      pthread_cond_wait(&w->cv, &w->mu);
    }
    pthread_mutex_unlock(&w->mu);
  }
  int e = w->error;
  w->error = 0;
  return e;
}

/* ---- one call's state ---- */

typedef struct {
  const LwUnpackOptions *o;
  const char *kind;
  struct archive *a;
  LwUnpackResult *r;
  size_t cap;     /* allocated entries */
  char tmp[4096]; /* the tmp file being written, "" when none */
  Writer w;
  uint64_t headers;       /* entry headers seen */
  int fd;                 /* the file being unpacked */
  char *inbuf;            /* what the read callback hands libarchive */
  uint64_t delivered;     /* compressed bytes handed to libarchive so far */
  uint64_t granted_bytes; /* room the shared budget granted so far */
  uint64_t granted_files;
  LwError *err;
} Unpack;

static LwStatus nomem(Unpack *u)
{
  return lw_error_set(u->err, LW_ERR_NOMEM, "out of memory");
}

static const char *shown(const char *path, char buf[128]);

static LwStatus archive_failure(Unpack *u, const char *what)
{
  const char *msg = archive_error_string(u->a);
  char name[128];
  return lw_error_set(u->err, LW_ERR_FORMAT, "%s: %s", shown(what, name),
                      msg ? msg : "unknown error");
}

/* Every reader but mtree (see the header), plus raw for single files. */
static void enable_formats(struct archive *a)
{
  archive_read_support_format_7zip(a);
  archive_read_support_format_ar(a);
  archive_read_support_format_cab(a);
  archive_read_support_format_cpio(a);
  archive_read_support_format_empty(a);
  archive_read_support_format_iso9660(a);
  archive_read_support_format_lha(a);
  archive_read_support_format_rar(a);
  archive_read_support_format_rar5(a);
  archive_read_support_format_tar(a);
  archive_read_support_format_warc(a);
  archive_read_support_format_xar(a);
  archive_read_support_format_zip(a);
  archive_read_support_format_raw(a);
  archive_read_support_filter_all(a);
}

static bool is_data(struct archive *a)
{
  int format = archive_format(a);
  if (format == ARCHIVE_FORMAT_EMPTY) {
    return true;
  }
  return (format & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_RAW &&
         archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE;
}

/* Filter names outermost first ("none", the file itself, left out). */
static json_t *filter_names(struct archive *a)
{
  json_t *list = json_array();
  for (int i = archive_filter_count(a) - 1; list && i >= 0; --i) {
    if (archive_filter_code(a, i) != ARCHIVE_FILTER_NONE) {
      json_array_append_new(list, json_string(archive_filter_name(a, i)));
    }
  }
  return list;
}

/* jansson takes UTF-8 only: entry names in other encodings are shown with
 * U+FFFD for the bytes that are not (the hash uses the raw bytes). */
static json_t *json_text(const char *s)
{
  json_t *j = json_string(s);
  if (j) {
    return j;
  }
  size_t n = strlen(s);
  char *clean = malloc(n * 3 + 1);
  if (!clean) {
    return NULL;
  }
  size_t o = 0;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x80) {
      clean[o++] = (char)c;
    } else {
      memcpy(clean + o, "\xEF\xBF\xBD", 3);
      o += 3;
    }
  }
  clean[o] = '\0';
  j = json_string(clean);
  free(clean);
  return j;
}

static const char *entry_path(struct archive_entry *e)
{
  const char *p = archive_entry_pathname_utf8(e);
  if (!p) {
    p = archive_entry_pathname(e);
  }
  return p ? p : "";
}

static const char *filetype_name(struct archive_entry *e)
{
  if (archive_entry_hardlink(e)) {
    return "hardlink";
  }
  switch (archive_entry_filetype(e)) {
  case AE_IFREG:
    return "file";
  case AE_IFDIR:
    return "directory";
  case AE_IFLNK:
    return "symlink";
  case AE_IFCHR:
    return "character-device";
  case AE_IFBLK:
    return "block-device";
  case AE_IFIFO:
    return "fifo";
  case AE_IFSOCK:
    return "socket";
  default:
    return "unknown";
  }
}

static LwStatus record_skip(Unpack *u, struct archive_entry *e, const char *type,
                            const char *reason)
{
  json_t *s = json_pack("{s:o, s:s, s:s}", "path", json_text(entry_path(e)), "filetype",
                        type, "reason", reason);
  if (!s) {
    return nomem(u);
  }
  const char *target = archive_entry_hardlink(e);
  if (!target) {
    target = archive_entry_symlink(e);
  }
  if (target) {
    json_object_set_new(s, "target", json_text(target));
  }
  json_array_append_new(u->r->skipped, s);
  return LW_OK;
}

/* ---- caps ---- */

/* An entry name fit for an error message (which ends up in logs and on the
 * seed): control bytes as '?', at most 120 bytes. */
static const char *shown(const char *path, char buf[128])
{
  size_t i = 0;
  for (; path[i] && i < 120; ++i) {
    unsigned char c = (unsigned char)path[i];
    buf[i] = c < 0x20 || c == 0x7F ? '?' : (char)c;
  }
  buf[i] = '\0';
  return buf;
}

static LwStatus check_caps(Unpack *u, const char *path, uint64_t entry_bytes)
{
  const LwUnpackLimits *l = &u->o->limits;
  uint64_t total = u->r->bytes_expanded;
  char name[128];
  if (l->max_entry_bytes && entry_bytes > l->max_entry_bytes) {
    return lw_error_set(u->err, LW_ERR_LIMIT,
                        "entry '%s' expands to more than %llu bytes (max_entry_bytes)",
                        shown(path, name), (unsigned long long)l->max_entry_bytes);
  }
  if (l->max_archive_bytes && total > l->max_archive_bytes) {
    return lw_error_set(u->err, LW_ERR_LIMIT,
                        "archive expands to more than %llu bytes (max_archive_bytes)",
                        (unsigned long long)l->max_archive_bytes);
  }
  if (l->max_ratio && total > l->ratio_min_bytes) {
    uint64_t compressed = u->delivered ? u->delivered : 1;
    if (total / compressed >= l->max_ratio) {
      return lw_error_set(u->err, LW_ERR_LIMIT,
                          "expansion ratio over %llu (%llu bytes from %llu; max_ratio): "
                          "a compression bomb?",
                          (unsigned long long)l->max_ratio, (unsigned long long)total,
                          (unsigned long long)compressed);
    }
  }
  return LW_OK;
}

/* Makes sure the shared budget (if any) covers need_bytes and need_files in
 * all, asking for a step more than the need when it does not yet. */
static LwStatus reserve(Unpack *u, uint64_t need_bytes, uint64_t need_files)
{
  const LwUnpackBudget *b = &u->o->budget;
  if (!b->reserve || (need_bytes <= u->granted_bytes && need_files <= u->granted_files)) {
    return LW_OK;
  }
  uint64_t bytes = need_bytes + (b->step_bytes ? b->step_bytes : 8ULL << 20);
  uint64_t files = need_files + (b->step_files ? b->step_files : 64);
  LW_TRY(b->reserve(b->data, need_bytes, need_files, &bytes, &files, u->err));
  if (bytes < need_bytes || files < need_files) { /* a callback that broke its promise */
    return lw_error_set(u->err, LW_ERR_LIMIT, "harvest budget exceeded");
  }
  u->granted_bytes = bytes;
  u->granted_files = files;
  return LW_OK;
}

/* ---- writing one entry ---- */

/* Hands n bytes to the writer: from data, or zeros (a hole of a sparse
 * file) when data is NULL; counts them and checks the caps first. */
static LwStatus put_bytes(Unpack *u, const char *path, const char *data, uint64_t n,
                          uint64_t *bytes)
{
  while (n > 0) {
    size_t take = n < BLOCK ? (size_t)n : BLOCK;
    *bytes += take;
    u->r->bytes_expanded += take;
    LW_TRY(check_caps(u, path, *bytes));
    LW_TRY(reserve(u, u->r->bytes_expanded, u->r->files_written));
    char *block = writer_slot(&u->w);
    if (data) {
      memcpy(block, data, take);
      data += take;
    } else {
      memset(block, 0, take);
    }
    writer_push(&u->w, take);
    n -= take;
    if (u->o->progress && !u->o->progress(u->o->progress_data, u->r->bytes_expanded)) {
      return lw_error_set(u->err, LW_ERR_INTERNAL, "interrupted");
    }
  }
  return LW_OK;
}

/* Streams the current entry's data to the writer, counting and checking
 * caps as the bytes come out of the decompressor. archive_read_data_block
 * rather than archive_read_data: the latter gives the xar reader's second
 * entry the first one's bytes too (libarchive 3.6.2). Holes of sparse
 * files are written as zeros (and count against the caps like data). */
static LwStatus stream_entry(Unpack *u, struct archive_entry *e, const char *path,
                             uint64_t *bytes)
{
  for (;;) {
    const void *data = NULL;
    size_t size = 0;
    la_int64_t offset = 0;
    int rc = archive_read_data_block(u->a, &data, &size, &offset);
    if (rc == ARCHIVE_EOF) {
      break;
    }
    if (rc != ARCHIVE_OK) {
      return archive_failure(u, path);
    }
    if (offset < 0 || (uint64_t)offset < *bytes) {
      char name[128];
      return lw_error_set(u->err, LW_ERR_FORMAT, "entry '%s': data blocks overlap",
                          shown(path, name));
    }
    LW_TRY(put_bytes(u, path, NULL, (uint64_t)offset - *bytes, bytes));
    LW_TRY(put_bytes(u, path, data, size, bytes));
  }
  /* A sparse file may end in a hole. */
  if (archive_entry_sparse_count(e) > 0 && archive_entry_size_is_set(e) &&
      (uint64_t)archive_entry_size(e) > *bytes) {
    LW_TRY(put_bytes(u, path, NULL, (uint64_t)archive_entry_size(e) - *bytes, bytes));
  }
  return LW_OK;
}

static json_t *archive_meta(Unpack *u, struct archive_entry *e, const char *path,
                            uint64_t bytes)
{
  json_t *m = json_pack("{s:o, s:I, s:s, s:s}", "path", json_text(path), "size",
                        (json_int_t)bytes, "filetype", "file", "format", u->r->format);
  if (!m) {
    return NULL;
  }
  json_object_set(m, "filters", u->r->filters);
  json_object_set_new(m, "mtime",
                      archive_entry_mtime_is_set(e)
                        ? json_integer((json_int_t)archive_entry_mtime(e))
                        : json_null());
  char perm[8];
  snprintf(perm, sizeof(perm), "%04o", (unsigned)archive_entry_perm(e) & 07777);
  json_object_set_new(m, "permissions", json_string(perm));
  return m;
}

/* The slot for a child hash: the earlier entry of the same path when the
 * archive repeats one (the later one wins, as in tar extraction). */
static LwUnpackEntry *entry_slot(Unpack *u, const char *hash)
{
  for (size_t i = 0; i < u->r->n_entries; ++i) {
    if (!strcmp(u->r->entries[i].hash, hash)) {
      entry_clear(&u->r->entries[i]);
      return &u->r->entries[i];
    }
  }
  if (u->r->n_entries == u->cap) {
    size_t cap = u->cap ? u->cap * 2 : 16;
    LwUnpackEntry *grown = realloc(u->r->entries, cap * sizeof(*grown));
    if (!grown) {
      return NULL;
    }
    u->r->entries = grown;
    u->cap = cap;
  }
  return &u->r->entries[u->r->n_entries++];
}

static LwStatus commit_entry(Unpack *u, struct archive_entry *e, const char *path,
                             const char *hash, uint64_t bytes, LwContentMeta *meta)
{
  char rel[1024], final[4096];
  if (lw_store_relpath(u->kind, hash, "", rel, sizeof(rel)) ||
      snprintf(final, sizeof(final), "%s/%s", u->o->data_dir, rel) >= (int)sizeof(final)) {
    return lw_error_set(u->err, LW_ERR_LIMIT, "data directory path too long");
  }
  LW_TRY(lw_store_commit(u->tmp, final, u->err));
  u->tmp[0] = '\0';
  LwUnpackEntry *slot = entry_slot(u, hash);
  if (!slot) {
    return nomem(u);
  }
  memset(slot, 0, sizeof(*slot));
  memcpy(slot->hash, hash, sizeof(slot->hash));
  slot->path = strdup(path);
  slot->relpath = strdup(rel);
  slot->bytes = bytes;
  slot->content = *meta;
  slot->archive = archive_meta(u, e, path, bytes);
  if (!slot->path || !slot->relpath || !slot->archive) {
    return nomem(u);
  }
  return LW_OK;
}

static LwStatus write_entry(Unpack *u, struct archive_entry *e, const char *path)
{
  char hash[LW_HASH_HEX_LEN + 1];
  lw_unpack_child_hash(u->o->parent_hash, path, hash);
  if (!hash[0]) {
    return nomem(u);
  }
  if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0) {
    LW_TRY(check_caps(u, path, (uint64_t)archive_entry_size(e)));
  }
  LW_TRY(reserve(u, u->r->bytes_expanded, u->r->files_written + 1));
  ++u->r->files_written;
  FILE *file = NULL;
  LW_TRY(lw_store_tmpfile(u->o->data_dir, u->tmp, sizeof(u->tmp), &file, u->err));
  LwContentCounter *counter = lw_content_counter_new();
  uint64_t bytes = 0;
  u->w.file = file;
  u->w.counter = counter;
  LwStatus st = counter ? stream_entry(u, e, path, &bytes) : nomem(u);
  int write_errno = writer_drain(&u->w);
  if (write_errno && !st) {
    st = lw_error_set(u->err, LW_ERR_IO, "cannot write %s: %s", u->tmp,
                      strerror(write_errno));
  }
  u->w.file = NULL;
  u->w.counter = NULL;
  if (fclose(file) != 0 && !st) {
    st = lw_error_set(u->err, LW_ERR_IO, "cannot write %s: %s", u->tmp, strerror(errno));
  }
  LwContentMeta meta;
  memset(&meta, 0, sizeof(meta));
  if (counter) {
    lw_content_counter_finish(counter, &meta);
    lw_content_counter_free(counter);
  }
  LW_TRY(st);
  return commit_entry(u, e, path, hash, bytes, &meta);
}

/* ---- the archive ---- */

static LwStatus one_entry(Unpack *u, struct archive_entry *e)
{
  const LwUnpackLimits *l = &u->o->limits;
  if (l->max_entries && ++u->headers > l->max_entries) {
    return lw_error_set(u->err, LW_ERR_LIMIT,
                        "archive has more than %llu entries (max_entries)",
                        (unsigned long long)l->max_entries);
  }
  const char *type = filetype_name(e);
  if (!strcmp(type, "directory")) {
    return LW_OK;
  }
  if (strcmp(type, "file") != 0) {
    return record_skip(u, e, type, "not a regular file");
  }
  if (archive_entry_is_encrypted(e)) {
    return record_skip(u, e, type, "encrypted");
  }
  if ((archive_format(u->a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_RAW) {
    char *name = lw_unpack_single_name(u->o->name);
    if (!name) {
      return nomem(u);
    }
    LwStatus st = write_entry(u, e, name);
    free(name);
    return st;
  }
  return write_entry(u, e, entry_path(e));
}

static LwStatus first_header(Unpack *u, struct archive_entry **e, bool *eof)
{
  int rc = archive_read_next_header(u->a, e);
  if (rc == ARCHIVE_FATAL || rc == ARCHIVE_RETRY) {
    return archive_failure(u, "not a readable archive or compressed file");
  }
  *eof = rc == ARCHIVE_EOF;
  LwUnpackResult *r = u->r;
  r->format = strdup(archive_format_name(u->a) ? archive_format_name(u->a) : "unknown");
  r->filters = filter_names(u->a);
  if (!r->format || !r->filters) {
    return nomem(u);
  }
  r->kind = is_data(u->a) ? LW_UNPACK_DATA : LW_UNPACK_ARCHIVE;
  if (r->kind == LW_UNPACK_ARCHIVE && u->o->limits.max_depth &&
      u->o->depth + 1 > u->o->limits.max_depth) {
    return lw_error_set(u->err, LW_ERR_LIMIT,
                        "archive nested more than %u levels deep (max_depth)",
                        u->o->limits.max_depth);
  }
  return LW_OK;
}

/* Our own read callbacks rather than archive_read_open_filename: they count
 * the bytes libarchive really consumed, the denominator of the expansion
 * ratio (libarchive's own counter stays near zero for seekable formats such
 * as zip and 7z). */
static la_ssize_t src_read(struct archive *a, void *data, const void **out)
{
  Unpack *u = data;
  ssize_t n;
  do {
    n = read(u->fd, u->inbuf, BLOCK);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    archive_set_error(a, errno, "read error");
    return ARCHIVE_FATAL;
  }
  u->delivered += (uint64_t)n;
  *out = u->inbuf;
  return n;
}

static la_int64_t src_skip(struct archive *a, void *data, la_int64_t request)
{
  (void)a;
  Unpack *u = data;
  return lseek(u->fd, request, SEEK_CUR) < 0 ? 0 : request;
}

static la_int64_t src_seek(struct archive *a, void *data, la_int64_t offset, int whence)
{
  Unpack *u = data;
  off_t pos = lseek(u->fd, offset, whence);
  if (pos < 0) {
    archive_set_error(a, errno, "seek error");
    return ARCHIVE_FATAL;
  }
  return pos;
}

static LwStatus open_source(Unpack *u, const char *path)
{
  u->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (u->fd < 0) {
    return lw_error_set(u->err, LW_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  }
  archive_read_set_callback_data(u->a, u);
  archive_read_set_read_callback(u->a, src_read);
  archive_read_set_skip_callback(u->a, src_skip);
  archive_read_set_seek_callback(u->a, src_seek);
  if (archive_read_open1(u->a) != ARCHIVE_OK) {
    return archive_failure(u, path);
  }
  return LW_OK;
}

static LwStatus run(Unpack *u, const char *path)
{
  LW_TRY(open_source(u, path));
  struct archive_entry *e = NULL;
  bool eof = false;
  LW_TRY(first_header(u, &e, &eof));
  if (u->r->kind == LW_UNPACK_DATA) {
    return LW_OK;
  }
  while (!eof) {
    LW_TRY(one_entry(u, e));
    int rc = archive_read_next_header(u->a, &e);
    if (rc == ARCHIVE_FATAL || rc == ARCHIVE_RETRY) {
      return archive_failure(u, "corrupt or truncated archive");
    }
    eof = rc == ARCHIVE_EOF;
  }
  u->r->bytes_read = u->delivered;
  return LW_OK;
}

/* A failed archive leaves nothing: the tmp file and the children committed
 * by this call are removed. */
static void undo(Unpack *u)
{
  if (u->tmp[0]) {
    unlink(u->tmp);
  }
  char final[4096];
  for (size_t i = 0; i < u->r->n_entries; ++i) {
    if (u->r->entries[i].relpath &&
        snprintf(final, sizeof(final), "%s/%s", u->o->data_dir, u->r->entries[i].relpath) <
          (int)sizeof(final)) {
      unlink(final);
    }
  }
}

LwStatus lw_archive_unpack(const char *path, const LwUnpackOptions *opts,
                           LwUnpackResult **out, LwError *err)
{
  *out = NULL;
  if (!opts || !opts->data_dir || !opts->parent_hash ||
      strlen(opts->parent_hash) != LW_HASH_HEX_LEN) {
    return lw_error_set(err, LW_ERR_USAGE,
                        "unpack needs a data directory and a 32-digit parent hash");
  }
  Unpack u;
  memset(&u, 0, sizeof(u));
  u.o = opts;
  u.kind = opts->kind ? opts->kind : "raw";
  u.err = err;
  u.fd = -1;
  u.r = calloc(1, sizeof(*u.r));
  u.a = archive_read_new();
  u.inbuf = malloc(BLOCK);
  bool writer_ok = writer_init(&u.w);
  LwStatus st = LW_OK;
  if (!u.r || !u.a || !writer_ok || !u.inbuf || !(u.r->skipped = json_array())) {
    st = nomem(&u);
  } else {
    enable_formats(u.a);
    st = run(&u, path);
  }
  if (st && u.r) {
    undo(&u);
  }
  if (u.a) {
    archive_read_free(u.a);
  }
  writer_stop(&u.w);
  free(u.inbuf);
  if (u.fd >= 0) {
    close(u.fd);
  }
  if (st) {
    lw_unpack_result_free(u.r);
    return st;
  }
  *out = u.r;
  return LW_OK;
}
