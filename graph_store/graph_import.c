#include "graph_store/graph_store.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "files/files.h"
#include "base/base.h"

/* The harvest id as a file name: its ':' (provider:ISO time) become '_',
 * because colons break tar, scp and SMB shares. Provider names and ISO
 * times hold no '_', so retention (queue/retention_files.c) maps it back. */
static void file_name(const char *harvest_id, char *out, size_t size)
{
  snprintf(out, size, "%s", harvest_id);
  for (char *c = strchr(out, ':'); c; c = strchr(c + 1, ':')) {
    *c = '_';
  }
}

static LwStatus paths(const LwGraphImportOptions *o, LwGraphImportReport *r, char *legacy,
                      char *stats, size_t size, LwError *err)
{
  char id[512];
  file_name(o->harvest_id, id, sizeof(id));
  int n1 = snprintf(legacy, size, "%s/graphs/%s.nq.gz", o->data_dir, o->provider);
  int n3 = snprintf(stats, size, "%s/graphs/%s.stats.json", o->data_dir, o->provider);
  int n4 = snprintf(r->added_path, sizeof(r->added_path), "%s/changesets/%s/%s.added.nq.gz",
                    o->data_dir, o->provider, id);
  int n5 = snprintf(r->removed_path, sizeof(r->removed_path),
                    "%s/changesets/%s/%s.removed.nq.gz", o->data_dir, o->provider, id);
  if (n1 < 0 || n3 < 0 || n4 < 0 || n5 < 0 || (size_t)n1 >= size || (size_t)n3 >= size ||
      (size_t)n4 >= sizeof(r->added_path) || (size_t)n5 >= sizeof(r->removed_path)) {
    return lw_error_set(err, LW_ERR_LIMIT, "data directory path too long");
  }
  return lw_store_mkparents(r->added_path, err);
}

#define MIGRATE_BATCH 1000000 /* triples per transaction: memory stays bounded */

/* Loads a graph file of the earlier layout (DATA/graphs/NAME.nq.gz, sorted
 * canonical N-Quads, written whole by each import) into the new graph
 * database, a million triples a transaction. The graph IRI, which marks
 * the database as complete, goes in with the last one: killed before, the
 * next import loads it again over what is there (puts are idempotent). */
static LwStatus migrate(LwGraphDb *db, const char *path, const char *graph_iri,
                        LwError *err)
{
  LwLineReader *reader = lw_line_reader_open(path, 64u * 1024 * 1024, err);
  if (!reader) {
    return err ? err->status : LW_ERR_IO;
  }
  LwGraphDbInfo info = {.triples = 0};
  char last_subject[4096] = "";
  const char *line;
  size_t len, tlen, gstart, glen;
  LwStatus st = lw_graph_db_begin(db, err);
  while (st == LW_OK && (st = lw_line_reader_next(reader, &line, &len, err)) == LW_OK) {
    if (!lw_nquads_split_line(line, len, &tlen, &gstart, &glen)) {
      st = lw_error_set(err, LW_ERR_FORMAT, "%s: not a canonical N-Quads line", path);
      break;
    }
    st = lw_graph_db_put(db, line, tlen, err);
    size_t slen = (size_t)((const char *)memchr(line, ' ', len) - line);
    if (slen >= sizeof(last_subject) || strncmp(last_subject, line, slen) ||
        last_subject[slen]) {
      ++info.subjects;
      snprintf(last_subject, sizeof(last_subject), "%.*s", (int)slen, line);
    }
    if (st == LW_OK && ++info.triples % MIGRATE_BATCH == 0) {
      st = lw_graph_db_commit(db, err);
      st = st == LW_OK ? lw_graph_db_begin(db, err) : st;
    }
  }
  lw_line_reader_close(reader);
  if (st == LW_NOTHING) {
    snprintf(info.graph_iri, sizeof(info.graph_iri), "%s", graph_iri);
    st = lw_graph_db_set_info(db, &info, err);
  }
  if (st != LW_OK) {
    lw_graph_db_abort(db);
    return st;
  }
  return lw_graph_db_commit(db, err);
}

/* Opens the provider's graph database, made from the earlier layout's
 * graph file when there is one and the database never committed (no graph
 * IRI yet: a migration killed half way starts over). */
static LwStatus open_graph(const LwGraphImportOptions *o, const char *legacy,
                           LwGraphDb **db, LwError *err)
{
  LW_TRY(lw_graph_db_open(o->data_dir, o->provider, false, db, err));
  LwGraphDbInfo info;
  LwStatus st = lw_graph_db_info(*db, &info, err);
  if (st == LW_OK && !info.graph_iri[0] && access(legacy, F_OK) == 0) {
    st = migrate(*db, legacy, o->graph_iri, err);
  }
  if (st != LW_OK) {
    lw_graph_db_close(*db);
    *db = NULL;
  }
  return st;
}

