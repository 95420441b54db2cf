#include "graph_store/graph_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "files/files.h"

typedef struct {
  char name[256];
  LwGraphStats stats;
} Graph;

static int by_name(const void *a, const void *b)
{
  return strcmp(((const Graph *)a)->name, ((const Graph *)b)->name);
}

typedef struct {
  const char *data_dir;
  Graph *graphs;
  unsigned count, cap;
  time_t newest;
} Listing;

/* Adds graph NAME (DATA/graphs/NAME.nq.gz) with its stats. */
static LwStatus add_graph(void *handle, const char *name, LwError *err)
{
  Listing *l = handle;
  if (!lw_graph_name_is_provider(name)) {
    return LW_OK; /* the metadata graph: exported apart (meta/meta.h) */
  }
  if (l->count == l->cap) {
    unsigned cap = l->cap ? 2 * l->cap : 64;
    Graph *more = realloc(l->graphs, cap * sizeof(Graph));
    if (!more) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory for %u graphs", cap);
    }
    l->graphs = more;
    l->cap = cap;
  }
  Graph *g = &l->graphs[l->count++];
  memset(g, 0, sizeof(*g));
  snprintf(g->name, sizeof(g->name), "%s", name);
  char path[4096];
  snprintf(path, sizeof(path), "%s/graphs/%s.stats.json", l->data_dir, name);
  LwStatus st = lw_graph_stats_read(path, &g->stats, err);
  struct stat sb;
  snprintf(path, sizeof(path), "%s/graphs/%s.nq.gz", l->data_dir, name);
  if (st <= LW_NOTHING && stat(path, &sb) == 0 && sb.st_mtime > l->newest) {
    l->newest = sb.st_mtime;
  }
  return st == LW_NOTHING ? LW_OK : st;
}

/* Lists DATA/graphs/NAME.nq.gz with their stats, sorted by name, into
 * *graphs (the caller frees it); the newest modification time of any graph
 * file goes into *newest. */
static LwStatus list_graphs(const char *data_dir, Graph **graphs, unsigned *count,
                            time_t *newest, LwError *err)
{
  Listing l = {.data_dir = data_dir};
  LwStatus st = lw_store_each_graph(data_dir, ".nq.gz", add_graph, &l, err);
  if (l.count) {
    qsort(l.graphs, l.count, sizeof(Graph), by_name);
  }
  *graphs = l.graphs;
  *count = l.count;
  *newest = l.newest;
  return st;
}

static LwStatus append_file(FILE *out, const char *path, unsigned long long *bytes,
                            LwError *err)
{
  FILE *in = fopen(path, "rb");
  if (!in) {
    return lw_error_set(err, LW_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  }
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
    if (fwrite(buf, 1, n, out) != n) {
      fclose(in);
      return lw_error_set(err, LW_ERR_IO, "write error: %s", strerror(errno));
    }
    *bytes += n;
  }
  bool failed = ferror(in);
  fclose(in);
  return failed ? lw_error_set(err, LW_ERR_IO, "read error on %s", path) : LW_OK;
}

static void format_time(time_t t, char *buf, size_t size)
{
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void write_void(FILE *out, const Graph *graphs, unsigned count,
                       unsigned long long triples, time_t modified)
{
  char when[32];
  format_time(modified, when, sizeof(when));
  fprintf(out,
          "@prefix void: <http://rdfs.org/ns/void#> .\n"
          "@prefix dcterms: <http://purl.org/dc/terms/> .\n"
          "@prefix sd: <http://www.w3.org/ns/sparql-service-description#> .\n"
          "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n\n"
          "<#all> a void:Dataset ;\n"
          "  dcterms:title \"lodwash export: all provider graphs\" ;\n"
          "  dcterms:modified \"%s\"^^xsd:dateTime ;\n"
          "  void:dataDump <all.nq.gz> ;\n"
          "  void:feature <http://www.w3.org/ns/formats/N-Quads> ;\n"
          "  void:triples %llu",
          when, triples);
  for (unsigned i = 0; i < count; ++i) {
    fprintf(out, " ;\n  void:subset <#%s>", graphs[i].name);
  }
  fputs(" .\n", out);
  for (unsigned i = 0; i < count; ++i) {
    const LwGraphStats *s = &graphs[i].stats;
    fprintf(out,
            "\n<#%s> a void:Dataset ;\n"
            "  dcterms:title \"%s\" ;\n"
            "  sd:name <%s> ;\n"
            "  void:triples %llu ;\n"
            "  void:distinctSubjects %llu",
            graphs[i].name, graphs[i].name, s->graph_iri, s->triples, s->subjects);
    if (s->has_properties) {
      format_time((time_t)s->modified, when, sizeof(when));
      fprintf(out, " ;\n  void:properties %llu ;\n  dcterms:modified \"%s\"^^xsd:dateTime",
              s->properties, when);
    }
    fputs(" .\n", out);
  }
}

/* The metadata graph (meta/meta.h), when the export wrote one: its dump and
 * its counts from DATA/export/meta.stats.json. */
static void write_void_meta(FILE *out, const LwGraphStats *meta)
{
  fprintf(out,
          "\n<#meta> a void:Dataset ;\n"
          "  dcterms:title \"lodwash metadata: providers, harvests, documents\" ;\n"
          "  sd:name <%s> ;\n"
          "  void:dataDump <meta.nq.gz> ;\n"
          "  void:feature <http://www.w3.org/ns/formats/N-Quads> ;\n"
          "  void:triples %llu ;\n"
          "  void:distinctSubjects %llu .\n",
          meta->graph_iri, meta->triples, meta->subjects);
}

/* The metadata graph's stats, when there are; their file's time joins the
 * graphs' (a new metadata graph is a new export). */
static bool read_meta(const char *data_dir, LwGraphStats *meta, time_t *newest)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/export/meta.stats.json", data_dir);
  LwError ignored;
  struct stat sb;
  if (lw_graph_stats_read(path, meta, &ignored) != LW_OK || stat(path, &sb) != 0) {
    return false;
  }
  if (sb.st_mtime > *newest) {
    *newest = sb.st_mtime;
  }
  return true;
}

