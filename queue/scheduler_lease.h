/*
 * The scheduler's lease (key scheduler:lease, a string with a TTL): one
 * scheduler at a time visits providers. The holder renews it well within its
 * TTL; when it dies the lease expires and another scheduler takes it.
 */
#ifndef LW_QUEUE_SCHEDULER_LEASE_H
#define LW_QUEUE_SCHEDULER_LEASE_H

#include <stddef.h>

#include "base/base.h"
#include "queue/redis.h"

/* Takes the lease for id if it is free, or renews it if id holds it (one
 * script: never taken from another holder), for ttl_ms. LW_OK: id holds it;
 * LW_NOTHING: someone else does; an error otherwise. */
LwStatus lw_scheduler_lease_take(LwRecords *c, const char *prefix, const char *id,
                                 long long ttl_ms, LwError *err);

/* Gives the lease up if id holds it (nothing otherwise); errors ignored: the
 * lease then expires by itself. */
void lw_scheduler_lease_release(LwRecords *c, const char *prefix, const char *id);

/* Who holds the lease: holder gets the id ("" when nobody), *ttl_ms the time
 * left (-1 when unknown or nobody). */
LwStatus lw_scheduler_lease_read(LwRecords *c, const char *prefix, char *holder,
                                 size_t holder_size, long long *ttl_ms, LwError *err);

#endif
