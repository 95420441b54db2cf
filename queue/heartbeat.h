/*
 * Worker registration and heartbeats.
 *
 * A worker is alive while its heartbeat key PREFIXworker:<id> exists: a hash
 * (host, pid, stages, started, and the current job, since and progress) with
 * a TTL of heartbeat_ttl_s, refreshed every third of that by a thread of
 * the worker. Its id is also in PREFIXworkers, where the reaper finds the
 * workers that died (key expired) and gives back their in-flight jobs.
 */
#ifndef LW_QUEUE_HEARTBEAT_H
#define LW_QUEUE_HEARTBEAT_H


#include "config/config.h"
#include "base/base.h"
#include "queue/redis.h"

/* A fresh worker id: "<host>-<pid>-<4 hex>" written into out. */
void lw_worker_id_new(char *out, size_t size);

/* Registers worker id: creates the heartbeat hash with host, pid, stages
 * (a comma-separated list) and started, sets its TTL, adds id to the set. */
LwStatus lw_heartbeat_register(LwRecords *c, const LwConfig *cfg, const char *id,
                               const char *stages, LwError *err);

/* Refreshes the TTL; if the key had expired (the worker was stalled, or
 * Redis restarted without it), registers again. */
LwStatus lw_heartbeat_beat(LwRecords *c, const LwConfig *cfg, const char *id,
                           const char *stages, LwError *err);

/* Sets the progress note of the heartbeat (only if the key exists). */
LwStatus lw_heartbeat_progress(LwRecords *c, const LwConfig *cfg, const char *id,
                               const char *note, LwError *err);

/* Removes the heartbeat, and the id unless jobs are still in the worker's
 * in-flight list (then LW_NOTHING: the reaper will give them back). */
LwStatus lw_heartbeat_unregister(LwRecords *c, const LwConfig *cfg, const char *id,
                                 LwError *err);

#endif
