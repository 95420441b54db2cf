/*
 * A bounded set of leases in Redis: a sorted set whose members hold a place
 * until their lease (score, Redis time in ms) expires. Used for the
 * downloads per host (hostslots:<host>) and the workers in download at once
 * (downloadslots). A holder renews its lease while it works; a dead holder's
 * place frees itself.
 */
#ifndef LW_WORKERS_LEASE_SET_H
#define LW_WORKERS_LEASE_SET_H

#include <hiredis/hiredis.h>

#include "common/status.h"

/* Drops expired leases in key, then takes (or renews) member's place for
 * lease_ms if fewer than limit are held: 1 got it, 0 all taken, -1 Redis
 * failed (err set). */
int lw_lease_set_take(redisContext *c, const char *key, const char *member, long long limit,
                      long long lease_ms, LwError *err);

#endif
