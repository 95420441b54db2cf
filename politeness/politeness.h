/*
 * Politeness toward a host, the same for every worker and the scheduler
 * (shared through Redis), checked before every request of a download or a
 * VoID fetch, redirects included (LwFetchOptions.before_hop):
 *
 * - robots.txt of the URL's origin is read (cached in robots:<origin> for
 *   --robots-ttl; 0 turns robots.txt off) and a path it disallows for
 *   "lodwash" is refused: LW_ERR_REFUSED "disallowed by robots.txt (URL)".
 *   A robots.txt answering 4xx allows everything; one that cannot be had
 *   (5xx, no answer) disallows everything for now (RFC 9309 2.3.1.4):
 *   LW_ERR_NET, so the job is retried later (cached for 10 minutes).
 * - The host's pace: requests to one host name are at least
 *   --host-interval-ms apart, or its robots.txt Crawl-delay if longer, over
 *   all workers and the scheduler's VoID fetches (hostpace:<host>, reserved
 *   by one Lua script; the caller sleeps until its turn, and stops sleeping
 *   when told to stop, giving the turn back).
 */
#ifndef LW_POLITENESS_H
#define LW_POLITENESS_H

#include "queue/redis.h"

#include "config/config.h"
#include "net/net.h"
#include "base/base.h"

/* A host's turn for a request, reserved by lw_host_turn_take. */
typedef struct {
  char host[512];
  long long wait_ms; /* until the turn: 0 now */
  long long gap_ms;  /* the host's interval: --host-interval-ms, or its
                        Crawl-delay if longer; 0 no pace */
  long long next_ms; /* the turn reserved after it (Redis time), to give
                        this one back */
} LwHostTurn;

/* Checks url against its host's robots.txt (its fetch given at most
 * robots_timeout_ms, 0: 30 s) and reserves the host's next turn, without
 * waiting for it. LW_OK: *turn set. guard: the allow list, for robots.txt
 * too. */
LwStatus lw_host_turn_take(LwRecords *c, const LwConfig *cfg, const LwNetGuard *guard,
                           const char *url, long robots_timeout_ms, LwHostTurn *turn,
                           LwError *err);

/* Sleeps until turn. keep_waiting(user) is asked every tenth of a second
 * (NULL: never): false stops the wait at once, gives the turn back (unless a
 * later one was reserved since) and returns LW_ERR_NET "stopped while
 * waiting for the turn of HOST" (a worker's SIGTERM: its job is handed
 * back). */
LwStatus lw_host_turn_wait(LwRecords *c, const LwConfig *cfg, const LwHostTurn *turn,
                           bool (*keep_waiting)(void *user), void *user, LwError *err);

/* Gives turn back (a request that will not be sent): the host's next turn
 * comes sooner, unless a later one was reserved since. */
void lw_host_turn_give_back(LwRecords *c, const LwConfig *cfg, const LwHostTurn *turn);

/* Both, as before a download's request: LW_OK to go ahead now. A wait of a
 * second or more is logged. */
LwStatus lw_host_policy_check(LwRecords *c, const LwConfig *cfg, const LwNetGuard *guard,
                              const char *url, bool (*keep_waiting)(void *user), void *user,
                              LwError *err);

/* For a caller that must not wait for robots.txt (many transfers in one
 * thread): whether url's robots.txt is known already (cached, robots.txt
 * off, or url is robots.txt itself), so that lw_host_turn_take will not
 * fetch it; and the fetch itself, robots.txt read and cached as
 * lw_host_turn_take would, without reserving a turn (run it elsewhere). */
bool lw_robots_known(LwRecords *c, const LwConfig *cfg, const char *url);
LwStatus lw_robots_fetch(LwRecords *c, const LwConfig *cfg, const LwNetGuard *guard,
                         const char *url, LwError *err);

/* url's origin as robots.txt is cached by: "scheme://host:port". */
bool lw_url_origin(const char *url, char *buf, size_t size);

/* The lower-cased host name of url into buf; false when it has none. */
bool lw_url_host(const char *url, char *buf, size_t size);

#endif
