/*
 * JSON-LD 1.1 Node Map Generation (7.2.2): flattens expanded JSON-LD into
 * graph name -> subject -> node, relabelling blank nodes with labels that are
 * unique in the whole document (the issuer lives in LwJld, so a document
 * processed element by element keeps them unique).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonld/jsonld_private.h"

const char *lw_jld_issue_bnode(LwJld *p, const char *old)
{
  if (old) {
    json_t *issued = json_object_get(p->bnode_map, old);
    if (issued) {
      return json_string_value(issued);
    }
  }
  snprintf(p->fresh, sizeof(p->fresh), "_:b%llu", p->bnode_counter++);
  if (!old) {
    return p->fresh; /* valid until the next fresh label */
  }
  json_t *s = json_string(p->fresh);
  if (!s || json_object_set_new(p->bnode_map, old, s)) {
    return NULL;
  }
  return json_string_value(s);
}

static json_t *get_or_create(json_t *obj, const char *key)
{
  json_t *v = json_object_get(obj, key);
  if (!v) {
    v = json_object();
    json_object_set_new(obj, key, v);
  }
  return v;
}

static LwStatus node_map(LwJld *p, json_t *element, json_t *map, const char *graph_name,
                         json_t *subject, const char *property, json_t *list);

static LwStatus node_object(LwJld *p, json_t *element, json_t *map, const char *graph_name,
                            json_t *subject, const char *property, json_t *list)
{
  json_t *graph = get_or_create(map, graph_name);
  json_t *subject_node = json_is_string(subject)
                           ? json_object_get(graph, json_string_value(subject))
                           : NULL;
  /* 6.1 */
  const char *id;
  json_t *idv = json_object_get(element, "@id");
  if (json_is_string(idv)) {
    id = json_string_value(idv);
    if (lw_jld_is_bnode(id)) {
      id = lw_jld_issue_bnode(p, id);
    }
  } else if (idv) {
    return LW_OK; /* a null @id (keyword-like value): the node is dropped */
  } else {
    id = lw_jld_issue_bnode(p, NULL);
  }
  if (!id) {
    return lw_jld_nomem(p);
  }
  json_t *idcopy = json_string(id); /* id may live in element */
  id = json_string_value(idcopy);
  /* 6.2, 6.3 */
  json_t *node = json_object_get(graph, id);
  if (!node) {
    node = lw_jld_obj1("@id", json_string(id));
    json_object_set_new(graph, id, node);
  }
  LwStatus st = LW_OK;
  if (json_is_object(subject)) {
    /* 6.4: a reverse property */
    lw_jld_add_unique(node, property, json_incref(subject));
  } else if (property) {
    /* 6.5 */
    json_t *ref = lw_jld_obj1("@id", json_string(id));
    if (list) {
      json_array_append_new(json_object_get(list, "@list"), ref);
    } else if (subject_node) {
      lw_jld_add_unique(subject_node, property, ref);
    } else {
      json_decref(ref);
    }
  }
  /* 6.6 */
  json_t *types = json_object_get(element, "@type");
  size_t i;
  json_t *t;
  json_array_foreach(types, i, t) {
    const char *ts = json_string_value(t);
    if (ts && lw_jld_is_bnode(ts)) {
      ts = lw_jld_issue_bnode(p, ts);
    }
    if (ts) {
      lw_jld_add_unique(node, "@type", json_string(ts));
    }
  }
  /* 6.7 */
  json_t *index = json_object_get(element, "@index");
  if (index) {
    json_t *existing = json_object_get(node, "@index");
    if (existing && !json_equal(existing, index)) {
      LwStatus bad = lw_jld_fail(p, "conflicting indexes", "%s", id);
      json_decref(idcopy); /* id lives in idcopy */
      return bad;
    }
    json_object_set(node, "@index", index);
  }
  /* 6.8 */
  json_t *reverse = json_object_get(element, "@reverse");
  if (reverse) {
    json_t *ref = lw_jld_obj1("@id", json_string(id));
    const char *rp;
    json_t *values;
    json_object_foreach(reverse, rp, values) {
      json_array_foreach(values, i, t) {
        st = node_map(p, t, map, graph_name, ref, rp, NULL);
        if (st != LW_OK) {
          break;
        }
      }
      if (st != LW_OK) {
        break;
      }
    }
    json_decref(ref);
  }
  /* 6.9 */
  json_t *g = json_object_get(element, "@graph");
  if (st == LW_OK && g) {
    st = node_map(p, g, map, id, NULL, NULL, NULL);
  }
  /* 6.10 */
  json_t *inc = json_object_get(element, "@included");
  if (st == LW_OK && inc) {
    st = node_map(p, inc, map, graph_name, NULL, NULL, NULL);
  }
  /* 6.11 */
  const char *key;
  json_t *value;
  json_object_foreach(element, key, value) {
    if (st != LW_OK) {
      break;
    }
    if (key[0] == '@') {
      continue; /* @id, @type, @index, @reverse, @graph, @included */
    }
    const char *prop = key;
    if (lw_jld_is_bnode(prop)) {
      prop = lw_jld_issue_bnode(p, prop);
    }
    graph = json_object_get(map, graph_name);
    node = json_object_get(graph, id);
    if (!json_object_get(node, prop)) {
      json_object_set_new(node, prop, json_array());
    }
    json_t *subj = json_string(id);
    st = node_map(p, value, map, graph_name, subj, prop, NULL);
    json_decref(subj);
  }
  json_decref(idcopy);
  return st;
}

