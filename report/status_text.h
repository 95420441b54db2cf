/*
 * The status report (report/status_report.h) as text for people: the table
 * `lodwash status` prints and the totals the status stage logs.
 */
#ifndef LW_REPORT_STATUS_TEXT_H
#define LW_REPORT_STATUS_TEXT_H

#include <jansson.h>
#include <stdio.h>

/* Prints status as the table of `lodwash status`: the stages' counts, the
 * paused stages, the workers alive with their jobs, the providers with
 * their harvests, the seeds by status. */
void lw_status_text_print(FILE *out, const json_t *status);

/* One count ("queued", "inflight", "delayed", "dead", ...) summed over every
 * stage of report. */
long long lw_status_report_total(const json_t *report, const char *count);

#endif
