/* Unpacking archives the test makes itself with libarchive's writer and zlib:
 * every format and filter the unpack stage meets, nesting walked level by
 * level as the stage does it, hostile entry names and links, bombs stopped by
 * the caps (generated small, never expanded to disk), and bounded memory on a
 * 300 MB tar.gz. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "archive/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/support/check.h"

static char *tmp;       /* the test's folder: inputs */
static char data[1024]; /* the data directory */

static const char PARENT[] = "0123456789abcdef0123456789abcdef";

/* ---- making archives ---- */

typedef struct {
  const char *path;
  const char *data; /* NULL: zeros */
  size_t len;
  unsigned type;        /* AE_IFREG, AE_IFDIR, AE_IFLNK, AE_IFIFO, AE_IFCHR */
  const char *link;     /* symlink target */
  const char *hardlink; /* hard link target */
} Member;

static void die_archive(struct archive *a, const char *what)
{
  fprintf(stderr, "%s: %s\n", what, archive_error_string(a));
  exit(1);
}

static void write_member(struct archive *a, const Member *m)
{
  struct archive_entry *e = archive_entry_new();
  archive_entry_set_pathname(e, m->path);
  archive_entry_set_filetype(e, m->type ? m->type : AE_IFREG);
  archive_entry_set_perm(e, 0644);
  archive_entry_set_mtime(e, 1700000000, 0);
  if (m->link) {
    archive_entry_set_symlink(e, m->link);
  }
  if (m->hardlink) {
    archive_entry_set_hardlink(e, m->hardlink);
  }
  bool has_data = (!m->type || m->type == AE_IFREG) && !m->hardlink;
  archive_entry_set_size(e, has_data ? (la_int64_t)m->len : 0);
  if (archive_write_header(a, e) != ARCHIVE_OK) {
    die_archive(a, m->path);
  }
  if (has_data && m->data) {
    archive_write_data(a, m->data, m->len);
  } else if (has_data) {
    static char zeros[1 << 16];
    for (size_t done = 0; done < m->len;) {
      size_t n = m->len - done < sizeof(zeros) ? m->len - done : sizeof(zeros);
      archive_write_data(a, zeros, n);
      done += n;
    }
  }
  archive_entry_free(e);
}

/* Writes an archive of format ("pax", "zip", "7zip", ...) through filter
 * (NULL: none) into tmp/name; returns its path (static buffer rotation). */
static const char *make_archive(const char *name, const char *format, const char *filter,
                                const Member *m, size_t n)
{
  static char paths[4][4096];
  static int next;
  char *path = paths[next++ % 4];
  snprintf(path, 4096, "%s/%s", tmp, name);
  struct archive *a = archive_write_new();
  if (archive_write_set_format_by_name(a, format) != ARCHIVE_OK) {
    die_archive(a, format);
  }
  if (filter && archive_write_add_filter_by_name(a, filter) != ARCHIVE_OK) {
    die_archive(a, filter);
  }
  if (archive_write_open_filename(a, path) != ARCHIVE_OK) {
    die_archive(a, path);
  }
  for (size_t i = 0; i < n; ++i) {
    write_member(a, &m[i]);
  }
  archive_write_close(a);
  archive_write_free(a);
  return path;
}

static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    *len = 0;
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)size + 1);
  *len = fread(buf, 1, (size_t)size, f);
  buf[*len] = '\0';
  fclose(f);
  return buf;
}

static void write_file(const char *path, const void *bytes, size_t len)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

/* ---- looking at the data directory ---- */

static int files_found;
static int stray_found;

static int count_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)ftw;
  if (flag == FTW_F) {
    ++files_found;
    /* Everything unpacked lives at DATA/raw/ab/cd/<32 hex digits>. */
    const char *rel = path + strlen(data) + 1;
    size_t len = strlen(rel);
    if (strncmp(rel, "raw/", 4) != 0 || len != 4 + 6 + 32) {
      ++stray_found;
      fprintf(stderr, "stray file: %s\n", path);
    }
  }
  return 0;
}

/* Files in the data directory; *stray gets those not at a hashed path. */
static int data_files(int *stray)
{
  files_found = stray_found = 0;
  nftw(data, count_file, 16, FTW_PHYS);
  if (stray) {
    *stray = stray_found;
  }
  return files_found;
}

static void clear_data(void)
{
  lw_test_rmtree(data);
  mkdir(data, 0755);
}

/* ---- unpacking ---- */

static LwUnpackOptions options(void)
{
  LwUnpackOptions o;
  memset(&o, 0, sizeof(o));
  o.data_dir = data;
  o.parent_hash = PARENT;
  o.limits = lw_unpack_limits_default();
  return o;
}

