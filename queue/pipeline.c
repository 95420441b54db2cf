#include "queue/pipeline.h"

#include <string.h>

#include "queue/queue.h"

const char *const lw_pipeline_file_stages[] = {"download", "unpack", "guess", "parse",
                                               NULL};

const char *const lw_pipeline_follow_up = "import";

bool lw_pipeline_is_file_stage(const char *stage)
{
  for (size_t i = 0; lw_pipeline_file_stages[i]; ++i) {
    if (!strcmp(lw_pipeline_file_stages[i], stage)) {
      return true;
    }
  }
  return false;
}

LwStatus lw_pipeline_reap(LwRecords *c, const LwConfig *cfg, long long *returned,
                          LwError *err)
{
  size_t n = 0;
  while (lw_pipeline_file_stages[n]) {
    ++n;
  }
  LwReapFanIn fan_in = {lw_pipeline_file_stages, n, lw_pipeline_follow_up};
  return lw_queue_reap_files(c, cfg, &fan_in, returned, err);
}
