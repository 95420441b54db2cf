/*
 * What lodwash knows about each provider of the registry, as JSON: the
 * objects `lodwash providers --json` prints, and the "providers" part of the
 * status report. Keys: name, void, modified (the registry's), void_modified
 * (last seen in the VoID), harvested (last version harvested with every dump
 * in), harvested_at (when, ISO 8601), checked (the last visit of the VoID),
 * state (idle, harvesting, error, held, disabled), held (true when an operator held
 * it), dumps (URLs of the current or last harvest), error, and harvest: the
 * current or last harvest's progress and report (id, provider, status,
 * kind, void_modified, error, started, finished (ISO 8601), duration_s,
 * pending files, failed files, files, triples, added, removed,
 * foreign_graph, changeset_added, changeset_removed, failed_files: [{seed,
 * uri, error}], notify: what became of the report's POST, scheduler/
 * notify.h) or null.
 */
#ifndef LW_REPORT_PROVIDER_REPORT_H
#define LW_REPORT_PROVIDER_REPORT_H

#include "queue/redis.h"
#include <jansson.h>

#include "base/base.h"
#include "config/config.h"

/* Every state a provider can show, NULL-terminated: idle, harvesting,
 * error, held (an operator's hold, queue/controls.h). */
extern const char *const lw_provider_states[];

/* One provider (caller decrefs *out). */
LwStatus lw_provider_json(LwRecords *c, const char *prefix, const LwProvider *p,
                          json_t **out, LwError *err);

/* Every provider of reg, in the registry's order (caller decrefs *out). */
LwStatus lw_providers_json(LwRecords *c, const char *prefix, const LwRegistry *reg,
                           json_t **out, LwError *err);

/* The report of harvest id, for the provider and for operators (the
 * dashboard's /providers/NAME/harvests/latest and the notify POST): id,
 * provider, status, kind, void_modified, started, finished (ISO 8601),
 * duration_s, triples, added, removed, error, file_count (files read,
 * archive entries included), and files: one object per dump, each followed
 * by the entries of an archive (with "parent": the archive's seed), at most
 * 10000: {seed, uri, status, outcome (ok, failed, pending), format, triples,
 * syntax_errors, literal_errors, error}. LW_NOTHING (*out NULL) when there
 * is no such harvest. Caller decrefs *out. */
LwStatus lw_harvest_report_json(LwRecords *c, const char *prefix, const char *id,
                                json_t **out, LwError *err);

/* The harvests of provider name, newest first, at most limit: the objects
 * of the "harvest" key above (without files). Caller decrefs *out. */
LwStatus lw_harvest_history_json(LwRecords *c, const char *prefix, const char *name,
                                 size_t limit, json_t **out, LwError *err);

#endif
