#include "workers/download_cap.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "queue/job.h"
#include "queue/lease_set.h"

#define PLACE_LEASE_MS 60000
#define PLACE_REFRESH_MS 10000

/* The place this process holds (one worker frame per process). */
static char held_by[256];
static bool held;
static long long renewed_ms;

const LwFetchCap *lw_download_cap(const LwConfig *cfg, const char *worker_id,
                                  const char *const *stages, size_t n, LwFetchCap *out)
{
  bool has_download = false;
  for (size_t i = 0; i < n; ++i) {
    has_download = has_download || !strcmp(stages[i], "download");
  }
  if (cfg->download_workers <= 0 || !has_download || n < 2) {
    return NULL;
  }
  *out = (LwFetchCap){worker_id, cfg->download_workers, PLACE_LEASE_MS};
  return out;
}

void lw_download_cap_got(const LwFetchCap *cap, const char *stage)
{
  held = cap && stage && !strcmp(stage, "download");
  if (held) {
    snprintf(held_by, sizeof(held_by), "%s", cap->member);
    renewed_ms = lw_now_ms(); /* the fetch renewed it */
  }
}

void lw_download_cap_refresh(LwRecords *c, const LwConfig *cfg)
{
  if (held && lw_now_ms() - renewed_ms > PLACE_REFRESH_MS) {
    LwError err;
    if (lw_download_slot_take(c, cfg->prefix, held_by, cfg->download_workers, PLACE_LEASE_MS,
                              &err) == 1) {
      renewed_ms = lw_now_ms();
    }
  }
}
