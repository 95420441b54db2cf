/*
 * The stage table: a stage is a file under workers/ and a row here.
 * lodwash-worker serves all of them unless --stages says otherwise.
 */
#include "workers/stage.h"

#include <string.h>

const LwStage lw_stages[] = {
  {"noop", lw_stage_noop_run, "does nothing (sleeps sleep_ms from the job): tests and benchmarks"},
};

const size_t lw_stage_count = sizeof(lw_stages) / sizeof(lw_stages[0]);

const LwStage *lw_stage_find(const char *name)
{
  for (size_t i = 0; i < lw_stage_count; ++i) {
    if (!strcmp(lw_stages[i].name, name)) {
      return &lw_stages[i];
    }
  }
  return NULL;
}