static LwStatus node_map(LwJld *p, json_t *element, json_t *map, const char *graph_name,
                         json_t *subject, const char *property, json_t *list)
{
  if (p->depth >= p->max_depth) {
    lw_error_set(p->err, LW_ERR_LIMIT, "JSON nested deeper than %u levels", p->max_depth);
    return LW_ERR_LIMIT;
  }
  LwStatus st = LW_OK;
  p->depth++;
  if (json_is_array(element)) {
    /* 1 */
    size_t i;
    json_t *item;
    json_array_foreach(element, i, item) {
      st = node_map(p, item, map, graph_name, subject, property, list);
      if (st != LW_OK) {
        break;
      }
    }
  } else if (json_object_get(element, "@value")) {
    /* 4 */
    json_t *graph = get_or_create(map, graph_name);
    json_t *subject_node = json_is_string(subject)
                             ? json_object_get(graph, json_string_value(subject))
                             : NULL;
    json_t *v = json_incref(element);
    json_t *type = json_object_get(element, "@type");
    if (json_is_string(type) && lw_jld_is_bnode(json_string_value(type))) {
      json_decref(v);
      v = json_copy(element);
      json_object_set_new(v, "@type",
                          json_string(lw_jld_issue_bnode(p, json_string_value(type))));
    }
    if (list) {
      json_array_append_new(json_object_get(list, "@list"), v);
    } else if (subject_node) {
      lw_jld_add_unique(subject_node, property, v);
    } else {
      json_decref(v);
    }
  } else if (json_object_get(element, "@list")) {
    /* 5 */
    json_t *result = json_pack("{s:[]}", "@list");
    st = node_map(p, json_object_get(element, "@list"), map, graph_name, subject, property,
                  result);
    if (st == LW_OK) {
      if (list) {
        json_array_append_new(json_object_get(list, "@list"), result);
      } else {
        json_t *graph = get_or_create(map, graph_name);
        json_t *subject_node = json_is_string(subject)
                                 ? json_object_get(graph, json_string_value(subject))
                                 : NULL;
        if (subject_node) {
          lw_jld_add_value(subject_node, property, result);
        } else {
          json_decref(result);
        }
      }
    } else {
      json_decref(result);
    }
  } else if (json_is_object(element)) {
    st = node_object(p, element, map, graph_name, subject, property, list);
  }
  p->depth--;
  return st;
}

LwStatus lw_jld_node_map(LwJld *p, json_t *element, json_t *node_map_,
                         const char *active_graph, json_t *active_subject,
                         const char *active_property, json_t *list)
{
  return node_map(p, element, node_map_, active_graph, active_subject, active_property,
                  list);
}
