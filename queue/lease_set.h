/*
 * A bounded set of leases in Redis: a sorted set whose members hold a place
 * until their lease (score, Redis time in ms) expires. Used for the
 * downloads per host (hostslots:<host>) and the workers in download at once
 * (downloadslots). A holder renews its lease while it works; a dead holder's
 * place frees itself.
 */
#ifndef LW_QUEUE_LEASE_SET_H
#define LW_QUEUE_LEASE_SET_H


#include "base/base.h"
#include "queue/redis.h"

/* The take as a Lua function, for the scripts that take a place in the same
 * call as their own work (the fetch, queue/scripts.c); needs `now`
 * (LW_LUA_NOW_MS). True when member holds the place now. */
#define LW_LUA_LEASE_TAKE                                                                  \
  "local function lease_take(key, member, limit, lease_ms)\n"                              \
  "  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)\n"                                   \
  "  if redis.call('ZSCORE', key, member) or redis.call('ZCARD', key) < tonumber(limit) then\n" \
  "    redis.call('ZADD', key, now + tonumber(lease_ms), member)\n"                        \
  "    redis.call('PEXPIRE', key, tonumber(lease_ms))\n"                                   \
  "    return true\n"                                                                      \
  "  end\n"                                                                                \
  "  return false\n"                                                                       \
  "end\n"

/* The lease sets below: each take drops expired leases, then takes (or
 * renews) member's place for lease_ms if fewer than limit are held (one
 * script: the limit holds with any number of workers): 1 got it, 0 all
 * taken, -1 Redis failed (err set). Each release gives member's place back
 * (nothing if it holds none; errors ignored: the lease then expires). */

/* hostslots:<host>: the requests to one host, downloads and VoID fetches
 * (--per-host-concurrency). */
int lw_host_slot_take(LwRecords *c, const char *prefix, const char *host,
                      const char *member, long long limit, long long lease_ms,
                      LwError *err);
void lw_host_slot_release(LwRecords *c, const char *prefix, const char *host,
                          const char *member);

/* A download's place on a host, given round robin by harvest: a free place
 * goes to the waiting harvest served longest ago at this host (never
 * served: first), so one provider's thousand downloads waiting for a shared
 * host never hold back another's one. A harvest waits while one of its
 * downloads asks at least every LW_HOST_WAITING_MS (hostwaiting:<host>);
 * hostserved:<host> when each harvest last got a place (the last 32, within
 * a lease: any other counts as served longest ago). Same
 * replies as lw_host_slot_take. */
#define LW_HOST_WAITING_MS (4 * LW_HOST_SLOT_WAIT_STEP_MS)
int lw_host_slot_take_fair(LwRecords *c, const char *prefix, const char *host,
                           const char *member, const char *harvest, long long limit,
                           long long lease_ms, LwError *err);

/* lw_host_slot_take until it gets a place, every LW_HOST_SLOT_WAIT_STEP_MS
 * for at most max_wait_ms, asking keep_going(user) before each wait (a
 * waiter shows its progress there, or says it was told to stop): 1 got it,
 * 0 no place freed in time, -1 Redis failed (err set), -2 keep_going said
 * stop. Downloads and VoID fetches wait the same way. */
#define LW_HOST_SLOT_WAIT_STEP_MS 250
int lw_host_slot_wait(LwRecords *c, const char *prefix, const char *host, const char *member,
                      long long limit, long long lease_ms, long long max_wait_ms,
                      bool (*keep_going)(void *user), void *user, LwError *err);

/* downloadslots: the workers in the download stage at once
 * (--download-workers). */
int lw_download_slot_take(LwRecords *c, const char *prefix, const char *member,
                          long long limit, long long lease_ms, LwError *err);
void lw_download_slot_release(LwRecords *c, const char *prefix, const char *member);

#endif
