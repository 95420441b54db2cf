/* The stage table (the pipeline as data) checked against the seed status
 * machine: every move the frame makes for a stage is one the machine
 * allows, each stage's next stage takes the status it leaves, and together
 * the stages reach every status of a file's life. */
#include <string.h>

#include "queue/pipeline.h"
#include "queue/seed.h"
#include "tests/support/check.h"
#include "workers/stage.h"

static void check_outcome(const LwStage *s, const LwStageOutcome *o)
{
  if (!o->status) {
    CHECK(o->next == NULL);
    return;
  }
  CHECK(lw_seed_transition_allowed(s->working, o->status));
  /* a re-harvest starts the seed again from where it ended */
  CHECK(lw_seed_transition_allowed(o->status, "added"));
  if (o->next) {
    const LwStage *next = lw_stage_find(o->next);
    CHECK(next != NULL);
    CHECK(next && next->takes && !strcmp(next->takes, o->status));
    CHECK(lw_pipeline_is_file_stage(next ? next->name : "") ==
          lw_pipeline_is_file_stage(s->name));
  }
}

static bool reached(const char *status)
{
  for (size_t i = 0; i < lw_stage_count; ++i) {
    const LwStage *s = &lw_stages[i];
    const char *all[] = {s->takes, s->working, s->done.status, s->other.status};
    for (size_t j = 0; j < 4; ++j) {
      if (all[j] && !strcmp(all[j], status)) {
        return true;
      }
    }
  }
  return false;
}

int main(void)
{
  for (size_t i = 0; i < lw_stage_count; ++i) {
    const LwStage *s = &lw_stages[i];
    CHECK(lw_stage_find(s->name) == s);
    if (!s->takes) {
      CHECK(!s->working && !s->done.status && !s->other.status);
      continue;
    }
    CHECK(lw_seed_status_valid(s->takes));
    CHECK(lw_seed_status_valid(s->working));
    CHECK(lw_seed_transition_allowed(s->takes, s->working));
    CHECK(lw_seed_transition_allowed(s->working, s->working)); /* a job run again */
    CHECK(lw_seed_transition_allowed(s->working, "failed"));   /* its job went dead */
    CHECK(s->done.status != NULL);
    check_outcome(s, &s->done);
    check_outcome(s, &s->other);
  }
  /* every status of a file's life is some stage's */
  for (size_t i = 0; lw_seed_statuses[i]; ++i) {
    const char *st = lw_seed_statuses[i];
    if (strcmp(st, "failed") && strcmp(st, "cleaned")) {
      CHECK(reached(st));
    }
  }
  /* the records' file stages are rows that work on a seed */
  for (size_t i = 0; lw_pipeline_file_stages[i]; ++i) {
    const LwStage *s = lw_stage_find(lw_pipeline_file_stages[i]);
    CHECK(s && s->takes);
  }
  /* the records' list of stages is the table's, no more, no less */
  size_t listed = 0;
  for (; lw_pipeline_stages[listed]; ++listed) {
    CHECK(lw_stage_find(lw_pipeline_stages[listed]) != NULL);
  }
  CHECK(listed == lw_stage_count);
  for (size_t i = 0; i < lw_stage_count; ++i) {
    CHECK(lw_pipeline_is_stage(lw_stages[i].name));
  }
  CHECK(!lw_pipeline_is_stage("nope") && !lw_pipeline_is_stage(NULL));
  /* a retried file job's seed goes back to its stage's input status */
  for (size_t i = 0; lw_pipeline_file_stages[i]; ++i) {
    const LwStage *s = lw_stage_find(lw_pipeline_file_stages[i]);
    CHECK(s && lw_pipeline_input_status(s->name) &&
          !strcmp(lw_pipeline_input_status(s->name), s->takes));
    CHECK(lw_seed_transition_allowed("failed", s->takes));
  }
  CHECK(lw_pipeline_input_status("import") == NULL);
  /* the harvest's follow-up is a stage of its own, not a file's */
  const LwStage *follow = lw_stage_find(lw_pipeline_follow_up);
  CHECK(follow && !lw_pipeline_is_file_stage(follow->name) && !follow->takes);
  return lw_test_finish();
}
