/*
 * A small HTTP service for operators (libmicrohttpd, its own threads): the
 * scheduler serves its pages (/metrics, /status, /healthz and the dashboard)
 * with it. Each request asks one callback for the page; the callback builds
 * it from Redis at that moment. GET and HEAD are answered; a POST reaches
 * the callback with its form fields (application/x-www-form-urlencoded or
 * multipart/form-data, parsed by libmicrohttpd); other methods get 405.
 */
#ifndef LW_HTTP_SERVICE_H
#define LW_HTTP_SERVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"

typedef struct LwHttpForm LwHttpForm;

typedef struct {
  const char *method;      /* "GET", "HEAD" or "POST" */
  const char *path;        /* "/metrics", ... (without the query) */
  const LwHttpForm *form;  /* a POST's fields; NULL for GET */
  const char *accept;      /* the Accept header, "" when none */
} LwHttpRequest;

/* The value of the form field name of a POST, or NULL when absent (or not
 * a POST). Values longer than LW_HTTP_FIELD_MAX bytes are cut. */
const char *lw_http_form_get(const LwHttpRequest *req, const char *name);

#define LW_HTTP_FIELD_MAX 4096

typedef struct {
  int status;             /* HTTP status, such as 200 or 404 */
  const char *content_type;
  char *body;             /* malloc'd; the service frees it */
  size_t length;          /* bytes of body; 0: strlen(body) */
  char *file;             /* malloc'd path: its content is sent instead of
                             body (404 when it cannot be opened) */
  char *location;         /* malloc'd: a Location header (redirects) */
} LwHttpPage;

/* Fills page for req. Runs on the service's thread. */
typedef void (*LwHttpPageFn)(void *handle, const LwHttpRequest *req, LwHttpPage *page);

typedef struct LwHttpService LwHttpService;

/* Listens on bind_address:port (port 0: any free port, see
 * lw_http_service_port). NULL with err set when it cannot (LW_ERR_USAGE for
 * a bad address). */
LwHttpService *lw_http_service_start(const char *bind_address, int port,
                                     LwHttpPageFn page, void *handle, LwError *err);

/* The port actually listened on. */
int lw_http_service_port(const LwHttpService *service);

/* Stops the service and frees it. NULL is safe. */
void lw_http_service_stop(LwHttpService *service);

#endif
