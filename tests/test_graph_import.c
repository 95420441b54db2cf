/* A harvest imported into a provider graph: the graph file, its stats and
 * the changeset (the same again when the import runs twice); with a SPARQL store (when the test Virtuoso runs), the
 * store ends with exactly the triples of the files store. */
#include "graph_store/graph_store.h"

#include <stdlib.h>
#include <unistd.h>

#include "base/base.h"
#include "tests/support/check.h"

static char data[4096];

static void write_file(const char *name, const char *text)
{
  char path[4300];
  snprintf(path, sizeof(path), "%s/%s", data, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static unsigned count_lines(const char *path)
{
  LwError err;
  LwLineReader *r = lw_line_reader_open(path, 1 << 20, &err);
  unsigned n = 0;
  const char *line;
  size_t len;
  while (r && lw_line_reader_next(r, &line, &len, &err) == LW_OK) {
    ++n;
  }
  lw_line_reader_close(r);
  return n;
}

static LwStatus import(const char *provider, const char *graph, const char *harvest,
                       const char *file, LwSparqlStore *store, LwGraphImportReport *r)
{
  char path[4300];
  snprintf(path, sizeof(path), "%s/%s", data, file);
  const char *paths[] = {path};
  LwGraphImportOptions o = {.data_dir = data,
                            .provider = provider,
                            .graph_iri = graph,
                            .harvest_id = harvest,
                            .clean_paths = paths,
                            .clean_count = 1,
                            .store = store};
  LwError err;
  LwStatus st = lw_graph_import(&o, r, &err);
  if (st) {
    fprintf(stderr, "import: %s\n", err.message);
  }
  return st;
}

/* Every line of the graph file is in the store, and nothing else. */
static void check_store_equals_file(LwSparqlStore *store, const char *graph,
                                    const char *path)
{
  LwError err;
  unsigned long long n = 0;
  char q[2048];
  snprintf(q, sizeof(q), "SELECT COUNT(*) WHERE { GRAPH <%s> { ?s ?p ?o } }", graph);
  CHECK_INT_EQ(lw_sparql_count(store, q, &n, &err), LW_OK);
  CHECK_INT_EQ(n, count_lines(path));
  LwLineReader *r = lw_line_reader_open(path, 1 << 20, &err);
  const char *line;
  size_t len, tlen, gs, gl;
  while (r && lw_line_reader_next(r, &line, &len, &err) == LW_OK) {
    CHECK(lw_nquads_split_line(line, len, &tlen, &gs, &gl));
    snprintf(q, sizeof(q), "SELECT COUNT(*) WHERE { GRAPH <%s> { %.*s } }", graph,
             (int)tlen, line);
    n = 0;
    CHECK_INT_EQ(lw_sparql_count(store, q, &n, &err), LW_OK);
    CHECK_INT_EQ(n, 1);
  }
  lw_line_reader_close(r);
}

static void run(LwSparqlStore *store, const char *provider, const char *graph)
{
  LwGraphImportReport r;
  CHECK_INT_EQ(import(provider, graph, "h1", "full.nq", store, &r), LW_OK);
  CHECK_INT_EQ(r.merge.triples, 4);
  char path[4300];
  snprintf(path, sizeof(path), "%s/graphs/%s.nq.gz", data, provider);
  LwError verr;
  CHECK_INT_EQ(lw_graph_view_refresh_all(data, NULL, &verr), LW_OK); /* the export's part */
  CHECK_INT_EQ(count_lines(path), 4);
  CHECK_INT_EQ(count_lines(r.added_path), 4);
  CHECK_INT_EQ(count_lines(r.removed_path), 0);

  CHECK_INT_EQ(import(provider, graph, "h2", "partial.nq", store, &r), LW_OK);
  CHECK_INT_EQ(r.merge.triples, 4);
  CHECK_INT_EQ(r.merge.added, 2);
  CHECK_INT_EQ(r.merge.removed, 2);
  CHECK_INT_EQ(count_lines(r.added_path), 2);
  CHECK_INT_EQ(count_lines(r.removed_path), 2);
  /* h2 run again, as after its ack was refused or its worker killed after
   * the commit (issue 24, item 2): the committed result and changeset
   * stand, not "+0 -0" and empty files */
  LwGraphImportReport again;
  CHECK_INT_EQ(import(provider, graph, "h2", "partial.nq", store, &again), LW_OK);
  CHECK_INT_EQ(again.merge.triples, 4);
  CHECK_INT_EQ(again.merge.added, 2);
  CHECK_INT_EQ(again.merge.removed, 2);
  CHECK_STR_EQ(again.added_path, r.added_path);
  CHECK_INT_EQ(count_lines(again.added_path), 2);
  CHECK_INT_EQ(count_lines(again.removed_path), 2);
  char stats_path[4300];
  snprintf(stats_path, sizeof(stats_path), "%s/graphs/%s.stats.json", data, provider);
  LwGraphStats stats;
  LwError err;
  CHECK_INT_EQ(lw_graph_stats_read(stats_path, &stats, &err), LW_OK);
  CHECK_INT_EQ(stats.triples, 4);
  CHECK_INT_EQ(stats.subjects, 4); /* a, b, c, d */
  CHECK_STR_EQ(stats.graph_iri, graph);
  CHECK_INT_EQ(lw_graph_view_refresh_all(data, NULL, &verr), LW_OK);
  CHECK_INT_EQ(count_lines(path), 4);
  if (store) {
    check_store_equals_file(store, graph, path);
  }
}

int main(void)
{
  char *dir = lw_test_tmpdir();
  snprintf(data, sizeof(data), "%s", dir);
  write_file("full.nq", "<http://x/a> <http://p> \"a\" .\n"
                        "<http://x/b> <http://p> \"b1\" .\n"
                        "<http://x/b> <http://p> \"b2\" .\n"
                        "<http://x/c> <http://p> <http://x/a> .\n");
  write_file("partial.nq", "<http://x/b> <http://p> \"b3\"@en .\n"
                           "<http://x/d> <http://p> \"d\" .\n");
  run(NULL, "filesonly", "http://lodwash.test/graph/filesonly");

  const char *url = getenv("LODWASH_TEST_SPARQL");
  if (url && *url) {
    LwSparqlOptions so = {.update_url = url,
                          .user = getenv("LODWASH_TEST_SPARQL_USER"),
                          .password = getenv("LODWASH_TEST_SPARQL_PASSWORD")};
    LwError err;
    LwSparqlStore *store = lw_sparql_open(&so, &err);
    char provider[64], graph[256];
    snprintf(provider, sizeof(provider), "both%ld", (long)getpid());
    snprintf(graph, sizeof(graph), "http://lodwash.test/graph/%s", provider);
    run(store, provider, graph);
    char clear[512];
    snprintf(clear, sizeof(clear), "CLEAR SILENT GRAPH <%s>", graph);
    lw_sparql_update(store, clear, &err);
    lw_sparql_close(store);
  } else {
    printf("note: no test SPARQL store; the sparql half was not run\n");
  }
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
