#include "tests/support/http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "base/base.h"

typedef struct {
  char *path;
  LwTestResponse *responses; /* deep copies */
  int count;
  int hits;
  char *last_headers; /* "name: value\n" lines of the latest request */
  char *last_method;
  char *last_body; /* its body (uploads), NUL-terminated */
  size_t last_body_len;
} Route;

struct LwTestServer {
  struct MHD_Daemon *daemon;
  unsigned port;
  char allow[64];
  pthread_mutex_t lock;
  Route *routes;
  int route_count;
  atomic_int stopping;
};

/* ---- generated content ------------------------------------------------ */

static void put_digits(char *out, uint64_t v)
{
  for (int i = 9; i >= 0; --i) {
    out[i] = (char)('0' + v % 10);
    v /= 10;
  }
}

static void make_line(uint64_t n, char line[LW_TEST_LINE_LEN])
{
  static const char tmpl[] =
    "<http://example.org/s0000000000> <http://example.org/p> \"v0000000000\" .\n";
  memcpy(line, tmpl, LW_TEST_LINE_LEN);
  put_digits(line + 21, n);
  put_digits(line + 59, n);
}

void lw_test_lines_fill(uint64_t offset, void *buf, size_t len)
{
  char *out = buf;
  char line[LW_TEST_LINE_LEN];
  while (len > 0) {
    uint64_t n = offset / LW_TEST_LINE_LEN;
    size_t at = (size_t)(offset % LW_TEST_LINE_LEN);
    size_t take = LW_TEST_LINE_LEN - at;
    if (take > len) {
      take = len;
    }
    make_line(n, line);
    memcpy(out, line + at, take);
    out += take;
    offset += take;
    len -= take;
  }
}

void lw_test_lines_md5(uint64_t size, char out[33])
{
  LwMd5 *md5 = lw_md5_new();
  char *buf = malloc(1 << 16);
  for (uint64_t off = 0; off < size;) {
    size_t n = size - off < (1 << 16) ? (size_t)(size - off) : (1 << 16);
    lw_test_lines_fill(off, buf, n);
    lw_md5_update(md5, buf, n);
    off += n;
  }
  lw_md5_finish(md5, out);
  lw_md5_free(md5);
  free(buf);
}

/* ---- routes ------------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
  return s ? strdup(s) : NULL;
}

static void response_copy(LwTestResponse *dst, const LwTestResponse *src)
{
  *dst = *src;
  if (src->body) {
    size_t len = src->body_len ? src->body_len : strlen(src->body);
    char *body = malloc(len + 1);
    memcpy(body, src->body, len);
    body[len] = '\0';
    dst->body = body;
    dst->body_len = len;
  }
  dst->file = dup_or_null(src->file);
  dst->content_type = dup_or_null(src->content_type);
  dst->headers = dup_or_null(src->headers);
  dst->location = dup_or_null(src->location);
  dst->etag = dup_or_null(src->etag);
  dst->last_modified = dup_or_null(src->last_modified);
  dst->encoding = dup_or_null(src->encoding);
}

static void response_free(LwTestResponse *r)
{
  free((char *)r->body);
  free((char *)r->file);
  free((char *)r->content_type);
  free((char *)r->headers);
  free((char *)r->location);
  free((char *)r->etag);
  free((char *)r->last_modified);
  free((char *)r->encoding);
}

static void route_clear(Route *route)
{
  for (int i = 0; i < route->count; ++i) {
    response_free(&route->responses[i]);
  }
  free(route->responses);
  route->responses = NULL;
  route->count = 0;
  route->hits = 0;
  free(route->last_headers);
  route->last_headers = NULL;
  free(route->last_method);
  route->last_method = NULL;
  free(route->last_body);
  route->last_body = NULL;
  route->last_body_len = 0;
}

/* Callers hold the lock. */
static Route *route_find(LwTestServer *s, const char *path, bool create)
{
  for (int i = 0; i < s->route_count; ++i) {
    if (!strcmp(s->routes[i].path, path)) {
      return &s->routes[i];
    }
  }
  if (!create) {
    return NULL;
  }
  s->routes = realloc(s->routes, sizeof(Route) * (size_t)(s->route_count + 1));
  Route *r = &s->routes[s->route_count++];
  memset(r, 0, sizeof(*r));
  r->path = strdup(path);
  return r;
}

