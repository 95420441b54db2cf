/*
 * DATA/export/meta.nq.gz (meta/meta.h): the metadata graph through the
 * cleaner's external sort (sorted, no repeats, bounded memory) into the gzip
 * writer, then committed only when the MD5 of its lines moved, so that
 * readers (and the store) see a new graph only when there is one.
 *
 * Making it walks every seed, too much for every periodic export job: the
 * job first compares a change mark (the records' mark, queue/records.h,
 * and the graphs' stats files) with the last export's, and makes nothing
 * when it did not move.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "files/files.h"
#include "graph_store/graph_store.h"
#include "meta/meta.h"
#include "meta/meta_store.h"
#include "queue/records.h"

/* Sort memory: --sort-memory, as the cleaner's; the graph is some 4 KB a
 * document. */
static size_t sort_budget(const LwConfig *cfg)
{
  return cfg->sort_memory_bytes > 0 ? (size_t)cfg->sort_memory_bytes : (size_t)64 << 20;
}

typedef struct {
  LwGzWriter *gz;
  LwGraphReplace *files; /* the files store's copy, in the same pass */
  LwError *err;
  unsigned long long lines, subjects;
  char last[4096]; /* the previous line's subject, to count distinct ones */
} Out;

static LwStatus add_line(void *handle, const char *line, size_t len)
{
  LwError ignored;
  return lw_sorter_add(handle, line, len, &ignored);
}

/* The sorted lines: counted (a new subject starts a new group), written to
 * the file and the files store. */
static LwStatus write_line(void *handle, const char *line, size_t len)
{
  Out *o = handle;
  const char *space = memchr(line, ' ', len);
  size_t n = space ? (size_t)(space - line) : len;
  if (n >= sizeof(o->last) || strncmp(o->last, line, n) || o->last[n]) {
    o->subjects++;
    snprintf(o->last, sizeof(o->last), "%.*s", (int)(n < sizeof(o->last) ? n : 0), line);
  }
  o->lines++;
  LwStatus st = lw_graph_replace_line(o->files, line, len, o->err);
  return st == LW_OK ? lw_gz_writer_sink(o->gz, line, len) : st;
}

/* A field of the last export's DATA/export/meta.stats.json, "" if none. */
static void last_value(const char *path, const char *field, char out[LW_HASH_HEX_LEN + 1])
{
  json_t *j = json_load_file(path, 0, NULL);
  const char *v = json_string_value(json_object_get(j, field));
  snprintf(out, LW_HASH_HEX_LEN + 1, "%s", v ? v : "");
  json_decref(j);
}

/* DATA/export/meta.mark: the change mark the last graph was made at. A file
 * of its own: the stats file's time tells export/void.ttl the graph is new,
 * which a mark alone does not make it. */
static void mark_path(const LwConfig *cfg, char *buf, size_t size)
{
  snprintf(buf, size, "%s/export/meta.mark", cfg->data_dir);
}

static void last_mark(const LwConfig *cfg, char out[LW_HASH_HEX_LEN + 1])
{
  char path[4096];
  mark_path(cfg, path, sizeof(path));
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(out, 1, LW_HASH_HEX_LEN, f) : 0;
  out[n] = '\0';
  if (f) {
    fclose(f);
  }
}

static LwStatus write_mark(const LwConfig *cfg, const char *mark, LwError *err)
{
  char path[4096], tmp[4200];
  mark_path(cfg, path, sizeof(path));
  snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  bool ok = f && fputs(mark, f) >= 0;
  ok = f && fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    return lw_error_set(err, LW_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  }
  return LW_OK;
}

/* The stages whose jobs change what the graph says. */
static const char *const stages[] = {"download", "unpack", "guess", "parse", "import"};

typedef struct {
  const char *data_dir;
  LwMd5 *md5;
} GraphFiles;

/* Feeds DATA/graphs/NAME.stats.json and NAME.view.json (the providers'
 * sizes) to the mark. */
static LwStatus add_graph_files(void *handle, const char *name, LwError *err)
{
  (void)err;
  GraphFiles *g = handle;
  static const char *const suffixes[] = {".stats.json", ".view.json"};
  for (size_t i = 0; i < 2; ++i) {
    char path[4096], buf[4096];
    snprintf(path, sizeof(path), "%s/graphs/%s%s", g->data_dir, name, suffixes[i]);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
    if (f) {
      fclose(f);
    }
    lw_md5_update(g->md5, path, strlen(path) + 1);
    lw_md5_update(g->md5, buf, n);
  }
  return LW_OK;
}

static LwStatus change_mark(LwRecords *c, const LwConfig *cfg,
                            char out[LW_HASH_HEX_LEN + 1], LwError *err)
{
  char records[LW_HASH_HEX_LEN + 1];
  LW_TRY(lw_records_change_mark(c, cfg->prefix, stages, sizeof(stages) / sizeof(stages[0]),
                                records, err));
  GraphFiles g = {.data_dir = cfg->data_dir, .md5 = lw_md5_new()};
  if (!g.md5) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  lw_md5_update(g.md5, records, sizeof(records));
  LwStatus st = lw_store_each_graph(cfg->data_dir, ".stats.json", add_graph_files, &g, err);
  lw_md5_finish(g.md5, out);
  lw_md5_free(g.md5);
  return st;
}

