/*
 * The stage table: a stage is a file under workers/ and a row here.
 * lodwash-worker serves all of them unless --stages says otherwise. Columns
 * (workers/stage.h): name, function, doc; the seed status it takes, its
 * working status, its usual and other outcome (status, next stage); the
 * frame makes those moves, the stage only computes its results. Which
 * stages work on one file of a harvest, and the harvest's follow-up, the
 * records know (queue/pipeline.h).
 */
#include "workers/stage.h"

#include <string.h>

const LwStage lw_stages[] = {
  {"download",
   lw_stage_download_run,
   "fetch a seed over HTTP(S) into the data directory",
   "added",
   "downloading",
   {"filed", "unpack"},
   {"filed", NULL} /* unchanged */},
  {"unpack",
   lw_stage_unpack_run,
   "unpack an archive into child seeds, or settle a data file's encoding",
   "filed",
   "unarchiving",
   {"unarchived", "guess"},
   {"depleted", NULL} /* an archive */},
  {"guess",
   lw_stage_guess_run,
   "tell which RDF serialization a file is",
   "unarchived",
   "guessing",
   {"guessed", "parse"},
   {"skipped", NULL} /* optional and not RDF */},
  {"parse",
   lw_stage_parse_run,
   "clean a file into sorted canonical N-Quads",
   "guessed",
   "parsing",
   {"parsed", NULL},
   {NULL, NULL}},
  {"import",
   lw_stage_import_run,
   "put a harvest's clean files into its provider's graph",
   NULL,
   NULL,
   {NULL, NULL},
   {NULL, NULL}},
  {"export",
   lw_stage_export_run,
   "write all graphs as one dump with a VoID description",
   NULL,
   NULL,
   {NULL, NULL},
   {NULL, NULL}},
  {"status",
   lw_stage_status_run,
   "write DATA/status.json and log a summary",
   NULL,
   NULL,
   {NULL, NULL},
   {NULL, NULL}},
  {"noop",
   lw_stage_noop_run,
   "does nothing (sleeps sleep_ms from the job): tests and benchmarks",
   NULL,
   NULL,
   {NULL, NULL},
   {NULL, NULL}},
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