void lw_test_server_add(LwTestServer *s, const char *path, const LwTestResponse *response)
{
  pthread_mutex_lock(&s->lock);
  Route *r = route_find(s, path, true);
  r->responses = realloc(r->responses, sizeof(LwTestResponse) * (size_t)(r->count + 1));
  response_copy(&r->responses[r->count++], response);
  pthread_mutex_unlock(&s->lock);
}

void lw_test_server_clear(LwTestServer *s, const char *path)
{
  pthread_mutex_lock(&s->lock);
  Route *r = route_find(s, path, false);
  if (r) {
    route_clear(r);
  }
  pthread_mutex_unlock(&s->lock);
}

int lw_test_server_hits(LwTestServer *s, const char *path)
{
  pthread_mutex_lock(&s->lock);
  Route *r = route_find(s, path, false);
  int hits = r ? r->hits : 0;
  pthread_mutex_unlock(&s->lock);
  return hits;
}

const char *lw_test_server_request_header(LwTestServer *s, const char *path,
                                          const char *name, char *buf, size_t size)
{
  const char *found = NULL;
  size_t nlen = strlen(name);
  pthread_mutex_lock(&s->lock);
  Route *r = route_find(s, path, false);
  for (const char *line = r ? r->last_headers : NULL; line && *line;) {
    const char *eol = strchr(line, '\n');
    if (!strncasecmp(line, name, nlen) && line[nlen] == ':') {
      const char *v = line + nlen + 1;
      while (*v == ' ') {
        ++v;
      }
      snprintf(buf, size, "%.*s", (int)(eol - v), v);
      found = buf;
      break;
    }
    line = eol + 1;
  }
  pthread_mutex_unlock(&s->lock);
  return found;
}

const char *lw_test_server_request_method(LwTestServer *s, const char *path, char *buf,
                                          size_t size)
{
  const char *found = NULL;
  pthread_mutex_lock(&s->lock);
  Route *r = route_find(s, path, false);
  if (r && r->last_method) {
    snprintf(buf, size, "%s", r->last_method);
    found = buf;
  }
  pthread_mutex_unlock(&s->lock);
  return found;
}

char *lw_test_server_request_body(LwTestServer *s, const char *path, size_t *len)
{
  char *copy = NULL;
  pthread_mutex_lock(&s->lock);
  Route *r = route_find(s, path, false);
  if (r && r->last_body) {
    copy = malloc(r->last_body_len + 1);
    if (copy) {
      memcpy(copy, r->last_body, r->last_body_len + 1);
      if (len) {
        *len = r->last_body_len;
      }
    }
  }
  pthread_mutex_unlock(&s->lock);
  return copy;
}

/* ---- serving ----------------------------------------------------------- */

/* Sleeps ms in small slices; false if the server is stopping meanwhile. */
static bool nap(LwTestServer *s, unsigned ms)
{
  while (ms > 0 && !atomic_load(&s->stopping)) {
    unsigned slice = ms < 20 ? ms : 20;
    struct timespec ts = {0, (long)slice * 1000000L};
    nanosleep(&ts, NULL);
    ms -= slice;
  }
  return !atomic_load(&s->stopping);
}

typedef struct {
  LwTestServer *server;
  LwTestResponse r; /* a copy: the route may be cleared meanwhile */
  uint64_t start;   /* identity-body range served: [start, end) */
  uint64_t end;
  uint64_t next; /* next identity-body byte to read */
  uint64_t sent; /* body bytes handed to MHD */
  int fd;
  bool zinit;
  bool zdone;
  z_stream z;
  unsigned char in[16384];
} Reader;

static size_t source_read(Reader *rd, unsigned char *buf, size_t len)
{
  uint64_t left = rd->end - rd->next;
  if (len > left) {
    len = (size_t)left;
  }
  if (len == 0) {
    return 0;
  }
  if (rd->fd >= 0) {
    ssize_t n = pread(rd->fd, buf, len, (off_t)rd->next);
    len = n > 0 ? (size_t)n : 0;
  } else if (rd->r.kind == LW_TEST_BODY_LINES) {
    lw_test_lines_fill(rd->next, buf, len);
  } else if (rd->r.kind == LW_TEST_BODY_ZEROS) {
    memset(buf, 0, len);
  } else {
    memcpy(buf, rd->r.body + rd->next, len);
  }
  rd->next += len;
  return len;
}

