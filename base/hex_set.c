#include "base/base.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint8_t bytes[16];
  bool used;
} Slot;

struct LwHexSet {
  Slot *slots;
  size_t cap; /* a power of two */
  size_t count;
};

static bool decode(const char *hex, uint8_t out[16])
{
  if (strspn(hex, "0123456789abcdefABCDEF") != 32 || hex[32] != '\0') {
    return false;
  }
  for (int i = 0; i < 16; ++i) {
    char pair[3] = {hex[2 * i], hex[2 * i + 1], '\0'};
    out[i] = (uint8_t)strtoul(pair, NULL, 16);
  }
  return true;
}

/* MD5 bytes are already uniform: the first eight make the hash. */
static size_t slot_of(const LwHexSet *set, const uint8_t key[16])
{
  uint64_t h;
  memcpy(&h, key, sizeof(h));
  return (size_t)h & (set->cap - 1);
}

static Slot *find(const LwHexSet *set, const uint8_t key[16])
{
  size_t i = slot_of(set, key);
  while (set->slots[i].used && memcmp(set->slots[i].bytes, key, 16) != 0) {
    i = (i + 1) & (set->cap - 1);
  }
  return &set->slots[i];
}

LwHexSet *lw_hex_set_new(void)
{
  LwHexSet *set = calloc(1, sizeof(*set));
  if (set) {
    set->cap = 1024;
    set->slots = calloc(set->cap, sizeof(Slot));
    if (!set->slots) {
      free(set);
      return NULL;
    }
  }
  return set;
}

void lw_hex_set_free(LwHexSet *set)
{
  if (set) {
    free(set->slots);
    free(set);
  }
}

static bool grow(LwHexSet *set)
{
  LwHexSet bigger = {calloc(set->cap * 2, sizeof(Slot)), set->cap * 2, set->count};
  if (!bigger.slots) {
    return false;
  }
  for (size_t i = 0; i < set->cap; ++i) {
    if (set->slots[i].used) {
      *find(&bigger, set->slots[i].bytes) = set->slots[i];
    }
  }
  free(set->slots);
  *set = bigger;
  return true;
}

int lw_hex_set_add(LwHexSet *set, const char *hex)
{
  uint8_t key[16];
  if (!hex || !decode(hex, key)) {
    return 0;
  }
  if ((set->count + 1) * 2 > set->cap && !grow(set)) {
    return -1;
  }
  Slot *slot = find(set, key);
  if (slot->used) {
    return 0;
  }
  memcpy(slot->bytes, key, 16);
  slot->used = true;
  ++set->count;
  return 1;
}

bool lw_hex_set_has(const LwHexSet *set, const char *hex)
{
  uint8_t key[16];
  return hex && decode(hex, key) && find(set, key)->used;
}

size_t lw_hex_set_count(const LwHexSet *set)
{
  return set->count;
}
