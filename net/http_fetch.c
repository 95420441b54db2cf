#include "net/net.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "files/files.h"
#include "net/fetch_internal.h"

#ifndef LODWASH_VERSION
#define LODWASH_VERSION "0"
#endif

#define MAX_DIGESTS 8
#define MAX_HEADER_BYTES (256 * 1024)
#define MAX_DISCARD_BYTES (1024 * 1024)
#define PIPE_SLOTS 4
#define PIPE_SLOT_SIZE (1 << 20)

/* ---- checksums ---------------------------------------------------------- */

/* One checksum to verify while the body streams. */
typedef struct {
  EVP_MD_CTX *ctx;
  unsigned char expected[EVP_MAX_MD_SIZE];
  unsigned expected_len;
  char name[16];   /* "sha256" */
  char source[64]; /* "declared", "Digest header", ... */
} Digest;

/* Maps "sha-256", "SHA256", "checksumAlgorithm_sha256", "sha" (RFC 3230's
 * SHA-1) and the like to an OpenSSL digest and a canonical name. */
static const EVP_MD *digest_by_name(const char *text, size_t len, char name[16])
{
  char norm[48];
  size_t n = 0;
  static const char spdx[] = "checksumalgorithm_";
  for (size_t i = 0; i < len && n + 1 < sizeof(norm); ++i) {
    char c = (char)tolower((unsigned char)text[i]);
    if (c != '-') {
      norm[n++] = c;
    }
  }
  norm[n] = '\0';
  const char *alg = norm;
  if (!strncmp(alg, spdx, sizeof(spdx) - 1)) {
    alg += sizeof(spdx) - 1;
  }
  static const struct {
    const char *name;
    const char *canonical;
  } known[] = {{"md5", "md5"},       {"sha1", "sha1"},     {"sha", "sha1"},
               {"sha224", "sha224"}, {"sha256", "sha256"}, {"sha384", "sha384"},
               {"sha512", "sha512"}};
  for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); ++i) {
    if (!strcmp(alg, known[i].name)) {
      snprintf(name, 16, "%s", known[i].canonical);
      return EVP_get_digestbyname(known[i].canonical);
    }
  }
  return NULL;
}

