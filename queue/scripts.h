
#include "queue/redis.h"
/*
 * The queue's Lua scripts (internal to queue/). Each runs atomically on the
 * Redis server; the comment above each in scripts.c gives its KEYS and ARGV.
 * Key names come from queue/keys.h: the C side builds them and passes them
 * in (KEYS, or key heads such as "lodwash:queue:" for keys that depend on a
 * job's stage).
 */
#ifndef LW_QUEUE_SCRIPTS_H
#define LW_QUEUE_SCRIPTS_H


extern LwScript lw_script_enqueue;
extern LwScript lw_script_fetch;
extern LwScript lw_script_apply;
extern LwScript lw_script_handback;
extern LwScript lw_script_reap;
extern LwScript lw_script_transition;
extern LwScript lw_script_retry_dead;
extern LwScript lw_script_promote;
extern LwScript lw_script_depth;
extern LwScript lw_script_drain;

/* apply and fetch in one call, apply and a record's read in one call, fetch
 * and the paused stages' read in one call (their comments in scripts.c say
 * how). */
LwScript *lw_script_ack_fetch(void);
LwScript *lw_script_apply_read(void);
LwScript *lw_script_fetch_paused(void);

/* SCRIPT LOAD of every script above (on connecting). */
LwStatus lw_scripts_load_all(LwRecords *c, LwError *err);

#endif
