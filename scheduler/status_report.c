#include "scheduler/status_report.h"

#include "queue/report.h"
#include "scheduler/provider_report.h"
#include "scheduler/registry.h"

LwStatus lw_status_report(redisContext *c, const LwConfig *cfg, json_t **out, LwError *err)
{
  LW_TRY(lw_report_json(c, cfg, out, err));
  LwRegistry *reg = NULL;
  LwError rerr;
  lw_error_clear(&rerr);
  json_t *providers = NULL;
  LwStatus st = lw_registry_load(cfg->registry, &reg, &rerr);
  if (st == LW_OK) {
    st = lw_providers_json(c, cfg->prefix, reg, &providers, &rerr);
  }
  lw_registry_free(reg);
  if (st == LW_ERR_REDIS) {
    json_decref(*out);
    *out = NULL;
    *err = rerr;
    return st;
  }
  if (st != LW_OK) {
    json_object_set_new(*out, "providers_error", json_string(rerr.message));
  }
  json_object_set_new(*out, "providers", providers ? providers : json_array());
  return LW_OK;
}
