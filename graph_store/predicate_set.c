#include "graph_store/predicate_set.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(const char *s, size_t len)
{
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; ++i) {
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  }
  return h;
}

/* The slot of s: where it is, or the empty slot where it goes. */
static char **slot_of(char **slots, size_t cap, const char *s, size_t len)
{
  size_t i = fnv1a(s, len) & (cap - 1);
  while (slots[i] && (strncmp(slots[i], s, len) || slots[i][len])) {
    i = (i + 1) & (cap - 1);
  }
  return &slots[i];
}

/* Doubles the table (kept at most half full, so that probes stay short). */
static LwStatus grow(LwPredicateSet *set)
{
  size_t cap = set->cap ? 2 * set->cap : 64;
  char **slots = calloc(cap, sizeof(char *));
  if (!slots) {
    return LW_ERR_NOMEM;
  }
  for (size_t i = 0; i < set->cap; ++i) {
    if (set->slots[i]) {
      *slot_of(slots, cap, set->slots[i], strlen(set->slots[i])) = set->slots[i];
    }
  }
  free(set->slots);
  set->slots = slots;
  set->cap = cap;
  return LW_OK;
}

LwStatus lw_predicate_set_add_triple(LwPredicateSet *set, const char *triple, size_t len)
{
  set->triples++;
  const char *p = memchr(triple, ' ', len);
  const char *end = p ? memchr(p + 1, ' ', len - (size_t)(p + 1 - triple)) : NULL;
  if (!end) {
    return LW_OK; /* not a triple: nothing to count */
  }
  if (2 * (set->count + 1) > set->cap && grow(set) != LW_OK) {
    return LW_ERR_NOMEM;
  }
  size_t n = (size_t)(end - p - 1);
  char **slot = slot_of(set->slots, set->cap, p + 1, n);
  if (!*slot) {
    *slot = strndup(p + 1, n);
    if (!*slot) {
      return LW_ERR_NOMEM;
    }
    set->count++;
  }
  return LW_OK;
}

void lw_predicate_set_free(LwPredicateSet *set)
{
  for (size_t i = 0; i < set->cap; ++i) {
    free(set->slots[i]);
  }
  free(set->slots);
  memset(set, 0, sizeof(*set));
}