static ssize_t deflate_read(Reader *rd, char *buf, size_t max)
{
  if (rd->zdone) {
    return MHD_CONTENT_READER_END_OF_STREAM;
  }
  rd->z.next_out = (unsigned char *)buf;
  rd->z.avail_out = (uInt)max;
  while (rd->z.avail_out == max) {
    int flush = Z_NO_FLUSH;
    if (rd->z.avail_in == 0) {
      size_t n = source_read(rd, rd->in, sizeof(rd->in));
      rd->z.next_in = rd->in;
      rd->z.avail_in = (uInt)n;
      if (n == 0) {
        flush = Z_FINISH;
      }
    }
    int rc = deflate(&rd->z, flush);
    if (rc == Z_STREAM_END) {
      rd->zdone = true;
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return MHD_CONTENT_READER_END_WITH_ERROR;
    }
  }
  size_t produced = max - rd->z.avail_out;
  return produced > 0 ? (ssize_t)produced : MHD_CONTENT_READER_END_OF_STREAM;
}

static ssize_t reader_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
  (void)pos;
  Reader *rd = cls;
  if (atomic_load(&rd->server->stopping)) {
    return MHD_CONTENT_READER_END_WITH_ERROR;
  }
  if (rd->r.truncate_after && rd->sent >= rd->r.truncate_after) {
    return MHD_CONTENT_READER_END_WITH_ERROR; /* the lie: close early */
  }
  if (rd->r.drip_bytes) {
    if (rd->sent > 0 && !nap(rd->server, rd->r.drip_ms)) {
      return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    if (max > rd->r.drip_bytes) {
      max = rd->r.drip_bytes;
    }
  }
  if (rd->r.truncate_after && max > rd->r.truncate_after - rd->sent) {
    max = (size_t)(rd->r.truncate_after - rd->sent);
  }
  ssize_t n;
  if (rd->zinit) {
    n = deflate_read(rd, buf, max);
  } else {
    size_t got = source_read(rd, (unsigned char *)buf, max);
    n = got > 0 ? (ssize_t)got : MHD_CONTENT_READER_END_OF_STREAM;
  }
  if (n > 0) {
    rd->sent += (uint64_t)n;
  }
  return n;
}

static void reader_free(void *cls)
{
  Reader *rd = cls;
  if (rd->zinit) {
    deflateEnd(&rd->z);
  }
  if (rd->fd >= 0) {
    close(rd->fd);
  }
  response_free(&rd->r);
  free(rd);
}

static void add_headers(struct MHD_Response *resp, const char *lines)
{
  char *copy = strdup(lines);
  char *save = NULL;
  for (char *line = strtok_r(copy, "\r\n", &save); line;
       line = strtok_r(NULL, "\r\n", &save)) {
    char *colon = strchr(line, ':');
    if (!colon) {
      continue;
    }
    *colon = '\0';
    char *v = colon + 1;
    while (*v == ' ') {
      ++v;
    }
    MHD_add_response_header(resp, line, v);
  }
  free(copy);
}

static bool parse_range(const char *h, uint64_t total, uint64_t *a, uint64_t *b)
{
  unsigned long long x = 0, y = 0;
  int n = 0;
  if (sscanf(h, "bytes=%llu-%n", &x, &n) < 1 || n == 0) {
    return false;
  }
  *a = x;
  *b = total ? total - 1 : 0;
  if (h[n] && sscanf(h + n, "%llu", &y) == 1 && y < *b) {
    *b = y;
  }
  return true;
}

typedef struct {
  char *text;
  size_t len;
} HeaderLog;

/* One request's upload, gathered before the answer. */
typedef struct {
  char *body;
  size_t len;
} Upload;

#define MAX_UPLOAD (16 * 1024 * 1024)

static void request_done(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
  (void)cls;
  (void)conn;
  (void)toe;
  Upload *up = *con_cls;
  if (up) {
    free(up->body);
    free(up);
    *con_cls = NULL;
  }
}

static enum MHD_Result log_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value)
{
  (void)kind;
  HeaderLog *log = cls;
  size_t add = strlen(key) + strlen(value ? value : "") + 3;
  log->text = realloc(log->text, log->len + add + 1);
  log->len += (size_t)sprintf(log->text + log->len, "%s: %s\n", key, value ? value : "");
  return MHD_YES;
}

