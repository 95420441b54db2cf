/*
 * The worker frame: takes jobs of the stages it serves, runs their handlers
 * (workers/stage.h) and acks, retries or hands them back (queue/queue.h).
 *
 * One job at a time per process (run more processes for more throughput);
 * a second thread with its own Redis connection keeps the heartbeat alive
 * while a job runs. Redis going away is survived: the worker reconnects with
 * backoff by itself and carries on (a job whose ack could not be sent is
 * acked after reconnecting; if the worker is stopped first, the reaper
 * returns the job to its queue).
 */
#ifndef LW_WORKERS_WORKER_H
#define LW_WORKERS_WORKER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

typedef struct {
  const LwConfig *config;
  const char *const *stages; /* names served, in preference order */
  size_t n_stages;
  bool exit_when_idle;         /* return once nothing of those stages is queued,
                                delayed or in flight anywhere */
  volatile sig_atomic_t *stop; /* set (by a signal handler) to stop: the
                                  current job is finished or handed back */
} LwWorkerOptions;

/* The process's exit code when a job ran past the job time limit
 * (--job-time-limit): the job was failed and the process exits at once. */
#define LW_WORKER_EXIT_TIME_LIMIT 3

/* Runs until *stop is set or, with exit_when_idle, until idle. Returns the
 * process exit code: 0, or 1 when the worker could not start. A job that
 * runs past the job time limit ends the process (LW_WORKER_EXIT_TIME_LIMIT). */
int lw_worker_run(const LwWorkerOptions *opts);

/* Splits a comma-separated stage list ("download,unpack") into names from
 * the stage table (workers/stages.c); NULL or "" or "all" means every
 * stage. Returns the count, or 0 with err set (LW_ERR_USAGE) for an unknown
 * or empty name. names[] points into the table. */
size_t lw_worker_parse_stages(const char *list, const char **names, size_t max,
                              LwError *err);

#endif
