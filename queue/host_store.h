/*
 * What workers keep per host for politeness (politeness/politeness.h uses it):
 * a host's robots.txt, cached (robots:<origin>, a hash with a TTL), and the
 * time of its next request (hostpace:<host>, shared by every worker).
 */
#ifndef LW_QUEUE_HOST_STORE_H
#define LW_QUEUE_HOST_STORE_H

#include "queue/redis.h"
#include <stddef.h>

#include "base/base.h"

/* The cached robots.txt of origin: LW_OK with state (ok|none|unreachable)
 * and, when there is one, *body (the caller's, NUL-terminated) and *len
 * (body NULL: the state only, the body not read); LW_NOTHING when none is
 * cached (or it expired). */
LwStatus lw_robots_cache_get(LwRecords *c, const char *prefix, const char *origin,
                             char state[16], char **body, size_t *len, LwError *err);

/* Caches origin's robots.txt (state, body of len bytes or NULL) for ttl_s
 * seconds. A failure is not fatal (it is fetched again next time): err may
 * be set, nothing else happens. */
void lw_robots_cache_put(LwRecords *c, const char *prefix, const char *origin,
                         const char *state, const char *body, size_t len, long long ttl_s,
                         LwError *err);

/* Reserves host's next turn, gap_ms after the turn reserved before it (one
 * script on Redis' clock: workers never take the same turn): *wait_ms is how
 * long to wait for it (0: now), *next_ms the time of the turn after it (for
 * lw_host_pace_give_back). */
LwStatus lw_host_pace_reserve(LwRecords *c, const char *prefix, const char *host,
                              long long gap_ms, long long *wait_ms, long long *next_ms,
                              LwError *err);

/* Gives back a reserved turn that will not be used (the waiter stops):
 * the next request may go at that turn, unless another turn was reserved
 * after it meanwhile (then nothing changes). Best effort. */
void lw_host_pace_give_back(LwRecords *c, const char *prefix, const char *host,
                            long long next_ms, long long gap_ms);

#endif
