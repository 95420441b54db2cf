/* The export: all graphs in one gzip N-Quads dump with a VoID file whose
 * counts match the graphs; nothing is rewritten when nothing changed. */
#include "graph_store/graph_store.h"

#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <sys/stat.h>
#include <zlib.h>

#include "base/base.h"
#include "tests/support/check.h"

static char data[4096];

static void write_graph(const char *name, const char *lines, unsigned long long triples,
                        unsigned long long subjects, time_t mtime)
{
  char path[4300];
  snprintf(path, sizeof(path), "%s/graphs/%s.nq.gz", data, name);
  gzFile f = gzopen(path, "wb1");
  gzputs(f, lines);
  gzclose(f);
  struct timeval times[2] = {{mtime, 0}, {mtime, 0}};
  utimes(path, times);
  LwGraphStats s = {.triples = triples, .subjects = subjects, .modified = mtime};
  snprintf(s.graph_iri, sizeof(s.graph_iri), "http://lodwash.test/graph/%s", name);
  snprintf(path, sizeof(path), "%s/graphs/%s.stats.json", data, name);
  LwError err;
  CHECK_INT_EQ(lw_graph_stats_write(path, &s, &err), LW_OK);
}

static unsigned count_lines(const char *path)
{
  LwError err;
  LwLineReader *r = lw_line_reader_open(path, 1 << 20, &err);
  if (!r) {
    return 0;
  }
  unsigned n = 0;
  const char *line;
  size_t len;
  while (lw_line_reader_next(r, &line, &len, &err) == LW_OK) {
    ++n;
  }
  lw_line_reader_close(r);
  return n;
}

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    return strdup("");
  }
  char *s = calloc(1, 1 << 16);
  size_t n = fread(s, 1, (1 << 16) - 1, f);
  s[n] = '\0';
  fclose(f);
  return s;
}

int main(void)
{
  char *dir = lw_test_tmpdir();
  snprintf(data, sizeof(data), "%s", dir);
  char graphs[4200];
  snprintf(graphs, sizeof(graphs), "%s/graphs", data);
  mkdir(graphs, 0755);
  time_t past = time(NULL) - 100;
  write_graph("beta", "<http://b/1> <http://p> \"1\" <http://lodwash.test/graph/beta> .\n",
              1, 1, past);
  write_graph("alpha",
              "<http://a/1> <http://p> \"1\" <http://lodwash.test/graph/alpha> .\n"
              "<http://a/1> <http://p> \"2\" <http://lodwash.test/graph/alpha> .\n"
              "<http://a/2> <http://p> \"1\" <http://lodwash.test/graph/alpha> .\n",
              3, 2, past);

  LwExportReport r;
  LwError err;
  CHECK_INT_EQ(lw_export(data, false, &r, &err), LW_OK);
  CHECK_INT_EQ(r.graphs, 2);
  CHECK_INT_EQ(r.triples, 4);
  char dump[4300], voidf[4300];
  snprintf(dump, sizeof(dump), "%s/export/all.nq.gz", data);
  snprintf(voidf, sizeof(voidf), "%s/export/void.ttl", data);
  CHECK_INT_EQ(count_lines(dump), 4);
  char *v = slurp(voidf);
  CHECK(strstr(v, "void:dataDump <all.nq.gz>") != NULL);
  CHECK(strstr(v, "void:triples 4") != NULL);
  CHECK(strstr(v, "<#alpha> a void:Dataset ;\n  dcterms:title \"alpha\" ;\n"
                  "  sd:name <http://lodwash.test/graph/alpha> ;\n"
                  "  void:triples 3 ;\n  void:distinctSubjects 2 .") != NULL);
  CHECK(strstr(v, "void:subset <#beta>") != NULL);
  free(v);
  /* The VoID file is valid Turtle. */
  char cmd[4400];
  snprintf(cmd, sizeof(cmd), "serdi -q -i turtle -o ntriples '%s' > /dev/null", voidf);
  CHECK_INT_EQ(system(cmd), 0);

  /* Nothing changed: nothing written. */
  CHECK_INT_EQ(lw_export(data, false, &r, &err), LW_NOTHING);
  CHECK(!r.written);
  /* A graph changed: exported again. */
  write_graph("beta",
              "<http://b/1> <http://p> \"1\" <http://lodwash.test/graph/beta> .\n"
              "<http://b/2> <http://p> \"1\" <http://lodwash.test/graph/beta> .\n",
              2, 2, time(NULL) + 5);
  CHECK_INT_EQ(lw_export(data, false, &r, &err), LW_OK);
  CHECK_INT_EQ(count_lines(dump), 5);
  /* Forced: written even when nothing changed. */
  CHECK_INT_EQ(lw_export(data, true, &r, &err), LW_OK);
  CHECK(r.written);

  /* The LOD cloud's size and more: 5,000 graphs (a list that stopped at
   * 4,096 failed the export). */
  for (int i = 0; i < 5000; ++i) {
    char name[32], line[128];
    snprintf(name, sizeof(name), "p%04d", i);
    snprintf(line, sizeof(line),
             "<http://p/%d> <http://p> \"1\" <http://lodwash.test/graph/%s> .\n", i, name);
    write_graph(name, line, 1, 1, past);
  }
  CHECK_INT_EQ(lw_export(data, true, &r, &err), LW_OK);
  CHECK_INT_EQ(r.graphs, 5002);
  CHECK_INT_EQ(r.triples, 5 + 5000);
  CHECK_INT_EQ(count_lines(dump), 5 + 5000);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
