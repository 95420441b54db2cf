/*
 * Politeness toward a host, the same for every worker and the scheduler
 * (shared through Redis), checked before every request of a download or a
 * VoID fetch, redirects included (LwFetchOptions.before_hop):
 *
 * - robots.txt of the URL's origin is read (cached in robots:<origin> for
 *   --robots-ttl; 0 turns robots.txt off) and a path it disallows for
 *   "lodwash" is refused: LW_ERR_REFUSED "disallowed by robots.txt (URL)".
 *   A robots.txt answering 4xx allows everything; one that cannot be had
 *   (5xx, no answer) disallows everything for now (RFC 9309 2.3.1.3):
 *   LW_ERR_NET, so the job is retried later (cached for 10 minutes).
 * - The host's pace: requests to one host name are at least
 *   --host-interval-ms apart, or its robots.txt Crawl-delay if longer, over
 *   all workers (hostpace:<host>, reserved by one Lua script; the caller
 *   sleeps until its turn).
 */
#ifndef LW_WORKERS_HOST_POLICY_H
#define LW_WORKERS_HOST_POLICY_H

#include "queue/redis.h"

#include "common/config.h"
#include "common/netguard.h"
#include "common/status.h"

/* Checks url against its host's robots.txt and waits for the host's pace.
 * LW_OK: go ahead now. guard: the allow list used for robots.txt too. */
LwStatus lw_host_policy_check(LwRecords *c, const LwConfig *cfg, const LwNetGuard *guard,
                              const char *url, LwError *err);

/* robots.txt alone (for VoID files: the scheduler fetches each once per
 * visit), its fetch given at most timeout_ms (0: 30 s). */
LwStatus lw_host_robots_check(LwRecords *c, const LwConfig *cfg, const LwNetGuard *guard,
                              const char *url, long timeout_ms, LwError *err);

/* The lower-cased host name of url into buf; false when it has none. */
bool lw_url_host(const char *url, char *buf, size_t size);

#endif
