/*
 * Driver of scripts/bench-import: generates the data and times lodwash's
 * import (graph_store/graph_store.h) with each store.
 *
 *   bench-import gen N DIR        DIR/old.nq: the existing graph, N triples;
 *                                 DIR/new.nq: the harvest, N triples, half of
 *                                 its subjects in old.nq; DIR/new.nt: the
 *                                 harvest as N-Triples (for the bulk loader)
 *   bench-import partial N K DIR  DIR/old.nq: N triples; DIR/new.nq: K triples
 *                                 about K/10 of its subjects, spread out
 *   bench-import load DATA        DATA/graphs/bench.nq.gz into the files
 *                                 store's graph database (an empty import)
 *   bench-import files DATA NEW   import NEW into the files store's graph
 *   bench-import rewrite DATA NEW the earlier files store: the merge that
 *                                 rewrites DATA/graphs/bench.nq.gz whole
 *   bench-import sparql DATA NEW URL USER PASSWORD   the same, pushed to URL
 *                                 over LODWASH_STORE_CONNECTIONS connections
 *                                 (unset: the default)
 *   bench-import export DATA      the export of DATA's graphs (graph_store/
 *                                 graph_store.h), its view rewritten first
 *   bench-import meta DATA REDIS PREFIX   the metadata graph's export
 *                                 (meta/meta.h) from the records at REDIS
 *
 * Prints "seconds=S added=A removed=R graph=G requests=Q rss_mb=M" (M: the
 * process's peak resident memory); the script turns seconds into triples
 * per second of the harvest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/base.h"
#include "graph_store/graph_store.h"
#include "meta/meta.h"
#include "queue/redis.h"

#define GRAPH "http://lodwash.example.org/graph/bench"
#define PER_SUBJECT 10

/* Lines come out sorted: subjects and predicates are zero-padded. The old
 * graph has subjects [0, n/P); the harvest [n/2P, n/2P + n/P): half overlap,
 * and their objects differ ("v2"), so overlapping subjects really change. */
static void gen_file(const char *path, unsigned long first, unsigned long subjects,
                     const char *version, const char *graph_term)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  setvbuf(f, NULL, _IOFBF, 1 << 20);
  for (unsigned long s = first; s < first + subjects; ++s) {
    for (int p = 0; p < PER_SUBJECT; ++p) {
      fprintf(
        f,
        "<http://data.example.org/resource/%09lu> <http://data.example.org/vocab#p%02d> "
        "\"value %lu %d %s\"%s .\n",
        s, p, s, p, version, graph_term);
    }
  }
  fclose(f);
}

static int gen(unsigned long n, const char *dir)
{
  char path[4096];
  unsigned long subjects = n / PER_SUBJECT;
  snprintf(path, sizeof(path), "%s/old.nq", dir);
  gen_file(path, 0, subjects, "v1", " <" GRAPH ">");
  snprintf(path, sizeof(path), "%s/new.nq", dir);
  gen_file(path, subjects / 2, subjects, "v2", "");
  snprintf(path, sizeof(path), "%s/new.nt", dir);
  gen_file(path, subjects / 2, subjects, "v2", "");
  return 0;
}

/* A harvest of k triples about k/PER_SUBJECT subjects of an n-triple
 * graph, evenly spread, with new values. */
static int gen_partial(unsigned long n, unsigned long k, const char *dir)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/old.nq", dir);
  gen_file(path, 0, n / PER_SUBJECT, "v1", " <" GRAPH ">");
  snprintf(path, sizeof(path), "%s/new.nq", dir);
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    return 1;
  }
  unsigned long step = n / k;
  for (unsigned long s = 0; s < n / PER_SUBJECT; s += step) {
    for (int p = 0; p < PER_SUBJECT; ++p) {
      fprintf(
        f,
        "<http://data.example.org/resource/%09lu> <http://data.example.org/vocab#p%02d> "
        "\"value %lu %d v2\" .\n",
        s, p, s, p);
    }
  }
  fclose(f);
  return 0;
}

