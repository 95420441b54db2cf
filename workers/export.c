/*
 * Stage export (queued every cycle by the scheduler, and by each import with
 * the provider as its seed): when any graph changed since the last export,
 * the changed graphs' files from their databases, then all graphs as one
 * dump with its VoID description (graph_store/graph_store.h). Nothing changed:
 * nothing written.
 */
#include "graph_store/graph_store.h"
#include "base/base.h"
#include "workers/stage.h"

LwStatus lw_stage_export_run(LwStageCtx *ctx)
{
  LwExportReport report;
  LwStatus st = lw_export(ctx->config->data_dir, false, &report, ctx->err);
  if (st == LW_OK) {
    lw_info("stage=export graphs=%u triples=%llu bytes=%llu", report.graphs, report.triples,
            report.bytes);
  }
  return st;
}
