/*
 * The program behind scripts/bench-fetch (built by that script against the
 * build's static libraries; it is not part of the product):
 *
 *   bench_fetch gen FILE BYTES        writes BYTES of generated N-Triples
 *                                     (tests/support/http_server.h lines)
 *   bench_fetch serve /PATH=FILE ...  serves the files on 127.0.0.1 (the
 *                                     test server, sendfile), prints
 *                                     "port N", runs until stdin closes
 *   bench_fetch get URL DATADIR ALLOW downloads URL with lw_fetch into
 *                                     DATADIR, as the download stage does,
 *                                     and prints one line of figures
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/base.h"
#include "net/net.h"
#include "tests/support/http_server.h"

static int gen(const char *path, unsigned long long size)
{
  FILE *f = fopen(path, "wb");
  if (!f) {
    perror(path);
    return 1;
  }
  enum { CHUNK = 1 << 20 };
  char *buf = malloc(CHUNK);
  for (unsigned long long off = 0; off < size;) {
    size_t n = size - off < CHUNK ? (size_t)(size - off) : CHUNK;
    lw_test_lines_fill(off, buf, n);
    if (fwrite(buf, 1, n, f) != n) {
      perror(path);
      return 1;
    }
    off += n;
  }
  free(buf);
  return fclose(f) == 0 ? 0 : 1;
}

static int serve(int argc, char **argv)
{
  LwTestServer *srv = lw_test_server_start();
  if (!srv) {
    return 1;
  }
  for (int i = 0; i < argc; ++i) {
    char *eq = strchr(argv[i], '=');
    if (!eq) {
      fprintf(stderr, "serve: expected /PATH=FILE, got %s\n", argv[i]);
      return 2;
    }
    *eq = '\0';
    lw_test_server_add(srv, argv[i], &(LwTestResponse){.file = eq + 1, .ranges = true});
  }
  printf("port %u\n", lw_test_server_port(srv));
  fflush(stdout);
  char c;
  while (read(0, &c, 1) > 0) {
  }
  lw_test_server_stop(srv);
  return 0;
}

static int get(const char *url, const char *data_dir, const char *allow)
{
  LwNetGuard *guard = NULL;
  LwError err;
  if (lw_netguard_new(allow, &guard, &err) != LW_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 2;
  }
  LwFetchOptions o;
  memset(&o, 0, sizeof(o));
  o.data_dir = data_dir;
  o.guard = guard;
  o.contact = "https://example.org/lodwash-bench";
  LwFetchResult r;
  double t0 = lw_monotonic_seconds();
  LwStatus st = lw_fetch(url, &o, &r, &err);
  double secs = lw_monotonic_seconds() - t0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  if (st != LW_OK) {
    fprintf(stderr, "lw_fetch: %s\n", err.message);
    lw_fetch_result_clear(&r);
    lw_netguard_free(guard);
    return 1;
  }
  printf("bytes=%llu seconds=%.3f mb_per_s=%.1f peak_rss_kb=%ld md5=%s lines=%llu\n",
         (unsigned long long)r.content.number_of_bytes, secs,
         (double)r.content.number_of_bytes / 1e6 / secs, ru.ru_maxrss, r.content.hash,
         (unsigned long long)r.content.number_of_lines);
  unlink(r.path);
  lw_fetch_result_clear(&r);
  lw_netguard_free(guard);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 4 && !strcmp(argv[1], "gen")) {
    return gen(argv[2], strtoull(argv[3], NULL, 10));
  }
  if (argc >= 3 && !strcmp(argv[1], "serve")) {
    return serve(argc - 2, argv + 2);
  }
  if (argc == 5 && !strcmp(argv[1], "get")) {
    return get(argv[2], argv[3], argv[4]);
  }
  fprintf(stderr, "usage: bench_fetch gen FILE BYTES | serve /PATH=FILE... | "
                  "get URL DATADIR ALLOW\n");
  return 2;
}