static int hexval(int c)
{
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  c = tolower(c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool decode_hex(const char *s, size_t len, unsigned char *out, unsigned want)
{
  if (len != 2 * (size_t)want) {
    return false;
  }
  for (unsigned i = 0; i < want; ++i) {
    int hi = hexval((unsigned char)s[2 * i]);
    int lo = hexval((unsigned char)s[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return false;
    }
    out[i] = (unsigned char)(hi << 4 | lo);
  }
  return true;
}

static bool decode_base64(const char *s, size_t len, unsigned char *out, unsigned want)
{
  while (len > 0 && isspace((unsigned char)s[len - 1])) {
    --len;
  }
  if (len == 0 || len % 4 != 0 || len > 4 * ((EVP_MAX_MD_SIZE + 2) / 3)) {
    return false;
  }
  unsigned char buf[EVP_MAX_MD_SIZE + 4];
  int n = EVP_DecodeBlock(buf, (const unsigned char *)s, (int)len);
  size_t pad = (s[len - 1] == '=') + (s[len - 2] == '=');
  if (n < 0 || (size_t)n - pad != want) {
    return false;
  }
  memcpy(out, buf, want);
  return true;
}

/* ---- the transfer ------------------------------------------------------- */

struct Fetch {
  CURL *curl;
  const LwFetchOptions *opts;
  LwFetchResult *res;
  char errbuf[CURL_ERROR_SIZE];

  /* where the body goes: a file, or memory for lw_fetch_small */
  FILE *file;
  char file_path[4096];
  struct Pipe *pipe; /* file mode: the writer thread (see below) */
  bool to_memory;
  char *mem;
  size_t mem_len;
  size_t mem_cap;
  uint64_t max_bytes;

  /* the current hop */
  json_t *hop_headers;
  long status;
  int vmajor;
  int vminor;
  char reason[128];
  bool writing;        /* this hop's body is the document */
  bool body_started;   /* the final hop began its body */
  size_t header_bytes; /* of this hop: capped, a server cannot flood us */
  uint64_t discarded;  /* body bytes of a hop that is not the document */
  bool discard_cut;    /* ... stopped reading them: not an error */
  bool identity;       /* no Content-Encoding */

  LwContentCounter *counter;
  uint64_t written;
  Digest digests[MAX_DIGESTS];
  int ndigests;

  uint64_t resume_from; /* bytes already in the partial file */
  char resume_validator[256];

  /* why a callback stopped the transfer */
  LwStatus abort_status;
  char abort_message[LW_ERROR_MESSAGE_MAX];
  bool refused; /* a socket callback refused an address */
  char refused_message[LW_ERROR_MESSAGE_MAX];

  /* the hops (run_hops, or many at once: LwFetchMulti) */
  char *url; /* of the current hop (owned) */
  int redirects;
  int max_redirects;
  double t_start; /* monotonic seconds: the fetch's start */
  double t_hop;   /* ... this hop's */
  struct curl_slist *headers;
  struct curl_slist *resolve;
  char ua[512];
};

static bool pipe_drain(struct Pipe *p);

/* Wall clock, seconds since the epoch (the result's begin and end). */
static double now_epoch(void)
{
  return (double)lw_datetime_now_usec() / 1e6;
}

static void set_abort(Fetch *f, LwStatus st, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

static void set_abort(Fetch *f, LwStatus st, const char *fmt, ...)
{
  if (f->abort_status != LW_OK) {
    return; /* the first reason wins */
  }
  f->abort_status = st;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->abort_message, sizeof(f->abort_message), fmt, ap);
  va_end(ap);
}

static const char *hop_header(Fetch *f, const char *name)
{
  return json_string_value(json_object_get(f->hop_headers, name));
}

static bool add_digest(Fetch *f, const char *alg, size_t alg_len, const char *value,
                       size_t value_len, bool hex, const char *source)
{
  if (f->ndigests == MAX_DIGESTS) {
    return true;
  }
  Digest *d = &f->digests[f->ndigests];
  const EVP_MD *md = digest_by_name(alg, alg_len, d->name);
  if (!md) {
    return false;
  }
  d->expected_len = (unsigned)EVP_MD_get_size(md);
  bool ok = hex ? decode_hex(value, value_len, d->expected, d->expected_len)
                : decode_base64(value, value_len, d->expected, d->expected_len);
  if (!ok) {
    return false;
  }
  d->ctx = EVP_MD_CTX_new();
  if (!d->ctx || !EVP_DigestInit_ex(d->ctx, md, NULL)) {
    EVP_MD_CTX_free(d->ctx);
    d->ctx = NULL;
    return false;
  }
  snprintf(d->source, sizeof(d->source), "%s", source);
  f->ndigests++;
  return true;
}

/* "md5=BASE64, sha-256=BASE64" (RFC 3230 Digest) or
 * "sha-256=:BASE64:, sha-512=:BASE64:" (RFC 9530). Unknown algorithms are
 * skipped; a known one with an unreadable value is ignored as well. */
static void add_header_digests(Fetch *f, const char *value, const char *source)
{
  const char *p = value;
  while (*p) {
    while (*p == ' ' || *p == ',') {
      ++p;
    }
    const char *eq = strchr(p, '=');
    if (!eq) {
      break;
    }
    const char *v = eq + 1;
    const char *end = strchr(v, ',');
    if (!end) {
      end = v + strlen(v);
    }
    const char *vs = v;
    const char *ve = end;
    while (ve > vs && ve[-1] == ' ') {
      --ve;
    }
    if (ve - vs >= 2 && *vs == ':' && ve[-1] == ':') {
      ++vs;
      --ve;
    }
    add_digest(f, p, (size_t)(eq - p), vs, (size_t)(ve - vs), false, source);
    p = end;
  }
}

static void feed(Fetch *f, const void *data, size_t len)
{
  lw_content_counter_update(f->counter, data, len);
  for (int i = 0; i < f->ndigests; ++i) {
    EVP_DigestUpdate(f->digests[i].ctx, data, len);
  }
}

/* Feeds the bytes already in the partial file: the content record and the
 * checksums cover the whole body, not just the resumed part. */
static bool feed_partial(Fetch *f)
{
  char *buf = malloc(1 << 16);
  if (!buf) {
    return false;
  }
  int fd = fileno(f->file);
  uint64_t off = 0;
  while (off < f->resume_from) {
    size_t want = f->resume_from - off < (1 << 16) ? (size_t)(f->resume_from - off)
                                                   : (1 << 16);
    ssize_t n = pread(fd, buf, want, (off_t)off);
    if (n <= 0) {
      free(buf);
      return false;
    }
    feed(f, buf, (size_t)n);
    off += (uint64_t)n;
  }
  free(buf);
  return true;
}

/* Content-Range: bytes A-B/T must start where the partial file ends. */
static bool content_range_ok(const char *cr, uint64_t from)
{
  unsigned long long a = 0, b = 0;
  return cr && sscanf(cr, "bytes %llu-%llu", &a, &b) == 2 && a == from && b >= a;
}

/* Called at the end of each response's headers: decides what its body is. */
static bool headers_done(Fetch *f)
{
  if (f->status >= 100 && f->status < 200) {
    return true; /* informational: the real status line follows */
  }
  f->writing = false;
  bool ok_200 = f->status == 200;
  bool ok_206 = f->status == 206 && f->resume_from > 0;
  if (!ok_200 && !ok_206) {
    return true; /* redirect, 304 or an error: its body is not the document */
  }
  const char *ce = hop_header(f, "content-encoding");
  f->identity = !ce || !*ce || !strcasecmp(ce, "identity");
  if (f->pipe && !pipe_drain(f->pipe)) {
    set_abort(f, LW_ERR_IO, "cannot write %s: %s", f->file_path, strerror(errno));
    return false;
  }
  if (ok_206) {
    if (!content_range_ok(hop_header(f, "content-range"), f->resume_from)) {
      set_abort(f, LW_ERR_NET,
                "resume: the server answered 206 with Content-Range \"%s\", not "
                "starting at byte %llu; partial body discarded",
                hop_header(f, "content-range") ? hop_header(f, "content-range") : "",
                (unsigned long long)f->resume_from);
      f->resume_from = 0;
      return false;
    }
    if (!feed_partial(f)) {
      set_abort(f, LW_ERR_IO, "cannot read the partial body %s", f->file_path);
      return false;
    }
    f->res->resumed = true;
    f->res->resumed_from = f->resume_from;
  } else if (f->resume_from > 0 && f->file) {
    /* A 200 to a Range request: the resource changed (If-Range) or the
     * server ignores ranges. Start again from byte 0. */
    if (ftruncate(fileno(f->file), 0) != 0 || fseek(f->file, 0, SEEK_SET) != 0) {
      set_abort(f, LW_ERR_IO, "cannot truncate %s: %s", f->file_path, strerror(errno));
      return false;
    }
    f->resume_from = 0;
  }
  const char *cl = hop_header(f, "content-length");
  if (f->max_bytes && f->identity && cl) {
    unsigned long long n = strtoull(cl, NULL, 10) + f->resume_from;
    if (n > f->max_bytes) {
      set_abort(f, LW_ERR_LIMIT,
                "size limit: Content-Length %llu is over the limit of %llu bytes", n,
                (unsigned long long)f->max_bytes);
      return false;
    }
  }
  /* Header checksums describe the complete representation as sent: only a
   * whole, identity-encoded 200 can be checked against them. */
  if (ok_200 && f->identity) {
    const char *h;
    if ((h = hop_header(f, "content-md5"))) {
      add_digest(f, "md5", 3, h, strlen(h), false, "Content-MD5 header");
    }
    if ((h = hop_header(f, "digest"))) {
      add_header_digests(f, h, "Digest header");
    }
    if ((h = hop_header(f, "content-digest"))) {
      add_header_digests(f, h, "Content-Digest header");
    }
    if ((h = hop_header(f, "repr-digest"))) {
      add_header_digests(f, h, "Repr-Digest header");
    }
  }
  f->writing = true;
  f->body_started = true;
  return true;
}

static void parse_status_line(Fetch *f, const char *line, size_t len)
{
  char buf[256];
  snprintf(buf, sizeof(buf), "%.*s", (int)(len < 255 ? len : 255), line);
  buf[strcspn(buf, "\r\n")] = '\0';
  int major = 0, minor = 0, status = 0, n = 0;
  if (sscanf(buf, "HTTP/%d.%d %d%n", &major, &minor, &status, &n) >= 3) {
    /* HTTP/1.x */
  } else if (sscanf(buf, "HTTP/%d %d%n", &major, &status, &n) >= 2) {
    minor = 0; /* HTTP/2, HTTP/3 */
  }
  f->vmajor = major;
  f->vminor = minor;
  f->status = status;
  const char *reason = n > 0 ? buf + n : "";
  while (*reason == ' ') {
    ++reason;
  }
  /* The reason phrase is the server's text: printed escaped, and short. */
  lw_escape_text(reason, strlen(reason), 80, f->reason, sizeof(f->reason));
  json_object_clear(f->hop_headers);
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *userdata)
{
  Fetch *f = userdata;
  size_t len = size * nitems;
  if (len >= 5 && !strncmp(buf, "HTTP/", 5)) {
    parse_status_line(f, buf, len);
    return len;
  }
  if (len <= 2 && (buf[0] == '\r' || buf[0] == '\n')) {
    return headers_done(f) ? len : 0;
  }
  f->header_bytes += len;
  if (f->header_bytes > MAX_HEADER_BYTES) {
    set_abort(f, LW_ERR_HTTP, "response headers larger than %d bytes", MAX_HEADER_BYTES);
    return 0;
  }
  const char *colon = memchr(buf, ':', len);
  if (!colon || colon == buf || colon - buf > 200) {
    return len; /* not a header line we can record */
  }
  char name[201];
  size_t nlen = (size_t)(colon - buf);
  for (size_t i = 0; i < nlen; ++i) {
    name[i] = (char)tolower((unsigned char)buf[i]);
  }
  name[nlen] = '\0';
  const char *v = colon + 1;
  const char *end = buf + len;
  while (v < end && (*v == ' ' || *v == '\t')) {
    ++v;
  }
  while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) {
    --end;
  }
  /* jansson wants UTF-8: header bytes that are not become '?'. */
  size_t vlen = (size_t)(end - v);
  if (vlen > 8192) {
    vlen = 8192;
  }
  char *value = malloc(vlen + 1);
  if (!value) {
    return 0;
  }
  for (size_t i = 0; i < vlen; ++i) {
    unsigned char c = (unsigned char)v[i];
    value[i] = c < 0x80 && c >= 0x20 ? (char)c : (c == '\t' ? ' ' : '?');
  }
  value[vlen] = '\0';
  const char *old = hop_header(f, name);
  if (old) {
    size_t need = strlen(old) + vlen + 3;
    char *joined = malloc(need);
    if (joined) {
      snprintf(joined, need, "%s, %s", old, value);
      json_object_set_new(f->hop_headers, name, json_string(joined));
      free(joined);
    }
  } else {
    json_object_set_new(f->hop_headers, name, json_string(value));
  }
  free(value);
  return len;
}

/* ---- the writer thread -------------------------------------------------
 *
 * In file mode the body is written, hashed and counted on a second thread,
 * so that receiving (curl's thread) and MD5 + counting + writing overlap:
 * on two cores the download runs at the speed of the slower half instead of
 * the sum of both. The curl thread copies the body into 1 MB buffers and
 * queues them; at most PIPE_SLOTS + 1 buffers exist, so memory stays bounded
 * and a slow disk slows the transfer down (back pressure) instead of growing
 * a queue. The counter and the digests belong to the writer while it runs;
 * the curl thread touches them only after pipe_drain.
 */
typedef struct Pipe {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  Fetch *f;
  char *cur; /* being filled by the curl thread */
  size_t cur_len;
  char *spare[PIPE_SLOTS]; /* free buffers */
  int nspare;
  char *queue[PIPE_SLOTS + 1]; /* full buffers, in order */
  size_t qlen[PIPE_SLOTS + 1];
  int qhead;
  int qcount;
  bool busy; /* the writer holds a buffer */
  bool quit;
  bool failed; /* a write failed: errno_value says why */
  int errno_value;
} Pipe;

static void *pipe_main(void *arg)
{
  Pipe *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (p->qcount == 0 && !p->quit) {
      pthread_cond_wait(&p->cond, &p->lock);
    }
    if (p->qcount == 0) {
      break;
    }
    char *buf = p->queue[p->qhead];
    size_t len = p->qlen[p->qhead];
    p->qhead = (p->qhead + 1) % (PIPE_SLOTS + 1);
    p->qcount--;
    p->busy = true;
    bool skip = p->failed;
    pthread_mutex_unlock(&p->lock);
    int error = 0;
    if (!skip) {
      if (fwrite(buf, 1, len, p->f->file) != len) {
        error = errno ? errno : EIO;
      } else {
        feed(p->f, buf, len);
      }
    }
    pthread_mutex_lock(&p->lock);
    if (error && !p->failed) {
      p->failed = true;
      p->errno_value = error;
    }
    p->spare[p->nspare++] = buf;
    p->busy = false;
    pthread_cond_broadcast(&p->cond);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static void pipe_free_buffers(Pipe *p)
{
  free(p->cur);
  for (int i = 0; i < p->nspare; ++i) {
    free(p->spare[i]);
  }
}

static Pipe *pipe_start(Fetch *f)
{
  Pipe *p = calloc(1, sizeof(*p));
  if (!p) {
    return NULL;
  }
  p->f = f;
  p->cur = malloc(PIPE_SLOT_SIZE);
  for (int i = 0; i < PIPE_SLOTS; ++i) {
    if ((p->spare[p->nspare] = malloc(PIPE_SLOT_SIZE)) != NULL) {
      p->nspare++;
    }
  }
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->cond, NULL);
  if (!p->cur || p->nspare < PIPE_SLOTS ||
      pthread_create(&p->thread, NULL, pipe_main, p) != 0) {
    pipe_free_buffers(p);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
    free(p);
    return NULL;
  }
  return p;
}

/* Queues the current buffer; waits for a free one. False once a write failed. */
static bool pipe_submit(Pipe *p)
{
  if (p->cur_len == 0) {
    return true;
  }
  pthread_mutex_lock(&p->lock);
  while (p->nspare == 0 && !p->failed) {
    pthread_cond_wait(&p->cond, &p->lock);
  }
  bool ok = !p->failed;
  if (ok) {
    int tail = (p->qhead + p->qcount) % (PIPE_SLOTS + 1);
    p->queue[tail] = p->cur;
    p->qlen[tail] = p->cur_len;
    p->qcount++;
    p->cur = p->spare[--p->nspare];
    p->cur_len = 0;
    pthread_cond_broadcast(&p->cond);
  }
  pthread_mutex_unlock(&p->lock);
  return ok;
}

static bool pipe_write(Pipe *p, const char *data, size_t len)
{
  while (len > 0) {
    size_t n = PIPE_SLOT_SIZE - p->cur_len;
    if (n > len) {
      n = len;
    }
    memcpy(p->cur + p->cur_len, data, n);
    p->cur_len += n;
    data += n;
    len -= n;
    if (p->cur_len == PIPE_SLOT_SIZE && !pipe_submit(p)) {
      return false;
    }
  }
  return true;
}

/* Everything received so far is written, hashed and counted when this
 * returns. False (errno set) if a write failed. */
static bool pipe_drain(Pipe *p)
{
  if (!pipe_submit(p)) {
    errno = p->errno_value;
    return false;
  }
  pthread_mutex_lock(&p->lock);
  while ((p->qcount > 0 || p->busy) && !p->failed) {
    pthread_cond_wait(&p->cond, &p->lock);
  }
  bool ok = !p->failed;
  errno = p->errno_value;
  pthread_mutex_unlock(&p->lock);
  return ok;
}

/* Drains and ends the thread. NULL safe. */
static bool pipe_finish(Pipe *p)
{
  if (!p) {
    return true;
  }
  bool ok = pipe_drain(p);
  int saved = errno;
  pthread_mutex_lock(&p->lock);
  p->quit = true;
  pthread_cond_broadcast(&p->cond);
  pthread_mutex_unlock(&p->lock);
  pthread_join(p->thread, NULL);
  pipe_free_buffers(p);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->cond);
  free(p);
  errno = saved;
  return ok;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
  Fetch *f = userdata;
  size_t len = size * nmemb;
  if (!f->writing) {
    /* A redirect's or an error's body: read a little, then hang up. */
    f->discarded += len;
    if (f->discarded > MAX_DISCARD_BYTES) {
      f->discard_cut = true;
      return 0;
    }
    return len;
  }
  uint64_t total = f->resume_from + f->written;
  if (f->max_bytes && total + len > f->max_bytes) {
    set_abort(f, LW_ERR_LIMIT,
              "size limit: the body exceeds %llu bytes (counted decoded, "
              "Content-Encoding %s)",
              (unsigned long long)f->max_bytes,
              f->identity ? "none" : hop_header(f, "content-encoding"));
    return 0;
  }
  if (f->to_memory) {
    if (f->mem_len + len + 1 > f->mem_cap) {
      size_t cap = f->mem_cap ? f->mem_cap : 4096;
      while (cap < f->mem_len + len + 1) {
        cap *= 2;
      }
      char *grown = realloc(f->mem, cap);
      if (!grown) {
        set_abort(f, LW_ERR_NOMEM, "out of memory");
        return 0;
      }
      f->mem = grown;
      f->mem_cap = cap;
    }
    memcpy(f->mem + f->mem_len, data, len);
    f->mem_len += len;
    feed(f, data, len);
  } else if (!pipe_write(f->pipe, data, len)) {
    set_abort(f, LW_ERR_IO, "cannot write %s: %s", f->file_path,
              strerror(f->pipe->errno_value));
    return 0;
  }
  f->written += len;
  return len;
}

static int on_xferinfo(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow)
{
  (void)dlnow;
  (void)ultotal;
  (void)ulnow;
  Fetch *f = clientp;
  uint64_t done = f->resume_from + f->written;
  uint64_t total = f->writing && dltotal > 0 ? f->resume_from + (uint64_t)dltotal : 0;
  if (!f->opts->progress(f->opts->progress_user, done, total)) {
    set_abort(f, LW_ERR_NET, "stopped by the caller after %llu bytes",
              (unsigned long long)done);
    return 1;
  }
  return 0;
}

/* The address check happens on the socket libcurl is about to connect:
 * whatever the name resolved to, and after every redirect. */
static curl_socket_t on_open_socket(void *clientp, curlsocktype purpose,
                                    struct curl_sockaddr *address)
{
  Fetch *f = clientp;
  LwError err;
  if (purpose != CURLSOCKTYPE_IPCXN ||
      lw_netguard_check_sockaddr(f->opts->guard, &address->addr, &err) != LW_OK) {
    if (purpose != CURLSOCKTYPE_IPCXN) {
      snprintf(err.message, sizeof(err.message), "socket type %d is not a TCP connection",
               (int)purpose);
    }
    f->refused = true;
    snprintf(f->refused_message, sizeof(f->refused_message), "%s", err.message);
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype, address->protocol);
}

/* A second look just before the request goes out, on the connection really
 * used (a reused connection included). */
static int on_prereq(void *clientp, char *conn_primary_ip, char *conn_local_ip,
                     int conn_primary_port, int conn_local_port)
{
  (void)conn_local_ip;
  (void)conn_local_port;
  Fetch *f = clientp;
  LwError err;
  if (lw_netguard_check_ip(f->opts->guard, conn_primary_ip, (unsigned)conn_primary_port,
                           &err) != LW_OK) {
    f->refused = true;
    snprintf(f->refused_message, sizeof(f->refused_message), "%s", err.message);
    return CURL_PREREQFUNC_ABORT;
  }
  return CURL_PREREQFUNC_OK;
}

/* ---- options and hops --------------------------------------------------- */

static pthread_once_t global_once = PTHREAD_ONCE_INIT;

static void global_init(void)
{
  curl_global_init(CURL_GLOBAL_DEFAULT);
}

void lw_fetch_global_init(void)
{
  pthread_once(&global_once, global_init);
}

const char *lw_fetch_user_agent(const char *contact, char *buf, size_t size)
{
  if (contact && *contact) {
    snprintf(buf, size, "lodwash/%s (+%s)", LODWASH_VERSION, contact);
  } else {
    snprintf(buf, size, "lodwash/%s", LODWASH_VERSION);
  }
  return buf;
}

static struct curl_slist *append_header(struct curl_slist *list, const char *name,
                                        const char *value)
{
  char line[1024];
  snprintf(line, sizeof(line), "%s: %s", name, value);
  struct curl_slist *grown = curl_slist_append(list, line);
  return grown ? grown : list;
}

static struct curl_slist *request_headers(const Fetch *f)
{
  const LwFetchOptions *o = f->opts;
  struct curl_slist *h = NULL;
  if (o->accept) {
    h = append_header(h, "Accept", o->accept);
  }
  if (o->etag && *o->etag) {
    h = append_header(h, "If-None-Match", o->etag);
  }
  if (o->last_modified && *o->last_modified) {
    h = append_header(h, "If-Modified-Since", o->last_modified);
  }
  if (f->resume_from > 0) {
    h = append_header(h, "If-Range", f->resume_validator);
  }
  return h;
}

static struct curl_slist *resolve_list(const LwFetchOptions *o)
{
  struct curl_slist *list = NULL;
  for (const char *const *r = o->resolve; r && *r; ++r) {
    struct curl_slist *grown = curl_slist_append(list, *r);
    list = grown ? grown : list;
  }
  return list;
}

static void setup_curl(Fetch *f, char *ua, size_t ua_size)
{
  const LwFetchOptions *o = f->opts;
  CURL *c = f->curl;
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, f->errbuf);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  /* No proxy from the environment: the address rules are about the server. */
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, f);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
  curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
  curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, f);
  curl_easy_setopt(c, CURLOPT_PREREQFUNCTION, on_prereq);
  curl_easy_setopt(c, CURLOPT_PREREQDATA, f);
  curl_easy_setopt(c, CURLOPT_USERAGENT,
                   o->user_agent ? o->user_agent
                                 : lw_fetch_user_agent(o->contact, ua, ua_size));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   o->connect_timeout_ms > 0 ? o->connect_timeout_ms
                                             : LW_FETCH_DEFAULT_CONNECT_TIMEOUT_MS);
  if (o->low_speed_limit > 0) {
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, o->low_speed_limit);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
                     o->low_speed_time > 0 ? o->low_speed_time : 30L);
  }
  bool declared = o->checksum && *o->checksum;
  if (f->resume_from > 0 || declared) {
    /* Ranges count bytes of the encoded representation: a resume asks for
     * identity so that the file's bytes and the server's offsets agree.
     * A declared checksum (VoID) is of the file as published: a server
     * that labels dump.nt.gz "Content-Encoding: gzip" must not have it
     * decoded, or the checksum could never match. Without
     * CURLOPT_ACCEPT_ENCODING libcurl decodes nothing. */
    if (f->resume_from > 0) {
      char range[64];
      snprintf(range, sizeof(range), "%llu-", (unsigned long long)f->resume_from);
      curl_easy_setopt(c, CURLOPT_RANGE, range);
    }
  } else {
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ""); /* all we can decode */
  }
  if (!f->to_memory) {
    curl_easy_setopt(c, CURLOPT_BUFFERSIZE, 256L * 1024L);
  }
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  if (o->progress) {
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_xferinfo);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, f);
  }
}

