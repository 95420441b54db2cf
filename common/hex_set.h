/*
 * LwHexSet: a set of MD5 hashes written as 32 hex digits (seed hashes),
 * kept as 16 bytes each in an open-addressing table: retention marks every
 * live seed of a large keyspace in it (about 32 bytes of memory per seed).
 */
#ifndef LW_HEX_SET_H
#define LW_HEX_SET_H

#include <stdbool.h>
#include <stddef.h>

typedef struct LwHexSet LwHexSet;

/* A new empty set; NULL when out of memory. */
LwHexSet *lw_hex_set_new(void);

/* Frees set; NULL is safe. */
void lw_hex_set_free(LwHexSet *set);

/* Adds hex (32 hex digits, either case). Returns 1 when added, 0 when it was
 * there already or is not a 32-digit hash, -1 when out of memory. */
int lw_hex_set_add(LwHexSet *set, const char *hex);

/* True when hex is in the set. */
bool lw_hex_set_has(const LwHexSet *set, const char *hex);

/* Members in the set. */
size_t lw_hex_set_count(const LwHexSet *set);

#endif
