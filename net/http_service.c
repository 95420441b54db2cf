#include "net/net.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct LwHttpService {
  struct MHD_Daemon *daemon;
  LwHttpPageFn page;
  void *handle;
  int port;
};

/* A POST's fields: few and small (the dashboard's forms). */
#define FIELDS_MAX 16

struct LwHttpForm {
  char name[FIELDS_MAX][64];
  char value[FIELDS_MAX][LW_HTTP_FIELD_MAX];
  size_t count;
};

/* One request's state across libmicrohttpd's calls (its con_cls). */
typedef struct {
  struct MHD_PostProcessor *post;
  LwHttpForm form;
} Pending;

const char *lw_http_form_get(const LwHttpRequest *req, const char *name)
{
  const LwHttpForm *f = req ? req->form : NULL;
  for (size_t i = 0; f && i < f->count; ++i) {
    if (!strcmp(f->name[i], name)) {
      return f->value[i];
    }
  }
  return NULL;
}

/* libmicrohttpd's post processor hands values over in pieces (off). */
static enum MHD_Result on_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *filename, const char *content_type,
                                const char *transfer_encoding, const char *data,
                                uint64_t off, size_t size)
{
  (void)kind;
  (void)filename;
  (void)content_type;
  (void)transfer_encoding;
  LwHttpForm *f = cls;
  size_t i = 0;
  while (i < f->count && strcmp(f->name[i], key)) {
    ++i;
  }
  if (i == f->count) {
    if (f->count == FIELDS_MAX || off > 0) {
      return MHD_YES; /* too many fields: the rest is ignored */
    }
    snprintf(f->name[i], sizeof(f->name[i]), "%s", key);
    f->value[i][0] = '\0';
    ++f->count;
  }
  size_t have = strlen(f->value[i]);
  if (off == have && have + size < LW_HTTP_FIELD_MAX) {
    memcpy(f->value[i] + have, data, size);
    f->value[i][have + size] = '\0';
  }
  return MHD_YES;
}

static void completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
  (void)cls;
  (void)connection;
  (void)toe;
  Pending *p = *con_cls;
  if (p) {
    if (p->post) {
      MHD_destroy_post_processor(p->post);
    }
    free(p);
    *con_cls = NULL;
  }
}

/* The response of page: its file, else its body. NULL when out of memory. */
static struct MHD_Response *response_of(LwHttpPage *page)
{
  if (page->file) {
    int fd = open(page->file, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
      free(page->body);
      page->body = NULL;
      return MHD_create_response_from_fd((uint64_t)st.st_size, fd); /* closes fd */
    }
    if (fd >= 0) {
      close(fd);
    }
    free(page->body);
    page->body = strdup("not found\n");
    page->status = 404;
    page->length = 0;
    page->content_type = "text/plain; charset=utf-8";
  }
  size_t len = page->length ? page->length : page->body ? strlen(page->body) : 0;
  struct MHD_Response *r = MHD_create_response_from_buffer(len, page->body,
                                                           MHD_RESPMEM_MUST_FREE);
  if (!r) {
    free(page->body);
  }
  page->body = NULL;
  return r;
}

