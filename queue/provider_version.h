/*
 * A provider's version: what identifies one state of its data, as the
 * provider and harvest records store it (queue/provider_record.h). The
 * scheduler compares versions (scheduler/decide.h); the records only keep
 * them: the time as ISO 8601 text, the VoID's content hash beside it.
 */
#ifndef LW_QUEUE_PROVIDER_VERSION_H
#define LW_QUEUE_PROVIDER_VERSION_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"

typedef struct {
  bool has_time;                  /* usec is meaningful */
  int64_t usec;                   /* dcterms:modified or Last-Modified, UTC microseconds */
  char hash[LW_HASH_HEX_LEN + 1]; /* content hash of the VoID; "" if unknown */
} LwVersion;

/* A version as stored: ISO 8601 of the time, or "" (hash kept apart). */
void lw_version_to_text(const LwVersion *v, char out[LW_DATETIME_BUF]);

/* The version stored as time_text (ISO 8601, "" or NULL: none) and hash
 * (NULL: ""). */
void lw_version_from_text(const char *time_text, const char *hash, LwVersion *v);

#endif
