/*
 * noop: a stage that does nothing but sleep for the job's "sleep_ms" (0 if
 * absent), watching for SIGTERM. With "fail": "retryable" or "permanent" in
 * the job it fails that way, which the queue tests use.
 */
#include "workers/stage.h"

#include <string.h>
#include <time.h>

LwStatus lw_stage_noop_run(LwStageCtx *ctx)
{
  long long left = lw_job_get_int(ctx->job, "sleep_ms", 0);
  while (left > 0) {
    if (lw_stage_stopping(ctx)) {
      return lw_error_set(ctx->err, LW_ERR_INTERNAL, "interrupted");
    }
    long long step = left < 50 ? left : 50;
    struct timespec ts = {(time_t)(step / 1000), (long)(step % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    left -= step;
    lw_stage_progress(ctx, "sleeping, %lld ms left", left);
  }
  const char *fail = lw_job_get_string(ctx->job, "fail", "");
  if (!strcmp(fail, "retryable")) {
    return lw_error_set(ctx->err, LW_ERR_NET, "noop: asked to fail (retryable)");
  }
  if (!strcmp(fail, "permanent")) {
    return lw_error_set(ctx->err, LW_ERR_FORMAT, "noop: asked to fail (permanent)");
  }
  return LW_OK;
}
