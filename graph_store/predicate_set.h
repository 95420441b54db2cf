/*
 * A set of predicates (graph_store's own): the export's view refresh
 * counts a graph's distinct predicates (void:properties) while it reads
 * every triple anyway. Memory: the distinct predicates, in practice few.
 */
#ifndef LW_GRAPH_STORE_PREDICATE_SET_H
#define LW_GRAPH_STORE_PREDICATE_SET_H

#include <stddef.h>

#include "base/base.h"

typedef struct {
  char **slots;               /* open addressing, NULL: empty */
  size_t cap, count;          /* count: distinct predicates */
  unsigned long long triples; /* triples added */
} LwPredicateSet;

/* Counts a triple "S P O" and adds its predicate (canonical: no space
 * inside S or P). LW_ERR_NOMEM. */
LwStatus lw_predicate_set_add_triple(LwPredicateSet *set, const char *triple, size_t len);

void lw_predicate_set_free(LwPredicateSet *set);

#endif
