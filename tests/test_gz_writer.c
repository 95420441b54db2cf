/* Output writer: plain and gzip bytes as written, MD5, errors from the thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "files/files.h"
#include "base/base.h"
#include "tests/support/check.h"

/* Deterministic text in pieces of awkward sizes around the chunk size. */
static char *make_text(size_t len)
{
  char *t = malloc(len);
  unsigned long long x = 1;
  for (size_t i = 0; i < len; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    t[i] = (i % 97 == 96) ? '\n' : (char)('a' + (x >> 60));
  }
  return t;
}

static void write_pieces(LwGzWriter *w, const char *t, size_t len)
{
  static const size_t sizes[] = {1, 7, 4096, 1000, 65536, 300000, 3, 1 << 20};
  size_t off = 0, k = 0;
  LwError err = {0};
  while (off < len) {
    size_t n = sizes[k++ % 8];
    if (n > len - off) {
      n = len - off;
    }
    CHECK_INT_EQ(lw_gz_writer_write(w, t + off, n, &err), LW_OK);
    off += n;
  }
}

static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *d = malloc((size_t)n + 1);
  *len = fread(d, 1, (size_t)n, f);
  fclose(f);
  return d;
}

/* The decompressed content of path (at most cap + 16 bytes), by zlib. */
static char *gunzip(const char *path, size_t cap, size_t *got)
{
  gzFile gz = gzopen(path, "rb");
  char *back = malloc(cap + 16);
  int n;
  *got = 0;
  while ((n = gzread(gz, back + *got, (unsigned)(cap + 16 - *got))) > 0) {
    *got += (size_t)n;
  }
  gzclose(gz);
  return back;
}

static void test_plain(const char *dir)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/plain.nq", dir);
  size_t len = 3 * 1000 * 1000 + 17;
  char *t = make_text(len);
  FILE *f = fopen(path, "wb");
  LwGzWriter *w = NULL;
  LwError err = {0};
  LwGzOptions o = {.gzip = false, .chunk_bytes = 100000, .queue_chunks = 2};
  CHECK_INT_EQ(lw_gz_writer_open(f, &o, &w, &err), LW_OK);
  write_pieces(w, t, len);
  LwGzStats st;
  CHECK_INT_EQ(lw_gz_writer_close(w, &st, &err), LW_OK);
  fclose(f);
  size_t got_len = 0;
  char *got = slurp(path, &got_len);
  CHECK_INT_EQ(got_len, len);
  CHECK(got && got_len == len && !memcmp(got, t, len));
  CHECK_INT_EQ(st.bytes_in, len);
  CHECK_INT_EQ(st.bytes_out, len);
  char md5[LW_HASH_HEX_LEN + 1];
  lw_md5_hex(t, len, md5);
  CHECK_STR_EQ(st.md5, md5);
  free(got);
  free(t);
}

static void test_gzip(const char *dir)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/out.nq.gz", dir);
  size_t len = 5 * 1000 * 1000 + 3;
  char *t = make_text(len);
  FILE *f = fopen(path, "wb");
  LwGzWriter *w = NULL;
  LwError err = {0};
  LwGzOptions o = {.gzip = true, .level = 1};
  CHECK_INT_EQ(lw_gz_writer_open(f, &o, &w, &err), LW_OK);
  /* Half through the line sink, half through write. */
  size_t half = len / 2;
  const char *p = t;
  while (p < t + half) {
    const char *nl = memchr(p, '\n', (size_t)(t + half - p));
    size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(t + half - p);
    CHECK_INT_EQ(lw_gz_writer_sink(w, p, n), LW_OK);
    p += n;
  }
  write_pieces(w, t + half, len - half);
  LwGzStats st;
  CHECK_INT_EQ(lw_gz_writer_close(w, &st, &err), LW_OK);
  fclose(f);
  struct stat sb;
  stat(path, &sb);
  CHECK_INT_EQ(st.bytes_out, sb.st_size);
  CHECK(st.bytes_out < len);
  CHECK_INT_EQ(st.bytes_in, len);

  /* zlib reads it back ... */
  size_t got = 0;
  char *back = gunzip(path, len, &got);
  CHECK_INT_EQ(got, len);
  CHECK(got == len && !memcmp(back, t, len));
  /* ... and so does gzip, with the same MD5. */
  char cmd[9000];
  snprintf(cmd, sizeof(cmd), "gzip -t '%s'", path);
  CHECK_INT_EQ(system(cmd), 0);
  char md5[LW_HASH_HEX_LEN + 1];
  lw_md5_hex(t, len, md5);
  CHECK_STR_EQ(st.md5, md5);
  snprintf(cmd, sizeof(cmd), "gzip -dc '%s' | md5sum", path);
  FILE *pp = popen(cmd, "r");
  char line[128] = "";
  if (pp && fgets(line, sizeof(line), pp)) {
    line[LW_HASH_HEX_LEN] = '\0';
  }
  if (pp) {
    pclose(pp);
  }
  CHECK_STR_EQ(line, md5);
  free(back);
  free(t);
}

/* Threads change the speed, never the bytes, nor the MD5 (taken by the
 * producer with one compression thread, by the writer with more). */
