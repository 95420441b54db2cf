/*
 * List mappings (@inlist): the lists an element starts, by predicate, filled
 * by it and its descendants and written out as rdf:first / rdf:rest chains
 * once the element ends (rdfa_walk.c).
 */
#include <stdlib.h>
#include <string.h>

#include "rdfa/rdfa_private.h"

RdfaList *rdfa_list_get(RdfaListMap *map, const char *predicate)
{
  for (RdfaList *l = map->lists; l; l = l->next) {
    if (!strcmp(l->predicate, predicate)) {
      return l;
    }
  }
  RdfaList *l = calloc(1, sizeof(*l));
  if (!l || !(l->predicate = strdup(predicate))) {
    free(l);
    return NULL;
  }
  /* kept in the order the lists were started */
  RdfaList **end = &map->lists;
  while (*end) {
    end = &(*end)->next;
  }
  *end = l;
  return l;
}

void rdfa_list_map_clear(RdfaListMap *map)
{
  RdfaList *l = map->lists;
  while (l) {
    RdfaList *next = l->next;
    for (size_t i = 0; i < l->count; ++i) {
      rdfa_object_free(&l->items[i]);
    }
    free(l->items);
    free(l->predicate);
    free(l);
    l = next;
  }
  map->lists = NULL;
}
