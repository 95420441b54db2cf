/*
 * Redis for the C tests: a connection to the shared test server
 * (LODWASH_TEST_REDIS; the test is skipped when unset) and clean-up of the
 * keys under a test's prefix. Never FLUSHALL: tests share the server.
 */
#ifndef LW_TEST_REDIS_SUPPORT_H
#define LW_TEST_REDIS_SUPPORT_H

#include <hiredis/hiredis.h>
#include <stdbool.h>

#include "config/config.h"

/* Connects to the test Redis (skips the test when there is none; exits 1
 * when it is set but unreachable). Caller frees with redisFree. */
redisContext *lw_test_redis(void);

/* Fills cfg for a test: defaults, the test Redis URL, prefix from
 * lw_test_prefix(name), short retry delays. Free with lw_config_free. */
void lw_test_redis_config(LwConfig *cfg, const char *name);

/* Deletes every key under prefix (SCAN + UNLINK). */
void lw_test_redis_cleanup(redisContext *c, const char *prefix);

/* The integer value of a command's reply (LLEN, ZCARD, SCARD, HGET...),
 * -1 on error. Arguments NULL-terminated. */
long long lw_test_redis_int(redisContext *c, const char *arg0, ...)
  __attribute__((sentinel));

/* A second connection to rc's server in MONITOR mode (10 s timeout);
 * NULL (and a failed check) when it cannot be had. Caller frees. */
redisContext *lw_test_monitor_start(redisContext *rc);

/* Reads what mon saw until a command holding marker (send it with ECHO
 * after the commands watched), calling seen for each other command
 * holding prefix (MONITOR's line: "... \"CMD\" \"arg\" ..."). false (and a
 * failed check) when MONITOR ended first. */
bool lw_test_monitor_until(redisContext *mon, const char *prefix, const char *marker,
                           void (*seen)(void *arg, const char *line), void *arg);

/* The commands (not a script's own) holding prefix that mon saw since it
 * started, up to now: the round trips of what ran in between (send on rc
 * nothing else meanwhile). Frees mon; -1 (and a failed check) when
 * MONITOR ended first. */
int lw_test_monitor_calls(redisContext *rc, redisContext *mon, const char *prefix);

/* A stage's queue as an operator reads it (queue/keys.h: the ring
 * queue:<stage> of its harvests' lanes queue:<stage>:<harvest>). */

/* The number of jobs waiting in all its lanes. */
long long lw_test_queue_len(redisContext *c, const char *prefix, const char *stage);

/* Every waiting job (an array reply, lane after lane; freeReplyObject). */
redisReply *lw_test_queue_jobs(redisContext *c, const char *prefix, const char *stage);

/* The job a worker takes next (a string reply, or nil). */
redisReply *lw_test_queue_next(redisContext *c, const char *prefix, const char *stage);

/* Deletes the stage's queue: every lane and the ring. */
void lw_test_queue_clear(redisContext *c, const char *prefix, const char *stage);

#endif
