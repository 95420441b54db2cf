/*
 * robots.txt read beside the transfers (workers/robots_ahead.c), for a
 * worker running many downloads in one thread:
 *
 *   if (!lw_robots_known(c, cfg, url)) {
 *     lw_robots_ahead(cfg, url);   ... and ask again a little later
 *   }
 */
#ifndef LW_WORKERS_ROBOTS_AHEAD_H
#define LW_WORKERS_ROBOTS_AHEAD_H

#include <signal.h>

#include "config/config.h"

/* Fetches and caches robots.txt of url's origin in a thread of its own
 * (nothing when one for that origin runs already). cfg must live as long
 * as the process. */
void lw_robots_ahead(const LwConfig *cfg, const char *url);

#endif