/* The URL as a JSON string: bytes that are not ASCII are percent-encoded,
 * so that a raw 8-bit Location never makes an invalid JSON string. */
static json_t *json_url(const char *url)
{
  size_t n = strlen(url);
  char *out = malloc(3 * n + 1);
  if (!out) {
    return NULL;
  }
  char *o = out;
  for (const unsigned char *p = (const unsigned char *)url; *p; ++p) {
    if (*p >= 0x80 || *p < 0x20) {
      o += sprintf(o, "%%%02X", *p);
    } else {
      *o++ = (char)*p;
    }
  }
  *o = '\0';
  json_t *j = json_string(out);
  free(out);
  return j;
}

static json_t *hop_json(Fetch *f, const char *url, double walltime)
{
  return json_pack("{s:o, s:i, s:o, s:{s:i, s:i}, s:f}", "headers",
                   json_copy(f->hop_headers), "status", (int)f->status, "uri",
                   json_url(url), "version", "major", f->vmajor, "minor", f->vminor,
                   "walltime", walltime);
}

static long parse_retry_after(const char *v)
{
  if (!v || !*v) {
    return -1;
  }
  char *end;
  long secs = strtol(v, &end, 10);
  if (end != v && *end == '\0' && secs >= 0) {
    return secs;
  }
  time_t when = curl_getdate(v, NULL);
  if (when < 0) {
    return -1;
  }
  time_t now = time(NULL);
  return when > now ? (long)(when - now) : 0;
}