static void test_threads_same_bytes(const char *dir)
{
  size_t len = 3 * 1000 * 1000;
  char *t = make_text(len);
  char *outs[3] = {0};
  size_t lens[3] = {0};
  unsigned threads[3] = {1, 2, 5};
  char md5[LW_HASH_HEX_LEN + 1];
  lw_md5_hex(t, len, md5);
  for (int i = 0; i < 3; ++i) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/t%u.gz", dir, threads[i]);
    FILE *f = fopen(path, "wb");
    LwGzWriter *w = NULL;
    LwGzOptions o = {.gzip = true, .threads = threads[i], .chunk_bytes = 65536};
    CHECK_INT_EQ(lw_gz_writer_open(f, &o, &w, NULL), LW_OK);
    write_pieces(w, t, len);
    LwGzStats st;
    CHECK_INT_EQ(lw_gz_writer_close(w, &st, NULL), LW_OK);
    fclose(f);
    CHECK_STR_EQ(st.md5, md5);
    CHECK_INT_EQ(st.bytes_in, len);
    outs[i] = slurp(path, &lens[i]);
  }
  CHECK(lens[0] == lens[1] && !memcmp(outs[0], outs[1], lens[0]));
  CHECK(lens[0] == lens[2] && !memcmp(outs[0], outs[2], lens[0]));
  /* Chunks compressed alone (64 KiB here) still come within 2% of zlib's
   * one-shot result on the whole text. */
  uLongf one = compressBound(len);
  Bytef *buf = malloc(one);
  compress2(buf, &one, (const Bytef *)t, len, 1);
  CHECK(lens[0] < one + one / 50);
  free(buf);
  for (int i = 0; i < 3; ++i) {
    free(outs[i]);
  }
  free(t);
}

static void test_empty(const char *dir)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/empty.gz", dir);
  FILE *f = fopen(path, "wb");
  LwGzWriter *w = NULL;
  LwGzOptions o = {.gzip = true};
  CHECK_INT_EQ(lw_gz_writer_open(f, &o, &w, NULL), LW_OK);
  LwGzStats st;
  CHECK_INT_EQ(lw_gz_writer_close(w, &st, NULL), LW_OK);
  fclose(f);
  CHECK_INT_EQ(st.bytes_in, 0);
  CHECK(st.bytes_out > 0); /* a valid, empty gzip stream */
  CHECK_STR_EQ(st.md5, "d41d8cd98f00b204e9800998ecf8427e");
  char cmd[9000];
  snprintf(cmd, sizeof(cmd), "test -z \"$(gzip -dc '%s')\"", path);
  CHECK_INT_EQ(system(cmd), 0);
}

/* A full disk: the error from the thread reaches the caller. */
static void test_disk_full(void)
{
  FILE *f = fopen("/dev/full", "wb");
  if (!f) {
    return;
  }
  size_t len = 4 << 20;
  char *t = make_text(len);
  for (int gzip = 0; gzip < 2; ++gzip) {
    LwGzWriter *w = NULL;
    LwError err = {0};
    LwGzOptions o = {.gzip = gzip, .chunk_bytes = 4096, .queue_chunks = 1};
    CHECK_INT_EQ(lw_gz_writer_open(f, &o, &w, &err), LW_OK);
    LwStatus st = LW_OK;
    for (size_t off = 0; off < len && st == LW_OK; off += 65536) {
      st = lw_gz_writer_write(w, t + off, 65536, &err);
    }
    LwStatus cst = lw_gz_writer_close(w, NULL, &err);
    CHECK(st == LW_ERR_IO || cst == LW_ERR_IO);
    CHECK(strstr(err.message, "cannot write") != NULL);
    clearerr(f);
  }
  fclose(f);
  free(t);
}

static void test_free(const char *dir)
{
  lw_gz_writer_free(NULL);
  char path[4096];
  snprintf(path, sizeof(path), "%s/aborted.gz", dir);
  FILE *f = fopen(path, "wb");
  LwGzWriter *w = NULL;
  LwGzOptions o = {.gzip = true, .chunk_bytes = 1024};
  CHECK_INT_EQ(lw_gz_writer_open(f, &o, &w, NULL), LW_OK);
  char *t = make_text(100000);
  lw_gz_writer_write(w, t, 100000, NULL);
  lw_gz_writer_free(w); /* no leak, no hang */
  fclose(f);
  free(t);
  CHECK(true);
}

/* Without the MD5: the same bytes come back, and no MD5 is claimed. */
static void test_no_md5(const char *dir)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/nomd5.nq.gz", dir);
  size_t len = 2 * 1000 * 1000 + 5;
  char *t = make_text(len);
  FILE *f = fopen(path, "wb");
  LwGzWriter *w = NULL;
  LwError err = {0};
  LwGzOptions o = {.gzip = true, .level = 1, .no_md5 = true};
  CHECK_INT_EQ(lw_gz_writer_open(f, &o, &w, &err), LW_OK);
  write_pieces(w, t, len);
  LwGzStats st;
  CHECK_INT_EQ(lw_gz_writer_close(w, &st, &err), LW_OK);
  fclose(f);
  CHECK_STR_EQ(st.md5, "");
  CHECK_INT_EQ(st.bytes_in, len);
  size_t got = 0;
  char *back = gunzip(path, len, &got);
  CHECK(got == len && !memcmp(back, t, len));
  free(back);
  free(t);
}

int main(void)
{
  char *dir = lw_test_tmpdir();
  test_plain(dir);
  test_gzip(dir);
  test_no_md5(dir);
  test_threads_same_bytes(dir);
  test_empty(dir);
  test_disk_full();
  test_free(dir);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
