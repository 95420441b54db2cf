/*
 * Redis hashes as JSON objects of strings: how seed, harvest and provider
 * records are read whole.
 */
#ifndef LW_QUEUE_RECORD_H
#define LW_QUEUE_RECORD_H

#include <jansson.h>

#include "base/base.h"
#include "queue/redis.h"

/* HGETALL key as a JSON object of strings (caller decrefs). LW_NOTHING and
 * *out NULL when the hash does not exist. */
LwStatus lw_record_get(LwRecords *c, const char *key, json_t **out, LwError *err);

/* A string field of a record, or def when absent. */
const char *lw_record_str(const json_t *record, const char *field, const char *def);

/* An integer field of a record (stored as a decimal string), or def. */
long long lw_record_int(const json_t *record, const char *field, long long def);

#endif