static LwStatus curl_failure(Fetch *f, CURLcode rc, const char *url, LwError *err)
{
  if (f->abort_status != LW_OK) {
    return lw_error_set(err, f->abort_status, "%s (%s)", f->abort_message, url);
  }
  if (f->refused && (rc == CURLE_COULDNT_CONNECT || rc == CURLE_ABORTED_BY_CALLBACK)) {
    return lw_error_set(err, LW_ERR_REFUSED, "%s (%s)", f->refused_message, url);
  }
  const char *detail = f->errbuf[0] ? f->errbuf : curl_easy_strerror(rc);
  const char *kind = "transfer";
  LwStatus st = LW_ERR_NET;
  switch (rc) {
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_RESOLVE_PROXY:
    kind = "DNS";
    break;
  case CURLE_COULDNT_CONNECT:
    kind = "connect";
    break;
  case CURLE_OPERATION_TIMEDOUT:
    kind = "timeout";
    break;
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CIPHER:
  case CURLE_SSL_CACERT_BADFILE:
  case CURLE_SSL_ISSUER_ERROR:
  case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
  case CURLE_SSL_INVALIDCERTSTATUS:
  case CURLE_USE_SSL_FAILED:
    kind = "TLS";
    break;
  case CURLE_UNSUPPORTED_PROTOCOL:
    kind = "refused";
    st = LW_ERR_REFUSED;
    break;
  case CURLE_URL_MALFORMAT:
    kind = "bad URL";
    st = LW_ERR_USAGE;
    break;
  case CURLE_BAD_CONTENT_ENCODING:
    kind = "bad Content-Encoding";
    st = LW_ERR_HTTP;
    break;
  case CURLE_WEIRD_SERVER_REPLY:
    kind = "bad HTTP reply";
    break;
  default:
    break;
  }
  if (f->status > 0) {
    return lw_error_set(err, st, "%s: %s after HTTP %ld (%s)", kind, detail, f->status,
                        url);
  }
  return lw_error_set(err, st, "%s: %s (%s)", kind, detail, url);
}

