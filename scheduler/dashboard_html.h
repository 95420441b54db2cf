/*
 * HTML for the scheduler's dashboard, built safely: the data shown is other
 * people's (IRIs, error messages, file names from providers) and hostile, so
 * every string argument is HTML-escaped on the way in. Markup comes only
 * from the format string, which is a literal in our code.
 *
 *   LwHtml h = LW_HTML_INIT;
 *   lw_html(&h, "<td>%s</td><td>%lld</td>", message, count);
 *   char *page = lw_html_finish(&h);   // NULL if memory ran out
 */
#ifndef LW_SCHEDULER_DASHBOARD_HTML_H
#define LW_SCHEDULER_DASHBOARD_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"

typedef struct {
  LwBuf buf;
  bool failed; /* the first failure sticks; lw_html_finish reports it */
} LwHtml;

#define LW_HTML_INIT                                                                       \
  {                                                                                        \
    LW_BUF_INIT, false                                                                     \
  }

/* Appends fmt with its arguments: %s arguments are HTML-escaped (NULL
 * shows as "-"); %d %i %u %ld %lld %zu %f %.Nf %g and %% as printf does.
 * Other conversions are a bug and show as "?". */
void lw_html(LwHtml *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s with every byte outside [A-Za-z0-9._~:-] percent-encoded, for a path
 * segment of a link (then escaped again by lw_html's %s). */
void lw_html_url_part(const char *s, char *out, size_t size);

/* The start of a page: doctype, head (title escaped, viewport for phones,
 * the style sheet), the navigation bar and the admin token field when
 * actions are on; then <main>. */
void lw_html_page_start(LwHtml *h, const char *title, bool actions);

/* </main>, the refresh script, </html>. */
void lw_html_page_end(LwHtml *h);

/* The page as a malloc'd string (caller frees), or NULL when out of memory;
 * h is emptied either way. */
char *lw_html_finish(LwHtml *h);

#endif
