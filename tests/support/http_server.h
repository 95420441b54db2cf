/*
 * A scriptable HTTP server for tests: libmicrohttpd on 127.0.0.1, port 0
 * (the kernel picks a free one), in the test's own process on its own
 * threads (one per connection, so a slow route never blocks another).
 *
 * A test scripts routes, then fetches them for real over loopback:
 *
 *   LwTestServer *srv = lw_test_server_start();
 *   lw_test_server_add(srv, "/a", &(LwTestResponse){.status = 500});
 *   lw_test_server_add(srv, "/a", &(LwTestResponse){.body = "hello\n"});
 *   char url[256];
 *   lw_test_server_url(srv, "/a", url, sizeof(url));   // http://127.0.0.1:P/a
 *   ... first GET gets the 500, every later GET the 200 ...
 *   lw_test_server_stop(srv);
 *
 * Each path has a sequence of responses: request k gets response k, and the
 * last one repeats. A path with no responses answers 404. Paths are matched
 * exactly, without the query string.
 *
 * A response is a status, headers and a body, and behaviours that compose:
 * redirects (location), conditional GET (etag / last_modified: a matching
 * If-None-Match or If-Modified-Since gets 304), Range requests (ranges:
 * bytes=A- and bytes=A-B get 206 with Content-Range; If-Range is honoured),
 * Content-Encoding (gzip or deflate, compressed on the fly), a slow drip
 * (drip_bytes every drip_ms), a delay before the headers, and a lying
 * Content-Length (truncate_after: the full length is announced, the
 * connection closes after that many body bytes). Bodies are a static string,
 * a file (sent with sendfile when nothing else applies), or generated on the
 * fly without being held in memory (LW_TEST_BODY_LINES: fixed-width
 * N-Triples lines, see lw_test_lines_fill; LW_TEST_BODY_ZEROS: zero bytes,
 * for compression bombs), of any size.
 *
 * The server counts requests per path and keeps the method, headers and
 * body of the latest request to each path, so a test can assert what the
 * client sent (any method is answered from the same script: a POST or PUT
 * body is read whole first).
 */
#ifndef LW_TEST_HTTP_SERVER_H
#define LW_TEST_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct LwTestServer LwTestServer;

typedef enum {
  LW_TEST_BODY_STATIC = 0, /* body / body_len (or file, if set) */
  LW_TEST_BODY_LINES,      /* `size` bytes of lw_test_lines_fill */
  LW_TEST_BODY_ZEROS       /* `size` zero bytes */
} LwTestBodyKind;

typedef struct {
  int status;                /* 0: 200, or 302 when location is set */
  const char *body;          /* static body (copied); NULL: empty */
  size_t body_len;           /* 0: strlen(body) */
  const char *file;          /* serve this file instead (path copied) */
  LwTestBodyKind kind;       /* generated bodies: LINES or ZEROS ... */
  uint64_t size;             /* ... of this many bytes */
  const char *content_type;  /* Content-Type; NULL: none */
  const char *headers;       /* extra headers: "Name: value\n" lines */
  const char *location;      /* Location header: a redirect */
  const char *etag;          /* ETag sent; If-None-Match with it: 304 */
  const char *last_modified; /* Last-Modified sent; same If-Modified-Since: 304 */
  bool ranges;               /* Accept-Ranges: bytes, and Range honoured */
  const char *encoding;      /* "gzip" or "deflate": compressed on the fly */
  uint64_t truncate_after;   /* >0: close after this many body bytes, though
                                Content-Length announces them all */
  size_t drip_bytes;         /* >0: send this many bytes ... */
  unsigned drip_ms;          /* ... then wait this long, until done */
  unsigned delay_ms;         /* wait this long before answering */
} LwTestResponse;

/* Starts a server on 127.0.0.1 and a free port; NULL (with a message on
 * stderr) if libmicrohttpd cannot start. */
LwTestServer *lw_test_server_start(void);

/* Stops the server, waiting for its connections to end (slow routes notice
 * and stop early). NULL safe. */
void lw_test_server_stop(LwTestServer *server);

unsigned lw_test_server_port(const LwTestServer *server);

/* "http://127.0.0.1:PORT" followed by path into buf; returns buf. */
const char *lw_test_server_url(const LwTestServer *server, const char *path, char *buf,
                               size_t size);

/* "127.0.0.1:PORT": the allow-list entry that exempts exactly this server. */
const char *lw_test_server_allow(const LwTestServer *server);

/* Appends a response to path's sequence (everything is copied). */
void lw_test_server_add(LwTestServer *server, const char *path,
                        const LwTestResponse *response);

/* Forgets path's responses and counts (the next add starts a new script). */
void lw_test_server_clear(LwTestServer *server, const char *path);

/* Requests received for path so far. */
int lw_test_server_hits(LwTestServer *server, const char *path);

/* The value of header name (case-insensitive) in the latest request to path,
 * copied into buf; NULL when there was no such request or header. */
const char *lw_test_server_request_header(LwTestServer *server, const char *path,
                                          const char *name, char *buf, size_t size);

/* The method of the latest request to path ("GET", "POST", ...) copied
 * into buf; NULL when there was none. */
const char *lw_test_server_request_method(LwTestServer *server, const char *path, char *buf,
                                          size_t size);

/* A copy of the body of the latest request to path (uploads up to 16 MB
 * are kept), NUL-terminated, its length in *len (may be NULL); NULL when
 * there was no request. Caller frees. */
char *lw_test_server_request_body(LwTestServer *server, const char *path, size_t *len);

/* Generated test content: fixed-width N-Triples lines (72 bytes each,
 * "<http://example.org/s0000000001> <http://example.org/p> \"v0000000001\" .\n"),
 * so any byte range can be produced without the bytes before it. Fills buf
 * with bytes [offset, offset + len) of the endless stream. */
#define LW_TEST_LINE_LEN 72
void lw_test_lines_fill(uint64_t offset, void *buf, size_t len);

/* MD5 hex of the first size bytes of that stream (computed in chunks). */
void lw_test_lines_md5(uint64_t size, char out[33]);

#endif