/* Picks this request's response (a copy the caller frees) and logs it. */
static bool next_response(LwTestServer *s, struct MHD_Connection *conn, const char *url,
                          const char *method, Upload *up, LwTestResponse *out)
{
  HeaderLog log = {NULL, 0};
  MHD_get_connection_values(conn, MHD_HEADER_KIND, log_header, &log);
  pthread_mutex_lock(&s->lock);
  Route *r = route_find(s, url, false);
  bool found = r && r->count > 0;
  if (r) {
    int i = r->hits < r->count ? r->hits : r->count - 1;
    if (found) {
      response_copy(out, &r->responses[i]);
    }
    r->hits++;
    free(r->last_headers);
    r->last_headers = log.text;
    log.text = NULL;
    free(r->last_method);
    r->last_method = strdup(method);
    free(r->last_body);
    r->last_body = up->body ? up->body : calloc(1, 1);
    r->last_body_len = up->len;
    up->body = NULL;
    up->len = 0;
  }
  pthread_mutex_unlock(&s->lock);
  free(log.text);
  return found;
}

static bool not_modified(struct MHD_Connection *conn, const LwTestResponse *r)
{
  const char *inm = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-None-Match");
  const char *ims = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-Modified-Since");
  return (r->etag && inm && strstr(inm, r->etag)) ||
         (r->last_modified && ims && !strcmp(ims, r->last_modified));
}

