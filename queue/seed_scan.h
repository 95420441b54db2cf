/*
 * Walks every seed record (seed:<hash>) a page at a time with SCAN, so that
 * a caller (the scheduler's staleness check) looks at all seeds over several
 * calls without blocking Redis. SCAN's guarantee holds: a seed present for
 * the whole walk is seen at least once (possibly twice).
 */
#ifndef LW_QUEUE_SEED_SCAN_H
#define LW_QUEUE_SEED_SCAN_H


#include "base/base.h"
#include "queue/redis.h"

/* Most fields read per seed. */
#define LW_SEED_SCAN_FIELDS_MAX 24

/* Called once per seed of a page: its hash and the values of the fields
 * asked for, in their order (NULL when a field is absent). */
typedef void (*LwSeedScanFn)(void *arg, const char *hash, const char *const *values);

/* The fields of the seeds hashes[0..n), read in one pipeline and given to
 * fn, in order (no other command may be sent on c from fn). */
LwStatus lw_seed_read_fields(LwRecords *c, const char *prefix, const char *const *hashes,
                             size_t n, const char *const *fields, size_t nfields,
                             LwSeedScanFn fn, void *arg, LwError *err);

/* One SCAN step of about count seed keys from cursor (text, "0" to start),
 * their fields read in one pipeline and given to fn. cursor is advanced; "0"
 * after a full pass. nfields <= LW_SEED_SCAN_FIELDS_MAX. */
LwStatus lw_seed_scan_step(LwRecords *c, const char *prefix, char cursor[32], long count,
                           const char *const *fields, size_t nfields, LwSeedScanFn fn,
                           void *arg, LwError *err);

#endif