/* A budget held in memory, as the unpack stage holds one in Redis. */
typedef struct {
  uint64_t max_bytes, max_files;
  uint64_t granted_bytes, granted_files;
  int calls;
} Budget;

static LwStatus budget_reserve(void *handle, uint64_t need_bytes, uint64_t need_files,
                               uint64_t *bytes, uint64_t *files, LwError *err)
{
  Budget *b = handle;
  ++b->calls;
  *bytes = *bytes < b->max_bytes ? *bytes : b->max_bytes;
  *files = *files < b->max_files ? *files : b->max_files;
  if (need_bytes > *bytes) {
    return lw_error_set(err, LW_ERR_LIMIT, "harvest budget exceeded: %llu bytes",
                        (unsigned long long)b->max_bytes);
  }
  if (need_files > *files) {
    return lw_error_set(err, LW_ERR_LIMIT, "harvest budget exceeded: %llu files",
                        (unsigned long long)b->max_files);
  }
  b->granted_bytes = *bytes;
  b->granted_files = *files;
  return LW_OK;
}

static LwUnpackResult *unpack(const char *path, const LwUnpackOptions *o, LwStatus *st,
                              LwError *err)
{
  LwUnpackResult *r = NULL;
  lw_error_clear(err);
  *st = lw_archive_unpack(path, o, &r, err);
  return r;
}

static const LwUnpackEntry *find_entry(const LwUnpackResult *r, const char *path)
{
  for (size_t i = 0; r && i < r->n_entries; ++i) {
    if (!strcmp(r->entries[i].path, path)) {
      return &r->entries[i];
    }
  }
  return NULL;
}

/* The entry is in the store at its hashed path with exactly these bytes. */
static void check_entry(const LwUnpackResult *r, const char *path, const char *bytes,
                        const char *parent)
{
  const LwUnpackEntry *e = find_entry(r, path);
  CHECK(e != NULL);
  if (!e) {
    fprintf(stderr, "missing entry %s\n", path);
    return;
  }
  char hash[LW_HASH_HEX_LEN + 1], md5[LW_HASH_HEX_LEN + 1];
  lw_unpack_child_hash(parent, path, hash);
  CHECK_STR_EQ(e->hash, hash);
  lw_md5_hex(bytes, strlen(bytes), md5);
  CHECK_STR_EQ(e->content.hash, md5);
  CHECK_INT_EQ(e->content.number_of_bytes, strlen(bytes));
  CHECK_INT_EQ(e->bytes, strlen(bytes));
  char full[8192];
  snprintf(full, sizeof(full), "%s/%s", data, e->relpath);
  size_t len;
  char *got = slurp(full, &len);
  CHECK_STR_EQ(got, bytes);
  free(got);
  CHECK_STR_EQ(json_string_value(json_object_get(e->archive, "path")), path);
  CHECK_INT_EQ(json_integer_value(json_object_get(e->archive, "size")), strlen(bytes));
  CHECK_STR_EQ(json_string_value(json_object_get(e->archive, "filetype")), "file");
  CHECK(json_is_string(json_object_get(e->archive, "format")));
  CHECK(json_is_array(json_object_get(e->archive, "filters")));
}

static const char TTL[] = "@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n";
static const char NT[] = "<http://example.org/a> <http://example.org/b> \"c\" .\n"
                         "<http://example.org/a> <http://example.org/b> \"d\"@en .\n";

/* tar.gz, zip, 7z, tar.xz, tar.zst, tar.bz2, cpio, iso: two files and a
 * directory each. */