static uint64_t body_total(Reader *rd)
{
  if (rd->fd >= 0) {
    struct stat st;
    return fstat(rd->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
  }
  if (rd->r.kind != LW_TEST_BODY_STATIC) {
    return rd->r.size;
  }
  return rd->r.body ? rd->r.body_len : 0;
}

static enum MHD_Result queue_simple(struct MHD_Connection *conn, unsigned status,
                                    const char *text)
{
  struct MHD_Response *resp = MHD_create_response_from_buffer(
    strlen(text), (void *)(uintptr_t)text, MHD_RESPMEM_PERSISTENT);
  enum MHD_Result ret = MHD_queue_response(conn, status, resp);
  MHD_destroy_response(resp);
  return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version,
                              const char *upload_data, size_t *upload_size, void **con_cls)
{
  (void)version;
  LwTestServer *s = cls;
  if (*con_cls == NULL) { /* headers only so far: answer once the upload is in */
    *con_cls = calloc(1, sizeof(Upload));
    return *con_cls ? MHD_YES : MHD_NO;
  }
  Upload *up = *con_cls;
  if (*upload_size > 0) {
    size_t n = *upload_size;
    if (up->len + n <= MAX_UPLOAD) {
      char *grown = realloc(up->body, up->len + n + 1);
      if (!grown) {
        return MHD_NO;
      }
      up->body = grown;
      memcpy(up->body + up->len, upload_data, n);
      up->len += n;
      up->body[up->len] = '\0';
    }
    *upload_size = 0;
    return MHD_YES;
  }
  Reader *rd = calloc(1, sizeof(*rd));
  rd->server = s;
  rd->fd = -1;
  if (!next_response(s, conn, url, method, up, &rd->r)) {
    free(rd);
    return queue_simple(conn, MHD_HTTP_NOT_FOUND, "no route\n");
  }
  if (rd->r.delay_ms && !nap(s, rd->r.delay_ms)) {
    reader_free(rd);
    return MHD_NO;
  }
  LwTestResponse *r = &rd->r;
  unsigned status = r->status ? (unsigned)r->status : r->location ? 302 : 200;
  bool is304 = not_modified(conn, r);
  if (is304) {
    status = MHD_HTTP_NOT_MODIFIED;
  }
  if (r->file) {
    rd->fd = open(r->file, O_RDONLY);
  }
  uint64_t total = body_total(rd);
  rd->start = 0;
  rd->end = is304 ? 0 : total;
  rd->next = 0;
  bool ranged = false;
  const char *range = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Range");
  const char *if_range = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-Range");
  bool if_range_ok = !if_range || (r->etag && !strcmp(if_range, r->etag)) ||
                     (r->last_modified && !strcmp(if_range, r->last_modified));
  uint64_t a = 0, b = 0;
  if (!is304 && r->ranges && !r->encoding && range && if_range_ok && status == 200 &&
      parse_range(range, total, &a, &b)) {
    if (a >= total) {
      reader_free(rd);
      return queue_simple(conn, MHD_HTTP_RANGE_NOT_SATISFIABLE, "");
    }
    ranged = true;
    status = MHD_HTTP_PARTIAL_CONTENT;
    rd->start = rd->next = a;
    rd->end = b + 1;
  }
  if (r->encoding && !is304) {
    int bits = !strcmp(r->encoding, "gzip") ? 15 + 16 : 15;
    if (deflateInit2(&rd->z, 6, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY) == Z_OK) {
      rd->zinit = true;
    }
  }
  struct MHD_Response *resp;
  bool plain = !rd->zinit && !r->drip_bytes && !r->truncate_after;
  bool fast = plain && rd->fd >= 0; /* the fast path: sendfile */
  if (fast) {
    resp = MHD_create_response_from_fd_at_offset64(rd->end - rd->start, rd->fd,
                                                   (int64_t)rd->start);
    if (resp) {
      rd->fd = -1; /* MHD owns it now */
    }
  } else {
    uint64_t size = rd->zinit ? MHD_SIZE_UNKNOWN : rd->end - rd->start;
    resp = MHD_create_response_from_callback(size, 64 * 1024, reader_cb, rd, reader_free);
  }
  if (!resp) {
    reader_free(rd);
    return MHD_NO;
  }
  if (r->location) {
    MHD_add_response_header(resp, "Location", r->location);
  }
  if (r->content_type && !is304) {
    MHD_add_response_header(resp, "Content-Type", r->content_type);
  }
  if (r->etag) {
    MHD_add_response_header(resp, "ETag", r->etag);
  }
  if (r->last_modified) {
    MHD_add_response_header(resp, "Last-Modified", r->last_modified);
  }
  if (r->ranges) {
    MHD_add_response_header(resp, "Accept-Ranges", "bytes");
  }
  if (rd->zinit) {
    MHD_add_response_header(resp, "Content-Encoding", r->encoding);
  }
  if (ranged) {
    char cr[96];
    snprintf(cr, sizeof(cr), "bytes %llu-%llu/%llu", (unsigned long long)a,
             (unsigned long long)b, (unsigned long long)total);
    MHD_add_response_header(resp, "Content-Range", cr);
  }
  if (r->headers) {
    add_headers(resp, r->headers);
  }
  if (fast) {
    reader_free(rd);
  }
  enum MHD_Result ret = MHD_queue_response(conn, status, resp);
  MHD_destroy_response(resp);
  return ret;
}

/* ---- life cycle -------------------------------------------------------- */

LwTestServer *lw_test_server_start(void)
{
  LwTestServer *s = calloc(1, sizeof(*s));
  pthread_mutex_init(&s->lock, NULL);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  s->daemon = MHD_start_daemon(
    /* No MHD_USE_ERROR_LOG: the routes that cut connections on purpose
       * would fill the test output with expected complaints. */
    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL, answer,
    s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED,
    request_done, NULL, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120, MHD_OPTION_END);
  if (!s->daemon) {
    fprintf(stderr, "test http server: cannot start libmicrohttpd: %s\n", strerror(errno));
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon,
                                                         MHD_DAEMON_INFO_BIND_PORT);
  s->port = info ? info->port : 0;
  snprintf(s->allow, sizeof(s->allow), "127.0.0.1:%u", s->port);
  return s;
}

void lw_test_server_stop(LwTestServer *s)
{
  if (!s) {
    return;
  }
  atomic_store(&s->stopping, 1);
  MHD_stop_daemon(s->daemon);
  for (int i = 0; i < s->route_count; ++i) {
    route_clear(&s->routes[i]);
    free(s->routes[i].path);
  }
  free(s->routes);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

unsigned lw_test_server_port(const LwTestServer *s)
{
  return s->port;
}

const char *lw_test_server_url(const LwTestServer *s, const char *path, char *buf,
                               size_t size)
{
  snprintf(buf, size, "http://127.0.0.1:%u%s", s->port, path);
  return buf;
}

const char *lw_test_server_allow(const LwTestServer *s)
{
  return s->allow;
}
