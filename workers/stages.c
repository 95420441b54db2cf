/*
 * The stage table: a stage is a file under workers/ and a row here.
 * lodwash-worker serves all of them unless --stages says otherwise. Columns
 * (workers/stage.h): name, function, doc; works on one file of a harvest
 * (queue/harvest.h); the seed status it takes, its working status, its
 * usual and other outcome (status, next stage); whether the frame makes
 * those moves.
 */
#include "workers/stage.h"

#include <string.h>

const LwStage lw_stages[] = {
  {"download", lw_stage_download_run, "fetch a seed over HTTP(S) into the data directory", true,
   "added", "downloading", {"filed", "unpack"}, {"filed", NULL} /* unchanged */, true},
  {"unpack", lw_stage_unpack_run, "unpack an archive into child seeds, or settle a data file's encoding", true,
   "filed", "unarchiving", {"unarchived", "guess"}, {"depleted", NULL} /* an archive */, false},
  {"guess", lw_stage_guess_run, "tell which RDF serialization a file is", true,
   "unarchived", "guessing", {"guessed", "parse"}, {NULL, NULL}, true},
  {"parse", lw_stage_parse_run, "clean a file into sorted canonical N-Quads", true,
   "guessed", "parsing", {"parsed", NULL}, {NULL, NULL}, true},
  {"import", lw_stage_import_run, "put a harvest's clean files into its provider's graph", false,
   NULL, NULL, {NULL, NULL}, {NULL, NULL}, false},
  {"export", lw_stage_export_run, "write all graphs as one dump with a VoID description", false,
   NULL, NULL, {NULL, NULL}, {NULL, NULL}, false},
  {"status", lw_stage_status_run, "write DATA/status.json and log a summary", false,
   NULL, NULL, {NULL, NULL}, {NULL, NULL}, false},
  {"noop", lw_stage_noop_run, "does nothing (sleeps sleep_ms from the job): tests and benchmarks", false,
   NULL, NULL, {NULL, NULL}, {NULL, NULL}, false},
};

const char *const lw_stage_harvest_follow_up = "import";

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