static void test_formats(void)
{
  static const struct {
    const char *name, *format, *filter, *format_word, *filter_name;
  } cases[] = {
    {"a.tar.gz", "pax", "gzip", "tar", "gzip"},
    {"a.zip", "zip", NULL, "ZIP", NULL},
    {"a.7z", "7zip", NULL, "7-Zip", NULL},
    {"a.tar.xz", "pax", "xz", "tar", "xz"},
    {"a.tar.zst", "pax", "zstd", "tar", "zstd"},
    {"a.tar.bz2", "ustar", "bzip2", "tar", "bzip2"},
    {"a.cpio.lz4", "newc", "lz4", "cpio", "lz4"},
    {"a.tar.Z", "ustar", "compress", "tar", "compress (.Z)"},
    {"a.tar.lzma", "pax", "lzma", "tar", "lzma"},
    {"a.xar", "xar", NULL, "xar", NULL},
    {"a.ar", "ar", NULL, "ar", NULL},
    {"a.iso", "iso9660", NULL, "ISO9660", NULL},
  };
  Member m[] = {
    {"dump/", NULL, 0, AE_IFDIR, NULL, NULL},
    {"dump/a.ttl", TTL, strlen(TTL), AE_IFREG, NULL, NULL},
    {"dump/b.nt", NT, strlen(NT), AE_IFREG, NULL, NULL},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    bool flat = !strcmp(cases[c].format, "ar"); /* ar has no folders */
    Member flat_m[] = {{"a.ttl", TTL, strlen(TTL), AE_IFREG, NULL, NULL},
                       {"b.nt", NT, strlen(NT), AE_IFREG, NULL, NULL}};
    const char *path = flat ? make_archive(cases[c].name, cases[c].format, NULL, flat_m, 2)
                            : make_archive(cases[c].name, cases[c].format, cases[c].filter,
                                           m, 3);
    clear_data();
    LwUnpackOptions o = options();
    LwStatus st;
    LwError err;
    LwUnpackResult *r = unpack(path, &o, &st, &err);
    CHECK_INT_EQ(st, LW_OK);
    if (st) {
      fprintf(stderr, "%s: %s\n", cases[c].name, err.message);
      continue;
    }
    CHECK_INT_EQ(r->kind, LW_UNPACK_ARCHIVE);
    CHECK_INT_EQ(r->n_entries, 2);
    CHECK(strstr(r->format, cases[c].format_word) != NULL);
    if (!strstr(r->format, cases[c].format_word)) {
      fprintf(stderr, "%s: format %s\n", cases[c].name, r->format);
    }
    if (cases[c].filter_name) {
      CHECK_INT_EQ(json_array_size(r->filters), 1);
      CHECK_STR_EQ(json_string_value(json_array_get(r->filters, 0)), cases[c].filter_name);
    } else {
      CHECK_INT_EQ(json_array_size(r->filters), 0);
    }
    check_entry(r, flat ? "a.ttl" : "dump/a.ttl", TTL, PARENT);
    check_entry(r, flat ? "b.nt" : "dump/b.nt", NT, PARENT);
    const LwUnpackEntry *e = find_entry(r, flat ? "a.ttl" : "dump/a.ttl");
    if (e && strcmp(cases[c].format, "iso9660") != 0) {
      CHECK_INT_EQ(json_integer_value(json_object_get(e->archive, "mtime")), 1700000000);
    }
    CHECK_INT_EQ(r->bytes_expanded, strlen(TTL) + strlen(NT));
    CHECK_INT_EQ(json_array_size(r->skipped), 0);
    int stray;
    CHECK_INT_EQ(data_files(&stray), 2);
    CHECK_INT_EQ(stray, 0);
    lw_unpack_result_free(r);
  }
}

/* Plain data is not an archive; a .gz single file is one entry. */
static void test_plain_and_single(void)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/plain.ttl", tmp);
  write_file(path, TTL, strlen(TTL));
  clear_data();
  LwUnpackOptions o = options();
  LwStatus st;
  LwError err;
  LwUnpackResult *r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(r && r->kind == LW_UNPACK_DATA);
  CHECK(r && r->n_entries == 0);
  CHECK_INT_EQ(data_files(NULL), 0);
  lw_unpack_result_free(r);

  /* An empty file is data too. */
  write_file(path, "", 0);
  r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(r && r->kind == LW_UNPACK_DATA);
  lw_unpack_result_free(r);

  /* dump.nt.gz -> one entry "dump.nt" */
  snprintf(path, sizeof(path), "%s/dump.nt.gz", tmp);
  gzFile gz = gzopen(path, "wb");
  gzwrite(gz, NT, (unsigned)strlen(NT));
  gzclose(gz);
  o.name = "dump.nt.gz";
  r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(r && r->kind == LW_UNPACK_ARCHIVE);
  CHECK(r && r->n_entries == 1);
  if (r) {
    CHECK_STR_EQ(r->format, "raw");
    CHECK_STR_EQ(json_string_value(json_array_get(r->filters, 0)), "gzip");
    check_entry(r, "dump.nt", NT, PARENT);
  }
  lw_unpack_result_free(r);

  /* Without a name the entry is "data". */
  o.name = NULL;
  r = unpack(path, &o, &st, &err);
  CHECK(r && r->n_entries == 1 && !strcmp(r->entries[0].path, "data"));
  lw_unpack_result_free(r);

  char *n = lw_unpack_single_name("http://x.org/dl/dump.nt.bz2");
  CHECK_STR_EQ(n, "dump.nt");
  free(n);
  n = lw_unpack_single_name("data.ttl");
  CHECK_STR_EQ(n, "data.ttl");
  free(n);
  n = lw_unpack_single_name(".gz");
  CHECK_STR_EQ(n, ".gz");
  free(n);
}