static LwStatus http_failure(Fetch *f, const char *url, LwError *err)
{
  long s = f->status;
  LwStatus st = (s >= 500 || s == 429 || s == 408) ? LW_ERR_NET : LW_ERR_HTTP;
  f->res->retry_after = parse_retry_after(hop_header(f, "retry-after"));
  if (f->res->retry_after >= 0) {
    return lw_error_set(err, st, "HTTP %ld %s from %s (Retry-After: %ld s)", s, f->reason,
                        url, f->res->retry_after);
  }
  return lw_error_set(err, st, "HTTP %ld %s from %s", s, f->reason, url);
}

/* The Location header resolved against url (libcurl computes this itself
 * only when it read the whole response; we may have hung up on its body).
 * NULL when there is none or it does not parse. Free with curl_free. */
static char *resolve_location(const char *url, const char *location)
{
  if (!location || !*location) {
    return NULL;
  }
  CURLU *u = curl_url();
  char *out = NULL;
  if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
      curl_url_set(u, CURLUPART_URL, location, CURLU_URLENCODE) == CURLUE_OK) {
    curl_url_get(u, CURLUPART_URL, &out, 0);
  }
  curl_url_cleanup(u);
  return out;
}

/* Before a hop (the first request, or a redirect's): the scheme, the
 * caller's politeness (before_hop) and the time left. LW_OK: f->curl is set
 * up for the hop; LW_NOTHING: before_hop says not yet (ask again after
 * err->retry_after_ms); anything else ends the fetch. */
