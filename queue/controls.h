/*
 * An operator's controls over the queue, kept on Redis so that the
 * dashboard, the `lodwash` tool, the scheduler and every worker see the same:
 *
 *   paused stages   (set `paused`)  a worker does not fetch jobs of a paused
 *                   stage; its queue keeps filling and waits. Resume to go on.
 *   held providers  (set `held`)    the scheduler starts no harvest of a held
 *                   provider, forced or not; it shows as "held" in
 *                   `lodwash providers`, the status report and the pages. The
 *                   registry stays the source of providers: holding one that
 *                   is not in it is refused by the callers.
 *
 *   purge           the waiting jobs of a stage (queued and delayed) are
 *                   dropped; the ones of a harvest count as failed files, so
 *                   the harvest still ends (queue/harvest.h).
 *   delete dead     dead jobs are dropped for good (`jobs retry` is the other
 *                   way out of the dead list).
 *   drop a harvest  its waiting jobs leave every queue (a cancelled harvest;
 *                   scheduler/harvest_cancel.h ends the harvest itself).
 * Jobs in flight are never touched: their workers finish them.
 *
 * Key names: queue/keys.h.
 */
#ifndef LW_QUEUE_CONTROLS_H
#define LW_QUEUE_CONTROLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "base/base.h"
#include "queue/redis.h"

/* Pauses (pause true) or resumes stage. LW_NOTHING when it already was. */
LwStatus lw_controls_stage_pause(LwRecords *c, const char *prefix, const char *stage,
                                 bool pause, LwError *err);

/* The paused stages, a JSON array of names (caller decrefs). */
LwStatus lw_controls_paused(LwRecords *c, const char *prefix, json_t **out, LwError *err);

/* Holds (hold true) or releases provider. LW_NOTHING when it already was. */
LwStatus lw_controls_provider_hold(LwRecords *c, const char *prefix, const char *name,
                                   bool hold, LwError *err);

/* Whether provider name is held. */
LwStatus lw_controls_provider_held(LwRecords *c, const char *prefix, const char *name,
                                   bool *held, LwError *err);

/* Drops the waiting jobs of stage; *purged gets how many (LW_NOTHING: none).
 * A purged job on a file of a harvest finishes that file as failed; the
 * harvest's last file queues a job of follow_up (the stage table's
 * lw_pipeline_follow_up). */
LwStatus lw_controls_purge(LwRecords *c, const LwConfig *cfg, const char *stage,
                           const char *follow_up, long long *purged, LwError *err);

/* Deletes the dead job whose id is id, or every dead job when id is NULL;
 * *deleted gets how many (LW_NOTHING when none). */
LwStatus lw_controls_dead_delete(LwRecords *c, const LwConfig *cfg, const char *id,
                                 long long *deleted, LwError *err);

/* Drops the waiting jobs (queued or delayed, any stage) of harvest id;
 * *dropped gets how many. */
LwStatus lw_controls_drop_harvest(LwRecords *c, const LwConfig *cfg, const char *id,
                                  long long *dropped, LwError *err);

#endif