/* A zip inside a tar.gz inside a zip, walked level by level as the stage
 * does: each child is unpacked with its own hash as parent and depth + 1. */
static void test_nested(void)
{
  Member deep[] = {{"deep/data.ttl", TTL, strlen(TTL), AE_IFREG, NULL, NULL}};
  const char *p = make_archive("inner.zip", "zip", NULL, deep, 1);
  size_t len;
  char *inner = slurp(p, &len);
  Member mid[] = {{"inner.zip", inner, len, AE_IFREG, NULL, NULL}};
  p = make_archive("middle.tar.gz", "pax", "gzip", mid, 1);
  char *middle = slurp(p, &len);
  Member out[] = {{"middle.tar.gz", middle, len, AE_IFREG, NULL, NULL}};
  const char *outer = make_archive("outer.zip", "zip", NULL, out, 1);

  clear_data();
  char path[8192], parent[LW_HASH_HEX_LEN + 1];
  snprintf(path, sizeof(path), "%s", outer);
  memcpy(parent, PARENT, sizeof(parent));
  const char *expect[] = {"middle.tar.gz", "inner.zip", "deep/data.ttl"};
  const char *expect_format[] = {"ZIP", "tar", "ZIP"};
  unsigned depth = 0;
  for (;; ++depth) {
    LwUnpackOptions o = options();
    o.parent_hash = parent;
    o.depth = depth;
    LwStatus st;
    LwError err;
    LwUnpackResult *r = unpack(path, &o, &st, &err);
    CHECK_INT_EQ(st, LW_OK);
    if (!r) {
      break;
    }
    if (r->kind == LW_UNPACK_DATA) {
      lw_unpack_result_free(r);
      break;
    }
    CHECK(depth < 3);
    CHECK_INT_EQ(r->n_entries, 1);
    CHECK_STR_EQ(r->entries[0].path, expect[depth]);
    CHECK(strstr(r->format, expect_format[depth]) != NULL);
    if (depth == 2) {
      check_entry(r, "deep/data.ttl", TTL, parent);
    }
    memcpy(parent, r->entries[0].hash, sizeof(parent));
    snprintf(path, sizeof(path), "%s/%s", data, r->entries[0].relpath);
    lw_unpack_result_free(r);
  }
  CHECK_INT_EQ(depth, 3); /* three archives, then the data */
  int stray;
  CHECK_INT_EQ(data_files(&stray), 3);
  CHECK_INT_EQ(stray, 0);

  /* With max_depth 2 the third level (the inner zip, depth 2) is refused. */
  clear_data();
  LwUnpackOptions o = options();
  o.limits.max_depth = 2;
  o.depth = 2;
  LwStatus st;
  LwError err;
  LwUnpackResult *r = unpack(p, &o, &st, &err); /* any archive will do */
  CHECK_INT_EQ(st, LW_ERR_LIMIT);
  CHECK(strstr(err.message, "max_depth") != NULL);
  CHECK(r == NULL);
  free(inner);
  free(middle);
}

/* `../`, absolute names, links, devices and FIFOs. */
static void test_hostile_names(void)
{
  /* An absolute name of this run's own: another run (or user) never owns it. */
  char absolute[64];
  snprintf(absolute, sizeof(absolute), "/tmp/lodwash-evil-absolute-%ld.ttl", (long)getpid());
  Member m[] = {
    {"../../evil-escape.ttl", TTL, strlen(TTL), AE_IFREG, NULL, NULL},
    {absolute, NT, strlen(NT), AE_IFREG, NULL, NULL},
    {"passwd-link", NULL, 0, AE_IFLNK, "/etc/passwd", NULL},
    {"hard-link", NULL, 0, AE_IFREG, NULL, "../../evil-escape.ttl"},
    {"fifo", NULL, 0, AE_IFIFO, NULL, NULL},
    {"dev-null", NULL, 0, AE_IFCHR, NULL, NULL},
    {"dup.ttl", "old\n", 4, AE_IFREG, NULL, NULL},
    {"dup.ttl", "new\n", 4, AE_IFREG, NULL, NULL},
  };
  const char *path = make_archive("hostile.tar", "pax", NULL, m, 8);
  clear_data();
  unlink(absolute);
  LwUnpackOptions o = options();
  LwStatus st;
  LwError err;
  LwUnpackResult *r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_OK);
  if (!r) {
    return;
  }
  CHECK_INT_EQ(r->n_entries, 3);
  check_entry(r, "../../evil-escape.ttl", TTL, PARENT);
  check_entry(r, absolute, NT, PARENT);
  check_entry(r, "dup.ttl", "new\n", PARENT); /* the later one wins */
  int stray;
  CHECK_INT_EQ(data_files(&stray), 3);
  CHECK_INT_EQ(stray, 0);
  struct stat sb;
  CHECK(stat(absolute, &sb) != 0);
  char escape[4096];
  snprintf(escape, sizeof(escape), "%s/../evil-escape.ttl", data);
  CHECK(stat(escape, &sb) != 0);

  CHECK_INT_EQ(json_array_size(r->skipped), 4);
  const char *types[] = {"symlink", "hardlink", "fifo", "character-device"};
  for (size_t i = 0; i < 4; ++i) {
    json_t *s = json_array_get(r->skipped, i);
    CHECK_STR_EQ(json_string_value(json_object_get(s, "filetype")), types[i]);
  }
  CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(r->skipped, 0), "target")),
               "/etc/passwd");
  CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(r->skipped, 0), "path")),
               "passwd-link");
  lw_unpack_result_free(r);
}