LwStatus lw_fetch_hop_begin(Fetch *f, LwError *err)
{
  const LwFetchOptions *o = f->opts;
  LW_TRY(lw_netguard_check_scheme(f->url, err));
  long left = 0;
  if (o->before_hop) {
    LwStatus st = o->before_hop(o->before_hop_user, f->url, err);
    if (st != LW_OK) {
      return st; /* not yet, or the caller's politeness said no */
    }
  }
  if (o->timeout_ms > 0) {
    left = o->timeout_ms - (long)((lw_monotonic_seconds() - f->t_start) * 1000);
    if (left <= 0) {
      return lw_error_set(err, LW_ERR_NET, "timeout: %ld ms spent before %s", o->timeout_ms,
                          f->url);
    }
    curl_easy_setopt(f->curl, CURLOPT_TIMEOUT_MS, left);
  }
  curl_easy_setopt(f->curl, CURLOPT_URL, f->url);
  f->status = 0;
  f->reason[0] = '\0';
  f->errbuf[0] = '\0';
  f->refused = false;
  f->writing = false;
  json_object_clear(f->hop_headers);
  f->header_bytes = 0;
  f->discarded = 0;
  f->discard_cut = false;
  f->t_hop = lw_monotonic_seconds();
  return LW_OK;
}

/* A redirect's hop ended: the next URL, unless there is none usable or
 * the limit is reached. */
static LwStatus hop_redirect(Fetch *f, LwError *err)
{
  char *next = NULL;
  curl_easy_getinfo(f->curl, CURLINFO_REDIRECT_URL, &next);
  char *resolved = next ? NULL : resolve_location(f->url, hop_header(f, "location"));
  if (resolved) {
    next = resolved;
  }
  if (!next) {
    return lw_error_set(err, LW_ERR_HTTP, "HTTP %ld %s without a usable Location from %s",
                        f->status, f->reason, f->url);
  }
  if (f->redirects >= f->max_redirects) {
    LwStatus st = lw_error_set(err, LW_ERR_LIMIT,
                               "too many redirects: more than %d, the last to %s",
                               f->max_redirects, next);
    curl_free(resolved);
    return st;
  }
  char *copy = strdup(next);
  curl_free(resolved);
  if (!copy) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  free(f->url);
  f->url = copy;
  f->redirects++;
  return LW_OK;
}

/* After a hop's transfer ended with rc: records the hop and says what it
 * was. *again: a redirect to follow (f->url is the next hop's). Else the
 * fetch's status: LW_OK when the last response was the document (200/206),
 * LW_NOTHING for a 304, or the error. */
LwStatus lw_fetch_hop_end(Fetch *f, CURLcode rc, bool *again, LwError *err)
{
  *again = false;
  const char *url = f->url;
  if (rc == CURLE_WRITE_ERROR && f->discard_cut && f->abort_status == LW_OK) {
    rc = CURLE_OK; /* we hung up on a body we did not want */
  }
  if (f->status > 0) {
    json_array_append_new(f->res->http,
                          hop_json(f, url, lw_monotonic_seconds() - f->t_hop));
  }
  free(f->res->final_url);
  f->res->final_url = strdup(url);
  f->res->status = f->status;
  if (rc != CURLE_OK) {
    return curl_failure(f, rc, url, err);
  }
  if (f->status == 304) {
    f->res->not_modified = true;
    return LW_NOTHING;
  }
  if (f->status >= 300 && f->status < 400) {
    LW_TRY(hop_redirect(f, err));
    *again = true;
    return LW_OK;
  }
  if (f->status == 200 || (f->status == 206 && f->body_started)) {
    return LW_OK;
  }
  if (f->status == 416 && f->resume_from > 0) {
    /* The partial no longer fits the resource: drop it; the retry
     * starts from byte 0. */
    return lw_error_set(err, LW_ERR_NET,
                        "HTTP 416 to a resume from byte %llu of %s: partial body discarded",
                        (unsigned long long)f->resume_from, url);
  }
  if (f->status >= 200 && f->status < 300) {
    return lw_error_set(err, LW_ERR_HTTP, "HTTP %ld %s from %s: not a document", f->status,
                        f->reason, url);
  }
  return http_failure(f, url, err);
}

/* The wait before_hop asked for (LW_NOTHING), within sane bounds. */
long long lw_fetch_hop_wait_ms(LwError *err)
{
  long long ms = err->retry_after_ms;
  lw_error_clear(err);
  return ms < 1 ? 1 : ms > 1000 ? 1000 : ms;
}

/* Runs the hops one after the other in this thread. */
static LwStatus run_hops(Fetch *f, LwError *err)
{
  for (;;) {
    LwStatus st = lw_fetch_hop_begin(f, err);
    if (st == LW_NOTHING) {
      long long ms = lw_fetch_hop_wait_ms(err);
      struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
      nanosleep(&ts, NULL);
      continue;
    }
    if (st != LW_OK) {
      return st;
    }
    bool again = false;
    st = lw_fetch_hop_end(f, curl_easy_perform(f->curl), &again, err);
    if (!again) {
      return st;
    }
  }
}

/* ---- the body file and the partial ------------------------------------- */

static void meta_path(const char *partial, char *buf, size_t size)
{
  snprintf(buf, size, "%s.meta", partial);
}

