#include "scheduler/harvest_cancel.h"

#include "queue/controls.h"
#include "queue/provider_record.h"

LwStatus lw_harvest_cancel(LwRecords *c, const LwConfig *cfg, const char *name,
                           long long *dropped, LwError *err)
{
  long long n = 0;
  if (dropped) {
    *dropped = 0;
  }
  LwProviderState st;
  LW_TRY(lw_provider_state_read(c, cfg->prefix, name, &st, err));
  if (!st.running || !st.harvest[0]) {
    return LW_NOTHING;
  }
  /* first end it, so that nothing of it is queued again meanwhile */
  LW_TRY(
    lw_harvest_finish(c, cfg->prefix, st.harvest, false, "cancelled by the operator", err));
  LW_TRY(lw_controls_drop_harvest(c, cfg, st.harvest, &n, err));
  if (dropped) {
    *dropped = n;
  }
  return LW_OK;
}
