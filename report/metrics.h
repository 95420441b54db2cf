/*
 * The Prometheus text exposition of lodwash's state, rendered from the same
 * report that `lodwash status --json` prints (report/status_report.h), so
 * the two never disagree. Every family has HELP and TYPE:
 *
 *   lodwash_build_info{version}                      gauge, always 1
 *   lodwash_redis_up                                 1, or 0 when Redis did
 *                                                    not answer (then only
 *                                                    these two are shown)
 *   lodwash_redis_used_memory_bytes                  gauge
 *   lodwash_scheduler_lease_held                     1 while a scheduler holds it
 *   lodwash_registry_ok                              1 when registry.yaml loads, 0
 *                                                    when the last good one is used
 *   lodwash_registry_last_good_timestamp_seconds     when the scheduler last read
 *                                                    a registry that loads
 *   lodwash_jobs{stage,state}                        gauge: queued, inflight,
 *                                                    delayed, dead
 *   lodwash_jobs_done_total{stage}                   counter
 *   lodwash_jobs_failed_total{stage}                 counter (failed attempts)
 *   lodwash_job_duration_seconds{stage}              histogram of job runs
 *                                                    (_bucket{le}, _sum, _count)
 *   lodwash_stage_paused{stage}                      1 when an operator paused it
 *   lodwash_workers_alive                            gauge
 *   lodwash_seeds{status}                            gauge
 *   lodwash_bytes_downloaded_total                   counter
 *   lodwash_triples_cleaned_total                    counter
 *   lodwash_triples_imported_total                   counter (added to graphs)
 *   lodwash_errors_total{kind}                       counter (syntax, literal)
 *   lodwash_provider_state{provider,state}           1 for its state, 0 for the
 *                                                    others (idle, harvesting,
 *                                                    error, held, disabled)
 *   lodwash_provider_last_harvest_timestamp_seconds{provider}  when the last
 *                                                    harvest with every dump in
 *                                                    ended
 *   lodwash_provider_triples{provider}               triples in its graph after
 *                                                    the last harvest
 *   lodwash_provider_harvest_running_seconds{provider}  how long the running
 *                                                    harvest has run (0 if none)
 *   lodwash_provider_failed_dumps{provider}          files of the last harvest
 *                                                    that failed
 */
#ifndef LW_METRICS_H
#define LW_METRICS_H

#include <jansson.h>

/* Renders status (the report of lw_status_report, or NULL when Redis could
 * not be read) as Prometheus text. Returns a new string the caller frees,
 * or NULL when out of memory. */
char *lw_metrics_render(const json_t *status);

#endif
