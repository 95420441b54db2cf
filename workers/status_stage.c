/*
 * Stage status (queued every cycle by the scheduler): writes the status
 * report (report/status_report.h) to DATA/status.json and logs one
 * summary line.
 */
#include <jansson.h>

#include "common/log.h"
#include "queue/report_read.h"
#include "report/status_report.h"
#include "workers/stage.h"

/* Sums one count over every stage. */
static long long total(const json_t *report, const char *count)
{
  long long n = 0;
  const char *stage;
  const json_t *counts;
  json_object_foreach(json_object_get(report, "stages"), stage, counts) {
    n += json_integer_value(json_object_get(counts, count));
  }
  return n;
}

LwStatus lw_stage_status_run(LwStageCtx *ctx)
{
  json_t *report = NULL;
  LW_TRY(lw_status_report(ctx->redis, ctx->config, &report, ctx->err));
  LwStatus st = lw_report_write(ctx->config, report, ctx->err);
  if (st == LW_OK) {
    lw_info("stage=status queued=%lld inflight=%lld delayed=%lld dead=%lld workers=%zu",
            total(report, "queued"), total(report, "inflight"), total(report, "delayed"),
            total(report, "dead"), json_array_size(json_object_get(report, "workers")));
  }
  json_decref(report);
  return st;
}