/* Opens the partial file; resumes if it has bytes and a validator. */
static LwStatus open_partial(Fetch *f, LwError *err)
{
  const char *path = f->opts->partial_path;
  snprintf(f->file_path, sizeof(f->file_path), "%s", path);
  LW_TRY(lw_store_mkparents(path, err));
  char mpath[4200];
  meta_path(path, mpath, sizeof(mpath));
  json_t *meta = json_load_file(mpath, 0, NULL);
  const char *validator = json_string_value(json_object_get(meta, "validator"));
  struct stat st;
  if (validator && *validator && stat(path, &st) == 0 && st.st_size > 0) {
    f->file = fopen(path, "r+b");
    if (f->file && fseek(f->file, 0, SEEK_END) == 0) {
      f->resume_from = (uint64_t)st.st_size;
      snprintf(f->resume_validator, sizeof(f->resume_validator), "%s", validator);
    }
  }
  json_decref(meta);
  if (!f->file) {
    unlink(mpath);
    f->file = fopen(path, "w+b");
  }
  if (!f->file) {
    return lw_error_set(err, LW_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  }
  return LW_OK;
}

static LwStatus open_body(Fetch *f, LwError *err)
{
  if (f->opts->partial_path) {
    LW_TRY(open_partial(f, err));
  } else {
    if (!f->opts->data_dir) {
      return lw_error_set(err, LW_ERR_USAGE, "lw_fetch: no data directory given");
    }
    LW_TRY(lw_store_tmpfile(f->opts->data_dir, f->file_path, sizeof(f->file_path), &f->file,
                            err));
  }
  f->pipe = pipe_start(f);
  if (!f->pipe) {
    return lw_error_set(err, LW_ERR_NOMEM, "cannot start the body writer");
  }
  return LW_OK;
}

/* Keeps what arrived for a later resume, when a resume can work. */
static bool keep_partial(Fetch *f, LwStatus st)
{
  if (!f->opts->partial_path || st != LW_ERR_NET || !f->body_started || !f->identity ||
      f->resume_from + f->written == 0) {
    return false;
  }
  const char *ranges = hop_header(f, "accept-ranges");
  bool can_range = f->status == 206 || (ranges && strstr(ranges, "bytes"));
  const char *etag = hop_header(f, "etag");
  const char *lm = hop_header(f, "last-modified");
  const char *validator = etag && strncmp(etag, "W/", 2) ? etag : lm;
  if (f->status == 206) {
    validator = f->resume_validator; /* the one that got us this far */
  }
  if (!can_range || !validator || !*validator) {
    return false;
  }
  char mpath[4200];
  meta_path(f->opts->partial_path, mpath, sizeof(mpath));
  json_t *meta = json_pack("{s:s, s:I, s:s}", "validator", validator, "bytes",
                           (json_int_t)(f->resume_from + f->written), "url",
                           f->res->final_url ? f->res->final_url : "");
  int rc = meta ? json_dump_file(meta, mpath, JSON_COMPACT) : -1;
  json_decref(meta);
  return rc == 0;
}

static void close_file(Fetch *f)
{
  if (f->file) {
    fclose(f->file);
    f->file = NULL;
  }
}

static void discard_body(Fetch *f)
{
  close_file(f);
  if (f->file_path[0]) {
    unlink(f->file_path);
  }
  if (f->opts->partial_path) {
    char mpath[4200];
    meta_path(f->opts->partial_path, mpath, sizeof(mpath));
    unlink(mpath);
  }
}

static LwStatus verify_digests(Fetch *f, LwError *err)
{
  size_t used = 0;
  for (int i = 0; i < f->ndigests; ++i) {
    Digest *d = &f->digests[i];
    unsigned char got[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(d->ctx, got, &len);
    if (len != d->expected_len || memcmp(got, d->expected, len) != 0) {
      char want_hex[2 * EVP_MAX_MD_SIZE + 1], got_hex[2 * EVP_MAX_MD_SIZE + 1];
      lw_hex_encode(d->expected, d->expected_len, want_hex);
      lw_hex_encode(got, len, got_hex);
      return lw_error_set(
        err, LW_ERR_CHECKSUM, "checksum mismatch: %s %s is %s, the body's is %s (%s)",
        d->source, d->name, want_hex, got_hex, f->res->final_url ? f->res->final_url : "");
    }
    int n = snprintf(f->res->checksums_verified + used,
                     sizeof(f->res->checksums_verified) - used, "%s%s %s", used ? ", " : "",
                     d->source, d->name);
    if (n > 0 && used + (size_t)n < sizeof(f->res->checksums_verified)) {
      used += (size_t)n;
    }
  }
  return LW_OK;
}

static void copy_header(Fetch *f, const char *name, char *buf, size_t size)
{
  const char *v = hop_header(f, name);
  snprintf(buf, size, "%s", v ? v : "");
}

static LwStatus finish_ok(Fetch *f, LwError *err)
{
  LwFetchResult *res = f->res;
  lw_content_counter_finish(f->counter, &res->content);
  res->have_content = true;
  LW_TRY(verify_digests(f, err));
  const char *prev = f->opts->previous_hash;
  if (prev && !strcasecmp(prev, res->content.hash)) {
    res->same_hash = true;
    return LW_NOTHING;
  }
  return LW_OK;
}

static LwStatus declared_checksum(Fetch *f, LwError *err)
{
  const char *c = f->opts->checksum;
  if (!c || !*c) {
    return LW_OK;
  }
  const char *colon = strrchr(c, ':');
  if (!colon) {
    return lw_error_set(err, LW_ERR_USAGE, "checksum \"%s\" is not ALGO:HEX", c);
  }
  const char *source = f->opts->checksum_source ? f->opts->checksum_source : "declared";
  if (!add_digest(f, c, (size_t)(colon - c), colon + 1, strlen(colon + 1), true, source)) {
    return lw_error_set(err, LW_ERR_USAGE,
                        "checksum \"%s\": unknown algorithm or bad hex value", c);
  }
  return LW_OK;
}

static LwStatus fetch_init(Fetch *f, const LwFetchOptions *opts, LwFetchResult *res,
                           LwError *err)
{
  lw_fetch_global_init();
  memset(res, 0, sizeof(*res));
  res->retry_after = -1;
  res->begin = now_epoch();
  res->http = json_array();
  f->opts = opts;
  f->res = res;
  f->max_bytes = opts->max_bytes;
  f->identity = true;
  f->hop_headers = json_object();
  f->counter = lw_content_counter_new();
  f->curl = curl_easy_init();
  if (!res->http || !f->hop_headers || !f->counter || !f->curl) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  return declared_checksum(f, err);
}

static void fetch_cleanup(Fetch *f)
{
  pipe_finish(f->pipe);
  f->pipe = NULL;
  close_file(f);
  for (int i = 0; i < f->ndigests; ++i) {
    EVP_MD_CTX_free(f->digests[i].ctx);
  }
  lw_content_counter_free(f->counter);
  json_decref(f->hop_headers);
  if (f->curl) {
    curl_easy_cleanup(f->curl);
  }
  curl_slist_free_all(f->headers);
  curl_slist_free_all(f->resolve);
  free(f->url);
  free(f->mem);
  f->res->end = now_epoch();
}

static void record_last_response(Fetch *f)
{
  copy_header(f, "etag", f->res->etag, sizeof(f->res->etag));
  copy_header(f, "last-modified", f->res->last_modified, sizeof(f->res->last_modified));
  copy_header(f, "content-type", f->res->content_type, sizeof(f->res->content_type));
  copy_header(f, "content-encoding", f->res->content_encoding,
              sizeof(f->res->content_encoding));
}

/* Sets up the transfer of url; nothing is sent yet (the hops do). */
static LwStatus prepare(Fetch *f, const char *url, LwError *err)
{
  setup_curl(f, f->ua, sizeof(f->ua));
  f->headers = request_headers(f);
  f->resolve = resolve_list(f->opts);
  curl_easy_setopt(f->curl, CURLOPT_HTTPHEADER, f->headers);
  if (f->resolve) {
    curl_easy_setopt(f->curl, CURLOPT_RESOLVE, f->resolve);
  }
  const LwFetchOptions *o = f->opts;
  f->max_redirects = o->max_redirects == 0  ? LW_FETCH_DEFAULT_MAX_REDIRECTS
                     : o->max_redirects < 0 ? 0
                                            : o->max_redirects;
  f->t_start = lw_monotonic_seconds();
  f->url = strdup(url);
  if (!f->url) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  return LW_OK;
}

/* The body file's fate once the hops ended with st: renamed into place
 * (complete and verified), kept for a resume, or removed. Returns the
 * fetch's status. */
static LwStatus settle_body(Fetch *f, LwStatus st, LwError *err)
{
  const LwFetchOptions *opts = f->opts;
  LwFetchResult *res = f->res;
  /* Whatever happened, what arrived is now written (a partial to keep). */
  bool written = pipe_finish(f->pipe);
  f->pipe = NULL;
  if (st == LW_OK && !written) {
    st = lw_error_set(err, LW_ERR_IO, "cannot write %s: %s", f->file_path, strerror(errno));
  }
  if (st == LW_OK && f->file && fflush(f->file) != 0) {
    st = lw_error_set(err, LW_ERR_IO, "cannot write %s: %s", f->file_path, strerror(errno));
  }
  if (st == LW_OK) {
    st = finish_ok(f, err);
  }
  if (st == LW_OK) {
    close_file(f);
    const char *dest = opts->dest_path;
    if (dest) {
      st = lw_store_commit(f->file_path, dest, err);
    }
    if (st == LW_OK) {
      snprintf(res->path, sizeof(res->path), "%s", dest ? dest : f->file_path);
      if (opts->partial_path) {
        char mpath[4200];
        meta_path(opts->partial_path, mpath, sizeof(mpath));
        unlink(mpath);
      }
    } else {
      unlink(f->file_path);
    }
  } else if (f->file && keep_partial(f, st)) {
    res->partial_kept = true;
    close_file(f);
  } else if (f->file) {
    discard_body(f);
  }
  return st;
}

/* The first half of lw_fetch: everything up to the first hop. */
LwStatus lw_fetch_state_open(Fetch *f, const char *url, const LwFetchOptions *opts,
                             LwFetchResult *res, LwError *err)
{
  LW_TRY(fetch_init(f, opts, res, err));
  LW_TRY(open_body(f, err));
  return prepare(f, url, err);
}

/* The second half, once the hops ended with st. */
LwStatus lw_fetch_state_close(Fetch *f, LwStatus st, LwError *err)
{
  if (f->curl && f->url) {
    record_last_response(f);
  }
  st = settle_body(f, st, err);
  fetch_cleanup(f);
  return st;
}

LwStatus lw_fetch(const char *url, const LwFetchOptions *opts, LwFetchResult *res,
                  LwError *err)
{
  Fetch f;
  memset(&f, 0, sizeof(f));
  LwStatus st = lw_fetch_state_open(&f, url, opts, res, err);
  if (st == LW_OK) {
    st = run_hops(&f, err);
  }
  return lw_fetch_state_close(&f, st, err);
}

LwStatus lw_fetch_small(const char *url, const LwFetchOptions *opts, size_t max_size,
                        char **body, size_t *len, LwFetchResult *res, LwError *err)
{
  *body = NULL;
  *len = 0;
  Fetch f;
  memset(&f, 0, sizeof(f));
  f.to_memory = true;
  LwStatus st = fetch_init(&f, opts, res, err);
  if (max_size > 0 && (f.max_bytes == 0 || f.max_bytes > max_size)) {
    f.max_bytes = max_size;
  }
  if (st == LW_OK) {
    st = prepare(&f, url, err);
  }
  if (st == LW_OK) {
    st = run_hops(&f, err);
    record_last_response(&f);
  }
  if (st == LW_OK) {
    st = finish_ok(&f, err);
  }
  if (st == LW_OK) {
    if (!f.mem) {
      f.mem = malloc(1);
    }
    if (!f.mem) {
      st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    } else {
      f.mem[f.mem_len] = '\0';
      *body = f.mem;
      *len = f.mem_len;
      f.mem = NULL;
    }
  }
  fetch_cleanup(&f);
  return st;
}

void lw_fetch_result_clear(LwFetchResult *res)
{
  if (!res) {
    return;
  }
  json_decref(res->http);
  free(res->final_url);
  memset(res, 0, sizeof(*res));
  res->retry_after = -1;
}

json_t *lw_fetch_timestamp_json(const LwFetchResult *res)
{
  return json_pack("{s:f, s:f}", "begin", res->begin, "end", res->end);
}

/* ---- for the multi driver (net/fetch_internal.h) ----------------------- */

Fetch *lw_fetch_state_new(void)
{
  return calloc(1, sizeof(Fetch));
}

CURL *lw_fetch_state_curl(Fetch *f)
{
  return f->curl;
}