/* Non-ASCII entry names (UTF-8 in zip and pax): recorded as UTF-8, hashed
 * from the same bytes, never used as a file name. */
static void test_unicode_names(void)
{
  const char *name = "donn\xC3\xA9"
                     "es/caf\xC3\xA9 \xE2\x82\xAC.ttl";
  const char *formats[] = {"zip", "pax"};
  for (size_t f = 0; f < 2; ++f) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/unicode.%s", tmp, formats[f]);
    struct archive *a = archive_write_new();
    archive_write_set_format_by_name(a, formats[f]);
    archive_write_open_filename(a, path);
    struct archive_entry *e = archive_entry_new();
    /* As raw bytes: in the C locale libarchive's writer crashes on a UTF-8
     * name it cannot convert to the locale's charset. */
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, (la_int64_t)strlen(TTL));
    archive_write_header(a, e);
    archive_write_data(a, TTL, strlen(TTL));
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
    clear_data();
    LwUnpackOptions o = options();
    LwStatus st;
    LwError err;
    LwUnpackResult *r = unpack(path, &o, &st, &err);
    CHECK_INT_EQ(st, LW_OK);
    CHECK(r && r->n_entries == 1);
    check_entry(r, name, TTL, PARENT);
    int stray;
    CHECK_INT_EQ(data_files(&stray), 1);
    CHECK_INT_EQ(stray, 0);
    lw_unpack_result_free(r);
  }
}

/* A failed archive leaves no file behind: neither children nor tmp files. */
static void check_nothing_left(void)
{
  int stray;
  CHECK_INT_EQ(data_files(&stray), 0);
}

/* Sparse files (made by bsdtar from files with holes): the holes come out as
 * zeros, and a 50 GB hole in a tar.gz of a few hundred bytes is a bomb the
 * ratio cap stops. */
static void test_sparse(void)
{
  char file[4096], archive[4096], cmd[12288];
  snprintf(file, sizeof(file), "%s/sparse.bin", tmp);
  snprintf(archive, sizeof(archive), "%s/sparse.tar.gz", tmp);
  const uint64_t sizes[] = {3u << 20, 50ull << 30};
  for (int i = 0; i < 2; ++i) {
    FILE *f = fopen(file, "wb");
    if (!f || ftruncate(fileno(f), (off_t)sizes[i]) != 0 || fseeko(f, 0, SEEK_END) != 0) {
      lw_test_skip("cannot make a sparse file here");
    }
    fputs("tail\n", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "cd '%s' && bsdtar -czf '%s' sparse.bin", tmp, archive);
    if (system(cmd) != 0) {
      lw_test_skip("bsdtar failed to archive a sparse file");
    }
    unlink(file);
    clear_data();
    LwUnpackOptions o = options();
    LwStatus st;
    LwError err;
    LwUnpackResult *r = unpack(archive, &o, &st, &err);
    if (i == 0) {
      CHECK_INT_EQ(st, LW_OK);
      CHECK(r && r->n_entries == 1);
      if (r && r->n_entries == 1) {
        CHECK_INT_EQ(r->entries[0].bytes, sizes[0] + 5);
        CHECK_INT_EQ(r->entries[0].content.number_of_lines, 1);
        char full[8192];
        snprintf(full, sizeof(full), "%s/%s", data, r->entries[0].relpath);
        FILE *in = fopen(full, "rb");
        char tail[6] = {0};
        CHECK(in && fseeko(in, (off_t)sizes[0], SEEK_SET) == 0 &&
              fread(tail, 1, 5, in) == 5);
        CHECK_STR_EQ(tail, "tail\n");
        if (in) {
          fclose(in);
        }
      }
    } else {
      /* The declared size is over the entry cap: refused up front. */
      CHECK_INT_EQ(st, LW_ERR_LIMIT);
      CHECK(strstr(err.message, "max_entry_bytes") != NULL);
      check_nothing_left();
      /* Without that cap the ratio stops the stream of zeros. */
      o.limits.max_entry_bytes = 0;
      r = unpack(archive, &o, &st, &err);
      CHECK_INT_EQ(st, LW_ERR_LIMIT);
      CHECK(strstr(err.message, "ratio") != NULL);
      fprintf(stderr, "sparse bomb: %s\n", err.message);
      check_nothing_left();
    }
    lw_unpack_result_free(r);
  }
}

