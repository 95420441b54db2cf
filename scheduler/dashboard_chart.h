/*
 * Pictures for the dashboard, drawn here as SVG in the page (no script,
 * no library): lines of a few series over shared x values.
 */
#ifndef LW_SCHEDULER_DASHBOARD_CHART_H
#define LW_SCHEDULER_DASHBOARD_CHART_H

#include <stddef.h>

#include "scheduler/dashboard_html.h"

typedef struct {
  const char *name;  /* in the legend */
  const char *color; /* a CSS color */
  const double *y;   /* n values */
} LwChartSeries;

/* An <svg id="id"> of the series over x (n values, increasing), titled;
 * x_first and x_last label the x axis' ends ("" for none). Nothing but the
 * title and "no data yet" when n is 0. */
void lw_chart_lines(LwHtml *h, const char *id, const char *title, const double *x, size_t n,
                    const LwChartSeries *series, size_t n_series, const char *x_first,
                    const char *x_last);

#endif
