/*
 * The harvest's shape of the pipeline, as the records know it: which stages
 * work on one file of a harvest (their jobs count for its fan-in,
 * queue/harvest.h, even when they go dead) and which stage is queued once
 * every file is finished. The worker's stage table (workers/stages.c) has a
 * row for each of them (test_stages); the scheduler, the tools and the
 * workers read this, so none of them needs the workers' table.
 */
#ifndef LW_QUEUE_PIPELINE_H
#define LW_QUEUE_PIPELINE_H

#include <stdbool.h>

#include "config/config.h"
#include "base/base.h"
#include "queue/redis.h"

/* The stages of a harvest's files, NULL-terminated. */
extern const char *const lw_pipeline_file_stages[];

/* Every stage a worker runs (workers/stages.c has a row for each, and no
 * other: test_stages), NULL-terminated: the controls refuse other names. */
extern const char *const lw_pipeline_stages[];

/* True when stage is one of lw_pipeline_stages. */
bool lw_pipeline_is_stage(const char *stage);

/* The stage of the job queued once every file of a harvest is finished:
 * the harvest's own job, about the harvest. */
extern const char *const lw_pipeline_follow_up;

/* True when stage works on one file of a harvest. */
bool lw_pipeline_is_file_stage(const char *stage);

/* The seed status a file stage works on ("added" for download, ...), as the
 * workers' table says (test_stages); NULL for another stage. */
const char *lw_pipeline_input_status(const char *stage);

/* lw_queue_retry_dead (every stage; id NULL: all) for the pipeline. A dead
 * file job's seed is "failed", and a stage does nothing with a seed that is
 * not in its input status (the job would be acked done having done
 * nothing): so the seed of each job retried goes back to its stage's input
 * status first, and the retry runs the stage again. */
LwStatus lw_pipeline_retry_dead(LwRecords *c, const LwConfig *cfg, const char *id,
                                long long *moved, LwError *err);

/* The reaper (lw_queue_reap_files) with the pipeline's fan-in: a file job
 * that goes dead because its workers keep dying is finished as failed for
 * its harvest. The workers and the scheduler reap with it. */
LwStatus lw_pipeline_reap(LwRecords *c, const LwConfig *cfg, long long *returned,
                          LwError *err);

#endif
