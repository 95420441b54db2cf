/*
 * The registry as the scheduler last read it, kept in Redis (key
 * `registry`, a hash: text, loaded, error, error_at), so that a registry
 * file broken by an edit does not empty the pages, the CLI and the metrics:
 * they show the last good registry's providers and the error (file, line).
 *
 * The scheduler records each reading (lw_registry_state_good, _bad); the
 * readers load through lw_registry_state_load.
 */
#ifndef LW_QUEUE_REGISTRY_STATE_H
#define LW_QUEUE_REGISTRY_STATE_H

#include <jansson.h>

#include "base/base.h"
#include "config/config.h"
#include "queue/redis.h"

/* A good reading: text (len bytes) is the registry now; the error goes. */
LwStatus lw_registry_state_good(LwRecords *c, const char *prefix, const char *text,
                                size_t len, long long now_ms, LwError *err);

/* A reading that failed with message; the last good text stays. */
LwStatus lw_registry_state_bad(LwRecords *c, const char *prefix, const char *message,
                               long long now_ms, LwError *err);

/* The registry file at cfg->registry, or, when it does not load, the last
 * good one the scheduler recorded. *state (caller decrefs) says which:
 *   {"ok": true|false, "path": P, "error": "FILE:LINE:COL: ..." (not ok),
 *    "last_good_ms": N (when the scheduler last read a good one, 0: never)}
 * LW_OK with *out set (last good when not ok); the file's error when it does
 * not load and no good one was ever recorded (*state still set);
 * LW_ERR_REDIS when Redis fails (only asked when the file does not load, or
 * for last_good_ms: a Redis failure there is not an error). */
LwStatus lw_registry_state_load(LwRecords *c, const LwConfig *cfg, LwRegistry **out,
                                json_t **state, LwError *err);

#endif