/* An encrypted zip entry is skipped and recorded (there is no passphrase). */
static void test_encrypted(void)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/secret.zip", tmp);
  struct archive *a = archive_write_new();
  archive_write_set_format_zip(a);
  if (archive_write_set_options(a, "zip:encryption=zipcrypt") != ARCHIVE_OK ||
      archive_write_set_passphrase(a, "secret") != ARCHIVE_OK) {
    fprintf(stderr, "no zip encryption in this libarchive: %s\n", archive_error_string(a));
    archive_write_free(a);
    return;
  }
  archive_write_open_filename(a, path);
  Member m[] = {{"secret.ttl", TTL, strlen(TTL), AE_IFREG, NULL, NULL}};
  write_member(a, &m[0]);
  archive_write_close(a);
  archive_write_free(a);
  clear_data();
  LwUnpackOptions o = options();
  LwStatus st;
  LwError err;
  LwUnpackResult *r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(r && r->n_entries == 0);
  CHECK(r && json_array_size(r->skipped) == 1);
  if (r) {
    json_t *s = json_array_get(r->skipped, 0);
    CHECK_STR_EQ(json_string_value(json_object_get(s, "reason")), "encrypted");
    CHECK_STR_EQ(json_string_value(json_object_get(s, "path")), "secret.ttl");
  }
  CHECK_INT_EQ(data_files(NULL), 0);
  lw_unpack_result_free(r);
}


static void test_gzip_bomb(void)
{
  /* 64 MB of one N-Triples line over and over, squeezed into a few hundred
   * KB. (Not zeros: 512 zero bytes read as the end of an empty tar archive,
   * so libarchive takes a stream of zeros for an empty tar and expands
   * nothing.) */
  char path[4096];
  snprintf(path, sizeof(path), "%s/bomb.nt.gz", tmp);
  gzFile gz = gzopen(path, "wb9");
  static char block[1 << 16];
  static const char line[] = "<http://e.org/a> <http://e.org/b> \"c\" .\n";
  for (size_t i = 0; i < sizeof(block); ++i) {
    block[i] = line[i % (sizeof(line) - 1)];
  }
  for (int i = 0; i < 64 * 16; ++i) {
    gzwrite(gz, block, sizeof(block));
  }
  gzclose(gz);
  clear_data();
  LwUnpackOptions o = options();
  o.name = "bomb.nt.gz";
  o.limits.max_ratio = 100;
  o.limits.ratio_min_bytes = 1 << 20;
  LwStatus st;
  LwError err;
  LwUnpackResult *r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_LIMIT);
  CHECK(r == NULL);
  CHECK(strstr(err.message, "ratio") != NULL);
  fprintf(stderr, "gzip bomb: %s\n", err.message);
  check_nothing_left();

  /* The per-entry cap stops it as well, with the ratio cap off. */
  o.limits.max_ratio = 0;
  o.limits.max_entry_bytes = 8 << 20;
  r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_LIMIT);
  CHECK(strstr(err.message, "max_entry_bytes") != NULL);
  check_nothing_left();
}

static bool stop_after_three(void *arg, uint64_t bytes)
{
  int *calls = arg;
  CHECK(bytes > 0);
  return ++*calls < 3;
}