typedef struct {
  const LwGraphImportOptions *options;
  const LwSparqlImport *push;
} Progress;

/* The merge's progress, with the store's requests, to the caller's. */
static void merge_progress(void *handle, unsigned long long lines)
{
  const Progress *p = handle;
  p->options->progress(p->options->progress_handle, lines,
                       p->push ? lw_sparql_import_requests(p->push) : 0);
}

/* The merge into the open transaction, the store's push in the same pass. */
static LwStatus merge_and_push(const LwGraphImportOptions *o, LwGraphDb *db,
                               LwGraphImportReport *r, LwError *err)
{
  LwSparqlImport *push = NULL;
  if (o->store) {
    push = lw_sparql_import_new(o->store, o->graph_iri, 0, 0);
    if (!push) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
  }
  LwGraphMergeOptions m = {
    .graph_iri = o->graph_iri,
    .db = db,
    .new_paths = o->clean_paths,
    .new_count = o->clean_count,
    .data_dir = o->data_dir,
    .added_path = r->added_path,
    .removed_path = r->removed_path,
    .on_harvest_line = push ? lw_sparql_import_line : NULL,
    .on_subject_end = push ? lw_sparql_import_subject_end : NULL,
    .handle = push,
  };
  Progress progress = {o, push};
  if (o->progress) {
    m.progress = merge_progress;
    m.progress_handle = &progress;
  }
  LwStatus st = lw_graph_merge(&m, &r->merge, err);
  if (st == LW_OK && push) {
    st = lw_sparql_import_finish(push, err);
  }
  if (push) {
    r->store_requests = lw_sparql_import_requests(push);
    lw_sparql_import_free(push);
  }
  return st;
}

/* The import's result as committed with the graph: "HARVEST counts...". */
static void record_of(const char *harvest_id, const LwGraphMergeReport *m, char *buf,
                      size_t size)
{
  snprintf(buf, size, "%s %llu %llu %llu %llu %llu %llu", harvest_id, m->triples,
           m->subjects, m->harvest_subjects, m->added, m->removed, m->foreign_graph);
}

/* True when record is harvest_id's import: m gets its counts. */
static bool committed_already(const char *record, const char *harvest_id,
                              LwGraphMergeReport *m)
{
  size_t n = strlen(harvest_id);
  if (!*harvest_id || strncmp(record, harvest_id, n) || record[n] != ' ') {
    return false;
  }
  return sscanf(record + n, " %llu %llu %llu %llu %llu %llu", &m->triples, &m->subjects,
                &m->harvest_subjects, &m->added, &m->removed, &m->foreign_graph) == 6;
}

LwStatus lw_graph_import(const LwGraphImportOptions *o, LwGraphImportReport *r,
                         LwError *err)
{
  memset(r, 0, sizeof(*r));
  char legacy[4096], stats_path[4096];
  LW_TRY(paths(o, r, legacy, stats_path, sizeof(legacy), err));
  LwGraphDb *db = NULL;
  LW_TRY(open_graph(o, legacy, &db, err));
  LwStatus st = lw_graph_db_begin(db, err);
  char record[1024] = "";
  if (st == LW_OK) {
    st = lw_graph_db_last_import(db, record, sizeof(record), err);
  }
  if (st == LW_OK && committed_already(record, o->harvest_id, &r->merge)) {
    /* This harvest's import committed already (its ack was lost, or its
     * worker killed after the commit): its result stands, the changeset
     * as that run wrote it. */
    lw_graph_db_close(db);
    return LW_OK;
  }
  if (st == LW_OK) {
    st = merge_and_push(o, db, r, err);
  }
  if (st == LW_OK) {
    record_of(o->harvest_id, &r->merge, record, sizeof(record));
    st = lw_graph_db_set_last_import(db, record, err);
  }
  /* The store has the harvest; now the files store may move on. */
  if (st == LW_OK) {
    st = lw_graph_db_commit(db, err);
  }
  lw_graph_db_close(db); /* aborts what was not committed */
  LW_TRY(st);
  LwGraphStats stats = {.triples = r->merge.triples,
                        .subjects = r->merge.subjects,
                        .modified = (long long)time(NULL)};
  snprintf(stats.graph_iri, sizeof(stats.graph_iri), "%s", o->graph_iri);
  return lw_graph_stats_write(stats_path, &stats, err);
}
