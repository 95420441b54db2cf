/*
 * The records handle: a connection to the Redis that holds the records.
 *
 * Code outside queue/ holds an LwRecords * and passes it to queue/
 * functions; it cannot send a command itself, because this header does not
 * include hiredis (LwRecords is hiredis' struct redisContext, forward-declared).
 * queue/redis_cmd.h, included only inside queue/, sends the commands.
 *
 * URLs: redis://[[user]:password@]host[:port][/db], parsed here because
 * hiredis 0.14 has no URL support. A connection that failed is dropped and
 * made again (hiredis contexts are not reusable after an I/O error): callers
 * that must survive a Redis restart keep the URL and call lw_redis_connect
 * again, as the worker does.
 */
#ifndef LW_QUEUE_REDIS_H
#define LW_QUEUE_REDIS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"

/* An open connection to the records' Redis (opaque outside queue/). */
typedef struct redisContext LwRecords;

typedef struct {
  char socket[108];   /* unix://: the Unix socket's path (sun_path's size); else "" */
  char host[256];     /* redis://: the host ("" with a socket) */
  int port;           /* 6379 if absent */
  int db;             /* 0 if absent */
  char user[128];     /* "" if absent (Redis 6 ACL user) */
  char password[256]; /* "" if absent */
} LwRedisUrl;

/* Parses url: redis://[[user]:password@]host[:port][/db], or, for a
 * Redis on the same machine, unix://[[user]:password@]/path/to/socket[?db=N]
 * (no TCP: a round trip costs less). LW_ERR_USAGE with a message saying
 * what is wrong. */
LwStatus lw_redis_url_parse(const char *url, LwRedisUrl *out, LwError *err);

/* Connects to url (2 s connect timeout, 30 s command timeout), authenticates
 * and selects the database. On failure *out is NULL and err says
 * "cannot connect to Redis at HOST:PORT: ..." (or at the socket's path;
 * LW_ERR_REDIS, or LW_ERR_USAGE
 * for a bad URL). The caller closes *out with lw_records_close. */
LwStatus lw_redis_connect(const char *url, LwRecords **out, LwError *err);

/* True when err says Redis refused a write while it answers: out of memory
 * (maxmemory with noeviction: "OOM command not allowed"), a read-only
 * replica, a failed snapshot (MISCONF), too few replicas. Not the job's
 * fault: workers take no job and spend no attempt while it lasts. */
bool lw_redis_refused_write(const LwError *err);

/* A small plain write (SET PREFIXwritable, 60 s TTL): LW_OK when Redis
 * accepts writes, else its error (lw_redis_refused_write tells). Scripts
 * still run when plain writes are refused, so this is the test. */
LwStatus lw_redis_write_probe(LwRecords *c, const char *prefix, LwError *err);

/* True when r is open and had no I/O error; false after one (hiredis
 * contexts are not reusable then: close it and connect again). */
bool lw_records_usable(const LwRecords *r);

/* Keeps *r usable: LW_OK at once when it is; otherwise closes it (after an
 * I/O error) and connects to url again, as lw_redis_connect (*r NULL on
 * failure). For callers that must outlive a Redis restart. */
LwStatus lw_records_ensure(const char *url, LwRecords **r, LwError *err);

/* Closes the connection; NULL is a no-op. */
void lw_records_close(LwRecords *r);

#endif
