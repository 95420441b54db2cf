/*
 * Commands and Lua scripts on the records handle (hiredis 0.14, the old
 * API). Only queue/ includes this: it is the one owner of every key and
 * command (tests/test_layering.sh).
 *
 * Scripts are run with EVALSHA and loaded on NOSCRIPT, so one round trip is
 * the common case; the cache empties when Redis restarts, which is handled.
 */
#ifndef LW_QUEUE_REDIS_CMD_H
#define LW_QUEUE_REDIS_CMD_H

#include <hiredis/hiredis.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"
#include "queue/redis.h"

/* Runs one command given as argc strings with lengths (lens NULL: strlen).
 * Returns the reply (caller frees with freeReplyObject), or NULL with err
 * set: LW_ERR_REDIS for a broken connection or an error reply, LW_ERR_STATE
 * for a script's refusal ("LWSTATE ..." error replies). */
redisReply *lw_redis_argv(redisContext *c, int argc, const char **argv, const size_t *lens,
                          LwError *err);

/* The same with NULL-terminated string arguments. */
redisReply *lw_redis_cmd(redisContext *c, LwError *err, const char *arg0, ...)
  __attribute__((sentinel));

/* SMEMBERS key as an array reply (caller frees), or NULL with err set, also
 * when key holds no set. */
redisReply *lw_redis_members(redisContext *c, const char *key, LwError *err);

/* A cursor walk's page: its elements. LW_OK goes on; anything else ends
 * the walk, which returns it. */
typedef LwStatus (*LwCursorPageFn)(void *arg, const redisReply *page, LwError *err);

/* Runs a cursor command (SCAN, SSCAN, ...: argc arguments, the cursor's
 * place at argv[at], which it overwrites) to its end, handing each page's
 * elements to fn. A reply of another shape is an error. */
LwStatus lw_redis_cursor_walk(redisContext *c, const char **argv, int argc, int at,
                              LwCursorPageFn fn, void *arg, LwError *err);

/* Turns an error reply into a status (LW_ERR_STATE for "LWSTATE ...",
 * LW_ERR_REDIS otherwise) with err set; LW_OK for other replies. */
LwStatus lw_redis_reply_status(const redisReply *reply, LwError *err);

/* The start of a script that needs the time: `now`, Redis's clock in ms,
 * the one clock every worker and the scheduler share. */
#define LW_LUA_NOW_MS                                                                      \
  "local t = redis.call('TIME')\n"                                                          \
  "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"

/* A Lua script with its SHA1, computed on first use. Define as
 * static LwScript s = {SOURCE, ""}; */
typedef struct {
  const char *source;
  char sha[41];
} LwScript;

/* The hex SHA1 of the script's source (fills s->sha). */
const char *lw_script_sha(LwScript *s);

/* EVALSHA s with nkeys keys followed by the other args (argc in all), EVAL
 * fallback on NOSCRIPT. Reply and errors as lw_redis_argv. */
redisReply *lw_script_run(redisContext *c, LwScript *s, int nkeys, int argc,
                          const char **argv, const size_t *lens, LwError *err);

/* lw_script_run for a script that answers 1 (yes) or anything else (no):
 * *yes says which. */
LwStatus lw_script_run_yes(redisContext *c, LwScript *s, int nkeys, int argc,
                           const char **argv, bool *yes, LwError *err);

/* SCRIPT LOAD s (used before pipelines of EVALSHA). */
LwStatus lw_script_load(redisContext *c, LwScript *s, LwError *err);

/* True if reply is a NOSCRIPT error. */
bool lw_reply_is_noscript(const redisReply *reply);

/* An HGETALL reply as a record, a JSON object of strings (queue/record.h;
 * caller decrefs). LW_NOTHING and *out NULL when the hash does not exist. */
LwStatus lw_record_from_reply(const redisReply *reply, json_t **out, LwError *err);

#endif
