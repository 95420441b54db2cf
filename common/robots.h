/*
 * robots.txt (RFC 9309) read for one crawler: which paths it may fetch and
 * the Crawl-delay asked of it (not in the RFC, but widely used).
 *
 * The group for the crawler is the one(s) whose user-agent names its
 * product token (case-insensitive, "lodwash"); if none does, the "*"
 * groups. Within the rules, the longest matching path pattern wins, an
 * allow winning a tie; patterns may hold "*" (any run of characters) and a
 * final "$" (end of the path). No rule matching: allowed. /robots.txt
 * itself is always allowed. Lines that are not understood are skipped.
 *
 * Fetching and caching robots.txt per host is workers/host_policy.h.
 */
#ifndef LW_ROBOTS_H
#define LW_ROBOTS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct LwRobots LwRobots;

/* Reads text (len bytes, need not be NUL-terminated) for the crawler whose
 * product token is agent. NULL only when out of memory. */
LwRobots *lw_robots_parse(const char *text, size_t len, const char *agent);

/* Whether path (the URL's path and query, "/a/b?c"; "" counts as "/") may
 * be fetched. */
bool lw_robots_allowed(const LwRobots *robots, const char *path);

/* The group's Crawl-delay in milliseconds, or -1 when it has none. */
long lw_robots_crawl_delay_ms(const LwRobots *robots);

/* NULL safe. */
void lw_robots_free(LwRobots *robots);

#endif
