/*
 * Jobs done per minute per stage over the last minutes, for the dashboard's
 * overview. Redis keeps only totals (stats:<stage> done), so the rate comes
 * from samples of those totals that the scheduler's pages take whenever the
 * overview is built (it refreshes itself every 5 s while someone looks):
 * the rate is over the oldest sample of the last five minutes. Until two
 * samples a few seconds apart exist there is no rate.
 */
#ifndef LW_SCHEDULER_DASHBOARD_RATE_H
#define LW_SCHEDULER_DASHBOARD_RATE_H

#include <jansson.h>

/* Records the "done" counts of stages (the status report's "stages") as of
 * now_ms, and returns an object stage -> jobs done per minute (a number)
 * for the stages with a rate. Caller decrefs. Thread-safe. */
json_t *lw_dashboard_rates(const json_t *stages, long long now_ms);

#endif
