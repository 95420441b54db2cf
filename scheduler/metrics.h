/*
 * The Prometheus text exposition of lodwash's state, rendered from the same
 * JSON that `lodwash status --json` prints (so the two never disagree):
 *
 *   lodwash_jobs{stage,state}            gauge: queued, inflight, delayed, dead
 *   lodwash_jobs_done_total{stage}       counter
 *   lodwash_jobs_failed_total{stage}     counter (failed attempts)
 *   lodwash_job_seconds_total{stage}     counter: time spent in jobs
 *   lodwash_workers_alive                gauge
 *   lodwash_seeds{status}                gauge
 *   lodwash_<counter>_total              counters from "counters": bytes
 *                                        downloaded, triples cleaned and
 *                                        imported, errors by kind
 *   lodwash_provider_state{provider,state}                 1 for its state
 *   lodwash_provider_last_harvest_timestamp_seconds{provider}
 *   lodwash_provider_triples{provider}
 */
#ifndef LW_METRICS_H
#define LW_METRICS_H

#include <jansson.h>

/* Renders status (the object of lw_status_json) as Prometheus text. Returns
 * a new string the caller frees, or NULL when out of memory. */
char *lw_metrics_render(const json_t *status);

#endif
