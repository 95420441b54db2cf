/*
 * A visit of a provider whose source is a DCAT catalogue, a CKAN site, a
 * sitemap or a SPARQL endpoint (sources/sources.h): the source is read on
 * the VoID fetch pool's thread (every request through its host's places,
 * robots.txt and pace), then planned on the scheduler's: each dataset's
 * version compared with the one the last done harvest saw
 * (`harvested_datasets`), and only the dumps of new and changed datasets
 * downloaded. The scheduler's decision (scheduler/decide.h) sees one
 * version, the hash of every dataset's, so one harvest at a time, the
 * follow-up, the backoff and forcing work as for a VoID.
 */
#ifndef LW_SCHEDULER_SOURCE_VISIT_H
#define LW_SCHEDULER_SOURCE_VISIT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"
#include "config/config.h"
#include "queue/provider_record.h"
#include "scheduler/void_fetch.h"
#include "sources/sources.h"

/* Reads the source of provider (a const LwProvider *), for
 * LwVoidFetchJob.read: *result is an LwSourcePage. */
LwStatus lw_source_visit_read(void *provider, const LwConfig *cfg,
                              const LwVoidFetchHooks *hooks, long timeout_ms, void **result,
                              LwError *err);

/* Frees a result of lw_source_visit_read. */
void lw_source_visit_free(void *result);

/* What a visit found and what a harvest of it takes. */
typedef struct {
  LwVersion version;    /* hash of every dataset's id and version */
  char *newest;         /* the newest dataset version, for the record */
  LwHarvestDump *dumps; /* to download (strings borrowed from the page) */
  size_t dump_count;
  bool all;            /* every dataset's dumps (the harvest is full) */
  char *datasets_json; /* `source_datasets` of the provider record */
  char *baseline_json; /* id -> version of every dataset */
  char *dumps_json;    /* every dump of the source */
  size_t added, changed, unchanged, gone;
} LwSourcePlan;

/* Plans from page: harvested is the provider's `harvested_datasets` (NULL
 * or "" before its first done harvest); all takes every dataset's dumps
 * (a forced harvest, a dump found changed by a re-check). Before the first
 * harvest, datasets whose version is a date not after the registry's
 * `modified` count as harvested. */
LwStatus lw_source_plan(const LwSourcePage *page, const char *harvested,
                        const LwProvider *p, bool all, LwSourcePlan *out, LwError *err);

void lw_source_plan_clear(LwSourcePlan *plan);

#endif
