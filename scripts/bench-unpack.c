/*
 * The C driver of scripts/bench-unpack (built by that script against
 * build/liblodwash_core.a; not part of the CMake build).
 *
 *   bench-unpack-driver gen BYTES OUT.tar.gz [LEVEL]
 *       streams BYTES of generated N-Triples into a tar.gz holding one file
 *       (dump.nt), gzip level LEVEL (default 6, as `tar czf`).
 *   bench-unpack-driver unpack FILE DATA_DIR
 *       lw_archive_unpack of FILE into DATA_DIR; prints
 *       "unpack BYTES SECONDS MB/s PEAK_RSS_KB" (MB = 10^6 bytes expanded).
 *   bench-unpack-driver encoding FILE DATA_DIR
 *       lw_encoding_settle of FILE (the UTF-8 check of a data file); prints
 *       "encoding BYTES SECONDS MB/s PEAK_RSS_KB ENCODING".
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "archive/archive.h"
#include "base/base.h"

static long peak_rss_kb(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static int gen(unsigned long long bytes, const char *out, const char *level)
{
  struct archive *a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_add_filter_gzip(a);
  archive_write_set_filter_option(a, "gzip", "compression-level", level);
  if (archive_write_open_filename(a, out) != ARCHIVE_OK) {
    fprintf(stderr, "%s: %s\n", out, archive_error_string(a));
    return 1;
  }
  struct archive_entry *e = archive_entry_new();
  archive_entry_set_pathname(e, "dump.nt");
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  archive_entry_set_size(e, (la_int64_t)bytes);
  archive_write_header(a, e);
  size_t cap = 1 << 20;
  char *buf = malloc(cap);
  unsigned long long done = 0, n = 0;
  while (done < bytes) {
    size_t used = 0;
    while (used < cap - 300) {
      /* Varied enough to compress like real dumps (about 5-8x). */
      used += (size_t)snprintf(buf + used, 300,
                               "<http://example.org/resource/%llu> "
                               "<http://example.org/ontology/p%llu> "
                               "\"literal %llu of %llx\"@en .\n",
                               n / 7, n % 53, (n * 2654435761ULL) % 1000000007ULL,
                               n * 40503ULL);
      ++n;
    }
    if (used > bytes - done) {
      used = (size_t)(bytes - done);
    }
    archive_write_data(a, buf, used);
    done += used;
  }
  archive_entry_free(e);
  free(buf);
  return archive_write_close(a) == ARCHIVE_OK && archive_write_free(a) == ARCHIVE_OK ? 0
                                                                                     : 1;
}

static int unpack(const char *file, const char *data_dir)
{
  LwUnpackOptions o;
  memset(&o, 0, sizeof(o));
  o.data_dir = data_dir;
  o.parent_hash = "00000000000000000000000000000000";
  o.limits = lw_unpack_limits_default();
  LwUnpackResult *r = NULL;
  LwError err;
  double t0 = lw_monotonic_seconds();
  LwStatus st = lw_archive_unpack(file, &o, &r, &err);
  double t = lw_monotonic_seconds() - t0;
  if (st) {
    fprintf(stderr, "unpack: %s\n", err.message);
    return 1;
  }
  printf("unpack %llu %.3f %.1f %ld\n", (unsigned long long)r->bytes_expanded, t,
         (double)r->bytes_expanded / 1e6 / t, peak_rss_kb());
  for (size_t i = 0; i < r->n_entries; ++i) {
    fprintf(stderr, "entry %s -> %s/%s\n", r->entries[i].path, data_dir,
            r->entries[i].relpath);
  }
  lw_unpack_result_free(r);
  return 0;
}

static int encoding(const char *file, const char *data_dir)
{
  char out[4096];
  snprintf(out, sizeof(out), "%s/utf8/bench.out", data_dir);
  LwEncodingResult res;
  LwError err;
  double t0 = lw_monotonic_seconds();
  LwStatus st = lw_encoding_settle(data_dir, file, out, &res, &err);
  double t = lw_monotonic_seconds() - t0;
  if (st) {
    fprintf(stderr, "encoding: %s\n", err.message);
    return 1;
  }
  printf("encoding %llu %.3f %.1f %ld %s\n", (unsigned long long)res.bytes_in, t,
         (double)res.bytes_in / 1e6 / t, peak_rss_kb(), res.encoding);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 4 && !strcmp(argv[1], "gen")) {
    return gen(strtoull(argv[2], NULL, 10), argv[3], argc > 4 ? argv[4] : "6");
  }
  if (argc == 4 && !strcmp(argv[1], "unpack")) {
    return unpack(argv[2], argv[3]);
  }
  if (argc == 4 && !strcmp(argv[1], "encoding")) {
    return encoding(argv[2], argv[3]);
  }
  fprintf(stderr,
          "usage: %s gen BYTES OUT.tar.gz [LEVEL] | unpack FILE DATA_DIR | "
          "encoding FILE DATA_DIR\n",
          argv[0]);
  return 2;
}
