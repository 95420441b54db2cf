#include "graph_store/graph_store.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

LwStatus lw_graph_stats_write(const char *path, const LwGraphStats *s, LwError *err)
{
  json_t *obj = json_pack("{s:s, s:I, s:I, s:I}", "graph", s->graph_iri, "triples",
                          (json_int_t)s->triples, "subjects", (json_int_t)s->subjects,
                          "modified", (json_int_t)s->modified);
  if (!obj) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  char tmp[4096];
  snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
  int rc = json_dump_file(obj, tmp, JSON_SORT_KEYS);
  json_decref(obj);
  if (rc != 0 || rename(tmp, path) != 0) {
    unlink(tmp);
    return lw_error_set(err, LW_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  }
  return LW_OK;
}

/* The properties counted by the last view (NAME.view.json beside
 * NAME.stats.json), when it showed as many triples as the stats say: an
 * import since then leaves them unknown rather than wrong. */
static void read_view_counts(const char *stats_path, LwGraphStats *s)
{
  char path[4096];
  size_t n = strlen(stats_path), suffix = strlen(".stats.json");
  if (n <= suffix || strcmp(stats_path + n - suffix, ".stats.json")) {
    return;
  }
  snprintf(path, sizeof(path), "%.*s.view.json", (int)(n - suffix), stats_path);
  json_t *v = json_load_file(path, 0, NULL);
  json_t *triples = json_object_get(v, "triples"),
         *properties = json_object_get(v, "properties");
  if (json_is_integer(triples) && json_is_integer(properties) &&
      (unsigned long long)json_integer_value(triples) == s->triples) {
    s->has_properties = true;
    s->properties = (unsigned long long)json_integer_value(properties);
  }
  json_decref(v);
}

LwStatus lw_graph_stats_read(const char *path, LwGraphStats *s, LwError *err)
{
  memset(s, 0, sizeof(*s));
  if (access(path, F_OK) != 0) {
    return LW_NOTHING;
  }
  json_error_t jerr;
  json_t *obj = json_load_file(path, 0, &jerr);
  if (!obj) {
    return lw_error_set(err, LW_ERR_FORMAT, "%s:%d: %s", path, jerr.line, jerr.text);
  }
  const char *graph = "";
  json_int_t triples = 0, subjects = 0, modified = 0;
  int rc = json_unpack(obj, "{s:s, s:I, s:I, s:I}", "graph", &graph, "triples", &triples,
                       "subjects", &subjects, "modified", &modified);
  if (rc == 0) {
    snprintf(s->graph_iri, sizeof(s->graph_iri), "%s", graph);
    s->triples = (unsigned long long)triples;
    s->subjects = (unsigned long long)subjects;
    s->modified = modified;
  }
  json_decref(obj);
  if (rc == 0) {
    read_view_counts(path, s);
  }
  return rc == 0 ? LW_OK : lw_error_set(err, LW_ERR_FORMAT, "%s: bad graph stats", path);
}