static void test_zip_bomb(void)
{
  /* Ten entries of 8 MB of zeros each: about 80 KB of zip. */
  Member m[10];
  char names[10][16];
  for (int i = 0; i < 10; ++i) {
    snprintf(names[i], sizeof(names[i]), "zero%d.nt", i);
    m[i] = (Member){names[i], NULL, 8u << 20, AE_IFREG, NULL, NULL};
  }
  const char *path = make_archive("bomb.zip", "zip", NULL, m, 10);
  clear_data();
  LwUnpackOptions o = options();
  o.limits.max_ratio = 100;
  o.limits.ratio_min_bytes = 1 << 20;
  LwStatus st;
  LwError err;
  LwUnpackResult *r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_LIMIT);
  CHECK(r == NULL);
  CHECK(strstr(err.message, "ratio") != NULL);
  fprintf(stderr, "zip bomb: %s\n", err.message);
  check_nothing_left();

  /* A shared budget: 20 MB and 3 files, the archive holds 80 MB in 10. */
  o.limits.max_ratio = 0;
  Budget budget = {20 << 20, 100, 0, 0, 0};
  o.budget = (LwUnpackBudget){budget_reserve, &budget, 0, 0};
  r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_LIMIT);
  CHECK(strstr(err.message, "harvest budget exceeded") != NULL);
  CHECK(budget.granted_bytes <= budget.max_bytes);
  CHECK(budget.calls > 1 && budget.calls < 20); /* asked in steps, not per block */
  check_nothing_left();
  budget = (Budget){100 << 20, 3, 0, 0, 0};
  r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_LIMIT);
  CHECK(strstr(err.message, "harvest budget exceeded: 3 files") != NULL);
  CHECK(budget.granted_files == 3);
  check_nothing_left();
  budget = (Budget){100 << 20, 10, 0, 0, 0};
  r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(r && r->bytes_expanded == 80u << 20 && r->files_written == 10);
  CHECK(budget.granted_bytes >= r->bytes_expanded && budget.granted_files == 10);
  lw_unpack_result_free(r);
  clear_data();

  /* The cap on a whole archive. */
  o.budget.reserve = NULL;
  o.limits.max_archive_bytes = 20 << 20;
  r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_LIMIT);
  CHECK(strstr(err.message, "max_archive_bytes") != NULL);
  check_nothing_left();

  /* A worker asked to stop: the progress callback says no. */
  o.limits.max_archive_bytes = 0;
  int calls = 0;
  o.progress = stop_after_three;
  o.progress_data = &calls;
  r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_INTERNAL);
  CHECK_STR_EQ(err.message, "interrupted");
  CHECK_INT_EQ(calls, 3);
  check_nothing_left();
}

static void test_entry_cap(void)
{
  Member m[50];
  char names[50][16];
  for (int i = 0; i < 50; ++i) {
    snprintf(names[i], sizeof(names[i]), "f%02d.ttl", i);
    m[i] = (Member){names[i], TTL, strlen(TTL), AE_IFREG, NULL, NULL};
  }
  const char *path = make_archive("many.tar.gz", "pax", "gzip", m, 50);
  clear_data();
  LwUnpackOptions o = options();
  o.limits.max_entries = 10;
  LwStatus st;
  LwError err;
  LwUnpackResult *r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_LIMIT);
  CHECK(r == NULL);
  CHECK(strstr(err.message, "max_entries") != NULL);
  check_nothing_left();

  o.limits.max_entries = 50;
  r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(r && r->n_entries == 50);
  lw_unpack_result_free(r);
}

static void test_corrupt(void)
{
  Member m[] = {{"a.ttl", TTL, strlen(TTL), AE_IFREG, NULL, NULL},
                {"b.nt", NULL, 1 << 20, AE_IFREG, NULL, NULL}};
  const char *path = make_archive("cut.tar.gz", "pax", "gzip", m, 2);
  size_t len;
  char *bytes = slurp(path, &len);
  write_file(path, bytes, len / 2); /* truncated */
  free(bytes);
  clear_data();
  LwUnpackOptions o = options();
  LwStatus st;
  LwError err;
  LwUnpackResult *r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_FORMAT);
  CHECK(r == NULL);
  CHECK(err.message[0] != '\0');
  check_nothing_left();

  r = unpack("/nonexistent/file.tar", &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_IO);
  o.parent_hash = "short";
  r = unpack(path, &o, &st, &err);
  CHECK_INT_EQ(st, LW_ERR_USAGE);
  lw_unpack_result_free(NULL);
}

/* ---- bounded memory ---- */

#define BIG_BYTES (300ull << 20)

/* In a child process (so its memory does not count): a tar.gz holding one
 * 300 MB N-Triples file, compressed as it streams. One megabyte of varied
 * lines is made once and written 300 times (cheap to generate, and it still
 * compresses like text: deflate's window is 32 KB). Writes the number of
 * lines to lines_path. */
