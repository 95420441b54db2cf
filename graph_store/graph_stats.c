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
  if (obj && s->has_properties) {
    json_object_set_new(obj, "properties", json_integer((json_int_t)s->properties));
  }
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
    json_t *properties = json_object_get(obj, "properties");
    s->has_properties = json_is_integer(properties);
    s->properties = s->has_properties ? (unsigned long long)json_integer_value(properties) : 0;
  }
  json_decref(obj);
  return rc == 0 ? LW_OK : lw_error_set(err, LW_ERR_FORMAT, "%s: bad graph stats", path);
}
