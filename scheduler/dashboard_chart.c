#include "scheduler/dashboard_chart.h"

#define W 600.0 /* the drawing's size in its own units: it scales to the page */
#define H 150.0
#define LEFT 48.0
#define BOTTOM 22.0
#define TOP 8.0

static double max_of(const LwChartSeries *series, size_t n_series, size_t n)
{
  double max = 1;
  for (size_t s = 0; s < n_series; ++s) {
    for (size_t i = 0; i < n; ++i) {
      max = series[s].y[i] > max ? series[s].y[i] : max;
    }
  }
  return max;
}

static void axes(LwHtml *h, double max, const char *x_first, const char *x_last)
{
  lw_html(h,
          "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#999\"/>"
          "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#999\"/>",
          LEFT, TOP, LEFT, H - BOTTOM, LEFT, H - BOTTOM, W, H - BOTTOM);
  lw_html(h,
          "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" font-size=\"11\">%.0f</text>"
          "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" font-size=\"11\">0</text>",
          LEFT - 4, TOP + 10, max, LEFT - 4, H - BOTTOM);
  lw_html(h,
          "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">%s</text>"
          "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" font-size=\"11\">%s</text>",
          LEFT, H - 6, x_first, W, H - 6, x_last);
}

/* One series as a polyline (a dot when it has one point). */
static void line(LwHtml *h, const LwChartSeries *s, const double *x, size_t n, double max)
{
  double x0 = x[0], span = n > 1 && x[n - 1] > x[0] ? x[n - 1] - x[0] : 1;
  lw_html(h,
          "<polyline class=\"series\" data-name=\"%s\" fill=\"none\" stroke=\"%s\" "
          "stroke-width=\"2\" points=\"",
          s->name, s->color);
  for (size_t i = 0; i < n; ++i) {
    double px = n > 1 ? LEFT + (x[i] - x0) / span * (W - LEFT - 4) : (LEFT + W) / 2;
    double py = H - BOTTOM - s->y[i] / max * (H - BOTTOM - TOP);
    lw_html(h, "%s%.1f,%.1f", i ? " " : "", px, py);
  }
  lw_html(h, "\"/>");
  if (n == 1) {
    lw_html(h, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", (LEFT + W) / 2,
            H - BOTTOM - s->y[0] / max * (H - BOTTOM - TOP), s->color);
  }
}

void lw_chart_lines(LwHtml *h, const char *id, const char *title, const double *x, size_t n,
                    const LwChartSeries *series, size_t n_series, const char *x_first,
                    const char *x_last)
{
  lw_html(h, "<figure class=\"chart\"><figcaption>%s", title);
  for (size_t s = 0; s < n_series; ++s) {
    lw_html(h, " <span style=\"color:%s\">&#9632; %s</span>", series[s].color,
            series[s].name);
  }
  lw_html(h, "</figcaption>");
  if (!n) {
    lw_html(h, "<p>no data yet</p></figure>\n");
    return;
  }
  double max = max_of(series, n_series, n);
  lw_html(h,
          "<svg id=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"100%%\" role=\"img\" "
          "aria-label=\"%s\" xmlns=\"http://www.w3.org/2000/svg\">",
          id, W, H, title);
  axes(h, max, x_first, x_last);
  for (size_t s = 0; s < n_series; ++s) {
    line(h, &series[s], x, n, max);
  }
  lw_html(h, "</svg></figure>\n");
}