static void generate_big(const char *path, const char *lines_path)
{
  struct archive *a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_add_filter_gzip(a);
  archive_write_set_filter_option(a, "gzip", "compression-level", "1");
  if (archive_write_open_filename(a, path) != ARCHIVE_OK) {
    die_archive(a, path);
  }
  struct archive_entry *e = archive_entry_new();
  archive_entry_set_pathname(e, "big.nt");
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  archive_entry_set_size(e, (la_int64_t)BIG_BYTES);
  archive_write_header(a, e);
  const size_t block = 1 << 20;
  char *buf = malloc(block + 200);
  size_t used = 0, lines = 0;
  while (used < block) {
    used += (size_t)snprintf(buf + used, 200,
                             "<http://example.org/s%zu> <http://example.org/p%zu> "
                             "\"value %zu\" .\n",
                             lines, lines % 97, lines * 7919 % 1000003);
    ++lines;
  }
  /* Pad the block's last line so that every block ends with a newline. */
  size_t cut = block;
  while (buf[cut - 1] != '\n') {
    --cut;
  }
  memset(buf + cut, '#', block - cut - 1);
  buf[block - 1] = '\n';
  size_t per_block = 0;
  for (size_t i = 0; i < block; ++i) {
    per_block += buf[i] == '\n';
  }
  for (uint64_t done = 0; done < BIG_BYTES; done += block) {
    archive_write_data(a, buf, block);
  }
  archive_entry_free(e);
  archive_write_close(a);
  archive_write_free(a);
  char text[32];
  snprintf(text, sizeof(text), "%zu", per_block * (size_t)(BIG_BYTES / block));
  write_file(lines_path, text, strlen(text));
  free(buf);
}

static long max_rss_kb(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static void test_bounded_memory(void)
{
  char path[4096], lines_path[4096];
  snprintf(path, sizeof(path), "%s/big.tar.gz", tmp);
  snprintf(lines_path, sizeof(lines_path), "%s/big.lines", tmp);
  pid_t pid = fork();
  if (pid == 0) {
    generate_big(path, lines_path);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  size_t len;
  char *expected = slurp(lines_path, &len);

  clear_data();
  long before = max_rss_kb();
  LwUnpackOptions o = options();
  LwStatus st;
  LwError err;
  LwUnpackResult *r = unpack(path, &o, &st, &err);
  long after = max_rss_kb();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "unpacked 300 MB in %.2f s\n",
          (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
  CHECK_INT_EQ(st, LW_OK);
  CHECK(r && r->n_entries == 1);
  if (r && r->n_entries == 1) {
    CHECK_INT_EQ(r->entries[0].bytes, BIG_BYTES);
    CHECK_INT_EQ(r->entries[0].content.number_of_lines, strtoull(expected, NULL, 10));
    CHECK_INT_EQ(r->entries[0].content.number_of_bytes, BIG_BYTES);
    CHECK_STR_EQ(lw_newline_name(r->entries[0].content.newline), "LF");
  }
  /* The whole unpack may grow the process by a few buffers, never by the
   * data: 300 MB went through, 32 MB is the allowance. */
  fprintf(stderr, "peak RSS before %ld KB, after %ld KB\n", before, after);
  CHECK(after - before < 32 * 1024);
  lw_unpack_result_free(r);
  free(expected);
  clear_data();
  unlink(path);
}

/* Runs a test and says how long it took (the suite should stay quick). */
#define TIMED(fn)                                                                          \
  do {                                                                                     \
    struct timespec t0_, t1_;                                                              \
    clock_gettime(CLOCK_MONOTONIC, &t0_);                                                  \
    fn();                                                                                  \
    clock_gettime(CLOCK_MONOTONIC, &t1_);                                                  \
    fprintf(stderr, "%s: %.2f s\n", #fn,                                                   \
            (double)(t1_.tv_sec - t0_.tv_sec) + (t1_.tv_nsec - t0_.tv_nsec) / 1e9);        \
  } while (0)

int main(void)
{
  tmp = lw_test_tmpdir();
  snprintf(data, sizeof(data), "%s/data", tmp);
  mkdir(data, 0755);
  TIMED(test_bounded_memory); /* first: the peak RSS of the others would hide it */
  TIMED(test_formats);
  TIMED(test_plain_and_single);
  TIMED(test_nested);
  TIMED(test_hostile_names);
  TIMED(test_encrypted);
  TIMED(test_sparse);
  TIMED(test_unicode_names);
  TIMED(test_gzip_bomb);
  TIMED(test_zip_bomb);
  TIMED(test_entry_cap);
  TIMED(test_corrupt);
  lw_test_rmtree(tmp);
  free(tmp);
  return lw_test_finish();
}