static enum MHD_Result reply(LwHttpService *s, struct MHD_Connection *connection,
                             const char *url, const char *method, const LwHttpForm *form)
{
  LwHttpPage page = {404, "text/plain; charset=utf-8", NULL, 0, NULL, NULL};
  if (strcmp(method, "GET") && strcmp(method, "HEAD") && strcmp(method, "POST")) {
    page.status = 405;
  } else {
    const char *accept = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Accept");
    LwHttpRequest req = {method, url, form, accept ? accept : ""};
    s->page(s->handle, &req, &page);
  }
  if (!page.body && !page.file) {
    page.body = strdup(page.status == 404   ? "not found\n"
                       : page.status == 405 ? "method not allowed\n"
                                            : "");
  }
  struct MHD_Response *response = response_of(&page);
  enum MHD_Result ret = MHD_NO;
  if (response) {
    MHD_add_response_header(response, "Content-Type", page.content_type);
    MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
    /* No page may be framed: a framing page could steer clicks onto the
     * dashboard's buttons (the admin token is in the browser's storage). */
    MHD_add_response_header(response, "X-Frame-Options", "DENY");
    MHD_add_response_header(response, "Content-Security-Policy", "frame-ancestors 'none'");
    if (page.location) {
      MHD_add_response_header(response, "Location", page.location);
    }
    ret = MHD_queue_response(connection, (unsigned)page.status, response);
    MHD_destroy_response(response);
  }
  free(page.file);
  free(page.location);
  return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version,
                              const char *upload_data, size_t *upload_data_size,
                              void **con_cls)
{
  (void)version;
  LwHttpService *s = cls;
  if (strcmp(method, "POST")) {
    return reply(s, connection, url, method, NULL);
  }
  Pending *p = *con_cls;
  if (!p) { /* the first call: headers only */
    p = calloc(1, sizeof(*p));
    if (!p) {
      return MHD_NO;
    }
    p->post = MHD_create_post_processor(connection, 8192, on_field, &p->form);
    *con_cls = p;
    return MHD_YES;
  }
  if (*upload_data_size) {
    if (p->post) {
      MHD_post_process(p->post, upload_data, *upload_data_size);
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  return reply(s, connection, url, method, &p->form);
}

/* The connections served at once: LW_HTTP_CONNECTIONS_MAX, but never more
 * than a quarter of the process's descriptors, so that however many
 * connections strangers hold, the rest of the process (the scheduler's
 * Redis connection, its fetches, the registry) still gets descriptors. With
 * `ulimit -n 1024` that is 256. Connections past the limit wait in the
 * kernel's backlog or are refused; none costs a descriptor of ours. */
static unsigned connection_limit(void)
{
  unsigned limit = LW_HTTP_CONNECTIONS_MAX;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      rl.rlim_cur / 4 < limit) {
    limit = rl.rlim_cur / 4 > 8 ? (unsigned)(rl.rlim_cur / 4) : 8;
  }
  return limit;
}

/* libmicrohttpd says a line for every connection it turns away (per
 * address limit, connection limit): thousands under a flood. Those go to
 * debug; anything else is a warning. */
static void log_quietly(void *cls, const char *fmt, va_list ap)
{
  (void)cls;
  char line[512];
  vsnprintf(line, sizeof(line), fmt, ap);
  line[strcspn(line, "\r\n")] = '\0';
  if (strstr(line, "limit") || strstr(line, "Closing inbound")) {
    lw_debug("http msg=\"%s\"", line);
  } else {
    lw_warn("http msg=\"%s\"", line);
  }
}

LwHttpService *lw_http_service_start(const char *bind_address, int port, LwHttpPageFn page,
                                     void *handle, LwError *err)
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
  unsigned limit = connection_limit();
  s->daemon = MHD_start_daemon(
    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG, (uint16_t)port,
    NULL, NULL, answer, s, MHD_OPTION_EXTERNAL_LOGGER, log_quietly, NULL,
    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED, completed,
    NULL, MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
    LW_HTTP_PER_ADDRESS_MAX, MHD_OPTION_CONNECTION_TIMEOUT,
    (unsigned)LW_HTTP_IDLE_TIMEOUT_S, MHD_OPTION_END);
  if (!s->daemon) {
    free(s);
    lw_error_set(err, LW_ERR_IO, "cannot listen on %s:%d", bind_address, port);
    return NULL;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon,
                                                         MHD_DAEMON_INFO_BIND_PORT);
  s->port = info ? info->port : port;
  return s;
}

int lw_http_service_port(const LwHttpService *s)
{
  return s->port;
}

void lw_http_service_stop(LwHttpService *s)
{
  if (s) {
    MHD_stop_daemon(s->daemon);
    free(s);
  }
}
