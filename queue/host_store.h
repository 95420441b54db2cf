/*
 * What workers keep per host for politeness (workers/host_policy.h uses it):
 * a host's robots.txt, cached (robots:<origin>, a hash with a TTL), and the
 * time of its next request (hostpace:<host>, shared by every worker).
 */
#ifndef LW_QUEUE_HOST_STORE_H
#define LW_QUEUE_HOST_STORE_H

#include <stddef.h>

#include "common/status.h"
#include "queue/redis.h"

/* The cached robots.txt of origin: LW_OK with state (ok|none|unreachable)
 * and, when there is one, *body (the caller's, NUL-terminated) and *len;
 * LW_NOTHING when none is cached (or it expired). */
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
 * long to wait for it (0: now). */
LwStatus lw_host_pace_reserve(LwRecords *c, const char *prefix, const char *host,
                              long long gap_ms, long long *wait_ms, LwError *err);

#endif
