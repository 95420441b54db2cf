#include "queue/pipeline.h"

#include <string.h>

#include "queue/queue.h"
#include "queue/record.h"
#include "queue/seed.h"

const char *const lw_pipeline_file_stages[] = {"download", "unpack", "guess", "parse",
                                               NULL};

const char *const lw_pipeline_follow_up = "import";

const char *const lw_pipeline_stages[] = {"download", "unpack", "guess", "parse", "import",
                                          "export",   "status", "noop",  NULL};

bool lw_pipeline_is_stage(const char *stage)
{
  for (size_t i = 0; stage && lw_pipeline_stages[i]; ++i) {
    if (!strcmp(lw_pipeline_stages[i], stage)) {
      return true;
    }
  }
  return false;
}

bool lw_pipeline_is_file_stage(const char *stage)
{
  for (size_t i = 0; lw_pipeline_file_stages[i]; ++i) {
    if (!strcmp(lw_pipeline_file_stages[i], stage)) {
      return true;
    }
  }
  return false;
}

const char *lw_pipeline_input_status(const char *stage)
{
  static const char *const inputs[][2] = {{"download", "added"},
                                          {"unpack", "filed"},
                                          {"guess", "unarchived"},
                                          {"parse", "guessed"}};
  for (size_t i = 0; stage && i < sizeof(inputs) / sizeof(inputs[0]); ++i) {
    if (!strcmp(inputs[i][0], stage)) {
      return inputs[i][1];
    }
  }
  return NULL;
}

/* The seed of a dead file job back from "failed" to the stage's input. A
 * seed another harvest took since is left alone: it is that one's now. */
static LwStatus seed_back(LwRecords *c, const LwConfig *cfg, const json_t *job,
                          LwError *err)
{
  const char *input = lw_pipeline_input_status(lw_record_str(job, "stage", ""));
  const char *hash = lw_record_str(job, "seed", "");
  if (!input || !*hash) {
    return LW_OK;
  }
  json_t *seed = NULL;
  LwStatus st = lw_seed_get(c, cfg->prefix, hash, &seed, err);
  if (st != LW_OK) {
    return st == LW_NOTHING ? LW_OK : st;
  }
  const char *owner = lw_record_str(seed, "harvest", "");
  const char *harvest = lw_record_str(job, "harvest", "");
  bool back = !strcmp(lw_record_str(seed, "status", ""), "failed") &&
              (!*owner || !*harvest || !strcmp(owner, harvest));
  json_decref(seed);
  return back ? lw_seed_set_status(c, cfg->prefix, hash, input, err) : LW_OK;
}

LwStatus lw_pipeline_retry_dead(LwRecords *c, const LwConfig *cfg, const char *id,
                                long long *moved, LwError *err)
{
  json_t *dead = NULL;
  LW_TRY(lw_queue_dead_list(c, cfg, 0, &dead, NULL, err));
  LwStatus st = LW_OK;
  size_t i;
  json_t *job;
  json_array_foreach(dead, i, job) {
    const char *job_id = lw_record_str(job, "id", "");
    if (json_is_object(job) && (!id || !strcmp(job_id, id))) {
      st = seed_back(c, cfg, job, err);
    }
    if (st > LW_NOTHING) {
      break;
    }
  }
  json_decref(dead);
  if (st > LW_NOTHING) {
    return st;
  }
  return lw_queue_retry_dead(c, cfg, NULL, id, moved, err);
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
