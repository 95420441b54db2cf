/*
 * A harvest as the scheduler plans it from a provider's VoID: turned into
 * the records' plain LwHarvestStart (queue/provider_record.h), which knows
 * nothing of the VoID reader, and started.
 */
#ifndef LW_SCHEDULER_HARVEST_PLAN_H
#define LW_SCHEDULER_HARVEST_PLAN_H

#include <stdbool.h>

#include "base/base.h"
#include "queue/provider_record.h"
#include "queue/redis.h"
#include "scheduler/void.h"

typedef struct {
  const char *provider;
  const char *void_url;
  const LwVersion *version;
  const char *source; /* dataset, document, last-modified, content-hash */
  const LwVoid *v;    /* the dumps, kind and features */
  bool forced;        /* queue the downloads at high priority */
} LwHarvestPlan;

/* lw_harvest_start with the plan's VoID as plain values: LW_NOTHING (and
 * nothing changed) if a harvest of the provider is running. */
LwStatus lw_harvest_plan_start(LwRecords *c, const char *prefix, const LwHarvestPlan *plan,
                               char id_out[LW_HARVEST_ID_MAX], LwError *err);

#endif