/* True when DATA/export/void.ttl is at least as new as every graph. */
static bool up_to_date(const char *data_dir, time_t newest)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/export/void.ttl", data_dir);
  struct stat sb;
  return stat(path, &sb) == 0 && sb.st_mtime > newest;
}

static LwStatus write_dump(const char *data_dir, const Graph *graphs, unsigned count,
                           char *tmp, size_t size, LwExportReport *report, LwError *err)
{
  FILE *out;
  LW_TRY(lw_store_tmpfile(data_dir, tmp, size, &out, err));
  LwStatus st = LW_OK;
  for (unsigned i = 0; st == LW_OK && i < count; ++i) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/graphs/%s.nq.gz", data_dir, graphs[i].name);
    st = append_file(out, path, &report->bytes, err);
    report->triples += graphs[i].stats.triples;
  }
  if (fclose(out) != 0 && st == LW_OK) {
    st = lw_error_set(err, LW_ERR_IO, "cannot finish %s", tmp);
  }
  return st;
}

LwStatus lw_export(const char *data_dir, bool force, LwExportReport *report, LwError *err)
{
  memset(report, 0, sizeof(*report));
  Graph *graphs = NULL;
  unsigned count = 0;
  time_t newest = 0;
  /* The graph databases changed since: their graph files first. */
  LwStatus st = lw_graph_view_refresh_all(data_dir, NULL, err);
  if (st == LW_OK) {
    st = list_graphs(data_dir, &graphs, &count, &newest, err);
  }
  LwGraphStats meta;
  bool has_meta = st == LW_OK && read_meta(data_dir, &meta, &newest);
  if (st == LW_OK && !force && up_to_date(data_dir, newest)) {
    free(graphs);
    return LW_NOTHING;
  }
  char dump_tmp[4096] = "", void_tmp[4096] = "";
  report->graphs = count;
  if (st == LW_OK) {
    st = write_dump(data_dir, graphs, count, dump_tmp, sizeof(dump_tmp), report, err);
  }
  FILE *vf = NULL;
  if (st == LW_OK) {
    st = lw_store_tmpfile(data_dir, void_tmp, sizeof(void_tmp), &vf, err);
  }
  if (st == LW_OK) {
    write_void(vf, graphs, count, report->triples, newest ? newest : time(NULL));
    if (has_meta) {
      write_void_meta(vf, &meta);
    }
    if (fclose(vf) != 0) {
      st = lw_error_set(err, LW_ERR_IO, "cannot finish %s", void_tmp);
    }
  }
  char dump_path[4096], void_path[4096];
  snprintf(dump_path, sizeof(dump_path), "%s/export/all.nq.gz", data_dir);
  snprintf(void_path, sizeof(void_path), "%s/export/void.ttl", data_dir);
  /* The dump first: a reader that sees the new VoID finds the new dump. */
  if (st == LW_OK) {
    st = lw_store_commit(dump_tmp, dump_path, err);
  }
  if (st == LW_OK) {
    st = lw_store_commit(void_tmp, void_path, err);
  }
  if (st != LW_OK) {
    if (*dump_tmp) {
      unlink(dump_tmp);
    }
    if (*void_tmp) {
      unlink(void_tmp);
    }
  }
  report->written = st == LW_OK;
  free(graphs);
  return st;
}
