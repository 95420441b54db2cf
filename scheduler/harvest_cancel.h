/*
 * Cancelling a provider's running harvest (`lodwash harvest cancel NAME`,
 * the dashboard's "Cancel harvest"): its waiting jobs leave the queues
 * (queue/controls.h), and the harvest ends as failed with the error
 * "cancelled by the operator", which settles the provider (error state with
 * the usual backoff; hold it to keep the scheduler from starting again).
 * Jobs already running finish; the import of a cancelled harvest does
 * nothing, as for any harvest that ended.
 */
#ifndef LW_SCHEDULER_HARVEST_CANCEL_H
#define LW_SCHEDULER_HARVEST_CANCEL_H

#include "queue/redis.h"

#include "config/config.h"
#include "base/base.h"

/* Cancels name's running harvest. LW_NOTHING when none runs; *dropped (may
 * be NULL) gets the number of waiting jobs dropped. */
LwStatus lw_harvest_cancel(LwRecords *c, const LwConfig *cfg, const char *name,
                           long long *dropped, LwError *err);

#endif
