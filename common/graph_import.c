#include "common/graph_import.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/file_store.h"
#include "common/graph_stats.h"
#include "common/sparql_import.h"

static LwStatus paths(const LwGraphImportOptions *o, LwGraphImportReport *r,
                      char *graph, char *tmp, char *stats, size_t size, LwError *err)
{
  int n1 = snprintf(graph, size, "%s/graphs/%s.nq.gz", o->data_dir, o->provider);
  /* Unique per process: two runs of one import never write the same file. */
  int n2 = snprintf(tmp, size, "%s/graphs/%s.nq.gz.importing.%ld", o->data_dir,
                    o->provider, (long)getpid());
  int n3 = snprintf(stats, size, "%s/graphs/%s.stats.json", o->data_dir, o->provider);
  int n4 = snprintf(r->added_path, sizeof(r->added_path),
                    "%s/changesets/%s/%s.added.nq.gz", o->data_dir, o->provider,
                    o->harvest_id);
  int n5 = snprintf(r->removed_path, sizeof(r->removed_path),
                    "%s/changesets/%s/%s.removed.nq.gz", o->data_dir, o->provider,
                    o->harvest_id);
  if (n1 < 0 || n2 < 0 || n3 < 0 || n4 < 0 || n5 < 0 || (size_t)n2 >= size ||
      (size_t)n3 >= size || (size_t)n4 >= sizeof(r->added_path) ||
      (size_t)n5 >= sizeof(r->removed_path)) {
    return lw_error_set(err, LW_ERR_LIMIT, "data directory path too long");
  }
  LW_TRY(lw_store_mkparents(graph, err));
  return lw_store_mkparents(r->added_path, err);
}

/* Removes what an import of this provider killed half way left behind.
 * One import per provider runs at a time (one harvest at a time, one import
 * job per harvest), so any such file is an orphan. */
static void remove_orphans(const char *data_dir, const char *provider)
{
  char dir_path[4096], prefix[512];
  snprintf(dir_path, sizeof(dir_path), "%s/graphs", data_dir);
  int n = snprintf(prefix, sizeof(prefix), "%s.nq.gz.importing.", provider);
  DIR *dir = opendir(dir_path);
  struct dirent *e;
  while (dir && (e = readdir(dir)) != NULL) {
    if (!strncmp(e->d_name, prefix, (size_t)n)) {
      char path[4096 + 512];
      snprintf(path, sizeof(path), "%s/%s", dir_path, e->d_name);
      unlink(path);
    }
  }
  if (dir) {
    closedir(dir);
  }
}

LwStatus lw_graph_import(const LwGraphImportOptions *o, LwGraphImportReport *r,
                         LwError *err)
{
  memset(r, 0, sizeof(*r));
  char graph[4096], tmp[4096], stats_path[4096];
  LW_TRY(paths(o, r, graph, tmp, stats_path, sizeof(graph), err));
  remove_orphans(o->data_dir, o->provider);

  LwSparqlImport *push = NULL;
  if (o->store) {
    push = lw_sparql_import_new(o->store, o->graph_iri, 0, 0);
    if (!push) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
  }
  LwGraphMergeOptions m = {
    .graph_iri = o->graph_iri, .old_path = graph, .new_paths = o->clean_paths,
    .new_count = o->clean_count, .out_path = tmp, .added_path = r->added_path,
    .removed_path = r->removed_path,
    .on_harvest_line = push ? lw_sparql_import_line : NULL, .handle = push,
  };
  LwStatus st = lw_graph_merge(&m, &r->merge, err);
  if (st == LW_OK && push) {
    st = lw_sparql_import_finish(push, err);
  }
  if (push) {
    r->store_requests = lw_sparql_import_requests(push);
    lw_sparql_import_free(push);
  }
  if (st != LW_OK) {
    unlink(tmp);
    return st;
  }
  /* The store has the harvest; now the mirror may move on. */
  LwGraphStats stats = {.triples = r->merge.triples, .subjects = r->merge.subjects,
                        .modified = (long long)time(NULL)};
  snprintf(stats.graph_iri, sizeof(stats.graph_iri), "%s", o->graph_iri);
  LW_TRY(lw_store_commit(tmp, graph, err));
  return lw_graph_stats_write(stats_path, &stats, err);
}
