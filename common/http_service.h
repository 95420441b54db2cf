/*
 * A small HTTP service for operators (libmicrohttpd, its own threads): the
 * scheduler serves /metrics, /status and /healthz with it. Each GET asks one
 * callback for the page; the callback builds it from Redis at that moment.
 */
#ifndef LW_HTTP_SERVICE_H
#define LW_HTTP_SERVICE_H

#include "common/status.h"

typedef struct {
  int status;             /* HTTP status, such as 200 or 404 */
  const char *content_type;
  char *body;             /* malloc'd; the service frees it */
} LwHttpPage;

/* Fills page for path ("/metrics", ...). Runs on the service's thread. */
typedef void (*LwHttpPageFn)(void *handle, const char *path, LwHttpPage *page);

typedef struct LwHttpService LwHttpService;

/* Listens on bind_address:port (port 0: any free port, see
 * lw_http_service_port). NULL with err set when it cannot. */
LwHttpService *lw_http_service_start(const char *bind_address, int port,
                                     LwHttpPageFn page, void *handle, LwError *err);

/* The port actually listened on. */
int lw_http_service_port(const LwHttpService *service);

/* Stops the service and frees it. NULL is safe. */
void lw_http_service_stop(LwHttpService *service);

#endif
