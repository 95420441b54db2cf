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

static bool take_place(LwRecords *c, const LwConfig *cfg, const char *member)
{
  LwError err;
  bool got = lw_download_slot_take(c, cfg->prefix, member, cfg->download_workers,
                                   PLACE_LEASE_MS, &err) == 1;
  if (got) {
    renewed_ms = lw_now_ms();
  }
  return got;
}

static void give_back(LwRecords *c, const LwConfig *cfg)
{
  if (!held) {
    return;
  }
  lw_download_slot_release(c, cfg->prefix, held_by);
  held = false;
}

size_t lw_download_cap_stages(LwRecords *c, const LwConfig *cfg, const char *worker_id,
                              const char *const *stages, size_t n, const char **out)
{
  if (n > LW_DOWNLOAD_CAP_MAX_STAGES) {
    n = LW_DOWNLOAD_CAP_MAX_STAGES;
  }
  bool has_download = false;
  for (size_t i = 0; i < n; ++i) {
    out[i] = stages[i];
    has_download = has_download || !strcmp(stages[i], "download");
  }
  if (cfg->download_workers <= 0 || !has_download || n < 2) {
    give_back(c, cfg);
    return n;
  }
  if (held && !strcmp(held_by, worker_id)) {
    /* the last job was a download: the place is kept for the next ask
     * (renewed now and then) rather than given back and taken again, two
     * round trips a job saved */
    if (lw_now_ms() - renewed_ms <= PLACE_REFRESH_MS || take_place(c, cfg, worker_id)) {
      return n;
    }
    held = false; /* it expired meanwhile and was taken */
  }
  give_back(c, cfg);
  if (take_place(c, cfg, worker_id)) {
    snprintf(held_by, sizeof(held_by), "%s", worker_id);
    held = true;
    return n;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) {
    if (strcmp(stages[i], "download") != 0) {
      out[m++] = stages[i];
    }
  }
  return m;
}

void lw_download_cap_keep(LwRecords *c, const LwConfig *cfg, const char *stage)
{
  if (!stage || strcmp(stage, "download") != 0) {
    give_back(c, cfg);
  }
}

void lw_download_cap_refresh(LwRecords *c, const LwConfig *cfg)
{
  if (held && lw_now_ms() - renewed_ms > PLACE_REFRESH_MS) {
    take_place(c, cfg, held_by);
  }
}