/* The counts beside the file, in the graph stats' form (graph_store/
 * graph_store.h) that export/void.ttl reads, with the MD5. */
static LwStatus write_stats(const char *path, const char *graph, const Out *o,
                            const char *md5, LwError *err)
{
  json_t *j = json_pack("{s:s, s:I, s:I, s:I, s:s}", "graph", graph, "triples",
                        (json_int_t)o->lines, "subjects", (json_int_t)o->subjects,
                        "modified", (json_int_t)time(NULL), "md5", md5);
  char tmp[4096];
  snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
  int rc = j ? json_dump_file(j, tmp, JSON_SORT_KEYS) : -1;
  json_decref(j);
  if (rc != 0 || rename(tmp, path) != 0) {
    unlink(tmp);
    return lw_error_set(err, LW_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  }
  return LW_OK;
}

/* Sorts the graph's lines into the temporary file tmp (gzip) and the files
 * store's graph (its transaction left open in o->files). */
static LwStatus write_sorted(LwRecords *c, const LwConfig *cfg, const char *graph,
                             char *tmp, size_t size, Out *o, LwGzStats *gs, LwError *err)
{
  LwSorter *sorter = lw_sorter_new(&(LwSortOptions){.data_dir = cfg->data_dir, .memory_budget = sort_budget(cfg)});
  if (!sorter) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for the metadata graph's sort");
  }
  LwMetaOptions mo = {
    .prefix = cfg->prefix, .data_dir = cfg->data_dir, .graph_base = cfg->graph_base};
  LwStatus st = lw_meta_write(c, &mo, add_line, sorter, NULL, err);
  FILE *f = NULL;
  if (st == LW_OK) {
    st = lw_store_tmpfile(cfg->data_dir, tmp, size, &f, err);
  }
  if (st == LW_OK) {
    st = lw_graph_replace_begin(cfg->data_dir, LW_META_STORE_NAME, graph, &o->files, err);
  }
  if (st == LW_OK) {
    st = lw_gz_writer_open(f, &(LwGzOptions){.gzip = true}, &o->gz, err);
  }
  if (st == LW_OK) {
    st = lw_sorter_finish(sorter, write_line, o, err);
    LwStatus closed = lw_gz_writer_close(o->gz, gs, err);
    st = st == LW_OK ? closed : st;
  }
  if (f && fclose(f) != 0 && st == LW_OK) {
    st = lw_error_set(err, LW_ERR_IO, "cannot finish %s", tmp);
  }
  lw_sorter_free(sorter);
  return st;
}

LwStatus lw_meta_export(LwRecords *c, const LwConfig *cfg, bool force,
                        LwMetaExportReport *report, LwError *err)
{
  memset(report, 0, sizeof(*report));
  char tmp[4096] = "", path[4096], stats_path[4096], graph[2048];
  snprintf(path, sizeof(path), "%s/export/meta.nq.gz", cfg->data_dir);
  snprintf(stats_path, sizeof(stats_path), "%s/export/meta.stats.json", cfg->data_dir);
  lw_meta_graph_iri(cfg->graph_base, graph, sizeof(graph));
  char mark[LW_HASH_HEX_LEN + 1], before_mark[LW_HASH_HEX_LEN + 1];
  LW_TRY(change_mark(c, cfg, mark, err));
  last_mark(cfg, before_mark);
  if (!force && !strcmp(mark, before_mark) && access(path, F_OK) == 0) {
    return LW_NOTHING; /* nothing happened since: not even made */
  }
  Out o = {.err = err};
  LwGzStats gs = {0};
  LwStatus st = write_sorted(c, cfg, graph, tmp, sizeof(tmp), &o, &gs, err);
  report->triples = o.lines;
  char before[LW_HASH_HEX_LEN + 1];
  last_value(stats_path, "md5", before);
  if (st == LW_OK && !force && !strcmp(before, gs.md5) && access(path, F_OK) == 0 &&
      lw_graph_db_exists(cfg->data_dir, LW_META_STORE_NAME)) {
    unlink(tmp);
    lw_graph_replace_abort(o.files);
    /* the same graph: only the mark is new */
    return write_mark(cfg, mark, err) == LW_OK ? LW_NOTHING : err->status;
  }
  if (st == LW_OK) {
    st = lw_store_commit(tmp, path, err);
  }
  if (st != LW_OK && *tmp) {
    unlink(tmp);
  }
  report->written = st == LW_OK;
  /* the files store is kept beside a SPARQL store too */
  if (st == LW_OK) {
    st = lw_graph_replace_commit(o.files, err);
  } else {
    lw_graph_replace_abort(o.files);
  }
  if (st == LW_OK && strcmp(cfg->store, "files")) {
    st = lw_meta_store_replace(cfg, graph, path, err);
    report->stored = st == LW_OK;
  }
  /* The MD5 last: a graph the store did not take is sent again next time. */
  if (st == LW_OK) {
    st = write_stats(stats_path, graph, &o, gs.md5, err);
  }
  if (st == LW_OK) {
    st = write_mark(cfg, mark, err);
  }
  return st;
}
