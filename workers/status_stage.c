/*
 * Stage status (queued every cycle by the scheduler): writes the status
 * report (report/status_report.h) to DATA/status.json and logs one
 * summary line.
 */
#include <jansson.h>

#include "base/base.h"
#include "report/status_report.h"
#include "report/status_text.h"
#include "workers/stage.h"

LwStatus lw_stage_status_run(LwStageCtx *ctx)
{
  json_t *report = NULL;
  LW_TRY(lw_status_report(ctx->redis, ctx->config, &report, ctx->err));
  LwStatus st = lw_status_report_write(ctx->config, report, ctx->err);
  if (st == LW_OK) {
    lw_info(
      "stage=status queued=%lld inflight=%lld delayed=%lld dead=%lld workers=%zu",
      lw_status_report_total(report, "queued"), lw_status_report_total(report, "inflight"),
      lw_status_report_total(report, "delayed"), lw_status_report_total(report, "dead"),
      json_array_size(json_object_get(report, "workers")));
  }
  json_decref(report);
  return st;
}
