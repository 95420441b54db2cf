/* libFuzzer target: any bytes as a downloaded file. lw_archive_unpack never
 * crashes, writes only hashed files in the data directory and leaves nothing
 * behind when it fails; every data file (the input itself, or each entry)
 * then goes through lw_encoding_settle, whose output is valid UTF-8.
 *
 * Needs libarchive, uchardet, jansson and OpenSSL (MD5) at link time: in
 * tests/fuzz/CMakeLists.txt the row
 *   "unpack:archive/archive_unpack.c archive/encoding.c files/content_meta.c
 *    files/file_store.c base/hash.c base/errors.c"
 * plus target_link_libraries(fuzz_unpack PRIVATE PkgConfig::DEPS Threads::Threads). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[256];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static bool valid_utf8_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    return false;
  }
  int need = 0, c;
  unsigned lo = 0x80, hi = 0xBF;
  bool ok = true;
  while (ok && (c = fgetc(f)) != EOF) {
    if (need) {
      ok = (unsigned)c >= lo && (unsigned)c <= hi;
      lo = 0x80;
      hi = 0xBF;
      --need;
    } else if (c >= 0x80) {
      if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
      } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
      } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
      } else {
        ok = false;
      }
    }
  }
  fclose(f);
  return ok && need == 0;
}

static void settle(const char *path)
{
  char out[512];
  snprintf(out, sizeof(out), "%s/utf8/out", root);
  LwEncodingResult res;
  LwError err;
  if (lw_encoding_settle(root, path, out, &res, &err) == LW_OK && res.recoded &&
      !valid_utf8_file(out)) {
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (!root[0]) {
    snprintf(root, sizeof(root), "/tmp/fuzz-unpack-%d", (int)getpid());
  }
  mkdir(root, 0755);
  char in[512];
  snprintf(in, sizeof(in), "%s/input", root);
  FILE *f = fopen(in, "wb");
  if (!f) {
    return 0;
  }
  fwrite(data, 1, size, f);
  fclose(f);

  LwUnpackOptions o;
  memset(&o, 0, sizeof(o));
  o.data_dir = root;
  o.parent_hash = "0123456789abcdef0123456789abcdef";
  o.name = "input.nt.gz";
  o.limits = lw_unpack_limits_default();
  o.limits.max_entries = 64;
  o.limits.max_archive_bytes = 4 << 20;
  o.limits.max_ratio = 0;
  LwUnpackResult *r = NULL;
  LwError err;
  LwStatus st = lw_archive_unpack(in, &o, &r, &err);
  if (st == LW_OK && r->kind == LW_UNPACK_DATA) {
    settle(in);
  } else if (st == LW_OK) {
    for (size_t i = 0; i < r->n_entries; ++i) {
      char path[1024];
      snprintf(path, sizeof(path), "%s/%s", root, r->entries[i].relpath);
      settle(path);
    }
  } else if (err.message[0] == '\0') {
    abort(); /* every failure says why */
  }
  lw_unpack_result_free(r);
  nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}
