#include "common/http_service.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct LwHttpService {
  struct MHD_Daemon *daemon;
  LwHttpPageFn page;
  void *handle;
  int port;
};

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection,
                              const char *url, const char *method,
                              const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
  (void)version;
  (void)upload_data;
  (void)upload_data_size;
  (void)con_cls;
  LwHttpService *s = cls;
  LwHttpPage page = {404, "text/plain; charset=utf-8", NULL};
  if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
    page.status = 405;
  } else {
    s->page(s->handle, url, &page);
  }
  if (!page.body) {
    page.body = strdup(page.status == 404 ? "not found\n"
                       : page.status == 405 ? "method not allowed\n" : "");
  }
  size_t len = page.body ? strlen(page.body) : 0;
  struct MHD_Response *response =
      MHD_create_response_from_buffer(len, page.body, MHD_RESPMEM_MUST_FREE);
  if (!response) {
    free(page.body);
    return MHD_NO;
  }
  MHD_add_response_header(response, "Content-Type", page.content_type);
  enum MHD_Result ret = MHD_queue_response(connection, (unsigned)page.status, response);
  MHD_destroy_response(response);
  return ret;
}

LwHttpService *lw_http_service_start(const char *bind_address, int port,
                                     LwHttpPageFn page, void *handle, LwError *err)
{
  LwHttpService *s = calloc(1, sizeof(*s));
  if (!s) {
    lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    return NULL;
  }
  s->page = page;
  s->handle = handle;
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, bind_address, &addr.sin_addr) != 1) {
    free(s);
    lw_error_set(err, LW_ERR_USAGE, "bad bind address %s", bind_address);
    return NULL;
  }
  s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
                               (uint16_t)port, NULL, NULL, answer, s,
                               MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                               MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
  if (!s->daemon) {
    free(s);
    lw_error_set(err, LW_ERR_IO, "cannot listen on %s:%d", bind_address, port);
    return NULL;
  }
  const union MHD_DaemonInfo *info =
      MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
  s->port = info ? info->port : port;
  return s;
}

int lw_http_service_port(const LwHttpService *s) { return s->port; }

void lw_http_service_stop(LwHttpService *s)
{
  if (s) {
    MHD_stop_daemon(s->daemon);
    free(s);
  }
}
