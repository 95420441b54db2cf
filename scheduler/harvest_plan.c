#include "scheduler/harvest_plan.h"

#include <stdlib.h>

LwStatus lw_harvest_plan_start(LwRecords *c, const char *prefix, const LwHarvestPlan *plan,
                               char id_out[LW_HARVEST_ID_MAX], LwError *err)
{
  const LwVoid *v = plan->v;
  LwHarvestDump *dumps = calloc(v->dump_count ? v->dump_count : 1, sizeof(*dumps));
  if (!dumps) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < v->dump_count; ++i) {
    dumps[i] = (LwHarvestDump){v->dumps[i].url, v->dumps[i].checksum_algorithm,
                               v->dumps[i].checksum_value, false};
  }
  LwHarvestStart h = {
    .provider = plan->provider,
    .void_url = plan->void_url,
    .version = plan->version,
    .source = plan->source,
    .kind = lw_dump_kind_name(v->kind),
    .dumps = dumps,
    .dump_count = v->dump_count,
    .features = (const char *const *)v->features,
    .feature_count = v->feature_count,
    .forced = plan->forced,
  };
  LwStatus st = lw_harvest_start(c, prefix, &h, id_out, err);
  free(dumps);
  return st;
}
