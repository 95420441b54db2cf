/*
 * What a scheduler's visit of a provider's VoID writes onto provider:<name>
 * (fields: queue/provider_record.h), and the VoID copy kept there for
 * conditional fetches.
 */
#ifndef LW_QUEUE_PROVIDER_VISIT_H
#define LW_QUEUE_PROVIDER_VISIT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"
#include "queue/redis.h"

/* Most field and value strings one visit records (pairs). */
#define LW_PROVIDER_VISIT_FIELDS_MAX 60

/* Records a visit of provider name: fields (n strings: field, value, ...)
 * set, then, in the same script, the error and state: ok clears the error
 * (unless failed harvests are counted) and makes an idle provider idle (or
 * error after failures); !ok sets error. The state never moves away from
 * harvesting, which only the harvest's claim and end change. */
LwStatus lw_provider_record_visit(LwRecords *c, const char *prefix, const char *name,
                                  bool ok, const char *error, const char *const *fields,
                                  size_t n, LwError *err);

/* The VoID body kept from the last visit (void_body, void_type): LW_OK with
 * *body (the caller's, NUL-terminated), *len and content_type set;
 * LW_NOTHING when none is kept. */
LwStatus lw_provider_kept_void(LwRecords *c, const char *prefix, const char *name,
                               char **body, size_t *len, char *content_type,
                               size_t content_type_size, LwError *err);

/* A catalogue's baseline: the provider's `harvested_datasets` (JSON), in
 * *json (the caller's), or LW_NOTHING when there is none yet. */
LwStatus lw_provider_harvested_datasets(LwRecords *c, const char *prefix, const char *name,
                                        char **json, LwError *err);

/* Notes that a follow-up harvest will take version once the running one is
 * over (one slot: the newest version overwrites an older one); forced also
 * asks for a forced harvest. */
LwStatus lw_provider_set_pending(LwRecords *c, const char *prefix, const char *name,
                                 const char *version, bool forced, LwError *err);

#endif
