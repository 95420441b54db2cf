/*
 * What the records' Redis is told about small hashes. A seed record has
 * about 30 fields, two of them JSON of 200 bytes or more (its HTTP hops and
 * its content record); with Redis' default hash-max-listpack-value (64
 * bytes) every finished seed is kept as a hash table, 2.4 KB, where a
 * listpack holds the same fields in 1.4 KB (scripts/bench-scale measures
 * both). lodwash's own Redis servers (docker/docker-compose.yml,
 * scripts/lib/servers.sh) are started with LW_HASH_LISTPACK_VALUE; the
 * scheduler says so at start when the server it is given keeps a smaller
 * one.
 */
#ifndef LW_QUEUE_REDIS_TUNING_H
#define LW_QUEUE_REDIS_TUNING_H

#include "base/base.h"
#include "queue/redis.h"

/* The hash-max-listpack-value the records want (bytes). */
#define LW_HASH_LISTPACK_VALUE 1024

/* The server's hash-max-listpack-value (hash-max-ziplist-value before
 * Redis 7) in *value. LW_NOTHING when the server does not say (CONFIG
 * renamed or refused, as managed services do). */
LwStatus lw_redis_listpack_value(LwRecords *c, long long *value, LwError *err);

#endif
