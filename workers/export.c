/*
 * Stage export (queued every cycle by the scheduler, and by each import with
 * the provider as its seed): when any graph changed since the last export,
 * the changed graphs' files from their databases, then all graphs as one
 * dump with its VoID description (graph_store/graph_store.h). Nothing changed:
 * nothing written. The metadata graph (meta/meta.h) first, so that the VoID
 * written after it counts it: it is made from the records, and written (and
 * sent to a SPARQL store) only when it changed.
 */
#include "graph_store/graph_store.h"
#include "base/base.h"
#include "meta/meta.h"
#include "workers/stage.h"

LwStatus lw_stage_export_run(LwStageCtx *ctx)
{
  /* The graphs' views first: their refresh counts the graphs' properties,
   * which the metadata graph says. */
  LwStatus st = lw_graph_view_refresh_all(ctx->config->data_dir, NULL, ctx->err);
  LwMetaExportReport meta = {0};
  if (st == LW_OK) {
    st = lw_meta_export(ctx->redis, ctx->config, false, &meta, ctx->err);
  }
  if (st > LW_NOTHING) {
    return st;
  }
  if (meta.written) {
    lw_info("stage=export metadata=written triples=%llu stored=%d", meta.triples,
            meta.stored);
  }
  LwExportReport report;
  st = lw_export(ctx->config->data_dir, false, &report, ctx->err);
  if (st == LW_OK) {
    lw_info("stage=export graphs=%u triples=%llu bytes=%llu", report.graphs, report.triples,
            report.bytes);
  }
  return st == LW_NOTHING && meta.written ? LW_OK : st;
}