static long peak_rss_mb(void)
{
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

/* The earlier files store: one merge rewriting the whole graph file. */
static int rewrite(const char *data, const char *harvest)
{
  char old[4096], out[4096];
  snprintf(old, sizeof(old), "%s/graphs/bench.nq.gz", data);
  snprintf(out, sizeof(out), "%s/graphs/bench.nq.gz.new", data);
  const char *paths[] = {harvest};
  LwGraphMergeOptions o = {.graph_iri = GRAPH,
                           .old_path = old,
                           .new_paths = paths,
                           .new_count = 1,
                           .out_path = out};
  LwGraphMergeReport r;
  LwError err;
  double t0 = lw_monotonic_seconds();
  LwStatus st = lw_graph_merge(&o, &r, &err);
  double secs = lw_monotonic_seconds() - t0;
  if (st != LW_OK) {
    fprintf(stderr, "merge failed: %s\n", err.message);
    return 1;
  }
  printf("seconds=%.3f added=%llu removed=%llu graph=%llu rss_mb=%ld\n", secs, r.added,
         r.removed, r.triples, peak_rss_mb());
  return 0;
}

/* harvest NULL: no clean file (loads the graph file of the earlier layout). */
static int import(const char *data, const char *harvest, LwSparqlStore *store)
{
  const char *paths[] = {harvest};
  LwGraphImportOptions o = {.data_dir = data,
                            .provider = "bench",
                            .graph_iri = GRAPH,
                            .harvest_id = "bench",
                            .clean_paths = paths,
                            .clean_count = harvest ? 1 : 0,
                            .store = store};
  LwGraphImportReport r;
  LwError err;
  double t0 = lw_monotonic_seconds();
  LwStatus st = lw_graph_import(&o, &r, &err);
  double secs = lw_monotonic_seconds() - t0;
  if (st != LW_OK) {
    fprintf(stderr, "import failed: %s\n", err.message);
    return 1;
  }
  printf("seconds=%.3f added=%llu removed=%llu graph=%llu requests=%llu rss_mb=%ld\n", secs,
         r.merge.added, r.merge.removed, r.merge.triples, r.store_requests, peak_rss_mb());
  return 0;
}

/* CPU seconds (user and system, every thread) of the process so far: on a
 * shared machine the wall time of a short run is mostly waiting. */
static double cpu_seconds(void)
{
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* The export job's graph part, from a stale view: the view rewritten from
 * the database (its properties counted), then the dump and its VoID. */
static int export_graphs(const char *data)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/graphs/bench.view.json", data);
  unlink(path);
  snprintf(path, sizeof(path), "%s/graphs/bench.nq.gz", data);
  unlink(path);
  LwExportReport r;
  LwError err;
  double t0 = lw_monotonic_seconds(), c0 = cpu_seconds();
  if (lw_export(data, true, &r, &err) != LW_OK) {
    fprintf(stderr, "export: %s\n", err.message);
    return 1;
  }
  printf("seconds=%.3f cpu=%.3f graph=%llu rss_mb=%ld\n", lw_monotonic_seconds() - t0,
         cpu_seconds() - c0, r.triples, peak_rss_mb());
  return 0;
}

/* The export job's metadata part: the graph made from the records, sorted,
 * written. */
static int export_meta(const char *data, const char *redis_url, const char *prefix)
{
  LwConfig cfg;
  lw_config_init(&cfg);
  LwError err;
  LwRecords *redis = NULL;
  int rc = 1;
  if (lw_config_set(&cfg, "data", data, &err) == LW_OK &&
      lw_config_set(&cfg, "prefix", prefix, &err) == LW_OK &&
      lw_redis_connect(redis_url, &redis, &err) == LW_OK) {
    LwMetaExportReport r;
    double t0 = lw_monotonic_seconds(), c0 = cpu_seconds();
    if (lw_meta_export(redis, &cfg, true, &r, &err) == LW_OK) {
      printf("seconds=%.3f cpu=%.3f triples=%llu rss_mb=%ld\n", lw_monotonic_seconds() - t0,
             cpu_seconds() - c0, r.triples, peak_rss_mb());
      rc = 0;
    }
  }
  if (rc) {
    fprintf(stderr, "meta: %s\n", err.message);
  }
  lw_records_close(redis);
  lw_config_free(&cfg);
  return rc;
}

int main(int argc, char **argv)
{
  if (argc == 3 && !strcmp(argv[1], "export")) {
    return export_graphs(argv[2]);
  }
  if (argc == 5 && !strcmp(argv[1], "meta")) {
    return export_meta(argv[2], argv[3], argv[4]);
  }
  if (argc == 4 && !strcmp(argv[1], "gen")) {
    return gen(strtoul(argv[2], NULL, 10), argv[3]);
  }
  if (argc == 5 && !strcmp(argv[1], "partial")) {
    return gen_partial(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10), argv[4]);
  }
  if (argc == 3 && !strcmp(argv[1], "load")) {
    return import(argv[2], NULL, NULL);
  }
  if (argc == 4 && !strcmp(argv[1], "files")) {
    return import(argv[2], argv[3], NULL);
  }
  if (argc == 4 && !strcmp(argv[1], "rewrite")) {
    return rewrite(argv[2], argv[3]);
  }
  if (argc == 7 && !strcmp(argv[1], "sparql")) {
    const char *connections = getenv("LODWASH_STORE_CONNECTIONS");
    LwSparqlOptions so = {.update_url = argv[4],
                          .user = argv[5],
                          .password = argv[6],
                          .connections = connections ? strtoul(connections, NULL, 10) : 0};
    LwError err;
    LwSparqlStore *store = lw_sparql_open(&so, &err);
    int rc = store ? import(argv[2], argv[3], store) : 1;
    lw_sparql_close(store);
    return rc;
  }
  fprintf(stderr,
          "usage: bench-import gen N DIR | partial N K DIR | load DATA | files DATA NEW | "
          "rewrite DATA NEW | sparql DATA NEW URL USER PASSWORD | export DATA | "
          "meta DATA REDIS PREFIX\n");
  return 2;
}
