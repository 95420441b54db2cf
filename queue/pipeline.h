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

/* The stage of the job queued once every file of a harvest is finished:
 * the harvest's own job, about the harvest. */
extern const char *const lw_pipeline_follow_up;

/* True when stage works on one file of a harvest. */
bool lw_pipeline_is_file_stage(const char *stage);

/* The reaper (lw_queue_reap_files) with the pipeline's fan-in: a file job
 * that goes dead because its workers keep dying is finished as failed for
 * its harvest. The workers and the scheduler reap with it. */
LwStatus lw_pipeline_reap(LwRecords *c, const LwConfig *cfg, long long *returned,
                          LwError *err);

#endif
